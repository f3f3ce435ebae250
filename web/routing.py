"""URL converters for the API's routes."""

from __future__ import annotations

import re

from flask import Flask
from werkzeug.routing import BaseConverter, Map


class IdExceptConverter(BaseConverter):
    """A record id that is not one of the given words: ``<id_except(start):clinical_session_id>``
    beside ``/start``. Without it ``/api/clinical/start`` also matches the id route, so a GET
    there answers 404 "not found" instead of 405, and OPTIONS lists GET among its methods."""

    def __init__(self, url_map: Map, *words: str) -> None:
        super().__init__(url_map)
        self.regex = rf"(?!(?:{'|'.join(map(re.escape, words))})$)[^/]+"


def init_app(app: Flask) -> None:
    app.url_map.converters["id_except"] = IdExceptConverter
