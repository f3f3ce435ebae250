"""gunicorn's threaded worker with the API's error shape for the errors gunicorn answers
itself (a request line or headers too large, a malformed request), before the app sees them,
and gunicorn's logger writing tracebacks as the service's own logs do.

gunicorn writes those as HTML and logs the offending request line, which may hold patient
identifiers in a query string; this worker answers JSON and logs only the status."""

from __future__ import annotations

import json
import time

from gunicorn.glogging import Logger
from gunicorn.http import errors
from gunicorn.util import write_nonblock
from gunicorn.workers.gthread import ThreadWorker
from werkzeug.http import HTTP_STATUS_CODES

from web.logs import JSONFormatter, PlainFormatter

_STATUS_BY_ERROR: tuple[tuple[type[Exception], int], ...] = (
    (errors.LimitRequestLine, 414),
    (errors.LimitRequestHeaders, 431),
    (errors.UnsupportedTransferCoding, 501),
    (errors.ExpectationFailed, 417),
    (errors.ForbiddenProxyRequest, 403),
    (errors.ParseException, 400),
)
_MESSAGES = {
    414: "The request line (path and query string) is too long.",
    431: "The request headers are too large.",
    400: "The request could not be parsed as HTTP.",
}


def status_for(exc: BaseException) -> int:
    for error_class, status in _STATUS_BY_ERROR:
        if isinstance(exc, error_class):
            return status
    return 500


def error_response(status: int) -> bytes:
    reason = HTTP_STATUS_CODES.get(status, "Error")
    body = json.dumps({"code": status, "status": reason,
                       "message": _MESSAGES.get(status, reason)}).encode()
    head = (f"HTTP/1.1 {status} {reason}\r\nConnection: close\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n")
    return head.encode("latin1") + body


class JSONErrorThreadWorker(ThreadWorker):
    def handle_quit(self, sig, frame) -> None:
        # Ctrl-C sends SIGINT to every process of the terminal's group, and the master follows
        # it with SIGQUIT. The second handler ran inside the first one's thread-pool shutdown,
        # which holds the pool's lock (not reentrant): it waited on that lock for ever, and the
        # master killed the worker at graceful_timeout. One quit is enough.
        if getattr(self, "_quitting", False):
            return
        self._quitting = True
        super().handle_quit(sig, frame)

    def handle_error(self, req, client, addr, exc) -> None:
        status = status_for(exc)
        if status == 500:
            self.log.exception("error handling a request")
        else:
            self.log.warning("refused a request before the app: %s %s", status,
                             type(exc).__name__)
        try:
            write_nonblock(client, error_response(status))
        except OSError:
            self.log.debug("failed to send the error answer")


class ServerLogger(Logger):
    """gunicorn's error log, its tracebacks written by `web.logs.format_exception`: an
    exception that escapes the app (raised in a teardown, say) reaches gunicorn's own log,
    whose standard formatter would print every message of the chain, a database error's
    row values among them."""

    def setup(self, cfg) -> None:
        super().setup(cfg)
        json_lines = _log_format() == "json"
        for handler in self.error_log.handlers:
            if getattr(handler, "_gunicorn", False) and handler.formatter is not None:
                if json_lines:
                    # The service's own shape, so that every line of the log is one JSON
                    # object ("Booting worker", "Handling signal" were plain text).
                    formatter = JSONFormatter()
                    formatter.converter = time.gmtime
                else:
                    formatter = PlainFormatter(handler.formatter._fmt,
                                               handler.formatter.datefmt)
                handler.setFormatter(formatter)


def _log_format() -> str:
    """LOG_FORMAT as the app will read it; a value it refuses leaves gunicorn's own lines plain
    (the app then stops with the one-line error)."""
    import config

    try:
        return config.from_env()["LOG_FORMAT"]
    except config.ConfigError:
        return "text"
