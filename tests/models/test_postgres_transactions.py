"""PostgreSQL transactions as the web and worker processes open them: BEGIN travels with the
first statement, and a connection the server dropped is still replaced at that point."""

from __future__ import annotations

import os
import time

import psycopg2
import pytest
from peewee import IntegrityError
from psycopg2.extensions import TRANSACTION_STATUS_IDLE, TRANSACTION_STATUS_INTRANS

from models.audit import AuditEvent
from models.base import db, execute_later, new_id, open_database, prepared
from models.organizations import Organization
from models.statements import first_where
from models.usage import UsageEvent
from services.organizations import create_organization
from services.usage import record_usage

pytestmark = pytest.mark.skipif(not os.environ.get("TEST_DATABASE_URL"),
                                reason="PostgreSQL transactions")


def _terminate(backend_pid: int, wait: bool = False) -> None:
    """Terminate a backend; with `wait`, return once it has exited."""
    admin = psycopg2.connect(os.environ["TEST_DATABASE_URL"])
    admin.autocommit = True
    cursor = admin.cursor()
    cursor.execute("SELECT pg_terminate_backend(%s)", (backend_pid,))
    deadline = time.monotonic() + 10
    while wait and time.monotonic() < deadline:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = %s", (backend_pid,))
        if cursor.fetchone()[0] == 0:
            break
        time.sleep(0.01)
    admin.close()


@pytest.mark.parametrize("pooled", [True, False], ids=["web (pooled)", "worker"])
def test_begin_is_sent_with_the_first_statement(pooled: bool) -> None:
    database = open_database(os.environ["TEST_DATABASE_URL"], pooled=pooled)
    with database.connection_context():
        connection = database.connection()
        with database.atomic():
            assert connection.get_transaction_status() == TRANSACTION_STATUS_IDLE
            database.execute_sql("SELECT 1")
            assert connection.get_transaction_status() == TRANSACTION_STATUS_INTRANS
        assert connection.get_transaction_status() == TRANSACTION_STATUS_IDLE
        with database.atomic():
            pass  # nothing sent: no BEGIN, no COMMIT
        assert connection.get_transaction_status() == TRANSACTION_STATUS_IDLE
    if pooled:
        database.close_all()


def test_a_rolled_back_transaction_leaves_nothing(app) -> None:
    with app.app_context(), db.connection_context():
        with pytest.raises(RuntimeError), db.atomic():
            create_organization("Rolled Back Clinic")
            raise RuntimeError("abort")
        assert not Organization.select().where(Organization.name == "Rolled Back Clinic").exists()
        with db.atomic():
            create_organization("Kept Clinic")
        assert Organization.select().where(Organization.name == "Kept Clinic").exists()


def test_a_dropped_connection_is_replaced_at_the_first_statement_of_a_transaction(app) -> None:
    with app.app_context(), db.connection_context():
        db.execute_sql("SELECT 1")
        _terminate(db.connection().get_backend_pid())
        with db.atomic():
            organization = create_organization("After The Restart")
        assert Organization.get_by_id(organization.id).name == "After The Restart"


def test_a_connection_dropped_inside_a_transaction_fails_it(app) -> None:
    with app.app_context(), db.connection_context():
        with pytest.raises(Exception), db.atomic():
            create_organization("Half Written")
            _terminate(db.connection().get_backend_pid())
            create_organization("Never Written")
    with app.app_context(), db.connection_context():
        names = {o.name for o in Organization.select()}
        assert not names & {"Half Written", "Never Written"}


@pytest.mark.parametrize("pooled", [True, False], ids=["web (pooled)", "worker"])
def test_a_transaction_opened_before_any_connection_keeps_its_nested_savepoints(
        pooled: bool) -> None:
    database = open_database(os.environ["TEST_DATABASE_URL"], pooled=pooled)
    assert database.is_closed()
    with database.atomic():
        with database.atomic():
            database.execute_sql("SELECT 1")
        assert database.in_transaction()
        status = database.connection().get_transaction_status()
        assert status == TRANSACTION_STATUS_INTRANS
    assert database.connection().get_transaction_status() == TRANSACTION_STATUS_IDLE
    database.close()
    if pooled:
        database.close_all()


def _audit_rows(action: str) -> int:
    return AuditEvent.select().where(AuditEvent.action == action).count()


def _write_later(action: str) -> None:
    execute_later("INSERT INTO audit_event (id, at, actor, action, resource_type) "
                  "VALUES (%s, now(), 'system', %s, 'test')", (new_id("aud"), action))


def test_a_deferred_write_is_sent_with_the_commit(app) -> None:
    with app.app_context(), db.connection_context():
        connection = db.connection()
        with db.atomic():
            _write_later("deferred")
            _write_later("deferred")
            assert connection.get_transaction_status() == TRANSACTION_STATUS_IDLE
        assert connection.get_transaction_status() == TRANSACTION_STATUS_IDLE
        assert _audit_rows("deferred") == 2


def test_a_deferred_write_is_seen_by_the_next_statement_of_its_transaction(app) -> None:
    with app.app_context(), db.connection_context():
        with db.atomic():
            _write_later("seen")
            assert _audit_rows("seen") == 1


def test_a_rolled_back_transaction_drops_its_deferred_writes(app) -> None:
    with app.app_context(), db.connection_context():
        with pytest.raises(RuntimeError), db.atomic():
            _write_later("dropped")
            raise RuntimeError("abort")
        with pytest.raises(RuntimeError), db.atomic():
            db.execute_sql("SELECT 1")
            _write_later("dropped")
            raise RuntimeError("abort")
        with pytest.raises(RuntimeError), db.atomic():
            with db.atomic():
                _write_later("dropped")
            raise RuntimeError("abort")
        assert _audit_rows("dropped") == 0


def test_a_failing_deferred_write_fails_the_commit_and_leaves_nothing(app) -> None:
    with app.app_context(), db.connection_context():
        with pytest.raises(IntegrityError), db.atomic():
            _write_later("half")
            execute_later("INSERT INTO audit_event (id) VALUES (%s)", ("aud_no_columns",))
        assert db.connection().get_transaction_status() == TRANSACTION_STATUS_IDLE
        assert _audit_rows("half") == 0


def test_a_transaction_sent_whole_after_a_restart_runs_on_a_new_connection(app) -> None:
    """A request's first statement may be its whole transaction (BEGIN, deferred writes,
    COMMIT in one send), which is never retried: the pool must not hand out a connection
    whose backend is gone, even one it trusts for having been used a moment ago."""
    with app.app_context():
        with db.connection_context():
            db.execute_sql("SELECT 1")
            dropped = db.connection().get_backend_pid()
        _terminate(dropped, wait=True)
        with db.connection_context():
            with db.atomic():
                _write_later("whole")
                _write_later("whole")
            assert db.connection().get_backend_pid() != dropped
        with db.connection_context():
            assert _audit_rows("whole") == 2


def test_a_write_outside_a_transaction_runs_at_once(app) -> None:
    with app.app_context(), db.connection_context():
        _write_later("at_once")
        assert _audit_rows("at_once") == 1


def test_a_prepared_statement_runs_on_the_connection_that_replaced_a_dropped_one(app) -> None:
    with app.app_context():
        db.connect(reuse_if_open=True)  # as a request opens it: the pool may replace it
        try:
            organization = create_organization("Prepared Clinic")
            assert first_where(Organization, id=organization.id) is not None  # prepared now
            _terminate(db.connection().get_backend_pid())
            assert first_where(Organization, id=organization.id).name == "Prepared Clinic"
        finally:
            db.close()


def test_a_statement_first_prepared_on_a_dropped_connection_runs_on_its_replacement(
        app) -> None:
    """The first statement of a request may be one its connection has not prepared yet: the
    PREPARE is what meets the dropped connection, and it is replaced there."""
    with app.app_context(), db.connection_context():
        db.execute_sql("SELECT 1")
        dropped = db.connection().get_backend_pid()
        _terminate(dropped, wait=True)
        sql = prepared(f"SELECT %s::int + 1 AS never_prepared_{new_id('x')}")
        assert db.execute_sql(sql, (41,)).fetchone()[0] == 42
        assert db.connection().get_backend_pid() != dropped


def test_deferred_prepared_writes_run_on_the_connection_that_replaced_a_dropped_one(app) -> None:
    with app.app_context(), db.connection_context():
        record_usage(create_organization("Metered Clinic").id, "therapy_sessions")
        _terminate(db.connection().get_backend_pid())
        with db.atomic():
            organization = create_organization("Metered After Restart")
            record_usage(organization.id, "therapy_sessions")
        assert UsageEvent.select().where(UsageEvent.organization == organization.id).count() == 1


def test_a_statement_prepared_under_a_rolled_back_transaction_is_still_usable(app) -> None:
    with app.app_context(), db.connection_context():
        organization = create_organization("Rolled Clinic")
        with pytest.raises(RuntimeError), db.atomic():
            record_usage(organization.id, "therapy_sessions")
            db.execute_sql("SELECT 1")
            raise RuntimeError("abort")
        with db.atomic():
            record_usage(organization.id, "therapy_sessions")
        assert UsageEvent.select().where(UsageEvent.organization == organization.id).count() == 1


def test_a_server_restart_costs_no_statement_when_the_pool_holds_other_dropped_connections(
        ) -> None:
    """PostgreSQL drops every connection (a restart, a failover) while the web process's pool
    holds several idle ones: the next statement outside a transaction is retried on a
    connection proven alive, not on another dropped one the pool still trusts."""
    import threading

    database = open_database(os.environ["TEST_DATABASE_URL"], pooled=True)

    def use_and_return() -> None:  # a request on another thread: its connection goes idle
        with database.connection_context():
            database.execute_sql("SELECT 1")

    backends = []
    with database.connection_context():
        backends.append(database.connection().get_backend_pid())
        threads = [threading.Thread(target=use_and_return) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert len(database._connections) >= 3
    backends += [conn.get_backend_pid() for _, _, conn in database._connections]
    for pid in set(backends):
        _terminate(pid)
    try:
        with database.connection_context():
            assert database.execute_sql("SELECT 41 + 1").fetchone()[0] == 42
    finally:
        database.close_all()


def test_a_workers_statement_after_a_restart_runs_on_a_new_connection_in_its_context() -> None:
    """A worker's plain connection, dropped between jobs: the next statement runs on a new
    connection, and the job's connection context still closes normally."""
    database = open_database(os.environ["TEST_DATABASE_URL"], pooled=False)
    with database.connection_context():
        dropped = database.connection().get_backend_pid()
        _terminate(dropped)
        assert database.execute_sql("SELECT 41 + 1").fetchone()[0] == 42
        assert database.connection().get_backend_pid() != dropped
    assert database.is_closed()
