"""Agent workflows through the API, with real RQ workers, Redis and a FHIR server on
127.0.0.1."""

from __future__ import annotations

import base64
import json

import pytest
from fhir.resources.R4B.bundle import Bundle

from models.analyses import SessionAnalysis
from models.jobs import JobRecord
from tests.conftest import bearer
from tests.fakes.fhir_server import FakeFhirServer

BASE = "/api/agent-workflows"
TRANSCRIPT = ("Clinician: How has the week been?\n"
              "Patient: Tired. My PHQ-9 today was 14 and the GAD-7 was 9.\n"
              "Clinician: Let us schedule a follow-up in two weeks.")
CRISIS_TRANSCRIPT = ("Clinician: Any thoughts of harming yourself?\n"
                     "Patient: Yes, I have been thinking about killing myself and I have a plan.")


def node(id_, type_, next_=None, **config):
    return {"id": id_, "type": type_, "config": config, "next": next_}


POST_VISIT = {"start": "analyze", "nodes": [
    node("analyze", "analyze_session", "review"),
    node("review", "approval", "sync", title="Review the note"),
    node("sync", "ehr_sync", "done"),
    node("done", "end"),
]}
SIMPLE = {"start": "tag", "nodes": [
    node("tag", "set", "check", values={"score": 12}),
    node("check", "condition", then="high", **{"else": "done"},
         when={"path": "tag.score", "operator": "gte", "value": 10}),
    node("high", "set", "done", values={"flag": "review"}),
    node("done", "end"),
]}


@pytest.fixture
def fast_app(make_app):
    return make_app(JOB_RETRY_INTERVALS_S=[0, 0, 0], ALLOW_PRIVATE_WEBHOOK_URLS=True)


@pytest.fixture
def api(fast_app, org, make_token):
    client = fast_app.test_client()
    headers = bearer(make_token(org, "admin"))

    def call(method, path, **kwargs):
        return client.open(BASE + path, method=method, headers=headers, **kwargs)

    return call


@pytest.fixture
def fhir():
    with FakeFhirServer() as server:
        yield server


@pytest.fixture
def drain(fast_app):
    from jobs.worker import run_worker

    return lambda: run_worker(fast_app, burst=True)


def errors_at(errors, path):
    """The messages at a dotted path of nested field errors (an object's own: `_schema`)."""
    for key in path.split("."):
        errors = errors[key]
    return errors["_schema"] if isinstance(errors, dict) else errors


def create(api, definition, **fields):
    response = api("POST", "", json={"name": "Flow", "definition": definition, **fields})
    assert response.status_code == 201, response.json
    return response.json


def start(api, workflow, payload=None):
    response = api("POST", f"/{workflow['id']}/executions", json={"input": payload or {}})
    assert response.status_code == 202, response.json
    return response.json


def execution(api, execution_id):
    response = api("GET", f"/executions/{execution_id}")
    assert response.status_code == 200
    return response.json


def events(body):
    return [(e["node_id"], e["event"]) for e in body["execution_trace"]]


# Definitions ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("definition", "field", "words"), [
    ({"start": "a", "nodes": [node("a", "shell")]}, "definition.nodes.0.type", "Unknown"),
    ({"start": "a", "nodes": [node("a", "set", "ghost", values={})]},
     "definition.nodes.0.next", "ghost"),
    ({"start": "zz", "nodes": [node("a", "end")]}, "definition.start", "zz"),
    # a list or an object could not even be looked up (TypeError: 500)
    ({"start": ["a"], "nodes": [node("a", "end")]}, "definition.start", "not among"),
    ({"start": {"a": 1}, "nodes": [node("a", "end")]}, "definition.start", "not among"),
    ({"start": "a", "nodes": [node("a", "end"), node("a", "end")]}, "definition.nodes.1.id",
     "Duplicate"),
    ({"start": "a", "nodes": [node("a", "end"), node("b", "end")]}, "definition.nodes",
     "Unreachable"),
    ({"start": "a", "nodes": [node("a", "set", "b", values={}),
                              node("b", "set", "a", values={})]}, "definition.nodes", "cycle"),
    ({"start": "a", "nodes": [node("a", "condition", then="a",
                                   when={"path": "x", "operator": "eval", "value": 1})]},
     "definition.nodes.0.config", "operator"),
    ({"start": "a", "nodes": [node("a", "approval", on_reject="nowhere")]},
     "definition.nodes.0.config.on_reject", "nowhere"),
    ({"start": "a", "nodes": [node("a", "llm")]}, "definition.nodes.0.config", "prompt"),
    ({"start": "a", "nodes": [node(f"n{i}", "end") for i in range(51)]}, "definition.nodes",
     "At most"),
    # A typo was saved and did nothing: a rejection then cancelled instead of going to "e".
    ({"start": "a", "nodes": [node("a", "approval", onReject="e"), node("e", "end")]},
     "definition.nodes.0.config", "Unknown config keys: onReject"),
    ({"start": "a", "nodes": [node("a", "set", values={}, bogus=1)]},
     "definition.nodes.0.config", "Unknown config keys: bogus"),
    # The body said another event and id than the signed headers; the intake's own events.
    ({"start": "a", "nodes": [node("a", "webhook", event="workflow.x",
                                   fields={"event_id": "input.eid"})]},
     "definition.nodes.0.config", "may not name"),
    ({"start": "a", "nodes": [node("a", "webhook", event="intake.crisis.detected")]},
     "definition.nodes.0.config", "voice intake's own events"),
    # A 3 MB value was stored, and every trace entry's state snapshot repeated it.
    ({"start": "a", "nodes": [node("a", "set", values={"blob": "x" * 300_000})]},
     "definition", "At most 256 KiB"),
])
def test_invalid_definition_is_422_naming_the_problem(api, definition, field, words):
    response = api("POST", "", json={"name": "Broken", "definition": definition})
    assert response.status_code == 422
    assert words in " ".join(errors_at(response.json["errors"]["json"], field))


def test_saved_workflow_is_listed_and_hidden_from_other_organizations(api, fast_app, other_org,
                                                                      make_token):
    workflow = create(api, SIMPLE, description="Tags and checks")
    assert api("GET", f"/{workflow['id']}").json["definition"] == SIMPLE
    assert [w["id"] for w in api("GET", "").json] == [workflow["id"]]
    stranger = fast_app.test_client()
    headers = bearer(make_token(other_org, "admin"))
    assert stranger.get(f"{BASE}/{workflow['id']}", headers=headers).status_code == 404
    assert stranger.post(f"{BASE}/{workflow['id']}/executions", json={"input": {}},
                         headers=headers).status_code == 404


def test_read_scope_cannot_start_an_execution(fast_app, org, make_token, api):
    workflow = create(api, SIMPLE)
    reader = bearer(make_token(org, "workflows:read"))
    response = fast_app.test_client().post(f"{BASE}/{workflow['id']}/executions",
                                           json={"input": {}}, headers=reader)
    assert response.status_code == 403


# Engine --------------------------------------------------------------------------------------

def test_execution_runs_to_completion_with_a_snapshot_after_each_event(api, drain):
    workflow = create(api, SIMPLE)
    started = start(api, workflow, {"patient_id": "pat-1"})
    assert started["status"] == "queued"
    drain()
    body = execution(api, started["id"])
    assert body["status"] == "completed"
    assert events(body) == [("tag", "start"), ("tag", "complete"), ("check", "start"),
                            ("check", "complete"), ("high", "start"), ("high", "complete"),
                            ("done", "start"), ("done", "complete")]
    assert [e["seq"] for e in body["execution_trace"]] == list(range(1, 9))
    assert body["execution_trace"][0]["state"] == {"input": {"patient_id": "pat-1"}}
    assert body["execution_trace"][1]["state"]["tag"] == {"score": 12}
    assert body["execution_trace"][3]["state"]["check"] == {"result": True, "branch": "then"}
    assert body["state"]["high"] == {"flag": "review"}
    assert all(e["at"].endswith("Z") and e["duration_ms"] >= 0 for e in body["execution_trace"])


def test_a_step_delivered_twice_does_not_run_again(api, drain, fast_app):
    workflow = create(api, {"start": "analyze", "nodes": [node("analyze", "analyze_session")]})
    started = start(api, workflow, {"transcript": TRANSCRIPT})
    drain()
    with fast_app.app_context():
        from jobs.queue import push

        record = JobRecord.get_by_id(f"wf-{started['id']}-analyze-1")
        push(record)  # RQ delivers the same job again
    drain()
    body = execution(api, started["id"])
    assert events(body) == [("analyze", "start"), ("analyze", "complete")]
    assert SessionAnalysis.select().count() == 1


def test_analyze_session_uses_the_analysis_service_and_its_safety_floor(api, drain):
    triage = {"start": "analyze", "nodes": [
        node("analyze", "analyze_session", "risk"),
        node("risk", "condition", then="urgent", **{"else": "done"},
             when={"path": "analyze.riskAssessment.level", "operator": "in",
                   "value": ["high", "imminent"]}),
        node("urgent", "set", "done", values={"escalate": True}),
        node("done", "end")]}
    workflow = create(api, triage)
    started = start(api, workflow, {"transcript": CRISIS_TRANSCRIPT})
    drain()
    body = execution(api, started["id"])
    assert body["status"] == "completed"
    assert body["state"]["analyze"]["provider"] == "rules"
    assert body["state"]["urgent"] == {"escalate": True}


def test_executions_filter_on_several_statuses(api, drain):
    workflow = create(api, SIMPLE)
    approval = create(api, {"start": "ok", "nodes": [node("ok", "approval")]})
    done = start(api, workflow)
    drain()
    paused = start(api, approval)
    drain()
    queued = start(api, workflow)
    ids = lambda query: {e["id"] for e in api("GET", f"/executions{query}").json}  # noqa: E731
    assert ids("?status=completed") == {done["id"]}
    assert ids("?status=paused&status=queued") == {paused["id"], queued["id"]}
    assert ids("?status=completed,paused") == {done["id"], paused["id"]}
    assert api("GET", "/executions?status=sleeping").status_code == 422
    page = api("GET", "/executions?page=1&page_size=2")
    assert len(page.json) == 2 and '"total": 3' in page.headers["X-Pagination"]


def test_llm_node_without_a_model_fails_with_a_clear_error(api, drain):
    workflow = create(api, {"start": "ask", "nodes": [node("ask", "llm", prompt="Summarise")]})
    started = start(api, workflow)
    drain()
    body = execution(api, started["id"])
    assert body["status"] == "failed"
    assert "No language model is configured" in body["error"]
    assert events(body) == [("ask", "start"), ("ask", "error")]


def test_llm_node_sends_a_redacted_prompt_to_the_model(make_app, org, make_token, fake_openai):
    from jobs.worker import run_worker

    app = make_app(OPENAI_API_KEY="test-key", OPENAI_BASE_URL=fake_openai.base_url,
                   ALLOW_PRIVATE_WEBHOOK_URLS=True)
    client = app.test_client()
    headers = bearer(make_token(org, "admin"))
    definition = {"start": "ask", "nodes": [node("ask", "llm", prompt="Summarise this",
                                                 input_path="input.note")]}
    workflow = client.post(BASE, json={"name": "Ask", "definition": definition},
                           headers=headers).json
    started = client.post(f"{BASE}/{workflow['id']}/executions",
                          json={"input": {"note": "Call me at 555-867-5309."}},
                          headers=headers).json
    run_worker(app, burst=True)
    body = client.get(f"{BASE}/executions/{started['id']}", headers=headers).json
    assert body["status"] == "completed", body["error"]
    assert body["state"]["ask"]["text"]
    sent = fake_openai.requests[0]["messages"][0]["content"]
    assert "Summarise this" in sent and "867-5309" not in sent


# Approvals, resume, cancel, retry -------------------------------------------------------------

def test_post_visit_workflow_pauses_for_approval_then_syncs_to_the_ehr(api, drain, fhir,
                                                                       fast_app):
    workflow = create(api, POST_VISIT, fhir_base_url=fhir.base_url)
    started = start(api, workflow, {"transcript": TRANSCRIPT, "patient_id": "pat-42"})
    drain()
    body = execution(api, started["id"])
    assert body["status"] == "paused"
    assert events(body)[-1] == ("review", "paused")
    pending = api("GET", f"/executions/{started['id']}/approvals").json
    assert [(a["node_id"], a["status"], a["title"]) for a in pending] == [
        ("review", "pending", "Review the note")]
    assert api("POST", f"/executions/{started['id']}/resume").status_code == 409

    decision = api("POST", f"/executions/{started['id']}/approvals/{pending[0]['id']}",
                   json={"decision": "approve", "comment": "Looks right"})
    assert decision.status_code == 200
    assert decision.json["decided_by"].startswith("tok_")
    assert api("POST", f"/executions/{started['id']}/resume").status_code == 202
    assert api("POST", f"/executions/{started['id']}/resume").status_code == 409
    drain()

    body = execution(api, started["id"])
    assert body["status"] == "completed"
    assert ("review", "resumed") in events(body)
    assert body["state"]["review"]["status"] == "approved"
    sync = api("GET", f"/executions/{started['id']}/sync-status").json
    assert sync["status"] == "synced" and sync["attempts"] == 1
    assert sync["target"] == fhir.base_url
    bundle = fhir.bundles[0]
    Bundle.model_validate(bundle)
    kinds = [e["resource"]["resourceType"] for e in bundle["entry"]]
    assert kinds[:2] == ["Encounter", "DocumentReference"]
    assert {"Task", "RiskAssessment", "Observation"} <= set(kinds)
    assert all(e["request"]["ifNoneExist"].startswith("identifier=") for e in bundle["entry"])
    loinc = {e["resource"]["code"]["coding"][0]["code"]: e["resource"]["valueInteger"]
             for e in bundle["entry"] if e["resource"]["resourceType"] == "Observation"}
    assert loinc == {"44261-6": 14, "70274-6": 9}
    note = next(e["resource"] for e in bundle["entry"]
                if e["resource"]["resourceType"] == "DocumentReference")
    assert "PHQ-9" in base64.b64decode(note["content"][0]["attachment"]["data"]).decode()
    assert len(sync["resources"]) == len(bundle["entry"])


def test_pending_approvals_are_a_paginated_list(api, drain):
    """SPEC §2: lists page with `X-Pagination`; this one ignored `page_size` and sent none."""
    workflow = create(api, {"start": "ok", "nodes": [node("ok", "approval")]})
    started = start(api, workflow)
    drain()
    listed = api("GET", f"/executions/{started['id']}/approvals?page_size=1")
    assert listed.status_code == 200 and len(listed.json) == 1
    assert json.loads(listed.headers["X-Pagination"])["total"] == 1


def test_approver_cannot_be_named_in_the_body(api, drain):
    workflow = create(api, {"start": "ok", "nodes": [node("ok", "approval")]})
    started = start(api, workflow)
    drain()
    approval = api("GET", f"/executions/{started['id']}/approvals").json[0]
    response = api("POST", f"/executions/{started['id']}/approvals/{approval['id']}",
                   json={"decision": "approve", "decided_by": "someone-else"})
    assert response.status_code == 422


def test_rejection_follows_on_reject_or_cancels(api, drain):
    with_edge = create(api, {"start": "ok", "nodes": [
        node("ok", "approval", "yes", on_reject="no"),
        node("yes", "set", values={"path": "approved"}),
        node("no", "set", values={"path": "rejected"})]})
    without = create(api, {"start": "ok", "nodes": [node("ok", "approval", "done"),
                                                    node("done", "end")]})
    first, second = start(api, with_edge), start(api, without)
    drain()
    for ex in (first, second):
        approval = api("GET", f"/executions/{ex['id']}/approvals").json[0]
        api("POST", f"/executions/{ex['id']}/approvals/{approval['id']}",
            json={"decision": "reject"})
        assert api("POST", f"/executions/{ex['id']}/resume").status_code == 202
    drain()
    body = execution(api, first["id"])
    assert (body["status"], body["state"]["no"]) == ("completed", {"path": "rejected"})
    assert "yes" not in body["state"]
    assert execution(api, second["id"])["status"] == "cancelled"


def test_cancel_stops_a_paused_execution(api, drain):
    workflow = create(api, {"start": "ok", "nodes": [node("ok", "approval")]})
    started = start(api, workflow)
    drain()
    cancelled = api("POST", f"/executions/{started['id']}/cancel").json
    assert cancelled["status"] == "cancelled"
    # The approval's entry in the state said "pending" for good.
    assert execution(api, started["id"])["state"]["ok"]["status"] == "cancelled"
    assert api("GET", f"/executions/{started['id']}/approvals").json == []
    assert api("POST", f"/executions/{started['id']}/cancel").status_code == 409
    assert api("POST", f"/executions/{started['id']}/resume").status_code == 409


def test_transient_fhir_failure_is_retried(api, drain, fhir):
    workflow = create(api, {"start": "analyze", "nodes": [
        node("analyze", "analyze_session", "sync"), node("sync", "ehr_sync")]},
        fhir_base_url=fhir.base_url)
    fhir.fail_next(2, status=503)
    started = start(api, workflow, {"transcript": TRANSCRIPT})
    drain()
    body = execution(api, started["id"])
    assert body["status"] == "completed"
    assert events(body)[2:] == [("sync", "start"), ("sync", "error"), ("sync", "start"),
                                ("sync", "error"), ("sync", "start"), ("sync", "complete")]
    sync = api("GET", f"/executions/{started['id']}/sync-status").json
    assert (sync["status"], sync["attempts"]) == ("synced", 3)


def test_retry_reruns_only_the_failed_node_and_creates_nothing_twice(api, drain, fhir,
                                                                     fast_app):
    workflow = create(api, {"start": "analyze", "nodes": [
        node("analyze", "analyze_session", "sync"), node("sync", "ehr_sync")]},
        fhir_base_url=fhir.base_url)
    fhir.fail_next(4, status=503)  # more than the step's attempts
    started = start(api, workflow, {"transcript": TRANSCRIPT})
    drain()
    body = execution(api, started["id"])
    assert body["status"] == "failed" and "503" in body["error"]
    assert api("GET", f"/executions/{started['id']}/sync-status").json["status"] == "failed"
    failed_at = body["finished_at"]

    retried = api("POST", f"/executions/{started['id']}/retry")
    assert retried.status_code == 202
    # Before, a retried execution kept the first failure's finish time, then kept it again.
    assert retried.json["status"] == "running" and retried.json["finished_at"] is None
    assert api("POST", f"/executions/{started['id']}/retry").status_code == 409
    drain()
    body = execution(api, started["id"])
    assert body["status"] == "completed"
    assert body["finished_at"] > failed_at
    assert [e for e in events(body) if e[0] == "analyze"] == [("analyze", "start"),
                                                              ("analyze", "complete")]
    assert SessionAnalysis.select().count() == 1
    # A second sync of the same execution finds every resource already there.
    Bundle.model_validate(fhir.bundles[0])
    created = sum(fhir.created.values())
    api("POST", f"/executions/{started['id']}/retry")  # completed: refused
    assert sum(fhir.created.values()) == created == len(fhir.bundles[0]["entry"])


def test_sync_without_a_fhir_server_is_not_configured_and_goes_on(api, drain):
    workflow = create(api, {"start": "analyze", "nodes": [
        node("analyze", "analyze_session", "sync"), node("sync", "ehr_sync", "done"),
        node("done", "end")]})
    started = start(api, workflow, {"transcript": TRANSCRIPT})
    drain()
    assert execution(api, started["id"])["status"] == "completed"
    assert api("GET", f"/executions/{started['id']}/sync-status").json["status"] == \
        "not_configured"


def test_organization_fhir_setting_is_used(api, drain, fhir, org):
    from models.organizations import Organization

    Organization.update(settings={"ehr": {"fhir_base_url": fhir.base_url}}).where(
        Organization.id == org.id).execute()
    workflow = create(api, {"start": "analyze", "nodes": [
        node("analyze", "analyze_session", "sync"), node("sync", "ehr_sync")]})
    started = start(api, workflow, {"transcript": TRANSCRIPT})
    drain()
    assert api("GET", f"/executions/{started['id']}/sync-status").json["status"] == "synced"
    assert len(fhir.bundles) == 1


def test_webhook_node_sends_a_signed_event_once(make_app, org, make_token):
    from jobs.worker import run_worker
    from services.outbound.endpoints import ensure_endpoint
    from tests.fakes.webhook_receiver import WebhookReceiver

    app = make_app(ALLOW_PRIVATE_WEBHOOK_URLS=True, JOB_RETRY_INTERVALS_S=[0, 0, 0])
    client, headers = app.test_client(), bearer(make_token(org, "admin"))
    definition = {"start": "tag", "nodes": [
        node("tag", "set", "hook", values={"level": "high"}),
        node("hook", "webhook", event="workflow.high_risk", fields={"risk": "tag.level"})]}
    with WebhookReceiver() as receiver:
        with app.app_context():
            receiver.secrets = [ensure_endpoint(org.id, receiver.url).secret]
        workflow = client.post(BASE, json={"name": "Hook", "definition": definition},
                               headers=headers).json
        started = client.post(f"{BASE}/{workflow['id']}/executions", json={"input": {}},
                              headers=headers).json
        run_worker(app, burst=True)
        with app.app_context():
            from jobs.queue import push

            push(JobRecord.get_by_id(f"wf-{started['id']}-hook-1"))  # delivered twice
        run_worker(app, burst=True)
        body = client.get(f"{BASE}/executions/{started['id']}", headers=headers).json
        assert body["status"] == "completed"
        assert len(receiver.requests) == 1
        sent = receiver.requests[0]
        assert sent.service_signature_ok and sent.standard_signature_ok
        payload = json.loads(sent.body)
        assert payload["event"] == "workflow.high_risk"
        assert (payload["risk"], payload["execution_id"]) == ("high", started["id"])


def test_webhook_node_without_an_endpoint_sends_nothing_and_goes_on(api, drain):
    workflow = create(api, {"start": "hook", "nodes": [
        node("hook", "webhook", event="workflow.done")]})
    started = start(api, workflow)
    drain()
    body = execution(api, started["id"])
    assert (body["status"], body["state"]["hook"]) == ("completed", {"status": "no_endpoint"})


# Queue ---------------------------------------------------------------------------------------

def test_queue_stats_count_jobs_per_registry(api, drain):
    workflow = create(api, SIMPLE)
    start(api, workflow)
    before = api("GET", "/queue/stats").json
    row = next(q for q in before["queues"] if q["name"] == "workflows")
    assert row["queued"] == 1
    assert set(row) == {"name", "queued", "started", "finished", "failed", "deferred",
                        "scheduled", "canceled"}
    drain()
    after = api("GET", "/queue/stats").json
    row = next(q for q in after["queues"] if q["name"] == "workflows")
    assert (row["queued"], row["finished"]) == (0, 4)
    assert set(after["workers"]) == {"total", "busy", "idle"}


def test_a_cancelled_executions_waiting_step_leaves_the_queue(api, drain):
    workflow = create(api, SIMPLE)
    started = start(api, workflow)
    assert api("POST", f"/executions/{started['id']}/cancel").status_code == 200
    row = next(q for q in api("GET", "/queue/stats").json["queues"] if q["name"] == "workflows")
    assert (row["queued"], row["canceled"]) == (0, 1)
    record = JobRecord.get(JobRecord.id.startswith(f"wf-{started['id']}"))
    assert record.status == "cancelled"
    drain()
    body = execution(api, started["id"])
    assert (body["status"], body["execution_trace"]) == ("cancelled", [])
    row = next(q for q in api("GET", "/queue/stats").json["queues"] if q["name"] == "workflows")
    assert (row["queued"], row["finished"], row["canceled"]) == (0, 0, 1)


def test_queue_stats_name_the_queues_without_the_deployments_prefix(make_app, org, make_token):
    """With QUEUE_PREFIX set, rows were named "clinic-a-analysis"…: a client looking up the
    documented "analysis" found nothing."""
    app = make_app(QUEUE_PREFIX="clinic-a-")
    response = app.test_client().get(f"{BASE}/queue/stats",
                                     headers=bearer(make_token(org, "workflows:read")))
    assert [row["name"] for row in response.json["queues"]] == \
        ["analysis", "workflows", "provisioning", "webhooks", "default"]


def test_queue_stats_count_a_starting_worker_as_neither_busy_nor_idle(api, fast_app):
    from rq import Worker
    from rq.worker import WorkerStatus

    from jobs.queue import get_queue

    connection = fast_app.extensions["redis"]
    with fast_app.app_context():
        worker = Worker([get_queue("workflows", connection)], connection=connection)
    worker.register_birth()
    try:
        worker.set_state(WorkerStatus.STARTED)
        assert api("GET", "/queue/stats").json["workers"] == {"total": 1, "busy": 0, "idle": 0}
        worker.set_state(WorkerStatus.IDLE)
        assert api("GET", "/queue/stats").json["workers"] == {"total": 1, "busy": 0, "idle": 1}
        worker.set_state(WorkerStatus.BUSY)
        assert api("GET", "/queue/stats").json["workers"] == {"total": 1, "busy": 1, "idle": 0}
    finally:
        worker.register_death()


def test_a_worker_that_redis_forgot_is_registered_again_by_its_maintenance(api, fast_app):
    # Redis restarted empty (or flushed) forgets every worker; RQ registers one only at its
    # birth, so the statistics showed none for good while it kept taking jobs.
    from rq.worker import WorkerStatus

    from tests.jobs.worker_process import app_worker

    connection = fast_app.extensions["redis"]
    worker = app_worker(fast_app)
    worker.register_birth()
    try:
        worker.set_state(WorkerStatus.IDLE)
        assert api("GET", "/queue/stats").json["workers"]["total"] == 1
        connection.flushdb()
        assert api("GET", "/queue/stats").json["workers"]["total"] == 0
        worker.run_maintenance_tasks()
        assert api("GET", "/queue/stats").json["workers"] == {"total": 1, "busy": 0, "idle": 1}
        assert not worker.register_again_if_lost()  # registered: nothing to do
    finally:
        worker.register_death()


def test_queue_stats_count_only_the_workers_of_this_deployments_queues(api, fast_app):
    # Deployments sharing a Redis database (each with its QUEUE_PREFIX) counted each other's
    # workers; a stale record of another's, whose pid a live process had taken again, could
    # count as one of ours.
    from rq import Queue, Worker
    from rq.worker import WorkerStatus

    from jobs.queue import get_queue

    connection = fast_app.extensions["redis"]
    other = Worker([Queue("another-deployment-workflows", connection=connection)],
                   connection=connection, name="elsewhere")
    with fast_app.app_context():
        ours = Worker([get_queue("workflows", connection)], connection=connection, name="ours")
    for worker in (other, ours):
        worker.register_birth()
        worker.set_state(WorkerStatus.IDLE)
    try:
        assert api("GET", "/queue/stats").json["workers"] == {"total": 1, "busy": 0, "idle": 1}
    finally:
        for worker in (other, ours):
            worker.register_death()


def test_queue_stats_leave_out_killed_and_silent_workers(api, fast_app):
    # A SIGKILLed worker's record stays in Redis for minutes: it was counted (busy or idle)
    # for as long, beside the live ones.
    import subprocess
    import sys
    from datetime import timedelta

    from rq import Worker
    from rq.utils import now, utcformat
    from rq.worker import WorkerStatus

    from jobs.queue import get_queue

    connection = fast_app.extensions["redis"]
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    with fast_app.app_context():
        workers = [Worker([get_queue("workflows", connection)], connection=connection,
                          name=name) for name in ("live", "killed", "silent", "far")]
    for worker in workers:
        worker.register_birth()
        worker.set_state(WorkerStatus.IDLE)
    _live, killed, silent, far = workers
    connection.hset(killed.key, "pid", int(gone.stdout))
    connection.hset(silent.key, mapping={"hostname": "worker-host-2", "last_heartbeat":
                                         utcformat(now() - timedelta(minutes=10))})
    connection.hset(far.key, "hostname", "worker-host-3")  # elsewhere, heard from just now
    try:
        assert api("GET", "/queue/stats").json["workers"] == {"total": 2, "busy": 0, "idle": 2}
    finally:
        for worker in workers:
            worker.register_death()


def test_ready_workflows_are_seeded_once(api, fast_app, org):
    from services.workflows.ready import seed_ready_workflows

    with fast_app.app_context():
        seed_ready_workflows(org.id)
        seed_ready_workflows(org.id)
    names = sorted(w["name"] for w in api("GET", "").json)
    assert names == ["Intake triage", "Post-visit documentation"]


def test_the_ready_post_visit_workflow_files_the_note_under_the_sessions_patient(
        api, drain, fhir, fast_app, org, make_token):
    # It had no session_id_path: an input's session_id was ignored, the note went out as
    # "Unidentified patient" dated when it was analysed.
    from services.workflows.ready import seed_ready_workflows

    with fast_app.app_context():
        ready = next(w for w in seed_ready_workflows(org.id)
                     if w.name == "Post-visit documentation")
    session = fast_app.test_client().post(
        "/api/therapy-sessions", headers=bearer(make_token(org, "admin")),
        json={"patient_id": "pat-55", "provider_id": "prov-3",
              "session_date": "2026-11-20T15:00:00Z"}).json
    workflow = create(api, ready.definition, fhir_base_url=fhir.base_url)  # its definition
    started = start(api, workflow, {"transcript": TRANSCRIPT, "session_id": session["id"]})
    drain()
    approval = api("GET", f"/executions/{started['id']}/approvals").json[0]
    api("POST", f"/executions/{started['id']}/approvals/{approval['id']}",
        json={"decision": "approve"})
    api("POST", f"/executions/{started['id']}/resume")
    drain()
    assert execution(api, started["id"])["status"] == "completed"
    encounter = fhir.bundles[0]["entry"][0]["resource"]
    assert encounter["subject"] == {"identifier": {"system": "urn:cws:patient",
                                                   "value": "pat-55"}}


@pytest.mark.parametrize("url", ["http://169.254.169.254/fhir", "http://127.0.0.1:9/fhir",
                                 "http://[::1]/fhir", "https://user:pw@93.184.215.14/fhir"])
def test_a_fhir_url_this_service_would_not_call_is_422_on_save(make_app, org, make_token, url):
    # Saved with 201 before (credentials echoed to every reader); refused only at send time.
    client = make_app().test_client()
    headers = bearer(make_token(org, "admin"))
    response = client.post(BASE, headers=headers, json={
        "name": "Flow", "fhir_base_url": url,
        "definition": {"start": "done", "nodes": [node("done", "end")]}})
    assert response.status_code == 422 and "fhir_base_url" in response.json["errors"]["json"]
    assert client.get(BASE, headers=headers).json == []


def test_queue_stats_while_redis_is_down_are_503_in_the_error_shape(make_app, org, make_token):
    # They were a 500 "internal error" with a traceback in the log.
    client = make_app(REDIS_URL="redis://127.0.0.1:1/0").test_client()
    response = client.get(BASE + "/queue/stats", headers=bearer(make_token(org, "admin")))
    assert response.status_code == 503 and response.headers["Retry-After"] == "1"
    assert response.json["code"] == 503 and "Redis" in response.json["message"]


def test_a_session_linked_sync_files_the_record_under_the_sessions_patient_and_visit(
        api, drain, fhir, fast_app, org, make_token):
    # Every resource went out as "Unidentified patient", dated when the sync ran.
    client = fast_app.test_client()
    session = client.post("/api/therapy-sessions", headers=bearer(make_token(org, "admin")),
                          json={"patient_id": "pat-77", "provider_id": "prov-3",
                                "session_date": "2026-11-20T15:00:00Z",
                                "duration_minutes": 45}).json
    workflow = create(api, {"start": "analyze", "nodes": [
        node("analyze", "analyze_session", "sync", session_id_path="input.session_id"),
        node("sync", "ehr_sync")]}, fhir_base_url=fhir.base_url)
    started = start(api, workflow, {"transcript": TRANSCRIPT, "session_id": session["id"]})
    drain()
    assert execution(api, started["id"])["status"] == "completed"
    resources = [e["resource"] for e in fhir.bundles[0]["entry"]]
    for resource in resources:
        patient = resource.get("subject") or resource.get("for")
        assert patient == {"identifier": {"system": "urn:cws:patient", "value": "pat-77"}}
    encounter = resources[0]
    assert encounter["period"] == {"start": "2026-11-20T15:00:00Z",
                                   "end": "2026-11-20T15:45:00Z"}
    dated = {r["resourceType"]: r.get("date") or r.get("occurrenceDateTime")
             or r.get("effectiveDateTime") or r.get("authoredOn") for r in resources[1:]}
    assert set(dated.values()) == {"2026-11-20T15:00:00Z"}, dated


def test_a_sync_whose_input_names_another_patient_than_the_session_sends_nothing(
        api, drain, fhir, fast_app, org, make_token):
    # pat-77's note, risk and screeners went out filed under the input's pat-OTHER.
    client = fast_app.test_client()
    session = client.post("/api/therapy-sessions", headers=bearer(make_token(org, "admin")),
                          json={"patient_id": "pat-77", "provider_id": "prov-3",
                                "session_date": "2026-11-20T15:00:00Z"}).json
    workflow = create(api, {"start": "analyze", "nodes": [
        node("analyze", "analyze_session", "sync", session_id_path="input.session_id"),
        node("sync", "ehr_sync")]}, fhir_base_url=fhir.base_url)
    started = start(api, workflow, {"transcript": TRANSCRIPT, "session_id": session["id"],
                                    "patient_id": "pat-OTHER"})
    drain()
    failed = execution(api, started["id"])
    assert failed["status"] == "failed" and "another's chart" in failed["error"]
    assert fhir.bundles == []
    same = start(api, workflow, {"transcript": TRANSCRIPT, "session_id": session["id"],
                                 "patient_id": " pat-77 "})
    drain()
    assert execution(api, same["id"])["status"] == "completed" and len(fhir.bundles) == 1


def test_a_workflows_analysis_of_a_session_can_be_asked_for_by_its_source(
        api, drain, fast_app, org, make_token):
    """Stored with source "workflow", it was listed, but `?source=workflow` was 422."""
    client = fast_app.test_client()
    headers = bearer(make_token(org, "admin"))
    session = client.post("/api/therapy-sessions", headers=headers, json={
        "patient_id": "pat-78", "provider_id": "prov-3",
        "session_date": "2026-11-20T15:00:00Z"}).json
    workflow = create(api, {"start": "analyze", "nodes": [
        node("analyze", "analyze_session", session_id_path="input.session_id")]})
    start(api, workflow, {"transcript": TRANSCRIPT, "session_id": session["id"]})
    drain()
    path = f"/api/therapy-sessions/{session['id']}/analysis"
    found = client.get(path, headers=headers, query_string={"source": "workflow"})
    assert found.status_code == 200 and found.json["source"] == "workflow"
    assert client.get(path, headers=headers, query_string={"source": "api"}).status_code == 404


def test_a_fhir_servers_long_retry_after_is_told_as_the_wait_it_gets(api, drain, fhir):
    # "asked for a retry after 200000 s": the wait is capped at a day.
    workflow = create(api, {"start": "analyze", "nodes": [
        node("analyze", "analyze_session", "sync"), node("sync", "ehr_sync")]},
        fhir_base_url=fhir.base_url)
    fhir.fail_next(1, status=503, headers={"Retry-After": "200000"})
    waiting = start(api, workflow, {"transcript": TRANSCRIPT})
    drain()
    sync = api("GET", f"/executions/{waiting['id']}/sync-status").json
    assert sync["last_error"] == "FHIR server answered 503 and asked for a retry after 86400 s"


def test_a_sync_that_can_no_longer_happen_is_failed_saying_why(api, drain, fhir):
    """Cancelled while the sync waited for its retry, it said `pending` for good; cancelled
    before the sync node ran, `not_configured` (as if no FHIR server were set)."""
    workflow = create(api, {"start": "analyze", "nodes": [
        node("analyze", "analyze_session", "sync"), node("sync", "ehr_sync")]},
        fhir_base_url=fhir.base_url)
    fhir.fail_next(1, status=429, headers={"Retry-After": "600"})
    waiting = start(api, workflow, {"transcript": TRANSCRIPT})
    drain()
    assert api("GET", f"/executions/{waiting['id']}/sync-status").json["status"] == "pending"
    assert api("POST", f"/executions/{waiting['id']}/cancel").status_code == 200
    sync = api("GET", f"/executions/{waiting['id']}/sync-status").json
    assert sync["status"] == "failed" and sync["attempts"] == 1
    assert sync["last_error"] == ("The execution was cancelled before the EHR sync was done "
                                  "(last attempt: FHIR server answered 429 and asked for a "
                                  "retry after 600 s).")

    gated = create(api, {"start": "ok", "nodes": [node("ok", "approval", "sync"),
                                                  node("sync", "ehr_sync")]},
                   fhir_base_url=fhir.base_url)
    paused = start(api, gated)
    drain()
    api("POST", f"/executions/{paused['id']}/cancel")
    sync = api("GET", f"/executions/{paused['id']}/sync-status").json
    assert (sync["status"], sync["last_error"]) == (
        "failed", "The execution was cancelled before the EHR sync ran.")

    without = start(api, create(api, SIMPLE))
    drain()
    assert api("GET", f"/executions/{without['id']}/sync-status").json["status"] == \
        "not_configured"
