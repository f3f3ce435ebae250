"""The baseline of bench/voice_ingest.py: a bare Flask endpoint that only checks the HMAC of
the raw body, served by gunicorn with the project's gunicorn.conf.py."""

from __future__ import annotations

import hashlib
import hmac
import os

from flask import Flask, abort, request


def create_app() -> Flask:
    app = Flask(__name__)
    secret = os.environ["VOICE_WEBHOOK_SECRET"].encode()

    @app.post("/api/voice/webhook")
    def webhook():
        presented = request.headers.get("service-voice-signature", "").removeprefix("sha256=")
        expected = hmac.new(secret, request.get_data(), hashlib.sha256).hexdigest()
        if not hmac.compare_digest(expected, presented):
            abort(401)
        return {}

    @app.get("/api/voice/webhook/health")
    def health():
        return {"status": "ok"}

    return app
