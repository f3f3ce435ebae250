"""Rate limits per token and per client address, counted in the app's Redis."""

from __future__ import annotations

from flask import Flask
from flask_limiter import Limit, Limiter
from flask_limiter.util import get_remote_address

from web.auth import rate_limit_key


def _storage_uri(redis_url: str) -> str:
    # flask-limiter (via `limits`) spells a unix-socket Redis as redis+unix://
    if redis_url.startswith("unix://"):
        return "redis+unix://" + redis_url[len("unix://"):]
    return redis_url


def init_app(app: Flask) -> None:
    limiter = Limiter(
        key_func=rate_limit_key,
        default_limits=[
            Limit(lambda: app.config["RATELIMIT_DEFAULT"], key_function=rate_limit_key),
            Limit(lambda: app.config["RATELIMIT_PER_IP"], key_function=get_remote_address),
        ],
        storage_uri=_storage_uri(app.config["REDIS_URL_EFFECTIVE"]),
        headers_enabled=True,
        enabled=app.config["RATELIMIT_ENABLED"],
        key_prefix=f"{app.config.get('QUEUE_PREFIX') or ''}cws-limits",
    )
    limiter.init_app(app)
    app.extensions["cws_limiter"] = limiter
