"""Headers every answer carries: answers hold patient data, so no cache keeps them, and no
browser guesses a type other than the one sent."""

from __future__ import annotations

from flask import Flask, Response


def init_app(app: Flask) -> None:
    @app.after_request
    def _security_headers(response: Response) -> Response:
        headers = response.headers
        headers.setdefault("Cache-Control", "no-store")
        headers.setdefault("X-Content-Type-Options", "nosniff")
        return response
