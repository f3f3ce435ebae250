"""The provisioning job on real RQ workers: recorded steps, retries, resume after SIGKILL,
compensation on permanent failure."""

from __future__ import annotations

import json
import os
import re
import signal
import time

import pytest

from jobs.queue import get_queue
from models.organizations import Organization, ProvisioningJob, SlugReservation
from models.tokens import ApiToken
from services.tokens import authenticate
from tests.conftest import PLATFORM_TOKEN, bearer
from tests.fakes.fhir_metadata import FakeFhirMetadata, unreachable_base_url
from tests.fakes.stripe_server import API_KEY, FakeStripe
from tests.jobs.worker_process import WAIT_S, start_worker

PLATFORM = bearer(PLATFORM_TOKEN)
AFTER_HEARTBEATS_S = 3600
FAST_RETRIES = [0.05, 0.05]


def drain(app) -> None:
    """A real burst worker of this app (its config: the processor, the retry delays)."""
    from jobs.worker import run_worker

    run_worker(app, burst=True)


def _provision(client, **fields) -> str:
    body = {"name": "Harbor Counseling", "admin_email": "Admin@Harbor.example", **fields}
    response = client.post("/api/organizations/provision", json=body, headers=PLATFORM)
    assert response.status_code == 202, response.json
    return response.json["job_id"]


def _status(client, job_id: str) -> dict:
    response = client.get(f"/api/organizations/provision/{job_id}", headers=PLATFORM)
    assert response.status_code == 200, response.json
    return response.json


def _steps(body: dict) -> dict[str, str]:
    return {step["name"]: step["status"] for step in body["steps"]}


def _step(body: dict, name: str) -> dict:
    return next(step for step in body["steps"] if step["name"] == name)


def _provisioned(app, **fields) -> dict:
    """Start a provisioning, let a burst worker run it; the job's final status."""
    client = app.test_client()
    job_id = _provision(client, **fields)
    drain(app)
    return _status(client, job_id)


@pytest.fixture
def fhir():
    with FakeFhirMetadata() as server:
        yield server


@pytest.fixture
def fake_stripe():
    with FakeStripe() as server:
        yield server


def test_provisioning_runs_sixteen_steps_and_gives_a_working_token(
        make_app, fhir, fake_stripe):
    app = make_app(STRIPE_API_KEY=API_KEY, STRIPE_API_BASE=fake_stripe.base_url,
                   PROVISIONING_RETRY_DELAYS_S=FAST_RETRIES,
                   ALLOW_PRIVATE_WEBHOOK_URLS=True)
    client = app.test_client()
    job_id = _provision(client, timezone="America/New_York", plan="starter",
                        ehr={"fhir_base_url": fhir.base_url})
    assert _status(client, job_id)["status"] == "queued"
    drain(app)

    body = _status(client, job_id)
    assert body["status"] == "succeeded", body
    assert body["steps_total"] == 16 and [s["index"] for s in body["steps"]] == list(range(1, 17))
    steps = _steps(body)
    for name in ("validate_request", "reserve_slug", "create_organization",
                 "create_admin_account", "issue_api_token", "apply_default_settings",
                 "seed_note_templates", "create_billing_customer", "set_usage_quotas",
                 "configure_ehr_integration", "enable_audit_logging", "run_health_checks",
                 "activate_organization"):
        assert steps[name] == "done", (name, body)
    # No voice requested: no deployment, no endpoint; the ready workflows are seeded.
    assert steps["create_voice_deployment"] == "skipped"
    assert steps["configure_outbound_webhooks"] == "skipped"
    assert steps["seed_agent_workflows"] == "done"
    # Why a step was skipped is no error: a client listing errors showed skips as failures.
    skipped = next(s for s in body["steps"] if s["name"] == "configure_outbound_webhooks")
    assert (skipped["error"], skipped["detail"]) == (None, "no webhook_url requested")
    assert all(s["error"] is None and s["detail"] is None
               for s in body["steps"] if s["status"] == "done")

    token = body["result"]["admin_token"]
    assert token.startswith("cws_") and not token.endswith("…")
    assert body["result"]["admin_email"] == "admin@harbor.example"
    again = _status(client, job_id)["result"]["admin_token"]
    assert again.endswith("…") and token.startswith(again[:-1])

    organization = client.get(f"/api/organizations/{body['organization_id']}",
                              headers=bearer(token))
    assert organization.status_code == 200, organization.json
    org = organization.json
    assert (org["status"], org["plan"], org["timezone"]) == ("active", "starter",
                                                             "America/New_York")
    assert org["settings"]["ehr"]["fhir_version"] == "4.0.1"
    # The default note template is named by a template's id (it was "builtin_soap").
    template = org["settings"]["notes"]["default_template"]
    listed = client.get("/api/templates?page_size=100", headers=bearer(token)).json
    assert template in [t["id"] for t in listed]
    assert org["settings"]["billing"]["customer_id"] in fake_stripe.customers
    assert org["quotas"]["limits"]["session_analyses"] == 200
    assert fhir.requests[0]["path"] == "/fhir/metadata"
    created = fake_stripe.writes("/v1/customers")
    assert len(created) == 1 and created[0]["headers"]["idempotency-key"]


def test_slug_taken_is_conflict_at_request_time(app, client, org):
    response = client.post("/api/organizations/provision", headers=PLATFORM,
                           json={"name": "Harbor", "slug": org.slug,
                                 "admin_email": "a@b.example"})
    assert response.status_code == 409
    assert "slug" in response.json["errors"]["json"]
    first = _provision(client, slug="cedar")
    assert first
    again = client.post("/api/organizations/provision", headers=PLATFORM,
                        json={"name": "Cedar", "slug": "cedar", "admin_email": "a@b.example"})
    assert again.status_code == 409
    assert again.json["message"] == "The slug 'cedar' is already taken."
    # A slug the client never chose (made from the name) is named as such.
    by_name = client.post("/api/organizations/provision", headers=PLATFORM,
                          json={"name": "Cedar", "admin_email": "a@b.example"})
    assert by_name.status_code == 409
    assert "made from the name; give another `slug`" in by_name.json["message"]


def test_transient_fhir_failures_are_retried_and_counted(make_app):
    with FakeFhirMetadata(statuses=[503, 502]) as fhir:
        app = make_app(PROVISIONING_RETRY_DELAYS_S=FAST_RETRIES,
                       ALLOW_PRIVATE_WEBHOOK_URLS=True)
        body = _provisioned(app, ehr={"fhir_base_url": fhir.base_url})
    assert body["status"] == "succeeded", body
    ehr = _step(body, "configure_ehr_integration")
    assert (ehr["status"], ehr["attempts"]) == ("done", 3)
    assert len(fhir.requests) == 3


def test_a_processor_500_on_creating_the_customer_is_retried_under_a_new_key(make_app,
                                                                           fake_stripe):
    # The processor answers a key's saved 500 again to every request with that key: with one
    # fixed key per organization, every retry of the step failed and the job with them.
    fake_stripe.fail_next(500, "api_error", "internal", "Something went wrong on our end.",
                          path="/v1/customers")
    app = make_app(PROVISIONING_RETRY_DELAYS_S=FAST_RETRIES, STRIPE_API_KEY=API_KEY,
                   STRIPE_API_BASE=fake_stripe.base_url)
    body = _provisioned(app)
    assert body["status"] == "succeeded", body
    step = _step(body, "create_billing_customer")
    assert (step["status"], step["attempts"]) == ("done", 2)
    assert len(fake_stripe.customers) == 1


def test_unreachable_fhir_server_fails_and_compensates(make_app):
    app = make_app(PROVISIONING_RETRY_DELAYS_S=FAST_RETRIES,
                   ALLOW_PRIVATE_WEBHOOK_URLS=True)
    client = app.test_client()
    job_id = _provision(client, slug="harbor", ehr={"fhir_base_url": unreachable_base_url()})
    drain(app)

    body = _status(client, job_id)
    assert body["status"] == "failed"
    assert body["error"].startswith("configure_ehr_integration:")
    assert body["result"] is None
    steps = _steps(body)
    assert steps["configure_ehr_integration"] == "failed"
    ehr = _step(body, "configure_ehr_integration")
    assert ehr["attempts"] == 3 and "unreachable" in ehr["error"]
    for name in ("issue_api_token", "create_organization", "reserve_slug"):
        assert steps[name] == "compensated", (name, body)
    for name in ("enable_audit_logging", "run_health_checks", "activate_organization"):
        assert steps[name] == "pending"

    organization = Organization.get_by_id(body["organization_id"])
    assert organization.status == "failed" and organization.slug != "harbor"
    assert re.fullmatch(r"[a-z0-9-]+", organization.slug)  # the slug rule (it held an "_")
    assert not SlugReservation.select().where(SlugReservation.slug == "harbor").exists()
    token = ApiToken.get(ApiToken.organization == organization.id)
    assert token.revoked_at is not None
    # The slug is free again.
    assert client.post("/api/organizations/provision", headers=PLATFORM,
                       json={"name": "Harbor", "slug": "harbor",
                             "admin_email": "a@b.example"}).status_code == 202



def test_worker_killed_mid_job_resumes_at_its_step(make_app, app_config):
    # The FHIR server answers 503 several times with a slow backoff: the worker is killed
    # while the job sits in step 13, after twelve steps are recorded as done.
    with FakeFhirMetadata(statuses=[503, 503]) as fhir:
        app = make_app(JOB_RETRY_INTERVALS_S=[0, 0], PROVISIONING_RETRY_DELAYS_S=FAST_RETRIES,
                   ALLOW_PRIVATE_WEBHOOK_URLS=True)
        client = app.test_client()
        job_id = _provision(client, ehr={"fhir_base_url": fhir.base_url})
        worker = start_worker(app_config, ALLOW_PRIVATE_WEBHOOK_URLS="true",
                              PROVISIONING_RETRY_DELAYS_S="30")
        try:
            deadline = time.monotonic() + WAIT_S
            while ProvisioningJob.get_by_id(job_id).current_step != \
                    "configure_ehr_integration" or len(fhir.requests) < 1:
                assert time.monotonic() < deadline, _status(client, job_id)
                time.sleep(0.05)
        finally:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()

        mid = _status(client, job_id)
        assert mid["status"] == "running"
        assert mid["current_step"] == "configure_ehr_integration"
        token_steps = [s for s in mid["steps"] if s["name"] == "issue_api_token"]
        assert token_steps[0]["status"] == "done"

        with app.app_context():
            get_queue("provisioning").started_job_registry.cleanup(
                timestamp=time.time() + AFTER_HEARTBEATS_S)
        drain(app)
        body = _status(client, job_id)

    assert body["status"] == "succeeded", body
    by_name = {s["name"]: s for s in body["steps"]}
    # Done steps ran once; the interrupted one went on counting its attempts.
    assert all(by_name[n]["attempts"] == 1 for n in ("create_organization", "issue_api_token"))
    assert by_name["configure_ehr_integration"]["attempts"] >= 2
    organization_id = body["organization_id"]
    assert Organization.select().where(Organization.name == "Harbor Counseling").count() == 1
    assert ApiToken.select().where(ApiToken.organization == organization_id).count() == 1
    assert authenticate(body["result"]["admin_token"]).organization_id == organization_id


def test_requested_voice_line_gets_its_deployment_and_webhook_endpoint(make_app):
    app = make_app(PROVISIONING_RETRY_DELAYS_S=FAST_RETRIES, ALLOW_PRIVATE_WEBHOOK_URLS=True)
    client = app.test_client()
    job_id = _provision(client, voice={"phone_number": "+15551230000",
                                       "webhook_url": "http://127.0.0.1:9/hooks"})
    drain(app)
    body = _status(client, job_id)
    assert body["status"] == "succeeded", body
    steps = _steps(body)
    assert steps["create_voice_deployment"] == "done"
    assert steps["configure_outbound_webhooks"] == "done"
    token = bearer(body["result"]["admin_token"])
    lines = client.get("/api/voice/deployments", headers=token).json
    assert [d["phone_number"] for d in lines] == ["+15551230000"]
    workflows = client.get("/api/agent-workflows", headers=token).json
    assert {w["name"] for w in workflows} >= {"Post-visit documentation", "Intake triage"}


def test_fhir_server_on_a_private_address_is_refused_without_the_setting(make_app, fhir):
    """The EHR URL gets the webhooks' SSRF guard: refused in the request (it was accepted with
    202 and failed at step 13), and again when the step runs."""
    app = make_app(PROVISIONING_RETRY_DELAYS_S=FAST_RETRIES)
    client = app.test_client()
    response = client.post("/api/organizations/provision", headers=PLATFORM, json={
        "name": "Harbor", "admin_email": "a@harbor.example",
        "ehr": {"fhir_base_url": fhir.base_url}})
    assert response.status_code == 422
    assert "address" in response.json["errors"]["json"]["ehr"]["fhir_base_url"][0]
    with app.app_context():
        assert ProvisioningJob.select().count() == 0

    # Saved while private addresses were allowed, run after they are not: the step refuses
    # it at once, as no retry can help (it was retried as a crash, with tracebacks).
    permissive = make_app(PROVISIONING_RETRY_DELAYS_S=FAST_RETRIES,
                          ALLOW_PRIVATE_WEBHOOK_URLS=True)
    job_id = _provision(permissive.test_client(), ehr={"fhir_base_url": fhir.base_url})
    drain(app)
    body = _status(client, job_id)
    assert body["status"] == "failed"
    failed = {s["name"]: s for s in body["steps"] if s["status"] == "failed"}
    assert list(failed) == ["validate_request"] and "address" in body["error"]
    assert failed["validate_request"]["attempts"] == 1


def test_a_refused_step_fails_at_once_and_is_compensated(make_app, org):
    # The line's number was taken by another organization after the request was accepted:
    # the refusal was raised out of the job, which RQ then ran again with a traceback.
    from services.voice.deployments import ensure_deployment

    app = make_app(PROVISIONING_RETRY_DELAYS_S=FAST_RETRIES)
    client = app.test_client()
    job_id = _provision(client, slug="cedar", voice={"phone_number": "+15550100777"})
    with app.app_context():
        ensure_deployment(org.id, name="Taken", phone_number="+15550100777", webhook_url=None)
    drain(app)
    body = _status(client, job_id)
    assert body["status"] == "failed"
    step = _step(body, "create_voice_deployment")
    assert (step["status"], step["attempts"]) == ("failed", 1)
    assert "another deployment" in step["error"]
    assert _steps(body)["create_organization"] == "compensated"


@pytest.mark.skipif(bool(os.environ.get("TEST_DATABASE_URL")), reason="SQLite's files")
def test_an_admin_token_read_once_leaves_no_copy_in_the_sqlite_files(make_app, tmp_path):
    """The job row's copy was cleared, but its bytes stayed in the write-ahead log's file
    until a checkpoint came round (after 1,000 pages of writes)."""
    import sqlite3

    from models.base import db, truncate_wal

    app = make_app()
    path = app.config["DATABASE_URL"].removeprefix("sqlite:///")
    client = app.test_client()
    job_id = _provision(client)
    # Open throughout, as the web server's pooled connections are: the last connection to
    # close would checkpoint the log and remove its file.
    keeper = sqlite3.connect(path)
    keeper.execute("SELECT 1 FROM provisioning_job").fetchall()
    drain(app)
    token = _status(client, job_id)["result"]["admin_token"]
    assert token.startswith("cws_")
    assert token.removeprefix("cws_").encode() not in _sqlite_files(path)

    # A reader in the middle of a read keeps the log: the request gives up at once, the
    # worker's maintenance waits for it.
    with app.app_context():
        db.connect(reuse_if_open=True)
        reader = sqlite3.connect(path)
        reader.execute("BEGIN")
        reader.execute("SELECT count(*) FROM provisioning_job").fetchone()
        ProvisioningJob.update(admin_token="cws_written_again").execute()
        ProvisioningJob.update(admin_token=None).execute()
        assert truncate_wal() is False
        reader.rollback()
        reader.close()
        assert truncate_wal(wait=True) is True
        db.close()
    assert b"written_again" not in _sqlite_files(path)
    keeper.close()


def _sqlite_files(path: str) -> bytes:
    """The bytes of a SQLite database and of its write-ahead log, if any."""
    found = b""
    for name in (path, f"{path}-wal"):
        if os.path.exists(name):
            with open(name, "rb") as handle:
                found += handle.read()
    return found


def test_an_unreachable_processor_fails_provisioning_in_the_services_words(make_app):
    """The step's error quoted the library: "Unexpected error communicating with Stripe …
    HTTPConnectionPool(host='127.0.0.1', port=…)"."""
    base = unreachable_base_url().removesuffix("/fhir")
    app = make_app(STRIPE_API_KEY=API_KEY, STRIPE_API_BASE=base,
                   PROVISIONING_RETRY_DELAYS_S=FAST_RETRIES, JOB_RETRY_INTERVALS_S=[0, 0])
    body = _provisioned(app)
    assert body["status"] == "failed"
    step = _step(body, "create_billing_customer")
    assert step["error"].startswith("Payment processor: unreachable")
    assert base.rsplit(":", 1)[1] not in json.dumps(body)
    assert "Stripe" not in json.dumps(body)
