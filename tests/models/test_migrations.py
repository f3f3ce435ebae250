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


def test_a_session_list_page_is_read_in_index_order(app, database_kind):
    # Every session of a clinic on one date is the worst case for (organization, date): the
    # page would be sorted from all of them. The list order index hands it over in order.
    sql = (f'SELECT * FROM therapy_session WHERE organization_id = {db.param} '
           'ORDER BY session_date DESC, id LIMIT 20 OFFSET 0')
    if database_kind == "sqlite":
        plan = " | ".join(row[3] for row in db.execute_sql("EXPLAIN QUERY PLAN " + sql, ("o",)))
        assert "therapy_session_list_order" in plan and "TEMP B-TREE" not in plan
    else:
        db.execute_sql("SET enable_seqscan = off")
        try:
            plan = " | ".join(row[0] for row in db.execute_sql("EXPLAIN " + sql, ("o",)))
        finally:
            db.execute_sql("RESET enable_seqscan")
        assert "therapy_session_list_order" in plan and "Sort" not in plan


def _index_names() -> set[str]:
    return {index.name for index in db.get_indexes("therapy_session")}


def test_the_date_index_the_list_order_index_covers_is_dropped(app):
    # A database made before version 8 has it; migrating drops it, and a new one never has it.
    assert "therapy_session_organization_id_session_date" not in _index_names()
    db.execute_sql("CREATE INDEX therapy_session_organization_id_session_date "
                   "ON therapy_session (organization_id, session_date)")
    SchemaMigration.delete().where(SchemaMigration.version == 8).execute()
    with db.connection_context():
        assert migrate() == [8]
    assert "therapy_session_organization_id_session_date" not in _index_names()
    assert "therapy_session_list_order" in _index_names()


def _audit_columns() -> set[str]:
    return {column.name for column in db.get_columns("audit_event")}


def test_the_list_audit_column_is_added_to_an_older_audit_log(app):
    # A database made before version 9: its audit rows stay, the column is added once.
    row = _audit_row()
    db.execute_sql("ALTER TABLE audit_event DROP COLUMN resource_ids")
    SchemaMigration.delete().where(SchemaMigration.version == 9).execute()
    with db.connection_context():
        assert migrate() == [9]
        assert migrate() == []
    assert "resource_ids" in _audit_columns()
    kept = AuditEvent.get_by_id(row.id)
    assert (kept.resource_id, kept.resource_ids) == ("ses_1", None)


def test_older_endpoints_keep_their_rotated_out_key_and_ended_calls_are_not_metered_again(
        app, org):
    # A database made before versions 10 and 11: one previous key per endpoint in two columns,
    # calls without the metering mark.
    from datetime import timedelta

    from models.base import utcnow
    from models.outbound import DeliveryAttempt, OutboundEvent, WebhookDelivery, WebhookEndpoint
    from models.voice import IntakeSummary, VoiceCall, VoiceTranscriptEntry
    from services.outbound.endpoints import signing_secrets

    endpoint = WebhookEndpoint.create(organization=org.id, url="https://203.0.113.9/h",
                                      secret="whsec_new")
    ended = VoiceCall.create(call_id="c-ended", organization=org.id, finalized=True,
                             duration_ms=60_000)
    live = VoiceCall.create(call_id="c-live", organization=org.id)
    # Rows that refer to the rebuilt tables: SQLite's rebuild of a table (to drop or change a
    # column) deleted them through ON DELETE CASCADE, an upgrade's silent data loss.
    VoiceTranscriptEntry.create(call=ended.id, dedup_key="k1", role="caller", text="Hello.",
                                at=utcnow())
    IntakeSummary.create(call=ended.id, organization=org.id, content={})
    event = OutboundEvent.create(id="evt_1", organization=org.id, event="intake.started",
                                 body="{}")
    delivery = WebhookDelivery.create(event=event.id, endpoint=endpoint.id, ordering_key="c")
    DeliveryAttempt.create(delivery=delivery.id, number=1, status_code=500, duration_ms=3)
    db.execute_sql("ALTER TABLE voice_call DROP COLUMN minutes_metered")
    db.execute_sql("ALTER TABLE webhook_endpoint DROP COLUMN previous_secrets")
    db.execute_sql("ALTER TABLE webhook_endpoint ADD COLUMN previous_secret VARCHAR(100)")
    db.execute_sql("ALTER TABLE webhook_endpoint ADD COLUMN previous_secret_expires_at "
                   + ("TIMESTAMP" if db.param == "%s" else "DATETIME"))
    expires = WebhookEndpoint.created_at.db_value(utcnow() + timedelta(hours=3))
    db.execute_sql(f"UPDATE webhook_endpoint SET previous_secret = {db.param}, "
                   f"previous_secret_expires_at = {db.param}", ("whsec_old", expires))
    SchemaMigration.delete().where(SchemaMigration.version.between(10, 12)).execute()
    with db.connection_context():
        assert migrate() == [10, 11, 12]
        assert migrate() == []
    columns = {column.name for column in db.get_columns("webhook_endpoint")}
    assert "previous_secret" not in columns and "previous_secrets" in columns
    assert signing_secrets(WebhookEndpoint.get_by_id(endpoint.id)) == ["whsec_new", "whsec_old"]
    assert VoiceCall.get_by_id(ended.id).minutes_metered is True
    assert VoiceCall.get_by_id(live.id).minutes_metered is False
    assert VoiceTranscriptEntry.select().count() == IntakeSummary.select().count() == 1
    assert WebhookDelivery.select().count() == DeliveryAttempt.select().count() == 1


def test_idempotency_keys_are_stored_as_hashes_and_older_ones_still_replay(app, client, auth):
    # A key is the client's text (a card number was seen in one): it was stored as sent.
    from models.idempotency import IdempotencyRecord

    body = {"patient_id": "pat-1", "provider_id": "prov-1",
            "session_date": "2026-12-01T15:00:00Z"}
    headers = {**auth, "Idempotency-Key": "4111111111111111"}
    first = client.post("/api/therapy-sessions", json=body, headers=headers)
    assert first.status_code == 201
    assert [r.key for r in IdempotencyRecord.select()] != ["4111111111111111"]
    assert "4111111111111111" not in str([r.__data__ for r in IdempotencyRecord.select()])
    # A row stored before version 13 holds the key itself; after it, the same request replays.
    IdempotencyRecord.update(key="4111111111111111").execute()
    SchemaMigration.delete().where(SchemaMigration.version == 13).execute()
    with db.connection_context():
        assert migrate() == [13]
    again = client.post("/api/therapy-sessions", json=body, headers=headers)
    assert again.status_code == 201 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json["id"] == first.json["id"]


def test_calls_made_before_version_14_keep_their_deployments_endpoint(app, org,
                                                                        database_kind):
    from models.outbound import WebhookEndpoint
    from models.voice import VoiceCall, VoiceDeployment

    endpoint = WebhookEndpoint.create(organization=org.id, url="https://203.0.113.9/h",
                                      secret="whsec_1")
    line = VoiceDeployment.create(organization=org.id, name="Line", phone_number="+15550100300",
                                  endpoint=endpoint.id)
    call = VoiceCall.create(call_id="c-1", organization=org.id, deployment=line.id)
    lone = VoiceCall.create(call_id="c-2", organization=org.id)
    if database_kind == "postgresql":  # SQLite drops no column that holds a foreign key
        db.execute_sql("ALTER TABLE voice_call DROP COLUMN endpoint_id")
    SchemaMigration.delete().where(SchemaMigration.version == 14).execute()
    with db.connection_context():
        assert migrate() == [14]
        assert migrate() == []
    assert VoiceCall.get_by_id(call.id).endpoint_id == endpoint.id
    assert VoiceCall.get_by_id(lone.id).endpoint_id is None
