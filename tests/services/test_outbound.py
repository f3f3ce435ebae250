"""Outbound webhooks against a real receiver on 127.0.0.1: both signatures verify, failures
are retried on the schedule, 410 disables, order per call holds, nothing is lost without Redis."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest

from models.base import db, utcnow
from models.jobs import JobRecord
from models.outbound import DeliveryAttempt, OutboundEvent, WebhookDelivery, WebhookEndpoint
from models.usage import UsageEvent
from services.errors import Unprocessable
from services.outbound import addresses, endpoints
from services.outbound.delivery import emit, redeliver, retry_delay_s
from tests.fakes.webhook_receiver import Reply, WebhookReceiver

FAST = {"ALLOW_PRIVATE_WEBHOOK_URLS": True, "WEBHOOK_RETRY_DELAYS_S": [0, 0, 0]}


@pytest.fixture
def receiver():
    with WebhookReceiver() as fake:
        yield fake


@pytest.fixture
def fast_app(make_app):
    return make_app(**FAST)


@pytest.fixture
def endpoint(fast_app, org, receiver):
    with fast_app.app_context():
        created = endpoints.ensure_endpoint(org.id, receiver.url)
    receiver.secrets = [created.secret]
    return created


def _drain(app):
    from jobs.worker import run_worker

    run_worker(app, burst=True)


def _emit(app, endpoint, event="intake.started", key="call-1", **fields):
    with app.app_context(), db.atomic():
        return emit(endpoint, event, fields or {"call_id": key}, ordering_key=key)


def test_no_endpoint_sends_nothing(fast_app, receiver):
    with fast_app.app_context():
        assert emit(None, "intake.started", {"call_id": "c"}, ordering_key="c") is None
    assert OutboundEvent.select().count() == 0


def test_delivery_carries_both_signatures_and_the_fields(fast_app, org, endpoint, receiver):
    sent = _emit(fast_app, endpoint, call_id="call-1", deployment_id="vdp_1",
                 patient_phone="+15551234567")
    _drain(fast_app)
    assert len(receiver.requests) == 1
    got = receiver.requests[0]
    assert got.service_signature_ok and got.standard_signature_ok
    body = json.loads(got.body)
    assert body["event"] == "intake.started" and body["event_id"] == sent.id
    assert body["occurred_at"].endswith("Z") and body["patient_phone"] == "+15551234567"
    assert got.headers["webhook-id"] == sent.id
    assert got.headers["service-event"] == "intake.started"
    assert got.headers["service-signature"].startswith("sha256=")
    delivery = WebhookDelivery.get()
    assert delivery.status == "succeeded" and delivery.attempts == 1
    assert UsageEvent.select().where(UsageEvent.metric == "webhook_deliveries").count() == 1


def test_same_event_id_is_sent_once(fast_app, endpoint, receiver):
    with fast_app.app_context():
        for _ in range(2):
            with db.atomic():
                emit(endpoint, "intake.completed", {"call_id": "c"}, ordering_key="c",
                     event_id="evt_same")
    _drain(fast_app)
    assert len(receiver.requests) == 1


def test_rolled_back_emit_sends_nothing(fast_app, endpoint, receiver):
    with fast_app.app_context():
        with db.atomic() as txn:
            emit(endpoint, "intake.started", {"call_id": "c"}, ordering_key="c")
            txn.rollback()
    _drain(fast_app)
    assert receiver.requests == []


def test_server_error_is_retried_and_the_retry_has_a_fresh_timestamp(fast_app, endpoint,
                                                                     receiver):
    receiver.script(Reply(500), Reply(503))
    sent = _emit(fast_app, endpoint)
    _drain(fast_app)
    assert len(receiver.requests) == 3
    assert {r.headers["webhook-id"] for r in receiver.requests} == {sent.id}
    assert all(r.standard_signature_ok for r in receiver.requests)
    delivery = WebhookDelivery.get()
    assert delivery.status == "succeeded" and delivery.attempts == 3
    codes = [a.status_code for a in DeliveryAttempt.select().order_by(DeliveryAttempt.number)]
    assert codes == [500, 503, 200]


def test_gives_up_after_the_schedule(fast_app, endpoint, receiver):
    receiver.script(*[Reply(500)] * 10)
    _emit(fast_app, endpoint)
    _drain(fast_app)
    assert len(receiver.requests) == 4  # the first attempt and three retries
    delivery = WebhookDelivery.get()
    assert delivery.status == "failed" and delivery.last_status_code == 500


def test_gone_disables_the_endpoint(fast_app, endpoint, receiver):
    receiver.script(Reply(410))
    _emit(fast_app, endpoint, key="a")
    _drain(fast_app)
    assert WebhookEndpoint.get_by_id(endpoint.id).disabled_at is not None
    _emit(fast_app, WebhookEndpoint.get_by_id(endpoint.id), key="b")
    _drain(fast_app)
    assert len(receiver.requests) == 1
    assert [d.status for d in WebhookDelivery.select()] == ["failed", "failed"]


def test_redirect_is_a_failure_and_not_followed(fast_app, endpoint, receiver):
    receiver.script(*[Reply.redirect(receiver.url + "/elsewhere")] * 4)
    _emit(fast_app, endpoint)
    _drain(fast_app)
    assert all(r.path == "/hooks/intake" for r in receiver.requests)
    assert len(receiver.requests) == 4
    assert WebhookDelivery.get().last_error == "HTTP 302"


def test_a_hanging_receiver_times_out(make_app, org, receiver):
    app = make_app(**{**FAST, "WEBHOOK_TIMEOUT_S": 0.3, "WEBHOOK_RETRY_DELAYS_S": []})
    with app.app_context():
        endpoint = endpoints.ensure_endpoint(org.id, receiver.url)
    receiver.script(Reply.hang(1.5))
    _emit(app, endpoint)
    _drain(app)
    delivery = WebhookDelivery.get()
    assert delivery.status == "failed" and delivery.last_error == "timed out"


def test_one_calls_events_keep_their_order_through_a_retry(fast_app, endpoint, receiver):
    receiver.script(Reply(500))
    for event in ("intake.started", "intake.screener.completed", "intake.completed"):
        _emit(fast_app, endpoint, event=event, key="call-9")
    _drain(fast_app)
    events = [json.loads(r.body)["event"] for r in receiver.requests]
    assert events == ["intake.started", "intake.started", "intake.screener.completed",
                      "intake.completed"]


def test_retry_after_is_honoured(fast_app, endpoint, receiver):
    receiver.script(Reply(429, {"Retry-After": "120"}))
    _emit(fast_app, endpoint)
    _drain(fast_app)
    delivery = WebhookDelivery.get()
    assert delivery.status == "pending" and len(receiver.requests) == 1
    assert delivery.next_attempt_at >= utcnow() + timedelta(seconds=110)


def test_a_retry_after_that_is_no_number_is_ignored(fast_app, endpoint, receiver):
    receiver.script(Reply(503, {"Retry-After": "\u00b2"}))  # a digit to str.isdigit
    _emit(fast_app, endpoint)
    _drain(fast_app)
    delivery = WebhookDelivery.get()  # retried on the schedule (no wait here), delivered
    assert delivery.status == "succeeded" and len(receiver.requests) == 2
    first = DeliveryAttempt.get(DeliveryAttempt.delivery == delivery, DeliveryAttempt.number == 1)
    assert (first.status_code, first.error) == (503, "HTTP 503")  # not a job that died


def test_retry_schedule_has_jitter_within_ten_percent():
    delays = {retry_delay_s(2) for _ in range(20)}
    assert len(delays) > 1 and all(270 <= d <= 330 for d in delays)
    assert retry_delay_s(8) is None
    assert retry_delay_s(1, retry_after_s=60) >= 60


def test_rotation_signs_with_both_keys(fast_app, endpoint, receiver):
    old = endpoint.secret
    with fast_app.app_context():
        rotated = endpoints.rotate_secret(WebhookEndpoint.get_by_id(endpoint.id))
    receiver.secrets = [old]  # a receiver that has not switched yet
    _emit(fast_app, rotated)
    _drain(fast_app)
    assert receiver.requests[0].standard_signature_ok
    assert len(receiver.requests[0].headers["webhook-signature"].split(" ")) == 2
    receiver.secrets = [rotated.secret]
    assert receiver._service_ok(receiver.requests[0].headers, receiver.requests[0].body)


def test_service_signature_stays_one_value_with_the_new_key_during_rotation(
        fast_app, endpoint, receiver):
    old = endpoint.secret
    with fast_app.app_context():
        rotated = endpoints.rotate_secret(WebhookEndpoint.get_by_id(endpoint.id))
    _emit(fast_app, rotated)
    _drain(fast_app)
    got = receiver.requests[0]
    # The fixed `sha256=<hex>` shape, compared whole by receivers: the overlap of old and new
    # keys is carried by webhook-signature only.
    assert re.fullmatch(r"sha256=[0-9a-f]{64}", got.headers["service-signature"])
    receiver.secrets = [rotated.secret]
    assert receiver._service_ok(got.headers, got.body)
    receiver.secrets = [old]
    assert not receiver._service_ok(got.headers, got.body)
    assert receiver._standard_ok(got.headers, got.body)


def test_redeliver_sends_the_same_event_again(fast_app, endpoint, receiver):
    sent = _emit(fast_app, endpoint)
    _drain(fast_app)
    with fast_app.app_context():
        redeliver(WebhookDelivery.get())
    _drain(fast_app)
    assert [r.headers["webhook-id"] for r in receiver.requests] == [sent.id, sent.id]
    assert receiver.requests[0].body == receiver.requests[1].body


def test_redelivering_a_delivery_still_tried_makes_its_retry_now(make_app, org, receiver):
    """It made a second delivery that waited behind the first until the first's next retry
    (5 min out here, hours later in the schedule), then both went out: the event twice,
    after the call's later events."""
    app = make_app(ALLOW_PRIVATE_WEBHOOK_URLS=True, WEBHOOK_RETRY_DELAYS_S=[300, 300])
    with app.app_context():
        endpoint = endpoints.ensure_endpoint(org.id, receiver.url)
    receiver.script(Reply(500))
    first = _emit(app, endpoint, event="intake.started", key="call-r")
    with app.app_context():
        _drain(app)
        pending = WebhookDelivery.get()
        assert pending.status == "pending" and pending.next_attempt_at > utcnow()
        _emit(app, endpoint, event="intake.completed", key="call-r")
        answered = redeliver(pending)
        _drain(app)
    assert answered.id == pending.id
    assert [json.loads(r.body)["event"] for r in receiver.requests] == [
        "intake.started", "intake.started", "intake.completed"]
    assert [r.headers["webhook-id"] for r in receiver.requests][:2] == [first.id, first.id]
    assert WebhookDelivery.select().count() == 2
    assert {d.status for d in WebhookDelivery.select()} == {"succeeded"}


@pytest.mark.parametrize("address", ["127.0.0.1", "10.1.2.3", "192.168.0.1", "169.254.169.254",
                                     "::1", "::ffff:127.0.0.1", "fd00:ec2::254", "100.64.0.1",
                                     "0.0.0.0",
                                     # 6to4 forms of internal IPv4 addresses, and site-local
                                     # IPv6: were allowed.
                                     "2002:7f00:1::", "2002:a9fe:a9fe::", "2002:c0a8:101::1",
                                     "fec0::1"])
def test_internal_addresses_are_forbidden(address):
    assert addresses.is_forbidden(address)


@pytest.mark.parametrize("address", ["93.184.215.14", "2002:808:808::1", "::ffff:8.8.8.8",
                                     "2606:4700::1111"])
def test_public_address_is_allowed(address):
    assert not addresses.is_forbidden(address)


@pytest.mark.parametrize("url", ["https://8.8.8.8:0/h", "http://93.184.215.14:0/"])
def test_port_zero_is_refused(url):
    with pytest.raises(Unprocessable):
        addresses.check_url_syntax(url)


@pytest.mark.parametrize("url", ["http://93.184.215.14/a b", "http://93.184.215.14\t/x",
                                 "http://93.184.215.14/\r\nX-Evil: 1", "https://8.8.8.8/\u00a0",
                                 "https://8.8.8.8/\u2028x"])
def test_a_url_with_spaces_or_control_characters_is_refused(url):
    # They were stored and shown as sent, and called percent-encoded: another URL.
    with pytest.raises(Unprocessable, match="no spaces or control characters"):
        addresses.check_url_syntax(url)


def test_an_unknown_name_and_an_internal_one_are_refused_alike(app, org):
    # "does not resolve" beside "resolves to a private address" told any token that may save
    # a URL which names exist inside the clinic's network.
    answers = []
    for url in ("http://no-such-host.invalid/h", "http://localhost/h", "http://10.1.2.3/h"):
        with app.app_context(), pytest.raises(Unprocessable) as refused:
            endpoints.ensure_endpoint(org.id, url)
        answers.append(refused.value.message)
    assert len(set(answers)) == 1 and "public address" in answers[0]


def test_private_url_is_refused_on_save(app, org, receiver):
    with app.app_context(), pytest.raises(Unprocessable):
        endpoints.ensure_endpoint(org.id, receiver.url)


def test_private_address_is_refused_at_send_time(make_app, org, receiver):
    permissive = make_app(**FAST)
    with permissive.app_context():
        endpoint = endpoints.ensure_endpoint(org.id, receiver.url)
    strict = make_app(ALLOW_PRIVATE_WEBHOOK_URLS=False, WEBHOOK_RETRY_DELAYS_S=[])
    _emit(strict, endpoint)
    _drain(strict)
    assert receiver.requests == []
    assert WebhookDelivery.get().last_error.startswith("address refused")


def test_events_written_while_redis_is_down_are_delivered_once_after(make_app, org, receiver,
                                                                    app_config):
    down = make_app(**{**FAST, "REDIS_URL": "redis://127.0.0.1:1/0"})
    with down.app_context():
        endpoint = endpoints.ensure_endpoint(org.id, receiver.url)
    receiver.secrets = [endpoint.secret]
    for event in ("intake.started", "intake.completed"):
        _emit(down, endpoint, event=event)
    assert {r.status for r in JobRecord.select()} == {"pending"}
    up = make_app(**FAST)
    _drain(up)
    _drain(up)
    assert [json.loads(r.body)["event"] for r in receiver.requests] == [
        "intake.started", "intake.completed"]


def test_endpoint_interface_is_idempotent_and_oldest_first(fast_app, org, receiver):
    with fast_app.app_context():
        first = endpoints.ensure_endpoint(org.id, receiver.url)
        assert endpoints.ensure_endpoint(org.id, receiver.url).id == first.id
        second = endpoints.ensure_endpoint(org.id, receiver.url + "/second")
        assert endpoints.default_endpoint(org.id).id == first.id
        endpoints.disable(first.id, "test")
        assert endpoints.default_endpoint(org.id).id == second.id
        endpoints.remove_endpoint(second.id)
        assert endpoints.default_endpoint(org.id) is None


def test_an_events_envelope_wins_over_a_field_of_the_same_name():
    """A workflow's fields named `event` and `event_id` replaced the envelope's: the signed
    body contradicted the signed headers (`webhook-id` is the body's `event_id`)."""
    import json
    from datetime import UTC, datetime

    from services.outbound.delivery import serialise

    body = json.loads(serialise("workflow.done", "evt_1", datetime(2026, 12, 1, tzinfo=UTC),
                                {"event": "intake.crisis.detected", "event_id": "evt_forged",
                                 "occurred_at": "1999-01-01", "note": "kept"}))
    assert (body["event"], body["event_id"], body["note"]) == ("workflow.done", "evt_1", "kept")
    assert body["occurred_at"].startswith("2026-12-01")
