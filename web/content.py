"""Request bodies of the API must be JSON: anything else is 415 before a view runs, JSON
nested deeper than any schema uses is 400 before it is parsed. A path holding NUL names
nothing: 404 (PostgreSQL could not even look it up)."""

from __future__ import annotations

import re

from flask import Flask, request
from flask_smorest import abort

BODY_METHODS = ("POST", "PUT", "PATCH")
# Every PATCH/PUT operation documents a required body (some POSTs, e.g. `…/stop`, take none).
BODIES_REQUIRED = ("PUT", "PATCH")
API_PREFIX = "/api/"
# Deeper than any documented body (the deepest is a few levels); bounds every recursive walk
# of a body, the JSON parser's included.
MAX_JSON_DEPTH = 32
_JSON_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def json_depth(raw: bytes) -> int:
    """The deepest nesting of arrays and objects in a JSON text (strings skipped).

    Strings and everything but brackets are dropped by C-speed passes, so only the brackets
    are walked in Python."""
    brackets = _JSON_STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    depth = deepest = 0
    for byte in brackets:
        if byte in b"[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def _may_nest_deeper(raw: bytes) -> bool:
    # Nesting needs an opening bracket per level: a body with few of them (nearly every one)
    # is settled by two C-speed counts, without walking it.
    return raw.count(b"[") + raw.count(b"{") > MAX_JSON_DEPTH


def init_app(app: Flask) -> None:
    @app.before_request
    def _refuse_nul_in_path() -> None:
        if "\x00" in request.path:
            abort(404)

    @app.before_request
    def _require_json_body() -> None:
        if request.method not in BODY_METHODS or not request.path.startswith(API_PREFIX):
            return
        if request.routing_exception is not None:
            return  # 404/405 come first: there is no operation to take a body
        has_body = bool(request.content_length) or bool(request.headers.get("Transfer-Encoding"))
        if not has_body and request.method in BODIES_REQUIRED:
            abort(400, message="A JSON body is required.")
        if has_body and not request.is_json:
            abort(415, message="Request bodies must be JSON (Content-Type: application/json).")
        if has_body and _may_nest_deeper(request.get_data(cache=True)) \
                and json_depth(request.get_data(cache=True)) > MAX_JSON_DEPTH:
            abort(400, message=f"JSON nested deeper than {MAX_JSON_DEPTH} levels is refused.")
