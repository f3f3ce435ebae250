"""Database proxy, base model and the field types every model shares."""

from __future__ import annotations

import itertools
import json
import re
import secrets
import select
import threading
import time
import weakref
from collections.abc import Sequence
from contextlib import suppress
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from peewee import (
    DatabaseError,
    DatabaseProxy,
    DateTimeField,
    InterfaceError,
    Model,
    OperationalError,
    PostgresqlDatabase,
    TextField,
    __exception_wrapper__,
    _savepoint,
)
from playhouse.db_url import connect, parse
from playhouse.pool import PooledPostgresqlDatabase
from playhouse.shortcuts import ReconnectMixin


class _Savepoint(_savepoint):
    """A savepoint whose rollback also drops the commit callbacks registered inside it:
    peewee would otherwise run them when the outer transaction commits, e.g. push a job whose
    row was rolled back."""

    def _begin(self):
        super()._begin()
        self._callbacks_at = len(self.db._state.commit_callbacks)

    def rollback(self, begin=True):
        del self.db._state.commit_callbacks[self._callbacks_at:]
        super().rollback(begin)


class Database(DatabaseProxy):
    """The proxy every model uses, with savepoints that keep commit callbacks honest."""

    def savepoint(self):
        return _Savepoint(self)


db = Database()

SQLITE_PRAGMAS = {
    "journal_mode": "wal",
    "foreign_keys": 1,
    # Web and worker processes share the file: wait for a writer instead of failing at once.
    "busy_timeout": 10_000,
    # FULL: in WAL mode NORMAL may roll back the last commits after a power loss or OS crash,
    # and a 2xx answer promises the data is durably stored.
    "synchronous": "full",
}
ID_BYTES = 12


def new_id(prefix: str) -> str:
    """An opaque, non-enumerable id such as `ses_1f3a…` (96 random bits)."""
    return f"{prefix}_{secrets.token_hex(ID_BYTES)}"


def utcnow() -> datetime:
    return datetime.now(UTC)


POOL_MAX_CONNECTIONS = 32
POOL_STALE_TIMEOUT_S = 300
POOL_WAIT_TIMEOUT_S = 10


# A pooled PostgreSQL connection given back this recently is handed out again without the
# `SELECT 1` round trip that proves it alive (one of a request's few round trips); a poll of
# its socket still finds one the server dropped (`_has_input`).
POOL_TRUST_RECENT_S = 5.0


# Statements are prepared (`DeferredBegin.prepared`) so that the server plans them once per
# connection. With its default plan_cache_mode it keeps planning again at every run any
# statement whose generic plan looks costlier than a plan for the values at hand, which is
# what it judges of a list page (`LIMIT $n` and a tenant's rows: planning was as much as the
# page's whole run). The statements prepared are the hot paths' lookups, pages and inserts,
# whose plan does not depend on the values; a connection's other statements are not prepared
# and are planned for their values as before.
GENERIC_PLANS = "-c plan_cache_mode=force_generic_plan"

INVALID_STATEMENT_NAME = "26000"  # no statement of that name is prepared on the connection


@dataclass(frozen=True)
class _Prepared:
    name: str
    prepare: str
    execute: str

    @classmethod
    def of(cls, sql: str, number: int) -> _Prepared:
        name = f"cws_{number}"
        placeholders = itertools.count(1)
        body = re.sub(r"%%|%s", lambda m: "%" if m.group() == "%%" else f"${next(placeholders)}",
                      sql)
        count = next(placeholders) - 1
        execute = f"EXECUTE {name} ({', '.join(['%s'] * count)})" if count else f"EXECUTE {name}"
        return cls(name, f"PREPARE {name} AS {body}", execute)


# The statements prepared on PostgreSQL connections, by their SQL (shared by every database
# object: a name always stands for the same statement).
_PREPARED: dict[str, _Prepared] = {}
_PREPARED_LOCK = threading.Lock()


class DeferredBegin:
    """PostgreSQL transactions whose BEGIN travels with their first statement: one round trip
    fewer per transaction (a third of a lone enqueue's). A transaction that runs no statement
    sends nothing at all.

    Writes whose result nothing reads (an insert of a new row, a usage sum, an audit row) may
    be deferred inside a transaction (`defer`): they travel with the transaction's next
    statement, or with its COMMIT, so a create's four inserts and its commit are one round
    trip instead of five. They run in order, before whatever statement carries them."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # The statement names prepared on each connection (each used by one thread at a time).
        self._prepared_on: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def begin(self, isolation_level=None):
        if self.is_closed():
            # Connect now, as peewee's BEGIN would: connecting later resets the transaction
            # stack this transaction is about to join.
            if not self.autoconnect:
                raise InterfaceError("Error, database connection not opened.")
            self.connect()
        level = self._isolation_level if isolation_level is None else isolation_level
        self._state.pending_begin = (
            f"BEGIN TRANSACTION ISOLATION LEVEL {self._adapter.isolation_level_str(level)}; "
            if level else "BEGIN; ")
        self._state.deferred_writes = None

    def prepared(self, sql: str) -> str:
        """`sql` (%s placeholders) as the EXECUTE of a statement prepared on this thread's
        connection, preparing it there first if needed: the server plans it once per
        connection instead of at every run (planning a create's four inserts cost it a
        quarter of their CPU, a list's page with its audit rows a third)."""
        statement = _PREPARED.get(sql)
        if statement is None:
            with _PREPARED_LOCK:  # two threads must never give one name to two statements
                statement = _PREPARED.get(sql)
                if statement is None:
                    statement = _PREPARED[sql] = _Prepared.of(sql, len(_PREPARED))
        connection = self.connection()
        done = self._prepared_on.get(connection)
        if done is None:
            done = self._prepared_on[connection] = set()
        if statement.name not in done:
            try:
                with __exception_wrapper__:
                    connection.cursor().execute(statement.prepare)
            except Exception as exc:
                # The PREPARE may be the first thing a request sends on a connection whose
                # backend is going away: replaced as any statement would be, when nothing of
                # a transaction has been sent on it yet (the new one gets this one too).
                if not self._nothing_sent(exc):
                    raise
                self._replace_connection()
                return statement.execute
            done.add(statement.name)
        return statement.execute

    def _nothing_sent(self, exc: Exception) -> bool:
        """Whether `exc` is a dropped connection under which no transaction has sent
        anything (none open, or one whose BEGIN still waits to be sent)."""
        return self._is_reconnect_error(exc) and (
            not self.in_transaction() or getattr(self._state, "pending_begin", None) is not None)

    def _prepare_all(self) -> None:
        """Every statement prepared so far, prepared afresh on this thread's connection (a new
        one, or one that lost them)."""
        connection = self.connection()
        done = self._prepared_on[connection] = set()
        statements = list(_PREPARED.values())
        with __exception_wrapper__:
            connection.cursor().execute(
                "; ".join(["DEALLOCATE ALL", *(s.prepare for s in statements)]))
        done.update(s.name for s in statements)

    def defer(self, sql: str, params: Sequence[Any]) -> None:
        """Send this write with the transaction's next statement or its COMMIT."""
        deferred = getattr(self._state, "deferred_writes", None)
        if deferred is None:
            deferred = self._state.deferred_writes = ([], [])
        deferred[0].append(sql)
        deferred[1].extend(params)

    def _take_pending(self) -> tuple[str, str, list]:
        """What has not been sent yet: BEGIN (or ""), the deferred writes (each followed by
        "; ") and their parameters. Every statement goes through psycopg2's %-formatting
        (peewee passes `params or ()`), so joined texts and parameters stay aligned."""
        state = self._state
        pending = getattr(state, "pending_begin", None)
        deferred = getattr(state, "deferred_writes", None)
        state.pending_begin = state.deferred_writes = None
        if deferred is None:
            return pending or "", "", []
        return pending or "", "".join(sql + "; " for sql in deferred[0]), deferred[1]

    def execute_sql(self, sql, params=None):
        state = self._state
        if (getattr(state, "pending_begin", None) is None
                and getattr(state, "deferred_writes", None) is None):
            try:
                return super().execute_sql(sql, params)
            except DatabaseError as exc:
                # Outside a transaction, a connection that lost its prepared statements
                # (a server-side reset, DEALLOCATE ALL): prepare them there, run it again. A
                # dropped connection is replaced with them prepared (`_reconnect`).
                if (getattr(exc.__context__, "pgcode", None) != INVALID_STATEMENT_NAME
                        or self.in_transaction()):
                    raise
                self._prepare_all()
                return super().execute_sql(sql, params)
        pending, writes, write_params = self._take_pending()
        if not self.in_transaction():
            # Left over from a transaction whose connection was closed under it.
            return super().execute_sql(sql, params)
        text, values = pending + writes + sql, [*write_params, *(params or ())]
        try:
            return super().execute_sql(text, values)
        except Exception as exc:
            # Nothing of the transaction ran yet: a dead connection may be replaced here,
            # as at a BEGIN sent on its own.
            if not pending or not self._is_reconnect_error(exc):
                raise
            self._replace_connection()
            return super().execute_sql(text, values)

    def commit(self):
        pending, writes, params = self._take_pending()
        if not writes:
            return None if pending else super().commit()
        # Sent as is, not through execute_sql: the transaction is already popped, and a
        # reconnect-and-retry there could commit these writes without the ones before them.
        with __exception_wrapper__:
            self.cursor().execute(pending + writes + "COMMIT", params)
        return None

    def rollback(self):
        pending, _, _ = self._take_pending()
        if pending:
            return None
        return super().rollback()

    def _is_reconnect_error(self, exc: Exception) -> bool:
        fragments = self._reconnect_errors.get(type(exc), ())
        return any(fragment in str(exc).lower() for fragment in fragments)

    def _replace_connection(self) -> None:
        """This thread's connection, which the server dropped, swapped for a live one under
        the transaction that has not sent anything yet (peewee's close() refuses there)."""
        state = self._state
        kept = state.ctx, state.transactions, state.commit_callbacks
        with self._lock:
            with suppress(Exception):  # closing a dead connection may fail too
                self._discard(state.conn)
            state.set_connection(self._connect())
            self._initialize_connection(state.conn)
        state.ctx, state.transactions, state.commit_callbacks = kept
        self._prepare_all()  # the statement about to run again may execute prepared ones

    def _reconnect(self, func, *args, **kwargs):
        """ReconnectMixin's one retry outside a transaction, on a replaced connection: its own
        close-and-connect takes the pool's next idle connection on trust, which the server
        dropped too after a restart (and the retry fails on it), and it empties the
        connection context a caller is inside."""
        try:
            return func(*args, **kwargs)
        except Exception as exc:
            if self.in_transaction() or not self._is_reconnect_error(exc):
                raise
            if not self.is_closed():
                self._replace_connection()
            return func(*args, **kwargs)

    def _discard(self, conn) -> None:
        self._close(conn)


class Postgres(DeferredBegin, ReconnectMixin, PostgresqlDatabase):
    """A worker's plain (unpooled) PostgreSQL connection."""

    reconnect_errors = (
        (OperationalError, "server closed the connection"),
        (OperationalError, "terminating connection"),
        (OperationalError, "connection already closed"),
        (InterfaceError, "connection already closed"),
    )


class PooledPostgres(DeferredBegin, ReconnectMixin, PooledPostgresqlDatabase):
    """Peewee's pool, minus the liveness round trip for a connection that was in use a moment
    ago. A connection the server dropped (a restart, a failover, an idle timeout) is caught at
    its next statement outside a transaction, or at BEGIN: it is discarded and the statement
    runs again on a new connection, so the web process recovers without a restart. Inside a
    transaction nothing is retried silently; that request fails (503) and changes nothing."""

    reconnect_errors = (
        (OperationalError, "server closed the connection"),
        (OperationalError, "terminating connection"),
        (OperationalError, "connection already closed"),
        (InterfaceError, "connection already closed"),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._returned_at: dict[int, float] = {}

    def _close(self, conn, close_conn=False):
        self._returned_at[id(conn)] = time.monotonic()
        super()._close(conn, close_conn)

    def _close_raw(self, conn):
        self._returned_at.pop(id(conn), None)
        return super()._close_raw(conn)

    def _discard(self, conn) -> None:
        # One dropped connection means the server likely restarted: prove the idle ones
        # alive at their next checkout instead of trusting them.
        self._returned_at.clear()
        self._close(conn, close_conn=True)

    def _is_closed(self, conn) -> bool:
        if conn.closed:
            return True
        returned = self._returned_at.get(id(conn))
        if (returned is not None and time.monotonic() - returned < POOL_TRUST_RECENT_S
                and conn.get_transaction_status() == 0):  # psycopg2 TRANSACTION_STATUS_IDLE
            return _has_input(conn)
        return super()._is_closed(conn)


def _has_input(conn) -> bool:
    """Whether an idle connection's socket has something to read. The server sends nothing
    to an idle session unasked (this project never LISTENs): what is there is the FATAL
    message and end of stream of a backend that was terminated, or the end of stream of a
    server that went away (rarely a parameter report after a configuration reload: that
    connection is replaced too, at the cost of a reconnect). One poll() of the socket, no
    round trip; a connection with input is taken for dropped and replaced before any
    statement is sent on it, so a request's first statement (which may be its whole
    transaction) never meets a connection known dead."""
    try:
        poller = select.poll()
        poller.register(conn.fileno(), select.POLLIN)
        return bool(poller.poll(0))
    except Exception:  # noqa: BLE001 (a connection that cannot name its socket is closed)
        return True


def open_database(url: str, pooled: bool = False):
    """A Peewee database for `url` (sqlite:///path or postgresql://…).

    `pooled` keeps connections open between requests (the web process): opening a PostgreSQL
    connection, or closing SQLite's last one (a WAL checkpoint), costs more than most requests.
    Workers use plain connections, since a pooled connection must never cross RQ's fork()."""
    scheme, sep, rest = url.partition("://")
    if pooled:
        url = f"{scheme.split('+')[0]}+pool{sep}{rest}"
        options = {"max_connections": POOL_MAX_CONNECTIONS, "stale_timeout": POOL_STALE_TIMEOUT_S,
                   "timeout": POOL_WAIT_TIMEOUT_S}
    else:
        options = {}
    if scheme.startswith("sqlite"):
        options["pragmas"] = SQLITE_PRAGMAS
        # SQLite has one writer: a transaction that starts as a reader and later writes cannot
        # upgrade while another connection writes (SQLITE_BUSY at once, no busy wait). Taking
        # the write lock at BEGIN makes concurrent writers queue on busy_timeout instead.
        options["lock_type"] = "IMMEDIATE"
        if pooled:
            # The pool hands a connection to whichever thread asks next (gunicorn threads,
            # `flask run`); the pool itself guarantees one user at a time.
            options["check_same_thread"] = False
    elif scheme.startswith("postgres"):
        params = parse(url)
        params["options"] = " ".join(filter(None, (params.get("options"), GENERIC_PLANS)))
        return (PooledPostgres if pooled else Postgres)(**{**params, **options})
    return connect(url, **options)


def bind_database(url: str, pooled: bool = False) -> None:
    """Point the proxy at `url`, releasing the connections of the database it replaces."""
    release_connections()
    db.initialize(open_database(url, pooled=pooled))


def release_connections() -> None:
    """Close every connection this process holds, pooled ones included (before a fork, or when
    the database is replaced)."""
    if db.obj is None:
        return
    if not db.is_closed():
        db.close()
    close_all = getattr(db.obj, "close_all", None)
    if close_all is not None:
        close_all()


def prepared(sql: str) -> str:
    """On PostgreSQL, `sql` as the EXECUTE of a statement prepared on the current connection
    (`DeferredBegin.prepared`); elsewhere `sql` itself. For statements built once and run on
    every request."""
    prepare = getattr(db.obj, "prepared", None)
    return prepare(sql) if prepare is not None else sql


def execute_later(sql: str, params: Sequence[Any]) -> None:
    """Run a write whose result nothing reads. Inside a PostgreSQL transaction it is sent with
    the transaction's next statement or its COMMIT (`DeferredBegin.defer`); elsewhere, now.
    Its errors surface with the statement that carries it."""
    defer = getattr(db.obj, "defer", None)
    if defer is not None and db.in_transaction():
        defer(sql, params)
    else:
        db.execute_sql(sql, params)


def is_postgres() -> bool:
    return isinstance(db.obj, PostgresqlDatabase)


def truncate_wal(wait: bool = False) -> bool:
    """On SQLite, copy the write-ahead log into the database and empty its file, so the bytes
    of a row cleared since (a secret read once) no longer lie in it; elsewhere nothing. Without
    ``wait`` it gives up at once when a reader or writer is busy (returns False); the worker's
    maintenance calls it with ``wait``, outside any transaction."""
    if is_postgres() or db.in_transaction():
        return False
    if not wait:
        db.execute_sql("PRAGMA busy_timeout = 0")
    try:
        busy = db.execute_sql("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
    finally:
        if not wait:
            db.execute_sql(f"PRAGMA busy_timeout = {SQLITE_PRAGMAS['busy_timeout']}")
    return not busy


class UTCDateTimeField(DateTimeField):
    """Stored as naive UTC (sortable on both engines), read back as an aware UTC datetime."""

    def db_value(self, value: Any) -> Any:
        if isinstance(value, datetime):
            if value.tzinfo is None:
                raise ValueError("naive datetimes are not accepted; use UTC-aware values")
            value = value.astimezone(UTC).replace(tzinfo=None)
        return super().db_value(value)

    def python_value(self, value: Any) -> Any:
        if value.__class__ is datetime:  # psycopg2's value: no text to parse
            return value.replace(tzinfo=UTC) if value.tzinfo is None else value
        value = super().python_value(value)
        if isinstance(value, datetime) and value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value


_EMPTY_JSON = {"[]": list, "{}": dict}


class JSONField(TextField):
    """JSON stored as text: identical behaviour on SQLite and PostgreSQL."""

    def db_value(self, value: Any) -> Any:
        if value is None:
            return None
        return json.dumps(value, separators=(",", ":"), sort_keys=True)

    def python_value(self, value: Any) -> Any:
        if value is None:
            return None
        empty = _EMPTY_JSON.get(value)  # most list fields of a record are empty
        return empty() if empty is not None else json.loads(value)


class BaseModel(Model):
    class Meta:
        database = db
        legacy_table_names = False
