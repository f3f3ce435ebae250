"""The public health check: database and Redis status, 503 in the error shape when one is
down."""

from tests.conftest import bearer

URL = "/api/voice/webhook/health"
CLOSED_REDIS = "redis://127.0.0.1:1/0"


def test_health_is_public_and_reports_ok(client):
    response = client.get(URL)
    assert response.status_code == 200
    report = response.json
    assert report["status"] == "ok"
    assert report["database"]["status"] == "ok"
    assert report["redis"]["status"] == "ok"
    assert report["checked_at"].endswith("Z")


def test_health_ignores_an_invalid_token(client):
    assert client.get(URL, headers=bearer("cws_garbage")).status_code == 200


def test_redis_down_is_503_with_the_redis_error(make_app):
    response = make_app(REDIS_URL=CLOSED_REDIS).test_client().get(URL)
    assert response.status_code == 503
    body = response.json
    assert (body["code"], body["status"]) == (503, "Service Unavailable")
    assert body["message"]
    report = body["errors"]["health"]
    assert report["redis"]["status"] == "error"
    assert report["database"]["status"] == "ok"


def test_redis_down_is_503_with_rate_limits_on(make_app):
    app = make_app(REDIS_URL=CLOSED_REDIS, RATELIMIT_ENABLED=True)
    response = app.test_client().get(URL)
    assert response.status_code == 503
    assert response.json["errors"]["health"]["redis"]["status"] == "error"


def test_database_down_is_503_with_the_database_error(make_app, app):
    closed_port = "postgresql://postgres@127.0.0.1:1/cws"
    response = make_app(DATABASE_URL=closed_port, AUTO_MIGRATE=False).test_client().get(URL)
    assert response.status_code == 503
    report = response.json["errors"]["health"]
    assert report["database"]["status"] == "error"
    assert report["redis"]["status"] == "ok"


def test_health_reveals_no_connection_details(make_app):
    text = make_app(REDIS_URL=CLOSED_REDIS).test_client().get(URL).get_data(as_text=True)
    assert "127.0.0.1" not in text
