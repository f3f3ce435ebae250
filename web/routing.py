"""URL converters for the API's routes."""

from __future__ import annotations

import json
import re

from flask import Flask, Response, redirect, request
from werkzeug.http import HTTP_STATUS_CODES
from werkzeug.routing import BaseConverter, Map, RequestRedirect

DOCS_PATH = "/api/docs"


class IdExceptConverter(BaseConverter):
    """A record id that is not one of the given words: ``<id_except(start):clinical_session_id>``
    beside ``/start``. Without it ``/api/clinical/start`` also matches the id route, so a GET
    there answers 404 "not found" instead of 405, and OPTIONS lists GET among its methods."""

    def __init__(self, url_map: Map, *words: str) -> None:
        super().__init__(url_map)
        self.regex = rf"(?!(?:{'|'.join(map(re.escape, words))})$)[^/]+"


def init_app(app: Flask) -> None:
    app.url_map.converters["id_except"] = IdExceptConverter
    # The docs page's own assets live under /api/docs/, so that address is a natural guess.
    app.add_url_rule(f"{DOCS_PATH}/", "docs_with_slash",
                     lambda: redirect(DOCS_PATH, code=308), strict_slashes=True)

    @app.after_request
    def _redirect_in_json(response: Response) -> Response:
        # Routing's own redirects (`/rq` → `/rq/`) carried werkzeug's HTML page; every
        # answer of the service is JSON.
        if 300 <= response.status_code < 400 and response.mimetype == "text/html" and (
                isinstance(request.routing_exception, RequestRedirect)
                or request.endpoint == "docs_with_slash"):
            response.set_data(json.dumps({
                "code": response.status_code,
                "status": HTTP_STATUS_CODES[response.status_code],
                "message": f"This resource is at {response.location}."},
                separators=(",", ":")) + "\n")
            response.mimetype = "application/json"
        return response
