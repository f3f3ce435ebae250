"""Numbered migrations: a fresh database gets every table, migrating again changes nothing,
and the audit log refuses UPDATE and DELETE at the database itself."""

import pytest
from peewee import DatabaseError

from models.audit import AuditEvent
from models.base import db
from models.migrations import MIGRATIONS, SchemaMigration, current_version, migrate
from models.templates import Template

FOUNDATION_TABLES = {"organization", "api_token", "audit_event", "idempotency_record",
                     "template", "therapy_session", "job_record", "usage_event",
                     "schema_migration"}


def test_fresh_database_is_migrated_on_app_start(app):
    assert FOUNDATION_TABLES <= set(db.get_tables())
    assert current_version() == MIGRATIONS[-1][0]


def test_every_migration_is_recorded_once(app):
    versions = [row.version for row in SchemaMigration.select().order_by(SchemaMigration.version)]
    assert versions == [version for version, _, _ in MIGRATIONS]


def test_migrating_again_applies_nothing(app):
    with db.connection_context():
        assert migrate() == []
    assert SchemaMigration.select().count() == len(MIGRATIONS)
    assert Template.select().where(Template.builtin == True).count() == 6  # noqa: E712


def test_migration_versions_are_numbered_in_order(app):
    versions = [version for version, _, _ in MIGRATIONS]
    assert versions == list(range(1, len(MIGRATIONS) + 1))


def test_second_app_on_the_same_database_starts(app, make_app):
    make_app()
    assert SchemaMigration.select().count() == len(MIGRATIONS)


def _audit_row():
    return AuditEvent.create(actor="tok_test", action="read", resource_type="therapy_session",
                             resource_id="ses_1", organization_id="org_1")


def test_audit_update_is_refused_by_the_database(app):
    row = _audit_row()
    with pytest.raises(DatabaseError, match="append-only"), db.atomic():
        db.execute_sql("UPDATE audit_event SET actor = 'someone else'")
    assert AuditEvent.get_by_id(row.id).actor == "tok_test"


def test_audit_delete_is_refused_by_the_database(app):
    row = _audit_row()
    with pytest.raises(DatabaseError, match="append-only"), db.atomic():
        AuditEvent.delete().where(AuditEvent.id == row.id).execute()
    assert AuditEvent.select().count() == 1


def test_audit_insert_is_allowed(app):
    _audit_row()
    _audit_row()
    assert AuditEvent.select().count() == 2
