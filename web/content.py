"""Request bodies of the API must be JSON: anything else is 415 before a view runs. A path
holding NUL names nothing: 404 (PostgreSQL could not even look it up)."""

from __future__ import annotations

from flask import Flask, request
from flask_smorest import abort

BODY_METHODS = ("POST", "PUT", "PATCH")
API_PREFIX = "/api/"


def init_app(app: Flask) -> None:
    @app.before_request
    def _refuse_nul_in_path() -> None:
        if "\x00" in request.path:
            abort(404)

    @app.before_request
    def _require_json_body() -> None:
        if request.method not in BODY_METHODS or not request.path.startswith(API_PREFIX):
            return
        has_body = bool(request.content_length) or bool(request.headers.get("Transfer-Encoding"))
        if has_body and not request.is_json:
            abort(415, message="Request bodies must be JSON (Content-Type: application/json).")
