"""Outbound webhook delivery when the worker sending it is killed mid-request: the attempt is
logged as abandoned, and the next worker delivers the event, once."""

import json
import os
import signal

import pytest

from models.outbound import WebhookDelivery
from models.usage import UsageEvent
from services.outbound.delivery import ABANDONED, attempts_of, emit
from services.outbound.endpoints import ensure_endpoint
from tests.fakes.webhook_receiver import Reply, WebhookReceiver
from tests.jobs.worker_process import start_worker, wait_for

HANG_S = 120  # far longer than the test: the first request is still open when its worker dies


@pytest.fixture
def app(make_app):
    return make_app(ALLOW_PRIVATE_WEBHOOK_URLS=True, WEBHOOK_RETRY_DELAYS_S=[0, 0, 0])


def test_delivery_of_a_killed_worker_is_logged_abandoned_and_sent_once_more(
        app, app_config, org, run_worker):
    with WebhookReceiver() as receiver:
        receiver.script(Reply.hang(HANG_S))
        with app.test_request_context():
            endpoint = ensure_endpoint(org.id, receiver.url)
            receiver.secrets = [endpoint.secret]
            event = emit(endpoint, "intake.started", {"call_id": "call-k"},
                         ordering_key="call:call-k")
        worker = start_worker(app_config, ALLOW_PRIVATE_WEBHOOK_URLS="true")
        try:
            wait_for(lambda: len(receiver.requests) == 1)  # the request is out, unanswered
        finally:
            os.killpg(worker.pid, signal.SIGKILL)  # the worker and its work-horse
            worker.wait()

        run_worker()  # another worker: finds the dead one's job and carries the delivery on
        run_worker()  # and one more finds nothing left to send

        delivery = WebhookDelivery.get(WebhookDelivery.event == event.id)
        assert (delivery.status, delivery.attempts) == ("succeeded", 2)
        log = attempts_of(delivery)
        assert [(a.number, a.status_code) for a in log] == [(1, None), (2, 200)]
        assert log[0].error.startswith(ABANDONED) and log[1].error is None
        # The receiver saw the event twice (the first time without answering), both times
        # under the same webhook-id and correctly signed: it can keep one.
        assert len(receiver.requests) == 2
        assert {r.headers["webhook-id"] for r in receiver.requests} == {event.id}
        assert all(r.service_signature_ok and r.standard_signature_ok
                   for r in receiver.requests)
        assert [json.loads(r.body)["event_id"] for r in receiver.requests] == [event.id] * 2
    delivered = UsageEvent.select().where((UsageEvent.organization == org.id)
                                          & (UsageEvent.metric == "webhook_deliveries"))
    assert delivered.count() == 1
