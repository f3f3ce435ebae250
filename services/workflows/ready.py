"""Ready workflows every organization can start from (seeded by provisioning)."""

from __future__ import annotations

from models.base import db
from models.workflows import AgentWorkflow

POST_VISIT = {
    "name": "Post-visit documentation",
    "description": "Analyse the session transcript, have a clinician approve the note, then "
                   "send it to the EHR.",
    "definition": {"start": "analyze", "nodes": [
        # The session, when the input names it, gives the note its patient and visit date.
        {"id": "analyze", "type": "analyze_session",
         "config": {"session_id_path": "input.session_id"}, "next": "review"},
        {"id": "review", "type": "approval",
         "config": {"title": "Review the post-visit note before it goes to the EHR"},
         "next": "sync"},
        {"id": "sync", "type": "ehr_sync", "config": {"analysis_path": "analyze"},
         "next": "done"},
        {"id": "done", "type": "end", "config": {}, "next": None},
    ]},
}
INTAKE_TRIAGE = {
    "name": "Intake triage",
    "description": "Analyse an intake transcript; alert the clinic's webhook when the risk is "
                   "high or imminent.",
    "definition": {"start": "analyze", "nodes": [
        {"id": "analyze", "type": "analyze_session",
         "config": {"session_id_path": "input.session_id"}, "next": "risk"},
        {"id": "risk", "type": "condition", "config": {
            "when": {"path": "analyze.riskAssessment.level", "operator": "in",
                     "value": ["high", "imminent"]},
            "then": "alert", "else": "done"}, "next": None},
        {"id": "alert", "type": "webhook", "config": {
            "event": "workflow.intake.high_risk",
            "fields": {"risk_level": "analyze.riskAssessment.level",
                       "analysis_id": "analyze.analysis_id"}}, "next": "done"},
        {"id": "done", "type": "end", "config": {}, "next": None},
    ]},
}
READY_WORKFLOWS = (POST_VISIT, INTAKE_TRIAGE)


def seed_ready_workflows(organization_id: str) -> list[AgentWorkflow]:
    """The ready workflows of an organization, created if missing (idempotent by name)."""
    seeded = []
    with db.atomic():
        for ready in READY_WORKFLOWS:
            workflow = AgentWorkflow.get_or_none(
                (AgentWorkflow.organization == organization_id)
                & (AgentWorkflow.name == ready["name"]))
            if workflow is None:
                workflow = AgentWorkflow.create(organization=organization_id, **ready)
            seeded.append(workflow)
    return seeded
