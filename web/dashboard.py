"""The RQ dashboard at /rq, behind HTTP Basic auth (user `admin`, RQ_DASHBOARD_PASSWORD);
closed with 401 when no password is configured."""

from __future__ import annotations

import hmac

import rq_dashboard
from flask import Flask, request
from flask_smorest import abort
from rq_dashboard.web import setup_rq_connection

DASHBOARD_USER = "admin"
URL_PREFIX = "/rq"
CHALLENGE = {"WWW-Authenticate": 'Basic realm="rq-dashboard"'}


def _authorized(password: str) -> bool:
    auth = request.authorization
    if not password or auth is None or auth.type != "basic":
        return False
    user_ok = hmac.compare_digest((auth.username or "").encode(), DASHBOARD_USER.encode())
    password_ok = hmac.compare_digest((auth.password or "").encode(), password.encode())
    return user_ok and password_ok


def init_app(app: Flask) -> None:
    app.config["RQ_DASHBOARD_REDIS_URL"] = app.config["REDIS_URL_EFFECTIVE"]
    # The blueprint reads `app.redis_conn`, which only this call sets (the dashboard's own
    # app factory makes it; an embedding app must too).
    setup_rq_connection(app)
    app.register_blueprint(rq_dashboard.blueprint, url_prefix=URL_PREFIX)

    @app.before_request
    def _guard_dashboard():
        if request.blueprint == rq_dashboard.blueprint.name and not _authorized(
                app.config["RQ_DASHBOARD_PASSWORD"]):
            abort(401, message="The queue dashboard needs the operator's password.",
                  headers=CHALLENGE)
