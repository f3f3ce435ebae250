"""Binding the database proxy to the app, and a connection per request (503 when the database
is down)."""

from __future__ import annotations

import logging
from pathlib import Path

from flask import Flask
from flask_smorest import abort
from peewee import InterfaceError, OperationalError

from models.base import bind_database, db

logger = logging.getLogger(__name__)
HEALTH_ENDPOINT = "health.Health"


def init_app(app: Flask) -> None:
    url = app.config["DATABASE_URL"]
    if url.startswith("sqlite:///"):
        Path(url[len("sqlite:///"):]).parent.mkdir(parents=True, exist_ok=True)
    bind_database(url, pooled=True)

    @app.before_request
    def _connect() -> None:
        try:
            db.connect(reuse_if_open=True)
        except OperationalError:
            logger.exception("database connection failed")
            from flask import request

            if request.endpoint != HEALTH_ENDPOINT:
                abort(503, message="The database is unavailable; try again shortly.")

    @app.errorhandler(OperationalError)
    @app.errorhandler(InterfaceError)
    def _database_unavailable(error: Exception):
        # A dropped connection inside a transaction (after one outside is retried on a new
        # connection), or SQLite's writer busy past its timeout: nothing was committed.
        logger.warning("database error: %s", type(error).__name__)
        body = {"code": 503, "status": "Service Unavailable",
                "message": "The database is unavailable; try again shortly."}
        return body, 503, {"Retry-After": "1"}

    @app.teardown_request
    def _close(exc: BaseException | None) -> None:
        if not db.is_closed():
            db.close()
