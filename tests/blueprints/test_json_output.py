"""Responses encoded by orjson (web/json_output.py): the same JSON as Flask's encoder."""

import json
from datetime import UTC, datetime

from tests.conftest import SESSION_BODY


def test_a_page_of_records_is_the_json_flask_would_send(client, auth):
    body = {**SESSION_BODY, "chief_complaints": ["sommeil agité", "humeur — basse", "😀"]}
    assert client.post("/api/therapy-sessions", json=body,
                       headers=auth).status_code == 201
    response = client.get("/api/therapy-sessions", headers=auth)
    raw = response.get_data()
    assert response.mimetype == "application/json" and raw.endswith(b"}]\n")
    listed = json.loads(raw)
    assert listed[0]["chief_complaints"] == body["chief_complaints"]
    # Keys in the schema's order, compact: Flask's own encoding of the same value, but
    # non-ASCII characters as UTF-8.
    flask_encoding = json.dumps(listed, separators=(",", ":"), ensure_ascii=False) + "\n"
    assert raw.decode("utf-8") == flask_encoding


def test_what_orjson_refuses_is_encoded_as_before(app):
    with app.test_request_context():
        for value in ({"big": 2**70}, {"text": "\ud83d lone surrogate"},
                      {"at": datetime(2026, 11, 26, 12, 0, tzinfo=UTC)}):
            sent = app.json.response(value).get_data(as_text=True)
            assert sent == json.dumps(value, separators=(",", ":"),
                                      default=app.json.default) + "\n"
    assert '"Thu, 26 Nov 2026 12:00:00 GMT"' in sent  # a date as Flask writes it
