"""Tenant isolation, generated from the OpenAPI document: every operation, called with a second
organization's token on the first organization's ids, answers exactly as it does for ids that
do not exist (never 2xx, and 404 or 403 for reads), so nothing leaks that a record exists.

A new operation is covered without anyone remembering it; a new kind of path parameter fails
the probe until a seeder for it is added below."""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator

import pytest
import requests

from tests.e2e.service import PLATFORM_TOKEN, Client, Service
from tests.fakes.stripe_server import API_KEY, FakeStripe
from tests.fakes.voice_platform import LINE_NUMBER, Call, body_of, sign

PARAM = re.compile(r"{(\w+)}")
SESSION = {"patient_id": "pat-iso", "provider_id": "prov-iso",
           "session_date": "2026-11-20T15:00:00Z"}
VOICE_SECRET = "isolation-probe-voice-secret"
PAUSING_WORKFLOW = {"start": "review", "nodes": [
    {"id": "review", "type": "approval", "config": {"title": "Sign"}, "next": "done"},
    {"id": "done", "type": "end", "config": {}, "next": None}]}


@pytest.fixture(scope="module")
def stripe_server() -> Iterator[FakeStripe]:
    with FakeStripe() as server:
        server.add_card("pm_card_iso", brand="visa", last4="4242", exp_month=12, exp_year=2031)
        yield server


@pytest.fixture(scope="module")
def service(tmp_path_factory, stripe_server) -> Iterator[Service]:
    running = Service(tmp_path_factory.mktemp("isolation-e2e"), extra_env={
        "STRIPE_API_KEY": API_KEY, "STRIPE_API_BASE": stripe_server.base_url,
        "VOICE_WEBHOOK_SECRET": VOICE_SECRET, "ALLOW_PRIVATE_WEBHOOK_URLS": "true",
        "QUEUE_PREFIX": "e2e-isolation-"}).start()
    try:
        yield running
    finally:
        running.stop()


def _created(response, key: str = "id") -> str:
    assert response.status_code in (200, 201, 202), response.text
    return response.json()[key]


def _seed(owner: Client, platform: Client, owner_org: str) -> dict[str, str]:
    """One record of every kind in the first organization, by path-parameter name."""
    ids: dict[str, str] = {"organization_id": owner_org}
    ids["session_id"] = _created(owner.call("POST", "/api/therapy-sessions", SESSION))
    live = _created(owner.call("POST", "/api/therapy-sessions", SESSION))
    ids["clinical_session_id"] = _created(
        owner.call("POST", "/api/clinical/start", {"session_id": live}), "clinical_session_id")
    ids["method_id"] = _created(owner.call("POST", "/api/billing/payment-methods", {
        "processor": "stripe", "payment_method": "pm_card_iso"}))
    ids["job_id"] = _created(platform.call("POST", "/api/organizations/provision", {
        "name": "Isolation Probe Clinic", "admin_email": "probe@clinic.example"}), "job_id")
    ids.update(_seed_workflows(owner))
    ids.update(_seed_voice(owner))
    return ids


def _seed_workflows(owner: Client) -> dict[str, str]:
    workflow = _created(owner.call("POST", "/api/agent-workflows",
                                   {"name": "Probe", "definition": PAUSING_WORKFLOW}))
    execution = _created(owner.call("POST", f"/api/agent-workflows/{workflow}/executions",
                                    {"input": {"transcript": "Patient: fine."}}))
    path = f"/api/agent-workflows/executions/{execution}"
    owner.wait_for(path, lambda body: body["status"] == "paused")
    approval = owner.call("GET", f"{path}/approvals").json()[0]["id"]
    return {"workflow_id": workflow, "execution_id": execution, "approval_id": approval}


def _seed_voice(owner: Client) -> dict[str, str]:
    # A clinic endpoint that is never up: the delivery exists and waits for its retry.
    deployment = _created(owner.call("POST", "/api/voice/deployments", {
        "name": "Probe line", "phone_number": LINE_NUMBER,
        "webhook_url": "http://127.0.0.1:9/never"}))
    call = Call("call-isolation-probe")
    for message in (call.status("in-progress", 0), call.said("user", "Hello.", 1),
                    call.report(2, 60)):
        body = body_of(message)
        answer = requests.post(f"{owner.base}/api/voice/webhook", data=body, timeout=10,
                               headers={"Content-Type": "application/json",
                                        "service-voice-signature": sign(VOICE_SECRET, body)})
        assert answer.status_code == 200, answer.text
    state = owner.call("GET", "/api/voice/webhook/call/call-isolation-probe").json()
    deliveries = owner.call("GET", f"/api/voice/deployments/{deployment}/deliveries").json()
    return {"deployment_id": deployment, "call_id": "call-isolation-probe",
            "summary_id": state["summary_id"], "delivery_id": deliveries[0]["id"]}


def _example(schema: dict, spec: dict, ids: dict[str, str], name: str = "") -> object:
    """A small valid value for a schema: required fields only, seeded ids where names match."""
    if "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    if name in ids:
        return ids[name]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        return {key: _example(sub, spec, ids, key)
                for key, sub in schema.get("properties", {}).items()
                if key in schema.get("required", [])}
    if kind == "array":
        return [_example(schema.get("items", {}), spec, ids)] * max(1, schema.get("minItems", 0))
    if kind == "integer":
        return max(1, schema.get("minimum", 1))
    if kind == "boolean":
        return False
    if schema.get("format") == "date-time":
        return "2026-11-20T15:00:00Z"
    if schema.get("format") == "email":
        return "probe@clinic.example"
    return "probe"


def _operations(spec: dict) -> list[tuple[str, str, dict]]:
    return [(method.upper(), path, op) for path, ops in spec["paths"].items()
            for method, op in ops.items() if method in ("get", "post", "put", "patch", "delete")]


def _body_fields(op: dict, spec: dict) -> set[str]:
    if "requestBody" not in op:
        return set()
    schema = op["requestBody"]["content"]["application/json"]["schema"]
    if "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[1]]
    return set(schema.get("properties", {}))


def _call(client: Client, method: str, path: str, op: dict, spec: dict,
          ids: dict[str, str]) -> int:
    url = PARAM.sub(lambda m: ids[m.group(1)], path)
    body = None
    if "requestBody" in op:
        schema = op["requestBody"]["content"]["application/json"]["schema"]
        body = _example(schema, spec, ids)
    return client.call(method, url, body).status_code


def test_another_organization_learns_nothing_of_any_record(service: Service) -> None:
    owner = Client(service.base, service.new_admin_token("Isolation Owner"))
    stranger = Client(service.base, service.new_admin_token("Isolation Stranger"))
    platform = Client(service.base, PLATFORM_TOKEN)
    owner_org = _org_of(owner)
    spec = owner.call("GET", "/api/openapi.json").json()
    ids = _seed(owner, platform, owner_org)
    missing = {name: f"{value.split('_')[0]}_{secrets.token_hex(12)}"
               for name, value in ids.items()}

    probed, problems = 0, []
    for method, path, op in _operations(spec):
        names = PARAM.findall(path)
        body_names = set(ids) & _body_fields(op, spec)
        if not names and not body_names:
            continue
        unseeded = [n for n in names if n not in ids]
        if unseeded:
            problems.append(f"{method} {path}: no seeder for {unseeded}")
            continue
        on_theirs = _call(stranger, method, path, op, spec, ids)
        on_missing = _call(stranger, method, path, op, spec, missing)
        probed += 1
        if on_theirs != on_missing or 200 <= on_theirs < 300:
            problems.append(f"{method} {path}: {on_theirs} on another organization's record, "
                            f"{on_missing} on a missing one")
        elif method == "GET" and on_theirs not in (403, 404):
            problems.append(f"{method} {path}: {on_theirs}, expected 404 or 403")
    assert not problems, "\n".join(problems)
    assert probed >= 12, probed

    # The owner still reaches every record it made (the probe used real ids).
    assert owner.call("GET", f"/api/therapy-sessions/{ids['session_id']}").status_code == 200
    assert owner.call("GET", f"/api/billing/payment-methods/{ids['method_id']}").status_code == 200


def _org_of(client: Client) -> str:
    created = client.call("POST", "/api/therapy-sessions", SESSION)
    return created.json()["organization_id"]
