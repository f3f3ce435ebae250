def test_create_and_list_session(client, auth):
    body = {"patient_id": "pat-1", "provider_id": "prov-1", "session_date": "2026-11-20T15:00:00Z"}
    created = client.post("/api/therapy-sessions", json=body, headers=auth)
    assert created.status_code == 201, created.json
    listed = client.get("/api/therapy-sessions", headers=auth)
    assert listed.status_code == 200
    assert [s["id"] for s in listed.json] == [created.json["id"]]
