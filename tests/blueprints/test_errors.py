"""One JSON error shape for every status: code, status, message; never HTML, never a
traceback."""

import pytest

from tests.conftest import SESSION_BODY, bearer


def assert_error_shape(response, code):
    assert response.status_code == code
    assert response.content_type == "application/json"
    body = response.json
    assert body["code"] == code
    assert isinstance(body["status"], str) and body["status"]
    assert isinstance(body["message"], str) and body["message"]
    text = response.get_data(as_text=True)
    assert "<html" not in text.lower()
    assert "Traceback" not in text
    # `errors` holds an object of fields per location (SPEC §2), never a bare list.
    assert all(isinstance(fields, dict) for fields in body.get("errors", {}).values()), body


def test_malformed_json_is_400(client, auth):
    response = client.post("/api/therapy-sessions", data='{"patient_id": ',
                           content_type="application/json", headers=auth)
    assert_error_shape(response, 400)
    assert response.json["errors"] == {"json": {"_schema": ["Invalid JSON body."]}}


def test_missing_token_is_401(client):
    assert_error_shape(client.get("/api/therapy-sessions"), 401)


def test_missing_scope_is_403(client, org, make_token):
    response = client.get("/api/therapy-sessions",
                          headers=bearer(make_token(org, "templates:read")))
    assert_error_shape(response, 403)


@pytest.mark.parametrize("path", ["/api/no-such-thing", "/no-such-page"])
def test_unknown_route_is_404(client, auth, path):
    assert_error_shape(client.get(path, headers=auth), 404)


def test_unknown_session_is_404(client, auth):
    assert_error_shape(client.get("/api/therapy-sessions/ses_unknown", headers=auth), 404)


def test_wrong_method_is_405(client, auth):
    assert_error_shape(client.delete("/api/therapy-sessions", headers=auth), 405)


def test_forbidden_transition_is_409(client, auth, make_session):
    session = make_session()
    response = client.patch(f"/api/therapy-sessions/{session['id']}",
                            json={"status": "completed"}, headers=auth)
    assert_error_shape(response, 409)


def test_body_over_max_content_length_is_413(make_app, auth):
    client = make_app(MAX_CONTENT_LENGTH=1024).test_client()
    body = {**SESSION_BODY, "chief_complaints": ["x" * 1500]}
    response = client.post("/api/therapy-sessions", json=body, headers=auth)
    assert_error_shape(response, 413)


def test_body_under_max_content_length_is_accepted(make_app, auth):
    client = make_app(MAX_CONTENT_LENGTH=1024).test_client()
    response = client.post("/api/therapy-sessions", json=SESSION_BODY, headers=auth)
    assert response.status_code == 201


def test_text_body_is_415(client, auth):
    response = client.post("/api/therapy-sessions", data="patient_id=pat-1",
                           content_type="text/plain", headers=auth)
    assert_error_shape(response, 415)


def test_form_body_is_415(client, auth):
    response = client.post("/api/therapy-sessions", data=SESSION_BODY, headers=auth)
    assert_error_shape(response, 415)


def test_invalid_field_is_422_with_field_errors(client, auth):
    response = client.post("/api/therapy-sessions", json={**SESSION_BODY, "duration_minutes": 0},
                           headers=auth)
    assert_error_shape(response, 422)
    assert response.json["status"] == "Unprocessable Entity"
    assert list(response.json["errors"]["json"]) == ["duration_minutes"]


def test_too_many_requests_is_429(make_app, auth):
    client = make_app(RATELIMIT_ENABLED=True, RATELIMIT_DEFAULT="1 per minute").test_client()
    client.get("/api/therapy-sessions", headers=auth)
    assert_error_shape(client.get("/api/therapy-sessions", headers=auth), 429)


def test_unexpected_exception_is_500_without_traceback(make_app):
    app = make_app(TESTING=False, PROPAGATE_EXCEPTIONS=False)

    @app.get("/api/explode")
    def explode():
        raise RuntimeError("secret internals: /srv/cws/db.py line 12")

    response = app.test_client().get("/api/explode")
    assert_error_shape(response, 500)
    assert "secret internals" not in response.get_data(as_text=True)


def test_database_down_is_503(make_app, auth):
    closed_port = "postgresql://postgres@127.0.0.1:1/cws"
    client = make_app(DATABASE_URL=closed_port, AUTO_MIGRATE=False).test_client()
    assert_error_shape(client.get("/api/therapy-sessions", headers=auth), 503)
