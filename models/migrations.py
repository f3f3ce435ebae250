"""Numbered schema migrations.

Each step is idempotent (tables are created with IF NOT EXISTS, columns added only when missing),
so a step stays correct whether it runs on a database created before or after later steps
changed the models. `schema_migration` records which versions ran; a lock keeps two processes
starting at once (web and worker) from migrating concurrently.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from peewee import CharField, IntegerField
from playhouse.migrate import SchemaMigrator
from playhouse.migrate import migrate as run_migrations

from models.analyses import SessionAnalysis
from models.audit import AuditEvent
from models.base import BaseModel, UTCDateTimeField, db, is_postgres, utcnow
from models.billing import PaymentMethod
from models.clinical import ClinicalSession, TranscriptChunk
from models.idempotency import IdempotencyRecord, stored_key
from models.jobs import JobRecord
from models.organizations import (
    Organization,
    OrganizationMember,
    ProvisioningJob,
    ProvisioningStep,
    SlugReservation,
)
from models.outbound import DeliveryAttempt, OutboundEvent, WebhookDelivery, WebhookEndpoint
from models.sessions import TherapySession
from models.templates import Template
from models.tokens import ApiToken
from models.usage import UsageEvent, UsageRollup, rebuild_rollups
from models.voice import (
    Escalation,
    IntakeSummary,
    ScreenerResult,
    VoiceCall,
    VoiceDeployment,
    VoiceEvent,
    VoiceToolCall,
    VoiceTranscriptEntry,
)
from models.workflows import (
    AgentWorkflow,
    EhrSync,
    TraceEntry,
    WorkflowApproval,
    WorkflowExecution,
)

logger = logging.getLogger(__name__)

# Arbitrary constant key for pg_advisory_xact_lock: serialises concurrent migrators.
PG_MIGRATION_LOCK_KEY = 724_311_905


class SchemaMigration(BaseModel):
    version = IntegerField(primary_key=True)
    name = CharField(max_length=200)
    applied_at = UTCDateTimeField(default=utcnow)


_SQLITE_AUDIT_TRIGGERS = (
    """CREATE TRIGGER IF NOT EXISTS audit_event_no_update BEFORE UPDATE ON audit_event
       BEGIN SELECT RAISE(ABORT, 'audit_event is append-only'); END""",
    """CREATE TRIGGER IF NOT EXISTS audit_event_no_delete BEFORE DELETE ON audit_event
       BEGIN SELECT RAISE(ABORT, 'audit_event is append-only'); END""",
)
_PG_AUDIT_TRIGGERS = (
    """CREATE OR REPLACE FUNCTION audit_event_append_only() RETURNS trigger AS $$
       BEGIN RAISE EXCEPTION 'audit_event is append-only'; END; $$ LANGUAGE plpgsql""",
    "DROP TRIGGER IF EXISTS audit_event_append_only ON audit_event",
    """CREATE TRIGGER audit_event_append_only BEFORE UPDATE OR DELETE ON audit_event
       FOR EACH ROW EXECUTE FUNCTION audit_event_append_only()""",
)


def _m001_foundation() -> None:
    db.create_tables(
        [Organization, ApiToken, AuditEvent, IdempotencyRecord, Template, TherapySession,
         JobRecord, UsageEvent],
        safe=True,
    )
    for statement in _PG_AUDIT_TRIGGERS if is_postgres() else _SQLITE_AUDIT_TRIGGERS:
        db.execute_sql(statement)


def _add_missing_columns(model: type[BaseModel], *names: str) -> None:
    """Add columns a table created before this step lacks (a fresh table already has them)."""
    present = {c.name for c in db.get_columns(model._meta.table_name)}
    migrator = SchemaMigrator.from_database(db.obj)
    operations = [migrator.add_column(model._meta.table_name, model._meta.fields[n].column_name,
                                      model._meta.fields[n])
                  for n in names if model._meta.fields[n].column_name not in present]
    if operations:
        run_migrations(*operations)


def _m002_clinical_analysis() -> None:
    db.create_tables([SessionAnalysis, ClinicalSession, TranscriptChunk], safe=True)
    _add_missing_columns(TherapySession, "analysis_status", "analysis_error",
                         "latest_analysis_id")


def _m003_active_clinical_session() -> None:
    _add_missing_columns(TherapySession, "active_clinical_session_id")


def _m004_outbound_voice() -> None:
    db.create_tables([WebhookEndpoint, OutboundEvent, WebhookDelivery, DeliveryAttempt,
                      VoiceDeployment, VoiceCall, VoiceEvent, VoiceTranscriptEntry,
                      VoiceToolCall, ScreenerResult, Escalation, IntakeSummary], safe=True)


def _m005_workflows() -> None:
    db.create_tables([AgentWorkflow, WorkflowExecution, TraceEntry, WorkflowApproval, EhrSync],
                     safe=True)


# Usage reports read (organization, at) ranges and sum quantity per metric: a covering index
# answers them from the index alone.
_USAGE_REPORT_INDEX = ("CREATE INDEX IF NOT EXISTS usage_event_report "
                       "ON usage_event (organization_id, at, metric, quantity)")


def _m006_organizations_billing() -> None:
    db.create_tables([OrganizationMember, ProvisioningJob, ProvisioningStep, SlugReservation,
                      PaymentMethod, UsageRollup], safe=True)
    db.execute_sql(_USAGE_REPORT_INDEX)
    rebuild_rollups()  # the slot sums of the events recorded before this step


def _m007_session_list_order() -> None:
    # Session lists are ordered by session_date DESC, id: an index in exactly that order reads
    # a page from the index, where (organization, session_date) alone sorted every session of
    # the organization that shares a date.
    db.execute_sql("CREATE INDEX IF NOT EXISTS therapy_session_list_order "
                   "ON therapy_session (organization_id, session_date DESC, id)")


def _m008_drop_date_index() -> None:
    # (organization, session_date) duplicates the list-order index's leading columns: it costs
    # every insert and, before the table has statistics, PostgreSQL's planner picks it for a
    # list page and sorts all of the organization's sessions instead of reading 20 entries.
    db.execute_sql("DROP INDEX IF EXISTS therapy_session_organization_id_session_date")


def _m009_list_audit_entries() -> None:
    # A list writes one audit row naming the records of its page (`resource_ids`) instead of
    # one row per record; the rows written before stay as they are (the table is append-only).
    _add_missing_columns(AuditEvent, "resource_ids")


def _m010_voice_minutes_metered() -> None:
    _add_missing_columns(VoiceCall, "minutes_metered")
    # Calls ended before this step were metered (or not) at their first end message: they are
    # not metered again.
    VoiceCall.update(minutes_metered=True).where(VoiceCall.finalized == True).execute()  # noqa: E712


def _m011_every_rotated_key_signs() -> None:
    # One previous key per endpoint became a list: a second rotation within the overlap
    # dropped the first one's old key at once.
    table = WebhookEndpoint._meta.table_name
    present = {c.name for c in db.get_columns(table)}
    _add_missing_columns(WebhookEndpoint, "previous_secrets")
    if "previous_secret" not in present:
        return
    rows = db.execute_sql("SELECT id, previous_secret, previous_secret_expires_at "
                          "FROM webhook_endpoint WHERE previous_secret IS NOT NULL").fetchall()
    expiry = UTCDateTimeField()
    for endpoint_id, secret, expires_at in rows:
        expires = expiry.python_value(expires_at) if expires_at is not None else None
        if expires is None:
            continue
        WebhookEndpoint.update(previous_secrets=[[secret, expires.isoformat()]]).where(
            WebhookEndpoint.id == endpoint_id).execute()
    migrator = SchemaMigrator.from_database(db.obj)
    run_migrations(migrator.drop_column(table, "previous_secret"),
                   migrator.drop_column(table, "previous_secret_expires_at"))


def _m012_billing_lease() -> None:
    _add_missing_columns(Organization, "billing_busy_until")


def _m013_hashed_idempotency_keys() -> None:
    # Keys were stored as sent; a client may put a card number or a name in one. Rows of the
    # last 24 h are still replayed, so they are hashed, not dropped.
    rows = IdempotencyRecord.select(IdempotencyRecord.id, IdempotencyRecord.key).tuples()
    for record_id, key in list(rows):
        IdempotencyRecord.update(key=stored_key(key)).where(
            IdempotencyRecord.id == record_id).execute()


def _m014_call_endpoint() -> None:
    _add_missing_columns(VoiceCall, "endpoint")
    # Calls before this step send to their deployment's endpoint of now.
    db.execute_sql(
        "UPDATE voice_call SET endpoint_id = (SELECT d.endpoint_id FROM voice_deployment d "
        "WHERE d.id = voice_call.deployment_id) WHERE endpoint_id IS NULL")


MIGRATIONS: tuple[tuple[int, str, Callable[[], None]], ...] = (
    (1, "organizations, tokens, audit log, templates, therapy sessions, jobs, usage",
     _m001_foundation),
    (2, "session analyses and live clinical sessions", _m002_clinical_analysis),
    (3, "the active clinical session on its therapy session", _m003_active_clinical_session),
    (4, "outbound webhooks and voice intake", _m004_outbound_voice),
    (5, "agent workflows, executions, trace, approvals, EHR sync", _m005_workflows),
    (6, "provisioning jobs, members, payment methods, usage slot sums and index",
     _m006_organizations_billing),
    (7, "session list order index", _m007_session_list_order),
    (8, "drop the session date index the list-order index covers", _m008_drop_date_index),
    (9, "one audit row per list, naming its records", _m009_list_audit_entries),
    (10, "voice minutes metered once a call's duration is known", _m010_voice_minutes_metered),
    (11, "every webhook key rotated out in the last 24 h signs", _m011_every_rotated_key_signs),
    (12, "one payment-method change per organization at a time", _m012_billing_lease),
    (13, "idempotency keys stored as their hash", _m013_hashed_idempotency_keys),
    (14, "a call keeps the webhook endpoint it began with", _m014_call_endpoint),
)


@contextmanager
def _migration_lock() -> Iterator[None]:
    if is_postgres():
        with db.atomic():
            db.execute_sql("SELECT pg_advisory_xact_lock(%s)", (PG_MIGRATION_LOCK_KEY,))
            yield
    else:
        # SQLite changes a column by rebuilding its table (a copy, then DROP TABLE and a
        # rename): with foreign keys enforced, the DROP deleted every row that refers to the
        # table through ON DELETE CASCADE (a call's transcript, summary and screeners, an
        # endpoint's deliveries). Off for the migration (the pragma is a no-op inside a
        # transaction, so it is set before BEGIN), then every reference checked before COMMIT.
        db.execute_sql("PRAGMA foreign_keys = OFF")
        if db.execute_sql("PRAGMA foreign_keys").fetchone()[0]:
            raise RuntimeError("SQLite migrations cannot run inside a transaction (foreign keys "
                               "stay enforced there, and a table rebuild would cascade)")
        try:
            # BEGIN IMMEDIATE takes SQLite's write lock up front.
            with db.atomic("IMMEDIATE"):
                yield
                broken = db.execute_sql("PRAGMA foreign_key_check").fetchall()
                if broken:
                    raise RuntimeError(f"migration left {len(broken)} broken references "
                                       f"(first: {broken[0]}); nothing was changed")
        finally:
            db.execute_sql("PRAGMA foreign_keys = ON")


def migrate(seed: Callable[[], None] | None = None) -> list[int]:
    """Apply pending migrations, then `seed` (e.g. the built-in templates) under the same lock;
    returns the versions applied."""
    applied: list[int] = []
    with _migration_lock():
        db.create_tables([SchemaMigration], safe=True)
        done = {row.version for row in SchemaMigration.select(SchemaMigration.version)}
        for version, name, step in MIGRATIONS:
            if version in done:
                continue
            step()
            SchemaMigration.create(version=version, name=name)
            applied.append(version)
            logger.info("applied migration %s: %s", version, name)
        if seed is not None:
            seed()
    return applied


def current_version() -> int:
    if not db.table_exists(SchemaMigration._meta.table_name):
        return 0
    row = SchemaMigration.select(SchemaMigration.version).order_by(
        SchemaMigration.version.desc()).first()
    return row.version if row else 0
