"""Rate limits per token and per client address, counted in the app's Redis.

The counting is the `limits` library's fixed window (the library under flask-limiter), with the
keys flask-limiter wrote (prefix, key, endpoint). flask-limiter's own Flask layer resolved the
limits, their exemptions and scopes anew on every request: a third of a plain read's CPU. The
rules here are two and fixed, so they are checked directly in one `before_request`.
"""

from __future__ import annotations

import logging
import threading
import time

from flask import Flask, request
from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage, storage_from_string
from limits.strategies import FixedWindowRateLimiter
from werkzeug.exceptions import TooManyRequests

from web.auth import identify, rate_limit_key

log = logging.getLogger(__name__)

VOICE_WEBHOOK_PATHS = frozenset({"/api/voice/webhook", "/api/voice/webhook/assistant-request"})
# After Redis fails, count in process memory for this long before trying Redis again.
RETRY_REDIS_AFTER_S = 5.0
REDIS_TIMEOUT_S = 0.5
# The one count, per address, of requests that carry no valid credential.
WITHOUT_CREDENTIAL = "without-credential"


def _storage_uri(redis_url: str) -> str:
    # `limits` spells a unix-socket Redis as redis+unix://
    if redis_url.startswith("unix://"):
        return "redis+unix://" + redis_url[len("unix://"):]
    return redis_url


class RateLimits:
    """A request with a valid token counts against its token's limit (per endpoint, as
    flask-limiter's default limits did); one without counts against its address's one limit
    for every endpoint."""

    def __init__(self, app: Flask) -> None:
        self.per_token: list[RateLimitItem] = parse_many(app.config["RATELIMIT_DEFAULT"])
        self.per_address: list[RateLimitItem] = parse_many(app.config["RATELIMIT_PER_IP"])
        self.prefix = f"{app.config.get('QUEUE_PREFIX') or ''}cws-limits"
        # A Redis that accepts and never answers must not hold every request: past the
        # timeout the request is counted in process memory instead.
        self.shared = FixedWindowRateLimiter(storage_from_string(
            _storage_uri(app.config["REDIS_URL_EFFECTIVE"]),
            socket_connect_timeout=REDIS_TIMEOUT_S, socket_timeout=REDIS_TIMEOUT_S))
        # Made on first need: MemoryStorage starts a timer thread, which the preloaded master
        # (the app is built before gunicorn forks) should not be running.
        self._local: FixedWindowRateLimiter | None = None
        self._redis_failed_at: float | None = None
        self._lock = threading.Lock()

    @property
    def local(self) -> FixedWindowRateLimiter:
        if self._local is None:
            with self._lock:
                if self._local is None:
                    self._local = FixedWindowRateLimiter(MemoryStorage())
        return self._local

    def _counter(self) -> FixedWindowRateLimiter:
        failed_at = self._redis_failed_at
        if failed_at is not None and time.monotonic() - failed_at < RETRY_REDIS_AFTER_S:
            return self.local
        return self.shared

    def _hit(self, item: RateLimitItem, key: str, scope: str) -> bool:
        counter = self._counter()
        try:
            allowed = counter.hit(item, self.prefix, key, scope)
        except Exception:  # noqa: BLE001 (Redis down must not fail the request)
            with self._lock:
                if self._redis_failed_at is None:
                    log.warning("rate-limit storage unreachable: counting in process memory")
                self._redis_failed_at = time.monotonic()
            return self.local.hit(item, self.prefix, key, scope)
        if counter is self.shared and self._redis_failed_at is not None:
            self._redis_failed_at = None
            log.info("rate-limit storage reachable again")
        return allowed

    def check(self) -> None:
        """Count the request; raise 429 (with the seconds until the window resets) past a
        limit."""
        if request.method == "POST" and request.path in VOICE_WEBHOOK_PATHS:
            # The voice platform posts every event of every call from a few addresses (hundreds
            # a second on a busy line); those requests are authenticated by HMAC, so a limit
            # would only drop real calls. A failed signature is counted (`refused_signature`).
            return
        if identify() is None:
            # Scanners and guesses (no token, an unknown, revoked or expired one): one count
            # per address over every endpoint. Counted per endpoint and per presented token,
            # an address had 1,200 a minute on each of ~40 endpoints, and a revoked token
            # whose allowance was spent got 429 where every refused token gets 401.
            self._limit(self.per_address, request.remote_addr or "unknown", WITHOUT_CREDENTIAL)
            return
        # A clinic whose staff share one NAT address is limited per token, not as one client.
        # Per operation (a view serves a path's methods): a burst of creates leaves the list
        # of the same path its own allowance.
        self._limit(self.per_token, rate_limit_key(),
                    f"{request.endpoint}.{request.method}" if request.endpoint else "unrouted")

    def _limit(self, items: list[RateLimitItem], key: str, scope: str) -> None:
        for item in sorted(items):
            if not self._hit(item, key, scope):
                raise TooManyRequests(f"Rate limit exceeded: {item}.",
                                      retry_after=self._seconds_to_reset(item, key, scope))

    def refused_signature(self) -> None:
        """Count a request whose signature failed against its address's limit for requests
        without a valid credential; raise 429 past it (guesses at a webhook's secret)."""
        self._limit(self.per_address, request.remote_addr or "unknown", WITHOUT_CREDENTIAL)

    def _seconds_to_reset(self, item: RateLimitItem, key: str, scope: str) -> int:
        try:
            reset_at = self._counter().get_window_stats(item, self.prefix, key, scope).reset_time
            return max(1, int(reset_at - time.time()))
        except Exception:  # noqa: BLE001 (Redis gone: a short, safe hint rather than a 500)
            return 1


def init_app(app: Flask) -> None:
    if not app.config["RATELIMIT_ENABLED"]:
        return
    limits = RateLimits(app)
    app.before_request(limits.check)
    app.extensions["cws_limits"] = limits


def count_refused_signature(app: Flask) -> None:
    """`RateLimits.refused_signature` where limits are enabled."""
    limits = app.extensions.get("cws_limits")
    if limits is not None:
        limits.refused_signature()
