"""Therapy sessions: creation, the status machine, edits and listing."""

from __future__ import annotations

from typing import Any

from peewee import ModelSelect

from models.base import db, utcnow
from models.sessions import SESSION_STATUSES, TherapySession
from models.statements import RowsWhere, insert_row
from services.errors import Conflict, Unprocessable
from services.templates import get_visible_template
from services.tenancy import get_owned
from services.usage import record_usage

# Allowed status changes; anything else is a conflict with the session's state.
TRANSITIONS: dict[str, frozenset[str]] = {
    "scheduled": frozenset({"in_progress", "cancelled", "no_show"}),
    "in_progress": frozenset({"completed", "cancelled"}),
    "completed": frozenset(),
    "cancelled": frozenset(),
    "no_show": frozenset(),
}
FINAL_STATUSES = frozenset(s for s, nxt in TRANSITIONS.items() if not nxt)
assert set(TRANSITIONS) == set(SESSION_STATUSES), "every status has its transitions"


def _check_template(organization_id: str, template_id: str | None) -> None:
    if template_id is not None and get_visible_template(organization_id, template_id) is None:
        raise Unprocessable("No such template for this organization.", field="template_id")


def create_session(organization_id: str, data: dict[str, Any]) -> TherapySession:
    """Store a new session; `co_provider_ids` present makes it a co-therapy session."""
    _check_template(organization_id, data.get("template_id"))
    co_providers = data.get("co_provider_ids") or []
    with db.transaction():
        session = insert_row(TherapySession(
            organization=organization_id,
            session_type="co_therapy" if co_providers else "individual",
            **data,
        ))
        record_usage(organization_id, "therapy_sessions",
                     details={"session_type": session.session_type})
    return session


def get_session(organization_id: str, session_id: str) -> TherapySession:
    return get_owned(TherapySession, organization_id, session_id, "Therapy session")


def check_transition(current: str, new: str) -> None:
    if new != current and new not in TRANSITIONS[current]:
        raise Conflict(f"A session in status {current!r} cannot become {new!r}.",
                       field="status")


def update_session(session: TherapySession, changes: dict[str, Any]) -> TherapySession:
    """Apply a PATCH: sessions in a final status (completed, cancelled, no_show) are frozen."""
    if not changes:
        return session
    if session.status in FINAL_STATUSES:
        raise Conflict(f"A session in status {session.status!r} can no longer be changed.")
    if "status" in changes:
        check_transition(session.status, changes["status"])
        if changes["status"] in FINAL_STATUSES and session.active_clinical_session_id:
            # A final session would refuse the stop that ends the live session, which would
            # then run, and take transcript, for ever.
            raise Conflict(
                f"The live clinical session {session.active_clinical_session_id} is running: "
                f"stop it first (POST /api/clinical/{session.active_clinical_session_id}/stop "
                "completes this session).", field="status")
    if "co_provider_ids" in changes and session.session_type != "co_therapy":
        raise Unprocessable("Only co-therapy sessions have co-providers.",
                            field="co_provider_ids")
    if "co_provider_ids" in changes or "provider_id" in changes:
        # Either side may change: the new provider must not be one of the co-providers.
        provider = changes.get("provider_id", session.provider_id)
        co = changes.get("co_provider_ids", session.co_provider_ids)
        if provider in co or len(set(co)) != len(co):
            raise Unprocessable("Co-providers must be distinct and differ from provider_id.",
                                field="co_provider_ids")
    if "template_id" in changes:
        _check_template(session.organization_id, changes["template_id"])
    _compare_and_set(session, changes)
    return TherapySession.get_by_id(session.id)


def _compare_and_set(session: TherapySession, changes: dict[str, Any]) -> None:
    """Write `changes` only if the status is still the one they were checked against, so two
    racing transitions from the same status cannot both succeed."""
    fields = {TherapySession._meta.combined[name]: value for name, value in changes.items()}
    unchanged = (TherapySession.id == session.id) & (TherapySession.status == session.status)
    if changes.get("status") in FINAL_STATUSES and "active_clinical_session_id" not in changes:
        # Nor may a live session have started since the checks above.
        unchanged &= TherapySession.active_clinical_session_id.is_null()
    updated = (TherapySession.update({**fields, TherapySession.updated_at: utcnow()})
               .where(unchanged).execute())
    if not updated:
        raise Conflict("The session's status changed meanwhile; reload it and retry.",
                       field="status")


def set_status(session: TherapySession, status: str) -> None:
    """Move a session along the status machine (used by the live clinical session)."""
    check_transition(session.status, status)
    _compare_and_set(session, {"status": status})
    session.status = status


LIST_ORDER = (TherapySession.session_date.desc(), TherapySession.id)


def list_sessions(organization_id: str, filters: dict[str, Any]) -> ModelSelect | RowsWhere:
    """The organization's sessions, newest session date first (filters: equal fields and a
    date window); rows as mappings or as instances, which dump alike."""
    equals = {f: filters[f] for f in ("patient_id", "provider_id", "status") if filters.get(f)}
    if not filters.get("from_") and not filters.get("to"):
        # The common shapes (no date window) run SQL built once, and their rows come as
        # mappings: a list only dumps them.
        return RowsWhere(TherapySession, LIST_ORDER, mappings=True,
                         organization=organization_id, **equals)
    query = TherapySession.select().where(TherapySession.organization == organization_id)
    for field in ("patient_id", "provider_id", "status"):
        if filters.get(field):
            query = query.where(getattr(TherapySession, field) == filters[field])
    if filters.get("from_"):
        query = query.where(TherapySession.session_date >= filters["from_"])
    if filters.get("to"):
        query = query.where(TherapySession.session_date < filters["to"])
    return query.order_by(*LIST_ORDER)
