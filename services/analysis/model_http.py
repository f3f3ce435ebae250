"""The HTTP client of calls to the model server, with a deadline for the whole call.

The `openai` client's `timeout` bounds each phase of a request (connecting, each wait for
bytes), not the call: a server that sends its answer a few bytes at a time, each before the
read timeout, held a web thread for minutes. Inside ``deadline(seconds)``, every socket
operation of this client waits at most until the deadline, then fails as a timeout (the
client's ``APITimeoutError``, the analysis's 504).
"""

from __future__ import annotations

import ssl
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import httpcore2
import httpx2

_DEADLINE: ContextVar[float | None] = ContextVar("model_call_deadline", default=None)


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Calls made in this block, in this thread, end by ``seconds`` from now."""
    token = _DEADLINE.set(time.monotonic() + seconds)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def _bounded(timeout: float | None, expired: type[Exception]) -> float | None:
    """The phase's own timeout, cut to what is left before the deadline."""
    end = _DEADLINE.get()
    if end is None:
        return timeout
    left = end - time.monotonic()
    if left <= 0:
        raise expired("the call's deadline passed")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore2.NetworkStream):
    def __init__(self, inner: httpcore2.NetworkStream) -> None:
        self._inner = inner

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._inner.read(max_bytes, _bounded(timeout, httpcore2.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._inner.write(buffer, _bounded(timeout, httpcore2.WriteTimeout))

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore2.NetworkStream:
        return _Stream(self._inner.start_tls(ssl_context, server_hostname,
                                             _bounded(timeout, httpcore2.ConnectTimeout)))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _Backend(httpcore2.NetworkBackend):
    def __init__(self, inner: httpcore2.NetworkBackend) -> None:
        self._inner = inner

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore2.NetworkStream:
        return _Stream(self._inner.connect_tcp(
            host, port, _bounded(timeout, httpcore2.ConnectTimeout), local_address,
            socket_options))

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[Any] | None = None
                            ) -> httpcore2.NetworkStream:
        return _Stream(self._inner.connect_unix_socket(
            path, _bounded(timeout, httpcore2.ConnectTimeout), socket_options))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def http_client(timeout_s: float) -> httpx2.Client:
    """An HTTP client for the `openai` client whose sockets keep to ``deadline``."""
    transport = httpx2.HTTPTransport()
    # The transport builds its connection pool with the default backend and takes none.
    pool = transport._pool
    pool._network_backend = _Backend(pool._network_backend)
    return httpx2.Client(transport=transport, timeout=timeout_s, follow_redirects=True)
