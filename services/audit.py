"""The audit trail of access to patient data. Rows are only ever inserted."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from models.audit import AuditEntry, insert_list, insert_rows


@dataclass(frozen=True)
class AuditContext:
    actor: str
    organization_id: str | None
    ip: str | None
    request_id: str | None


def entry(ctx: AuditContext, action: str, resource_type: str) -> AuditEntry:
    """The row `action` on records of `resource_type` writes for each of them."""
    return AuditEntry(actor=ctx.actor, organization_id=ctx.organization_id, action=action,
                      resource_type=resource_type, ip=ctx.ip, request_id=ctx.request_id)


def record(ctx: AuditContext, action: str, resource_type: str,
           resource_ids: Iterable[str | None]) -> None:
    """One row per record touched; inside a transaction, written with its commit at the
    latest."""
    insert_rows(entry(ctx, action, resource_type), resource_ids)


def record_list(entry: AuditEntry, resource_ids: Sequence[str]) -> None:
    """A list's one row naming every record it returned (nothing for an empty page)."""
    insert_list(entry, resource_ids)


VOICE_PLATFORM = "voice-platform"


def by_peer(peer: str, organization_id: str | None, ip: str | None,
            request_id: str | None) -> AuditContext:
    """The context of a write a peer makes through its signed webhook (no token): the actor
    is the peer (`VOICE_PLATFORM`)."""
    return AuditContext(actor=peer, organization_id=organization_id, ip=ip,
                        request_id=request_id)


def by_worker(organization_id: str) -> AuditContext:
    """The context of a write a worker makes on its own (no request, no token): the actor is
    "system" and the job is named where the request id would be."""
    from rq import get_current_job

    job = get_current_job()
    return AuditContext(actor="system", organization_id=organization_id, ip=None,
                        request_id=f"job:{job.id}" if job else None)
