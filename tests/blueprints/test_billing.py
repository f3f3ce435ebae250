"""Payment methods through the `stripe` client against a processor speaking Stripe's wire format."""

from __future__ import annotations

import logging

import pytest

from models.billing import PaymentMethod
from models.idempotency import IdempotencyRecord
from models.organizations import Organization
from tests.blueprints.test_errors import assert_error_shape
from tests.fakes.stripe_server import API_KEY, FakeStripe

PAN = "4242 4242 4242 4242"
PATH = "/api/billing/payment-methods"


@pytest.fixture
def fake_stripe():
    with FakeStripe() as server:
        server.add_card("pm_card_visa", brand="visa", last4="4242", exp_month=12, exp_year=2031)
        server.add_card("pm_card_mc", brand="mastercard", last4="4444", exp_month=1,
                        exp_year=2032)
        server.add_card("pm_card_old", brand="visa", last4="0002", exp_month=1, exp_year=2020)
        yield server


@pytest.fixture
def billing(make_app, fake_stripe, org, make_token):
    app = make_app(STRIPE_API_KEY=API_KEY, STRIPE_API_BASE=fake_stripe.base_url)
    from services.organizations import create_organization

    with app.app_context():
        clinic = create_organization("Birch Clinic")
        from services.tokens import create_token

        token = create_token(clinic.id, ["billing:write"])[1]
    return app.test_client(), {"Authorization": f"Bearer {token}"}, clinic


def _add(client, headers, pm="pm_card_visa", **fields):
    return client.post(PATH, json={"processor": "stripe", "payment_method": pm, **fields},
                       headers=headers)


def test_payment_method_is_read_attached_and_made_default(billing, fake_stripe):
    client, headers, clinic = billing
    response = _add(client, headers, billing_details={"name": "Front desk"})
    assert response.status_code == 201, response.json
    body = response.json
    assert {k: body[k] for k in ("processor", "type", "brand", "last4", "exp_month",
                                 "exp_year", "is_default")} == {
        "processor": "stripe", "type": "card", "brand": "visa", "last4": "4242",
        "exp_month": 12, "exp_year": 2031, "is_default": True}
    customer_id = Organization.get_by_id(clinic.id).settings["billing"]["customer_id"]
    assert fake_stripe.payment_methods["pm_card_visa"]["customer"] == customer_id
    assert fake_stripe.customers[customer_id]["invoice_settings"][
        "default_payment_method"] == "pm_card_visa"
    assert fake_stripe.customers[customer_id]["metadata"] == {"organization_id": clinic.id}
    writes = fake_stripe.writes()
    assert writes and all(w["headers"].get("idempotency-key") for w in writes)


def test_default_switches_and_deleting_the_default_promotes_the_next(billing, fake_stripe):
    client, headers, clinic = billing
    first = _add(client, headers).json
    second = _add(client, headers, "pm_card_mc").json
    assert (first["is_default"], second["is_default"]) == (True, False)
    switched = client.post(f"{PATH}/{second['id']}/default", headers=headers)
    assert switched.status_code == 200 and switched.json["is_default"]
    listed = client.get(PATH, headers=headers).json
    assert [m["is_default"] for m in listed] == [False, True]
    customer = fake_stripe.customers[Organization.get_by_id(clinic.id)
                                     .settings["billing"]["customer_id"]]
    assert customer["invoice_settings"]["default_payment_method"] == "pm_card_mc"

    assert client.delete(f"{PATH}/{second['id']}", headers=headers).status_code == 204
    assert fake_stripe.payment_methods["pm_card_mc"]["customer"] is None
    remaining = client.get(PATH, headers=headers).json
    assert [(m["id"], m["is_default"]) for m in remaining] == [(first["id"], True)]
    assert customer["invoice_settings"]["default_payment_method"] == "pm_card_visa"


def test_expired_card_is_422_and_not_attached(billing, fake_stripe):
    client, headers, _ = billing
    response = _add(client, headers, "pm_card_old")
    assert response.status_code == 422
    assert "expired" in response.json["message"]
    assert fake_stripe.payment_methods["pm_card_old"]["customer"] is None


@pytest.mark.parametrize("value", [0, 1, "true", "yes", None])
def test_set_default_that_is_not_a_json_boolean_is_422(billing, fake_stripe, value):
    # Before, 0, 1 and "yes" were read as booleans though the document says boolean.
    client, headers, _ = billing
    response = _add(client, headers, set_default=value)
    assert response.status_code == 422 and "set_default" in response.json["errors"]["json"]
    assert client.get(PATH, headers=headers).json == []
    assert fake_stripe.writes() == []


def test_processor_refusing_the_clients_input_is_422_with_its_message(billing, fake_stripe):
    client, headers, _ = billing
    missing = _add(client, headers, "pm_unknown")
    assert missing.status_code == 422
    assert "No such PaymentMethod: 'pm_unknown'" in missing.json["message"]
    assert "payment_method" in missing.json["errors"]["json"]
    fake_stripe.fail_next(402, "card_error", "card_declined", "Your card was declined.")
    declined = _add(client, headers)
    assert declined.status_code == 422 and "Your card was declined." in declined.json["message"]
    assert PaymentMethod.select().count() == 0


def test_processor_failure_is_502_with_its_message(billing, fake_stripe):
    client, headers, _ = billing
    for _ in range(2):  # the client retries a 500 once
        fake_stripe.fail_next(500, "api_error", "internal", "Something went wrong on our end.")
    failed = _add(client, headers)
    assert failed.status_code == 502
    assert "Something went wrong" in failed.json["message"]
    assert PaymentMethod.select().count() == 0


def test_no_processor_configured_is_503(client, auth):
    response = _add(client, auth)
    assert response.status_code == 503
    assert "STRIPE_API_KEY" in response.json["message"]


@pytest.mark.parametrize("body", [
    {"processor": "stripe", "payment_method": "pm_card_visa",
     "billing_details": {"notes": [{"card": PAN}]}},
    {"processor": "stripe", "payment_method": "pm_card_visa", "card_number": "4242424242424242"},
    {"processor": "stripe", "payment_method": "4242-4242-4242-4242"},
    {"processor": "stripe", "payment_method": "pm_card_visa",
     "billing_details": {"phone": 5555555555554444}},
])
def test_raw_card_number_is_refused_never_stored_or_logged(billing, fake_stripe, caplog, body):
    client, headers, _ = billing
    caplog.set_level(logging.DEBUG)
    response = client.post(PATH, json=body, headers={**headers, "Idempotency-Key": "k1"})
    assert response.status_code == 422
    assert "Card numbers are never accepted" in response.json["message"]
    text = response.get_data(as_text=True) + caplog.text
    for digits in ("4242424242424242", "4242 4242", "4242-4242", "5555555555554444"):
        assert digits not in text
    assert PaymentMethod.select().count() == 0
    assert IdempotencyRecord.select().count() == 0
    assert fake_stripe.requests == []


def test_another_organizations_payment_method_is_not_found(billing, make_token, org):
    client, headers, _ = billing
    method = _add(client, headers).json
    other = {"Authorization": f"Bearer {make_token(org, 'billing:write')}"}
    assert client.get(f"{PATH}/{method['id']}", headers=other).status_code == 404
    assert client.delete(f"{PATH}/{method['id']}", headers=other).status_code == 404
    assert client.get(PATH, headers=other).json == []


def test_a_keyed_add_waiting_on_the_processor_holds_no_lock_on_other_writes(
        billing, fake_stripe, client, auth):
    # With an Idempotency-Key the add ran inside the key's transaction: on SQLite it held the
    # database's write lock while the processor answered, and another organization's create
    # waited for it (503 once the processor took longer than the lock timeout).
    import threading
    import time

    billing_client, headers, _ = billing
    fake_stripe.gate.clear()
    answers = {}
    adding = threading.Thread(target=lambda: answers.setdefault("add", _add(
        billing_client, {**headers, "Idempotency-Key": "add-1"})))
    adding.start()
    deadline = time.monotonic() + 10
    while fake_stripe.waiting == 0 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert fake_stripe.waiting, "the add never reached the processor"
    creating = threading.Thread(target=lambda: answers.setdefault("create", client.post(
        "/api/therapy-sessions", headers=auth, json={
            "patient_id": "pat-1", "provider_id": "prov-1",
            "session_date": "2026-12-01T15:00:00Z"})))
    creating.start()
    creating.join(timeout=5)
    finished_while_the_processor_waited = not creating.is_alive()
    again = _add(billing_client, {**headers, "Idempotency-Key": "add-1"})
    fake_stripe.gate.set()
    adding.join(timeout=30)
    creating.join(timeout=30)
    assert finished_while_the_processor_waited
    assert answers["create"].status_code == 201
    assert again.status_code == 409 and "in progress" in again.json["message"]
    assert answers["add"].status_code == 201
    replayed = _add(billing_client, {**headers, "Idempotency-Key": "add-1"})
    assert replayed.status_code == 201 and replayed.json == answers["add"].json
    assert replayed.headers["Idempotent-Replayed"] == "true"
    assert PaymentMethod.select().count() == 1


SERVER_ERROR = (500, "api_error", "internal", "Something went wrong on our end.")


def test_a_processor_500_on_a_detach_does_not_stick(billing, fake_stripe):
    # The processor keeps a key's first answer, a 500 included: with one fixed key per method
    # every later detach of it got that 500 back (502 for ever).
    client, headers, _ = billing
    method = _add(client, headers).json
    # (the client's own retry of it, under the same key, gets the kept 500)
    fake_stripe.fail_next(*SERVER_ERROR, path="/v1/payment_methods/pm_card_visa/detach")
    assert client.delete(f"{PATH}/{method['id']}", headers=headers).status_code == 502
    assert client.delete(f"{PATH}/{method['id']}", headers=headers).status_code == 204
    assert fake_stripe.payment_methods["pm_card_visa"]["customer"] is None


def test_a_new_default_the_processor_refuses_after_a_detach_leaves_none(billing,
                                                                        fake_stripe):
    # 502, with the card detached at the processor and still listed here as the default.
    client, headers, clinic = billing
    first = _add(client, headers).json
    second = _add(client, headers, "pm_card_mc").json
    customer_id = Organization.get_by_id(clinic.id).settings["billing"]["customer_id"]
    fake_stripe.fail_next(*SERVER_ERROR, path=f"/v1/customers/{customer_id}")
    assert client.delete(f"{PATH}/{first['id']}", headers=headers).status_code == 204
    assert fake_stripe.payment_methods["pm_card_visa"]["customer"] is None
    listed = client.get(PATH, headers=headers).json
    assert [(m["id"], m["is_default"]) for m in listed] == [(second["id"], False)]
    customer = fake_stripe.customers[customer_id]
    assert customer["invoice_settings"]["default_payment_method"] != "pm_card_mc"
    chosen = client.post(f"{PATH}/{second['id']}/default", headers=headers)
    assert chosen.status_code == 200 and chosen.json["is_default"]
    assert customer["invoice_settings"]["default_payment_method"] == "pm_card_mc"


def test_a_detach_whose_answer_was_lost_counts_as_done(billing, fake_stripe):
    client, headers, _ = billing
    method = _add(client, headers).json
    fake_stripe.payment_methods["pm_card_visa"]["customer"] = None  # detached, answer lost
    assert client.delete(f"{PATH}/{method['id']}", headers=headers).status_code == 204
    assert client.get(PATH, headers=headers).json == []


def test_a_processor_500_on_creating_the_customer_does_not_stick(billing, fake_stripe):
    client, headers, clinic = billing
    fake_stripe.fail_next(*SERVER_ERROR, path="/v1/customers")
    assert _add(client, headers).status_code == 502
    assert _add(client, headers).status_code == 201
    assert len(fake_stripe.customers) == 1
    customer = Organization.get_by_id(clinic.id).settings["billing"]["customer_id"]
    assert customer in fake_stripe.customers


def _concurrently(calls):
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(lambda call: call(), calls))


def _saved_cards(client, headers, fake_stripe, prefix: str, count: int) -> list[str]:
    """`count` cards known to the processor, each added here; their ids."""
    ids = []
    for number in range(count):
        fake_stripe.add_card(f"{prefix}{number}", exp_month=12, exp_year=2031)
        ids.append(_add(client, headers, pm=f"{prefix}{number}").json["id"])
    return ids


def test_concurrent_default_switches_leave_both_sides_on_one_card(billing, fake_stripe):
    # The processor's update and ours were separate, unlocked steps: in 4 rounds of 10 the
    # processor's default was another card than the one shown as default here.
    client, headers, clinic = billing
    ids = _saved_cards(client, headers, fake_stripe, "pm_sw", 4)
    customer = Organization.get_by_id(clinic.id).settings["billing"]["customer_id"]
    for _ in range(3):
        answers = _concurrently([
            (lambda i=i: client.post(f"{PATH}/{i}/default", headers=headers))
            for i in ids * 3])
        assert {a.status_code for a in answers} == {200}
        defaults = [m for m in client.get(PATH, headers=headers).json if m["is_default"]]
        assert len(defaults) == 1
        assert fake_stripe.customers[customer]["invoice_settings"][
            "default_payment_method"] == PaymentMethod.get_by_id(defaults[0]["id"]).processor_id


def test_concurrent_deletes_leave_no_default_detached_at_the_processor(billing, fake_stripe):
    client, headers, clinic = billing
    ids = _saved_cards(client, headers, fake_stripe, "pm_del", 3)
    answers = _concurrently([
        (lambda i=i: client.delete(f"{PATH}/{i}", headers=headers)) for i in ids[:2]])
    assert [a.status_code for a in answers] == [204, 204]
    left = client.get(PATH, headers=headers).json
    assert [m["id"] for m in left] == [ids[2]] and left[0]["is_default"]
    customer = Organization.get_by_id(clinic.id).settings["billing"]["customer_id"]
    assert fake_stripe.payment_methods["pm_del2"]["customer"] == customer
    assert fake_stripe.customers[customer]["invoice_settings"][
        "default_payment_method"] == "pm_del2"


def test_an_unreachable_processor_is_502_without_its_address(make_app, fake_stripe, org):
    """The client library's text names the host and port it failed to reach; API clients
    (and the error's readers) get the service's own words."""
    import socket

    with socket.socket() as unused:
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    app = make_app(STRIPE_API_KEY=API_KEY, STRIPE_API_BASE=f"http://127.0.0.1:{port}")
    with app.app_context():
        from services.organizations import create_organization
        from services.tokens import create_token

        clinic = create_organization("Aspen Clinic")
        token = create_token(clinic.id, ["billing:write"])[1]
    response = _add(app.test_client(), {"Authorization": f"Bearer {token}"})
    assert_error_shape(response, 502)
    assert response.json["message"] == "Payment processor: unreachable (no connection, or no " \
                                       "answer in time); try again shortly."
    assert str(port) not in response.get_data(as_text=True)
    assert PaymentMethod.select().count() == 0


def test_a_silent_processor_is_502_within_its_timeout(make_app, org):
    """A processor that accepts and never answers held each request 161 s (the library's 80 s
    a try, tried twice) before the 502, past most proxies' patience."""
    import socket
    import threading
    import time

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])  # never answered
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        app = make_app(STRIPE_API_KEY=API_KEY, STRIPE_TIMEOUT_S=0.5,
                       STRIPE_API_BASE=f"http://127.0.0.1:{listener.getsockname()[1]}")
        with app.app_context():
            from services.organizations import create_organization
            from services.tokens import create_token

            clinic = create_organization("Silent Clinic")
            token = create_token(clinic.id, ["billing:write"])[1]
        began = time.monotonic()
        response = _add(app.test_client(), {"Authorization": f"Bearer {token}"})
        took = time.monotonic() - began
    finally:
        stop.set()
        thread.join()
        for connection in held:
            connection.close()
        listener.close()
    assert_error_shape(response, 502)
    assert "unreachable" in response.json["message"]
    assert took < 5, took


def test_a_page_from_in_front_of_the_processor_is_502_in_the_services_words(billing,
                                                                            fake_stripe):
    """A proxy's HTML page in place of the processor's error object: the client library
    quoted the whole page in its message, and the 502 passed it on."""
    client, headers, _ = billing
    page = "<html><body><h1>502 Bad Gateway</h1><p>upstream-pool-7 10.0.3.12</p></body></html>"
    for _ in range(2):  # the library may try twice
        fake_stripe.fail_next(502, "api_error", None, "", html=page)
    response = _add(client, headers)
    assert_error_shape(response, 502)
    assert response.json["message"] == ("Payment processor: answered HTTP 502 without an error "
                                        "it describes; try again shortly.")
    assert "upstream-pool-7" not in response.get_data(as_text=True)
    assert PaymentMethod.select().count() == 0


def test_a_customer_the_processor_no_longer_knows_is_502_not_the_clients_422(billing,
                                                                              fake_stripe):
    """Deleted at the processor: the 422 named `payment_method`, which the request (a default
    switch) did not even carry."""
    client, headers, _ = billing
    fake_stripe.add_card("pm_gone1")
    added = _add(client, headers, pm="pm_gone1")
    assert added.status_code == 201, added.json
    fake_stripe.customers.clear()
    response = client.post(f"/api/billing/payment-methods/{added.json['id']}/default",
                           headers=headers)
    assert_error_shape(response, 502)
    assert "No such customer" in response.json["message"]
    assert "errors" not in response.json


def test_a_processors_retry_after_comes_with_the_502(billing, fake_stripe):
    """The processor's 429 asked for 30 s; the client got a 502 that did not say so."""
    client, headers, _ = billing
    for _ in range(2):  # the library may try twice
        fake_stripe.fail_next(429, "invalid_request_error", "rate_limit", "Too many requests.",
                              headers={"Retry-After": "30"})
    response = _add(client, headers)
    assert_error_shape(response, 502)
    assert response.headers["Retry-After"] == "30"
    assert PaymentMethod.select().count() == 0
