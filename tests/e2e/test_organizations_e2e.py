"""Provisioning as operators run it: gunicorn, a `flask worker` process, a card processor and a
FHIR server on 127.0.0.1; then the new clinic uses its token."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.service import PLATFORM_TOKEN, Client, Service
from tests.fakes.fhir_metadata import FakeFhirMetadata, unreachable_base_url
from tests.fakes.stripe_server import API_KEY, FakeStripe

TERMINAL = ("succeeded", "failed")


@pytest.fixture(scope="module")
def stripe_server() -> Iterator[FakeStripe]:
    with FakeStripe() as server:
        server.add_card("pm_card_visa", brand="visa", last4="4242", exp_month=12, exp_year=2031)
        yield server


@pytest.fixture(scope="module")
def fhir_server() -> Iterator[FakeFhirMetadata]:
    with FakeFhirMetadata() as server:
        yield server


@pytest.fixture(scope="module")
def service(tmp_path_factory, stripe_server, fhir_server) -> Iterator[Service]:
    running = Service(tmp_path_factory.mktemp("orgs-e2e"), extra_env={
        "STRIPE_API_KEY": API_KEY, "STRIPE_API_BASE": stripe_server.base_url,
        "PROVISIONING_RETRY_DELAYS_S": "0.1,0.2",
        "ALLOW_PRIVATE_WEBHOOK_URLS": "true"}).start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def platform(service: Service) -> Client:
    return Client(service.base, PLATFORM_TOKEN)


def _provision(platform: Client, **fields) -> dict:
    response = platform.call("POST", "/api/organizations/provision",
                             {"admin_email": "owner@clinic.example", **fields})
    assert response.status_code == 202, response.text
    assert response.headers["Location"] == response.json()["status_url"]
    return platform.wait_for(response.json()["status_url"],
                             lambda body: body["status"] in TERMINAL)


def test_provisioned_clinic_works_end_to_end(service, platform, stripe_server, fhir_server):
    body = _provision(platform, name="Juniper Family Therapy", timezone="Europe/Berlin",
                      ehr={"fhir_base_url": fhir_server.base_url})
    assert body["status"] == "succeeded", [(s["name"], s["status"], s.get("error"))
                                           for s in body["steps"]]
    assert [s["status"] for s in body["steps"]].count("done") >= 12
    clinic = Client(service.base, body["result"]["admin_token"])
    org_id = body["organization_id"]

    organization = clinic.call("GET", f"/api/organizations/{org_id}").json()
    assert organization["status"] == "active"
    assert organization["settings"]["ehr"]["fhir_base_url"] == fhir_server.base_url
    assert organization["settings"]["billing"]["customer_id"] in stripe_server.customers

    session = clinic.call("POST", "/api/therapy-sessions", {
        "patient_id": "pat-1", "provider_id": "prov-1", "session_date": "2026-11-20T15:00:00Z"})
    assert session.status_code == 201
    usage = clinic.call("GET", f"/api/organizations/{org_id}/usage").json()
    assert usage["totals"]["therapy_sessions"] == 1
    assert sum(b["therapy_sessions"] for b in usage["buckets"]) == 1

    added = clinic.call("POST", "/api/billing/payment-methods",
                        {"processor": "stripe", "payment_method": "pm_card_visa"})
    assert added.status_code == 201, added.text
    assert (added.json()["last4"], added.json()["is_default"]) == ("4242", True)
    refused = clinic.call("POST", "/api/billing/payment-methods",
                          {"processor": "stripe", "payment_method": "pm_card_visa",
                           "billing_details": {"note": "4242 4242 4242 4242"}})
    assert refused.status_code == 422
    for log in ("web", "worker"):
        assert "4242 4242 4242 4242" not in service.log_tail(log, 10**7)
        assert body["result"]["admin_token"] not in service.log_tail(log, 10**7)


def test_unreachable_ehr_fails_cleanly_and_frees_the_slug(service, platform):
    body = _provision(platform, name="Maple Clinic", slug="maple",
                      ehr={"fhir_base_url": unreachable_base_url()})
    assert body["status"] == "failed", body
    statuses = {s["name"]: s["status"] for s in body["steps"]}
    assert statuses["configure_ehr_integration"] == "failed"
    assert statuses["issue_api_token"] == "compensated"
    assert statuses["activate_organization"] == "pending"
    organization = platform.call("GET", f"/api/organizations/{body['organization_id']}").json()
    assert organization["status"] == "failed"

    retried = _provision(platform, name="Maple Clinic", slug="maple")
    assert retried["status"] == "succeeded"


def test_operators_cli_goes_through_the_same_steps(service):
    output = service.cli("orgs", "create", "--name", "Alder Counseling")
    lines = output.strip().splitlines()
    assert lines[0].split()[1:] == ["validate_request", "done"]
    assert len([line for line in lines if line.split()[0].isdigit()]) == 16
    assert lines[-1].startswith("org_")
