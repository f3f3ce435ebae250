"""Rate limits per token and per client address, counted in the app's Redis."""

from __future__ import annotations

from flask import Flask, g, request
from flask_limiter import Limit, Limiter
from flask_limiter.util import get_remote_address

from web.auth import rate_limit_key


def _storage_uri(redis_url: str) -> str:
    # flask-limiter (via `limits`) spells a unix-socket Redis as redis+unix://
    if redis_url.startswith("unix://"):
        return "redis+unix://" + redis_url[len("unix://"):]
    return redis_url


VOICE_WEBHOOK_PATHS = frozenset({"/api/voice/webhook", "/api/voice/webhook/assistant-request"})


def init_app(app: Flask) -> None:
    limiter = Limiter(
        key_func=rate_limit_key,
        default_limits=[
            Limit(lambda: app.config["RATELIMIT_DEFAULT"], key_function=rate_limit_key),
            Limit(lambda: app.config["RATELIMIT_PER_IP"], key_function=get_remote_address),
        ],
        storage_uri=_storage_uri(app.config["REDIS_URL_EFFECTIVE"]),
        headers_enabled=True,
        # Redis down must not turn every request (health included) into a 500: count in
        # process memory until it is back, and never fail a request on a limiter error.
        in_memory_fallback_enabled=True,
        swallow_errors=True,
        enabled=app.config["RATELIMIT_ENABLED"],
        key_prefix=f"{app.config.get('QUEUE_PREFIX') or ''}cws-limits",
    )

    @app.after_request
    def _retry_after_only_when_limited(response):
        # Registered before the limiter's own hook, so it runs after it (Flask runs them in
        # reverse): the limiter stamps Retry-After on every response, which misleads clients.
        # A view that sets its own (a job's polling interval) says so in `g.keep_retry_after`.
        if response.status_code != 429 and not g.get("keep_retry_after"):
            response.headers.pop("Retry-After", None)
        return response

    @limiter.request_filter
    def _signed_voice_messages() -> bool:
        # The voice platform posts every event of every call from a few addresses (hundreds a
        # second on a busy line); those requests are authenticated by HMAC and an unsigned one
        # is refused before any work, so a per-address limit would only drop real calls.
        return request.method == "POST" and request.path in VOICE_WEBHOOK_PATHS

    limiter.init_app(app)
    app.extensions["cws_limiter"] = limiter
