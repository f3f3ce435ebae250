"""The audit trail of access to patient data. Rows are only ever inserted."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from models.audit import AuditEvent
from models.base import new_id, utcnow


@dataclass(frozen=True)
class AuditContext:
    actor: str
    organization_id: str | None
    ip: str | None
    request_id: str | None


def record(ctx: AuditContext, action: str, resource_type: str,
           resource_ids: Iterable[str | None]) -> None:
    """One row per record touched (a list read of 20 sessions writes 20 rows)."""
    at = utcnow()
    rows = [
        {"id": new_id("aud"), "at": at, "organization_id": ctx.organization_id,
         "actor": ctx.actor, "action": action, "resource_type": resource_type,
         "resource_id": rid, "ip": ctx.ip, "request_id": ctx.request_id}
        for rid in resource_ids
    ]
    if rows:
        AuditEvent.insert_many(rows).execute()
