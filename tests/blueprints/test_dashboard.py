"""The RQ dashboard at /rq: HTTP Basic with user `admin` and RQ_DASHBOARD_PASSWORD, closed
(401) when no password is configured."""

import base64

import pytest

PASSWORD = "correct horse battery staple"


def basic(user, password):
    return {"Authorization": "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()}


def assert_closed(response):
    assert response.status_code == 401
    assert response.json["code"] == 401
    assert response.headers["WWW-Authenticate"].startswith("Basic")


def test_closed_without_a_configured_password(make_app):
    client = make_app(RQ_DASHBOARD_PASSWORD="").test_client()
    assert_closed(client.get("/rq/", headers=basic("admin", "")))
    assert_closed(client.get("/rq/", headers=basic("admin", PASSWORD)))


def test_no_credentials_is_401(make_app):
    client = make_app(RQ_DASHBOARD_PASSWORD=PASSWORD).test_client()
    assert_closed(client.get("/rq/"))


@pytest.mark.parametrize("user,password", [("admin", "wrong"), ("root", PASSWORD),
                                           ("admin", PASSWORD + "x")])
def test_wrong_credentials_are_401(make_app, user, password):
    client = make_app(RQ_DASHBOARD_PASSWORD=PASSWORD).test_client()
    assert_closed(client.get("/rq/", headers=basic(user, password)))


def test_bearer_token_does_not_open_it(make_app, auth):
    client = make_app(RQ_DASHBOARD_PASSWORD=PASSWORD).test_client()
    assert_closed(client.get("/rq/", headers=auth))


def test_admin_with_the_password_sees_the_dashboard(make_app):
    client = make_app(RQ_DASHBOARD_PASSWORD=PASSWORD).test_client()
    response = client.get("/rq/", headers=basic("admin", PASSWORD))
    assert response.status_code == 200
    assert "text/html" in response.content_type


def test_dashboard_data_reads_the_apps_redis(make_app):
    client = make_app(RQ_DASHBOARD_PASSWORD=PASSWORD).test_client()
    response = client.get("/rq/0/data/queues.json", headers=basic("admin", PASSWORD))
    assert response.status_code == 200
    assert "queues" in response.json


def test_dashboard_api_is_closed_too(make_app):
    client = make_app(RQ_DASHBOARD_PASSWORD=PASSWORD).test_client()
    assert_closed(client.get("/rq/0/data/queues.json"))
