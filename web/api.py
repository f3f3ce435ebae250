"""The flask-smorest Api, its OpenAPI settings, and the one error shape for every status."""

from __future__ import annotations

from flask import Flask
from flask_smorest import Api, Page
from werkzeug.exceptions import HTTPException

from services.errors import Conflict, DomainError, NotFound, Unprocessable, UpstreamFailure

API_TITLE = "Clinical Workflow Service"
API_VERSION = "1.0.0"
BEARER_SCHEME = "bearerAuth"
PUBLIC = []  # `@blp.doc(security=PUBLIC)` marks an operation that needs no token

_DOMAIN_STATUS = ((NotFound, 404), (Conflict, 409), (Unprocessable, 422))


class ServiceApi(Api):
    """Api whose error payload always carries `code`, `status` and `message`."""

    def handle_http_exception(self, error: HTTPException):
        payload, code, headers = super().handle_http_exception(error)
        payload.setdefault("message", error.description or error.name)
        retry_after = getattr(error, "retry_after", None)
        if retry_after is not None:
            headers = {**headers, "Retry-After": str(retry_after)}
        return payload, code, headers


class ListPage(Page):
    """Pagination over a Peewee query."""

    @property
    def items(self):
        return list(self.collection.paginate(self.page_params.page, self.page_params.page_size))

    @property
    def item_count(self):
        return self.collection.count()


api = ServiceApi()


def _domain_error_payload(error: DomainError, code: int) -> tuple[dict, int]:
    from werkzeug.http import HTTP_STATUS_CODES

    payload = {"code": code, "status": HTTP_STATUS_CODES[code], "message": error.message}
    if error.field:
        payload["errors"] = {"json": {error.field: [error.message]}}
    payload.update(error.extra)
    return payload, code


def init_app(app: Flask) -> None:
    app.config.update(
        API_TITLE=API_TITLE,
        API_VERSION=API_VERSION,
        OPENAPI_VERSION="3.0.3",
        OPENAPI_URL_PREFIX="/api",
        OPENAPI_JSON_PATH="openapi.json",
        OPENAPI_SWAGGER_UI_PATH="docs",
        OPENAPI_SWAGGER_UI_URL="https://cdn.jsdelivr.net/npm/swagger-ui-dist/",
        API_SPEC_OPTIONS={
            "security": [{BEARER_SCHEME: []}],
            "components": {"securitySchemes": {BEARER_SCHEME: {
                "type": "http", "scheme": "bearer",
                "description": "An API token (`cws_…`) created with `flask tokens create`."}}},
            "info": {"description": "Backend for therapy and behavioural-health clinics: "
                                    "sessions, note templates and post-visit analysis."},
        },
    )
    api.init_app(app)
    for error_class, code in _DOMAIN_STATUS:
        app.register_error_handler(
            error_class, lambda e, code=code: _domain_error_payload(e, code))
    app.register_error_handler(
        UpstreamFailure, lambda e: _domain_error_payload(e, e.status))
