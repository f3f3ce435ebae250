"""EHR sync: the execution's results as one FHIR R4 transaction Bundle, sent to the
organization's FHIR server.

Each resource carries an identifier derived from the execution, and its entry asks the server
to create it only `ifNoneExist` with that identifier: a retried sync (timeout after the server
committed, worker killed mid-request) creates nothing twice. Models come from
`fhir.resources.R4B` (fhir.resources 8 ships R5 by default, R4B as the 4.x line; the resources
used here are unchanged between R4 and R4B), and every bundle is validated before it is sent.
"""

from __future__ import annotations

import base64
import json
import logging
import re
import uuid
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

import requests
from fhir.resources.R4B.bundle import Bundle
from pydantic import ValidationError

from models.analyses import SessionAnalysis
from models.base import db, utcnow
from models.organizations import Organization
from models.sessions import TherapySession
from models.workflows import AgentWorkflow, EhrSync
from services.errors import Unprocessable
from services.outbound.addresses import AddressRefused, check_destination
from services.retry_after import MAX_RETRY_AFTER_S, parse_retry_after
from services.workflows.conditions import MISSING, lookup
from services.workflows.nodes import NodeContext, NodeError, TransientNodeError

logger = logging.getLogger(__name__)

IDENTIFIER_SYSTEM = "urn:cws:workflow-resource"
PATIENT_SYSTEM = "urn:cws:patient"
LOINC = "http://loinc.org"
# Screener totals sent as Observations. GAD-2's is not: no LOINC code for its total score was
# confirmed.
SCREENER_LOINC = {"phq9": ("44261-6", "Patient Health Questionnaire 9 item (PHQ-9) total score "
                                      "[Reported]"),
                  "gad7": ("70274-6", "Generalized anxiety disorder 7 item (GAD-7) total score "
                                      "[Reported.PHQ]"),
                  "phq2": ("55758-7", "Patient Health Questionnaire 2 item (PHQ-2) total score "
                                      "[Reported]")}
SCREENER_RANGES = {"phq9": 27, "gad7": 21, "phq2": 6}
_SCREENER_FINDING = re.compile(
    r"\b(PHQ-9|GAD-7|PHQ-2)\s+(?:total\s+)?score\s+(?:of\s+)?(\d{1,2})\b", re.IGNORECASE)
NOTE_LOINC = ("11506-3", "Progress note")
TASK_PRIORITY = {"low": "routine", "medium": "routine", "high": "urgent", "urgent": "asap"}
RISK_SYSTEM = "http://terminology.hl7.org/CodeSystem/risk-probability"
RISK_CODES = {"low": "low", "moderate": "moderate", "high": "high", "imminent": "certain"}
FHIR_TIMEOUT_S = 30
FHIR_JSON = "application/fhir+json"
TRANSIENT_STATUSES = (408, 425, 429, 500, 502, 503, 504)
MAX_ERROR_CHARS = 500


def _iso(value) -> str:
    return value.isoformat().replace("+00:00", "Z")


def screener_totals(analysis: Mapping[str, Any], inputs: Mapping[str, Any]) -> dict[str, int]:
    """Screener totals: given in the input (`screeners: [{screener, score}]`), else as the
    analysis found them in the transcript ("PHQ-9 score 14")."""
    totals: dict[str, int] = {}
    findings = [*(analysis.get("visitSummary") or {}).get("keyFindings", []),
                *analysis.get("clinicalFindings", [])]
    for finding in findings:
        for name, score in _SCREENER_FINDING.findall(str(finding)):
            totals.setdefault(name.lower().replace("-", ""), int(score))
    for item in inputs.get("screeners") or []:
        if isinstance(item, Mapping) and isinstance(item.get("score"), int):
            name = str(item.get("screener", "")).lower().replace("-", "")
            if name in SCREENER_RANGES and 0 <= item["score"] <= SCREENER_RANGES[name]:
                totals[name] = item["score"]
    return {name: score for name, score in totals.items()
            if name in SCREENER_LOINC and 0 <= score <= SCREENER_RANGES[name]}


def _note_text(analysis: Mapping[str, Any]) -> str:
    summary = analysis.get("visitSummary") or {}
    parts = []
    for title, key in (("Topics discussed", "topicsDiscussed"), ("Key findings", "keyFindings"),
                       ("Decisions", "decisionsMade"), ("Next steps", "nextSteps")):
        if summary.get(key):
            parts.append(title + ":\n" + "\n".join(f"- {x}" for x in summary[key]))
    if analysis.get("treatmentPlan"):
        parts.append("Plan:\n" + "\n".join(f"- {x}" for x in analysis["treatmentPlan"]))
    risk = analysis.get("riskAssessment") or {}
    if risk.get("level"):
        parts.append(f"Risk: {risk['level']}. {risk.get('summary') or ''}".strip())
        if _risk_factors(risk):  # the safety floor's reasons, as the analysis gives them
            parts[-1] += "\n" + "\n".join(f"- {f}" for f in _risk_factors(risk))
    return "\n\n".join(parts) or "No findings."


def _risk_factors(risk: Mapping[str, Any]) -> list[str]:
    factors = risk.get("factors")
    return [str(f) for f in factors if str(f).strip()] if isinstance(factors, list) else []


def build_bundle(execution_id: str, analysis: Mapping[str, Any],
                 inputs: Mapping[str, Any], at: str,
                 period: tuple[str, str] | None = None) -> dict[str, Any]:
    """The transaction Bundle for one execution (validated; raises NodeError if invalid).
    `at` dates the clinical resources (the visit's time); `period` is the visit's, when a
    therapy session gives it."""
    entries: list[dict[str, Any]] = []

    def key(kind: str, n: int = 0) -> str:
        return f"{execution_id}/{kind}/{n}"

    def add(resource: dict[str, Any], kind: str, n: int = 0) -> str:
        value = key(kind, n)
        full_url = f"urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, IDENTIFIER_SYSTEM + ':' + value)}"
        resource["identifier"] = [{"system": IDENTIFIER_SYSTEM, "value": value}]
        entries.append({"fullUrl": full_url, "resource": resource, "request": {
            "method": "POST", "url": resource["resourceType"],
            "ifNoneExist": f"identifier={IDENTIFIER_SYSTEM}|{value}"}})
        return full_url

    patient_id = patient_identifier(inputs.get("patient_id"))
    subject = ({"identifier": {"system": PATIENT_SYSTEM, "value": patient_id}}
               if patient_id is not None else {"display": "Unidentified patient"})
    encounter = {"reference": add({
        "resourceType": "Encounter", "status": "finished",
        "class": {"system": "http://terminology.hl7.org/CodeSystem/v3-ActCode", "code": "AMB",
                  "display": "ambulatory"},
        "subject": subject,
        "period": {"start": period[0], "end": period[1]} if period else None}, "encounter")}
    note = _note_text(analysis).encode()
    add({"resourceType": "DocumentReference", "status": "current", "docStatus": "final",
         "type": {"coding": [{"system": LOINC, "code": NOTE_LOINC[0], "display": NOTE_LOINC[1]}]},
         "subject": subject, "date": at,
         "content": [{"attachment": {"contentType": "text/plain; charset=utf-8",
                                     "data": base64.b64encode(note).decode(),
                                     "title": "Post-visit note"}}],
         "context": {"encounter": [encounter]}}, "note")
    for n, task in enumerate(analysis.get("aiTasks") or []):
        add({"resourceType": "Task", "status": "requested", "intent": "order",
             "priority": TASK_PRIORITY.get(task.get("priority"), "routine"),
             "description": str(task.get("title") or task.get("description") or "Follow-up"),
             "note": [{"text": str(task.get("description") or "")}] if task.get("description")
             else None,
             "for": subject, "encounter": encounter, "authoredOn": at}, "task", n)
    risk = analysis.get("riskAssessment") or {}
    level = risk.get("level") or "low"
    add({"resourceType": "RiskAssessment", "status": "final", "subject": subject,
         "encounter": encounter, "occurrenceDateTime": at,
         "prediction": [{"qualitativeRisk": {
             "coding": [{"system": RISK_SYSTEM, "code": RISK_CODES.get(level, "low")}],
             "text": level}}],
         "note": [{"text": str(risk.get("summary") or level)},
                  *({"text": factor} for factor in _risk_factors(risk))]}, "risk")
    for name, score in sorted(screener_totals(analysis, inputs).items()):
        code, display = SCREENER_LOINC[name]
        add({"resourceType": "Observation", "status": "final",
             "category": [{"coding": [{
                 "system": "http://terminology.hl7.org/CodeSystem/observation-category",
                 "code": "survey"}]}],
             "code": {"coding": [{"system": LOINC, "code": code, "display": display}]},
             "subject": subject, "encounter": encounter, "effectiveDateTime": at,
             "valueInteger": score}, "screener", list(SCREENER_LOINC).index(name))
    for entry in entries:  # drop optional fields left empty above
        entry["resource"] = {k: v for k, v in entry["resource"].items() if v is not None}
    bundle = {"resourceType": "Bundle", "type": "transaction", "entry": entries}
    try:
        Bundle.model_validate(bundle)
    except ValidationError as exc:
        raise NodeError(f"The FHIR bundle is invalid: {exc.error_count()} error(s).") from exc
    return bundle


def fhir_target(organization_id: str, workflow_id: str) -> str | None:
    """The workflow's FHIR base URL, else the organization's `settings.ehr.fhir_base_url`."""
    workflow = AgentWorkflow.get_by_id(workflow_id)
    if workflow.fhir_base_url:
        return workflow.fhir_base_url
    organization = Organization.get_by_id(organization_id)
    return ((organization.settings or {}).get("ehr") or {}).get("fhir_base_url") or None


def _analysis_output(config: Mapping[str, Any], context: NodeContext) -> Mapping[str, Any]:
    path = config.get("analysis_path")
    if path is None:
        ids = [n["id"] for n in context.definition["nodes"] if n["type"] == "analyze_session"]
        path = next((i for i in ids if i in context.state), None)
    value = lookup(context.state, path) if path else MISSING
    if not isinstance(value, Mapping):
        raise NodeError("No analysis in the state to sync (set 'analysis_path').")
    return value


def patient_identifier(value: Any) -> str | None:
    """The input's `patient_id` as the identifier the resources name, or None: an object, a
    list, a boolean or a blank is no identifier."""
    if not isinstance(value, str | int) or isinstance(value, bool) or not str(value).strip():
        return None
    return str(value).strip()


def _visit(organization_id: str, analysis: Mapping[str, Any], inputs: Mapping[str, Any]
           ) -> tuple[dict[str, Any], str, tuple[str, str] | None]:
    """(inputs with the patient, the clinical date, the visit's period). The therapy session
    the analysis is linked to gives the patient when the input names none, and the date of
    the visit; without one, the analysis's own time. (The sync's own time dated a PHQ-9 by
    when a clinician approved the note, and a linked session's patient was not used.)"""
    record = None
    if isinstance(analysis.get("analysis_id"), str):
        record = SessionAnalysis.get_or_none(
            (SessionAnalysis.id == analysis["analysis_id"])
            & (SessionAnalysis.organization == organization_id))
    session = None
    if record is not None and record.session_id:
        session = TherapySession.get_or_none(TherapySession.id == record.session_id)
    inputs = dict(inputs)
    named = patient_identifier(inputs.get("patient_id"))
    if session is not None and named is None:
        inputs["patient_id"] = session.patient_id
    elif session is not None and named != session.patient_id:
        # The input names one patient, the analysed session is another's: either would file
        # one patient's note, risk and scores in someone else's chart.
        raise NodeError("input.patient_id is not the patient of the analysed therapy "
                        "session: nothing was sent (one patient's record must not be filed "
                        "in another's chart).")
    if session is not None:
        start = session.session_date
        end = start + timedelta(minutes=session.duration_minutes or 0)
        return inputs, _iso(start), (_iso(start), _iso(end))
    return inputs, _iso(record.created_at if record is not None else utcnow()), None


def _update(execution_id: str, **fields: Any) -> None:
    with db.atomic():
        sync, _ = EhrSync.get_or_create(execution=execution_id)
        for name, value in fields.items():
            setattr(sync, name, value)
        sync.save()


def _refusal(response: requests.Response) -> str | None:
    """Why the server's answer is no taken transaction, or None. A 4xx (or a redirect) is a
    refusal; so is a 2xx that is an OperationOutcome with an error (FHIR's way of refusing)
    or a body that is not FHIR at all (an HTML page from a proxy or a login). An empty 2xx
    body is taken (`Prefer: return=minimal`)."""
    status = response.status_code
    try:
        body = response.json() if response.content else None
    except ValueError:
        kind = response.headers.get("Content-Type", "unknown type").split(";")[0]
        return (f"FHIR server answered {status} with no FHIR body ({kind[:60]})"
                if 200 <= status < 300 else f"FHIR server refused the bundle ({status})")
    outcome = body if isinstance(body, dict) and body.get("resourceType") == "OperationOutcome" \
        else None
    issues = [i for i in (outcome or {}).get("issue") or [] if isinstance(i, dict)]
    failed = [i for i in issues if i.get("severity") in ("error", "fatal")]
    diagnostics = "; ".join(str(i.get("diagnostics") or (i.get("details") or {}).get("text")
                                or i.get("code") or "") for i in failed or issues)[:300]
    if not 200 <= status < 300:
        return f"FHIR server refused the bundle ({status})" + (
            f": {diagnostics}" if diagnostics else "")
    if failed:
        return f"FHIR server answered {status} with an error: {diagnostics}"
    return None


def _created_resources(response: requests.Response) -> list[dict[str, str]]:
    """The resources a transaction-response Bundle names. The server took the transaction
    (2xx): a body that is no such Bundle (none, `[]`, odd entries) names none, and the sync
    still counts as done."""
    try:
        body = response.json()
    except ValueError:
        return []
    entries = body.get("entry") if isinstance(body, dict) else None
    resources = []
    for entry in entries if isinstance(entries, list) else []:
        answer = entry.get("response") if isinstance(entry, dict) else None
        location = answer.get("location") if isinstance(answer, dict) else None
        if not isinstance(location, str):
            continue
        parts = location.split("/_history")[0].strip("/").split("/")
        if len(parts) >= 2:
            resources.append({"resourceType": parts[-2], "id": parts[-1]})
    return resources


def sync_execution(config: Mapping[str, Any], context: NodeContext) -> dict[str, Any]:
    """Send the bundle; record the attempt on the execution's sync status."""
    target = fhir_target(context.organization_id, context.workflow_id)
    if not target:
        _update(context.execution_id, status="not_configured", target=None)
        return {"status": "not_configured"}
    try:
        # The same guard as webhooks, at send time: the address may have changed since saving.
        check_destination(target, bool(context.config.get("ALLOW_PRIVATE_WEBHOOK_URLS")))
    except (AddressRefused, Unprocessable) as exc:
        error = f"FHIR server address refused: {exc}"
        _update(context.execution_id, status="failed", last_error=error)
        raise NodeError(error) from exc
    analysis = _analysis_output(config, context)
    inputs, at, period = _visit(context.organization_id, analysis,
                                context.state.get("input") or {})
    bundle = build_bundle(context.execution_id, analysis, inputs, at, period)
    _update(context.execution_id, status="in_progress", target=target,
            attempts=EhrSync.attempts + 1, last_attempt_at=utcnow())
    try:
        response = requests.post(target.rstrip("/"), data=json.dumps(bundle),
                                 headers={"Content-Type": FHIR_JSON, "Accept": FHIR_JSON},
                                 timeout=FHIR_TIMEOUT_S, allow_redirects=False)
    except requests.RequestException as exc:
        error = (f"FHIR server did not answer within {FHIR_TIMEOUT_S} s"
                 if isinstance(exc, requests.Timeout)
                 else f"FHIR server unreachable: {type(exc).__name__}")
        _update(context.execution_id, status="pending", last_error=error)
        raise TransientNodeError(error) from exc
    if response.status_code in TRANSIENT_STATUSES:
        error = f"FHIR server answered {response.status_code}"
        retry_after = parse_retry_after(response.headers.get("Retry-After"))
        if retry_after:
            retry_after = min(retry_after, MAX_RETRY_AFTER_S)  # the wait the retry will have
            error += f" and asked for a retry after {retry_after:.0f} s"
        _update(context.execution_id, status="pending", last_error=error)
        raise TransientNodeError(error, retry_after)
    refusal = _refusal(response)
    if refusal:
        _update(context.execution_id, status="failed", last_error=refusal)
        raise NodeError(refusal)
    resources = _created_resources(response)
    _update(context.execution_id, status="synced", resources=resources, synced_at=utcnow(),
            last_error=None)
    logger.info("execution %s synced %s FHIR resources", context.execution_id, len(resources))
    return {"status": "synced", "target": target, "resources": resources}


def mark_failed(execution_id: str, error: str) -> None:
    """The sync's retries are spent: its status says so."""
    (EhrSync.update(status="failed", last_error=error[:MAX_ERROR_CHARS])
     .where((EhrSync.execution == execution_id)
            & (EhrSync.status.in_(("pending", "in_progress")))).execute())


def sync_status(execution) -> dict[str, Any]:
    """The execution's EHR sync as SPEC's resource. A sync that can no longer happen (the
    execution cancelled or failed before it was done) is `failed`, saying why; a workflow
    that has no `ehr_sync` node, or whose run took no path through one, is `not_configured`."""
    sync = EhrSync.get_or_none(EhrSync.execution == execution.id)
    has_node = any(n["type"] == "ehr_sync" for n in execution.definition["nodes"])
    ended = execution.status in ("cancelled", "failed")
    if sync is None:
        status, error = "not_configured", None
        if has_node and execution.status in ("queued", "running", "paused"):
            status = "pending"
        elif has_node and ended:
            status, error = "failed", f"The execution was {execution.status} before the EHR " \
                                      "sync ran."
        return {"execution_id": execution.id, "status": status, "target": None, "attempts": 0,
                "last_attempt_at": None, "last_error": error, "resources": [],
                "synced_at": None}
    status, error = sync.status, sync.last_error
    if ended and status in ("pending", "in_progress"):
        status = "failed"
        error = f"The execution was {execution.status} before the EHR sync was done" + (
            f" (last attempt: {sync.last_error})" if sync.last_error else "") + "."
    return {"execution_id": execution.id, "status": status, "target": sync.target,
            "attempts": sync.attempts, "last_attempt_at": sync.last_attempt_at,
            "last_error": error, "resources": sync.resources, "synced_at": sync.synced_at}
