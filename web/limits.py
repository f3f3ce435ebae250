"""Rate limits per token and per client address, counted in the app's Redis."""

from __future__ import annotations

import time

from flask import Flask, request
from flask_limiter import Limit, Limiter
from flask_limiter.util import get_remote_address

from web.auth import identify, rate_limit_key


def _storage_uri(redis_url: str) -> str:
    # flask-limiter (via `limits`) spells a unix-socket Redis as redis+unix://
    if redis_url.startswith("unix://"):
        return "redis+unix://" + redis_url[len("unix://"):]
    return redis_url


VOICE_WEBHOOK_PATHS = frozenset({"/api/voice/webhook", "/api/voice/webhook/assistant-request"})


def _seconds_to_reset(limiter: Limiter) -> int:
    try:
        limit = limiter.current_limit
        return max(1, int(limit.reset_at - time.time())) if limit else 1
    except Exception:  # noqa: BLE001 (Redis gone: a short, safe hint rather than a 500)
        return 1


def init_app(app: Flask) -> None:
    limiter = Limiter(
        key_func=rate_limit_key,
        default_limits=[
            Limit(lambda: app.config["RATELIMIT_DEFAULT"], key_function=rate_limit_key),
            # Per address, the requests without a valid token (scanners, guessing): a clinic
            # whose staff share one NAT address is limited per token, not as one client.
            # It also spares an authenticated request a second Redis round trip.
            Limit(lambda: app.config["RATELIMIT_PER_IP"], key_function=get_remote_address,
                  exempt_when=lambda: identify() is not None),
        ],
        storage_uri=_storage_uri(app.config["REDIS_URL_EFFECTIVE"]),
        # No X-RateLimit-* headers on every answer: reading the window back costs two more
        # Redis round trips per request. A 429 says when to retry (below).
        headers_enabled=False,
        # Redis down must not turn every request (health included) into a 500: count in
        # process memory until it is back, and never fail a request on a limiter error.
        in_memory_fallback_enabled=True,
        swallow_errors=True,
        enabled=app.config["RATELIMIT_ENABLED"],
        key_prefix=f"{app.config.get('QUEUE_PREFIX') or ''}cws-limits",
    )

    @app.after_request
    def _retry_after_when_limited(response):
        # The window is read back only for the request that broke a limit.
        if response.status_code == 429 and "Retry-After" not in response.headers:
            response.headers["Retry-After"] = str(_seconds_to_reset(limiter))
        return response

    @limiter.request_filter
    def _signed_voice_messages() -> bool:
        # The voice platform posts every event of every call from a few addresses (hundreds a
        # second on a busy line); those requests are authenticated by HMAC and an unsigned one
        # is refused before any work, so a per-address limit would only drop real calls.
        return request.method == "POST" and request.path in VOICE_WEBHOOK_PATHS

    limiter.init_app(app)
    app.extensions["cws_limiter"] = limiter
