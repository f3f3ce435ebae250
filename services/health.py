"""Liveness of the service's dependencies; reports status and latency, never data."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from peewee import PeeweeException
from redis import Redis
from redis.exceptions import RedisError

from models.base import db, utcnow

SERVICE_NAME = "clinical-workflow-service"


def _probe(check: Callable[[], Any], errors: tuple[type[BaseException], ...]) -> dict:
    started = time.perf_counter()
    try:
        check()
    except errors as exc:
        return {"status": "error", "detail": type(exc).__name__,
                "latency_ms": round((time.perf_counter() - started) * 1000, 2)}
    return {"status": "ok", "latency_ms": round((time.perf_counter() - started) * 1000, 2)}


def check_health(redis: Redis, version: str) -> dict:
    database = _probe(lambda: db.execute_sql("SELECT 1").fetchone(), (PeeweeException,))
    cache = _probe(redis.ping, (RedisError, OSError))
    ok = database["status"] == "ok" and cache["status"] == "ok"
    return {"service": SERVICE_NAME, "status": "ok" if ok else "degraded", "version": version,
            "checked_at": utcnow().isoformat().replace("+00:00", "Z"),
            "database": database, "redis": cache}
