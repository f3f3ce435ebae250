"""The audit trail of access to patient data. Rows are only ever inserted."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from models.audit import AuditEvent
from models.base import db, execute_later, new_id, utcnow


@dataclass(frozen=True)
class AuditContext:
    actor: str
    organization_id: str | None
    ip: str | None
    request_id: str | None


_COLUMNS = ("id", "at", "organization_id", "actor", "action", "resource_type", "resource_id",
            "ip", "request_id")


def record(ctx: AuditContext, action: str, resource_type: str,
           resource_ids: Iterable[str | None]) -> None:
    """One row per record touched (a list read of 20 sessions writes 20 rows); inside a
    transaction, written with its commit at the latest (`execute_later`).

    The statement is written here rather than by Peewee's insert_many: building a 20-row
    insert through the query builder cost more CPU than the rest of a list request."""
    at = AuditEvent.at.db_value(utcnow())
    params: list[object] = []
    for rid in resource_ids:
        params += (new_id("aud"), at, ctx.organization_id, ctx.actor, action, resource_type,
                   rid, ctx.ip, ctx.request_id)
    if not params:
        return
    row = "(" + ", ".join([db.param] * len(_COLUMNS)) + ")"
    count = len(params) // len(_COLUMNS)
    # Only constants and placeholders are formatted in; every value is a bound parameter.
    sql = (f"INSERT INTO {AuditEvent._meta.table_name} ({', '.join(_COLUMNS)}) "  # noqa: S608
           f"VALUES {', '.join([row] * count)}")
    execute_later(sql, params)
