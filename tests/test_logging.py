"""Log lines: one per request with its request id, and no patient data or token anywhere, even
at DEBUG."""

import json
import logging

import pytest

from services.tokens import create_token
from tests.conftest import SESSION_BODY, bearer
from web.logs import JSONFormatter

PATIENT_ID = "PATIENT-SECRET-123"
COMPLAINT = "hears voices telling him to stop eating"
GOAL = "call sister Margaret before Friday"


class CapturingHandler(logging.Handler):
    """Formats each record as the service's JSON line at emit time (inside the request)."""

    def __init__(self):
        super().__init__(level=logging.DEBUG)
        self.setFormatter(JSONFormatter())
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(self.format(record))

    def records(self):
        return [json.loads(line) for line in self.lines]


@pytest.fixture
def captured():
    handler = CapturingHandler()
    root = logging.getLogger()
    root.addHandler(handler)
    yield handler
    root.removeHandler(handler)


def clinical_cycle(client, token):
    headers = bearer(token)
    created = client.post("/api/therapy-sessions", headers=headers, json={
        **SESSION_BODY, "patient_id": PATIENT_ID, "chief_complaints": [COMPLAINT],
        "session_goals": [GOAL]})
    assert created.status_code == 201
    session_url = f"/api/therapy-sessions/{created.json['id']}"
    assert client.get(session_url, headers=headers).status_code == 200
    assert client.get(f"/api/therapy-sessions?patient_id={PATIENT_ID}",
                      headers=headers).status_code == 200
    assert client.patch(session_url, headers=headers,
                        json={"chief_complaints": [COMPLAINT, "insomnia"]}).status_code == 200
    refused = client.post("/api/therapy-sessions", headers=headers, json={
        **SESSION_BODY, "patient_id": PATIENT_ID, "chief_complaints": [COMPLAINT],
        "duration_minutes": 0})
    assert refused.status_code == 422


def assert_no_secrets(lines, token):
    for secret in (PATIENT_ID, COMPLAINT, GOAL, token, token[len("cws_"):]):
        leaking = [line for line in lines if secret in line]
        assert leaking == [], secret


def test_clinical_cycle_logs_no_patient_data_or_token(client, org, captured):
    _, token = create_token(org.id, ["admin"])
    clinical_cycle(client, token)
    assert captured.lines
    assert_no_secrets(captured.lines, token)


def test_debug_level_logs_no_patient_data_or_token(make_app, org, captured):
    client = make_app(LOG_LEVEL="DEBUG").test_client()
    _, token = create_token(org.id, ["admin"])
    clinical_cycle(client, token)
    assert_no_secrets(captured.lines, token)


def test_each_request_is_one_line_with_its_request_id(client, auth, captured):
    responses = [client.get("/api/therapy-sessions", headers=auth),
                 client.get("/api/templates", headers=auth),
                 client.get("/api/no-such-thing", headers=auth)]
    request_lines = [r for r in captured.records() if r["logger"] == "cws.request"]
    assert [r["status"] for r in request_lines] == [200, 200, 404]
    assert [r["request_id"] for r in request_lines] == [
        response.headers["X-Request-ID"] for response in responses]
    assert len({r["request_id"] for r in request_lines}) == 3


def test_a_path_value_that_is_no_id_of_the_service_is_logged_by_its_name(
        client, auth, captured, make_session):
    """A client that typed a patient's name and number into a path had them logged."""
    session = make_session()
    client.get(f"/api/therapy-sessions/{session['id']}", headers=auth)
    client.get("/api/therapy-sessions/Margaret-Thornbury-555-867-5309", headers=auth)
    client.get("/Margaret-Thornbury/records", headers=auth)
    paths = [r["path"] for r in captured.records() if r["logger"] == "cws.request"][-3:]
    assert paths == [f"/api/therapy-sessions/{session['id']}",
                     "/api/therapy-sessions/<session_id>", "(no route)"]
    assert "Thornbury" not in json.dumps(captured.records())


def test_request_line_has_method_path_and_duration(client, auth, captured):
    client.get("/api/therapy-sessions?patient_id=pat-1", headers=auth)
    [line] = [r for r in captured.records() if r["logger"] == "cws.request"]
    assert (line["method"], line["path"], line["status"]) == ("GET", "/api/therapy-sessions",
                                                              200)
    assert line["duration_ms"] >= 0
    assert line["ts"].endswith("Z")
    assert "pat-1" not in json.dumps(line)


def test_incoming_request_id_is_echoed_and_logged(client, auth, captured):
    response = client.get("/api/therapy-sessions",
                          headers={**auth, "X-Request-ID": "lb-7f3a.42_x"})
    assert response.headers["X-Request-ID"] == "lb-7f3a.42_x"
    [line] = [r for r in captured.records() if r["logger"] == "cws.request"]
    assert line["request_id"] == "lb-7f3a.42_x"


def test_request_id_is_generated_when_absent(client, auth):
    first = client.get("/api/therapy-sessions", headers=auth).headers["X-Request-ID"]
    second = client.get("/api/therapy-sessions", headers=auth).headers["X-Request-ID"]
    assert len(first) >= 16
    assert first != second


@pytest.mark.parametrize("unsafe", ["x" * 65, "a b", "id\"}{", "ünïcode"])
def test_unsafe_request_id_is_replaced(client, auth, unsafe):
    response = client.get("/api/therapy-sessions", headers={**auth, "X-Request-ID": unsafe})
    assert response.headers["X-Request-ID"] not in ("", unsafe)


def test_error_responses_carry_a_request_id(client):
    response = client.get("/api/therapy-sessions")
    assert response.status_code == 401
    assert response.headers["X-Request-ID"]


def test_unexpected_exception_log_holds_no_request_body(make_app, org, captured):
    """The traceback names the error and where it was raised; its message, which quotes the
    value it failed on, is withheld."""
    from flask import request

    app = make_app(TESTING=False, PROPAGATE_EXCEPTIONS=False)

    @app.post("/api/explode")
    def explode():
        return int(request.json["patient_id"])

    response = app.test_client().post("/api/explode", json={"patient_id": PATIENT_ID})
    assert response.status_code == 500
    logged = "\n".join(captured.lines)
    assert "ValueError: (message withheld" in logged and "in explode" in logged
    assert "int(request.json" in logged  # the raising source line
    assert_no_secrets(captured.lines, "cws_unused-token")


def test_a_database_error_is_logged_without_the_values_it_quotes(make_app, captured):
    """An unexpected database error (a unique violation: PostgreSQL quotes the row's key in
    its DETAIL) is logged with its type and traceback, not with the patient's value."""
    from models.base import db

    app = make_app(TESTING=False, PROPAGATE_EXCEPTIONS=False)

    @app.post("/api/duplicate")
    def duplicate():
        db.execute_sql("CREATE TEMPORARY TABLE IF NOT EXISTS seen (patient_id TEXT PRIMARY KEY)")
        for _ in range(2):
            db.execute_sql("INSERT INTO seen (patient_id) VALUES (%s)"
                           .replace("%s", db.param), (PATIENT_ID,))

    response = app.test_client().post("/api/duplicate", json={})
    assert response.status_code == 500
    logged = "\n".join(captured.lines)
    assert "IntegrityError" in logged
    assert PATIENT_ID not in logged


def test_a_traceback_keeps_the_services_own_messages_only():
    """Every exception of the chain is named with its frames; only the service's own keep
    their message."""
    import peewee
    import psycopg2.errors
    import requests

    from services.workflows.nodes import TransientNodeError
    from tests.jobs.sample_jobs import QUOTED_VALUE, UNIQUE_VIOLATION
    from web.logs import format_exception

    try:
        try:
            try:
                raise psycopg2.errors.UniqueViolation(UNIQUE_VIOLATION)
            except psycopg2.Error as exc:
                try:
                    raise peewee.IntegrityError(*exc.args)
                except peewee.IntegrityError:
                    raise requests.ConnectionError(
                        f"Max retries exceeded with url: /fhir?api_key={QUOTED_VALUE}") from None
        except requests.RequestException as unreachable:
            raise TransientNodeError("FHIR server unreachable: ConnectionError") from unreachable
    except TransientNodeError as error:
        text = format_exception((type(error), error, error.__traceback__))
    assert QUOTED_VALUE not in text
    assert "requests.exceptions.ConnectionError: (message withheld" in text
    assert "services.workflows.nodes.TransientNodeError: FHIR server unreachable" in text
    assert text.count("Traceback (most recent call last):") == 2

    try:
        try:
            raise psycopg2.errors.UniqueViolation(UNIQUE_VIOLATION)
        except psycopg2.Error as exc:
            raise peewee.IntegrityError(*exc.args)  # chained implicitly, as peewee does
    except peewee.IntegrityError as error:
        text = format_exception((type(error), error, error.__traceback__))
    assert QUOTED_VALUE not in text
    assert "psycopg2.errors.UniqueViolation: (message withheld" in text
    assert "peewee.IntegrityError: (message withheld: database errors quote row values" in text


@pytest.mark.parametrize(("kind", "own"), [
    ("services.workflows.nodes.NodeError", True),
    ("services.voice.screeners.ScreenerError", True),
    ("builtins.ValueError", False),
    ("peewee.IntegrityError", False),
    ("requests.exceptions.ConnectionError", False),
    ("openai.APIConnectionError", False),
])
def test_the_services_own_exception_classes_are_told_from_any_other(kind, own):
    import importlib

    from web.logs import written_here

    module, _, name = kind.rpartition(".")
    assert written_here(getattr(importlib.import_module(module), name)) is own


def test_a_failed_jobs_log_holds_no_value_a_database_error_quotes(make_app, org, captured):
    from jobs import queue as jobqueue
    from jobs.worker import run_worker
    from tests.jobs.sample_jobs import QUOTED_VALUE, fails_quoting_a_row

    app = make_app(JOB_RETRY_INTERVALS_S=[0])
    with app.app_context():
        jobqueue.enqueue(fails_quoting_a_row, org.id, "x", id="job_quoting_a_row",
                         max_attempts=1, queue=jobqueue.QUEUE_WORKFLOWS)  # run in process
    run_worker(app, burst=True)
    logged = "\n".join(captured.lines)
    assert "job job_quoting_a_row failed" in logged and "IntegrityError" in logged
    assert QUOTED_VALUE not in logged


def test_a_peers_failure_is_one_warning_line_and_a_defect_keeps_its_traceback(
        make_app, org, captured):
    # A model server that answers 500 is what retries are for: its failed attempts were
    # logged as errors with a whole traceback each.
    from jobs import queue as jobqueue
    from jobs.worker import run_worker
    from tests.jobs.sample_jobs import fails_as_the_model_server_does, fails_quoting_a_row

    app = make_app(JOB_RETRY_INTERVALS_S=[0])
    with app.app_context():
        jobqueue.enqueue(fails_as_the_model_server_does, org.id, id="job_peer",
                         max_attempts=1, queue=jobqueue.QUEUE_WORKFLOWS)
        jobqueue.enqueue(fails_quoting_a_row, org.id, "x", id="job_defect",
                         max_attempts=1, queue=jobqueue.QUEUE_WORKFLOWS)
    run_worker(app, burst=True)
    failed = {r["message"].split()[1]: r for r in captured.records()
              if r["message"].startswith("job job_")}
    assert failed["job_peer"]["level"] == "WARNING"
    assert failed["job_peer"]["message"] == \
        "job job_peer failed (workflows): The model server answered 500."
    assert "exc_info" not in failed["job_peer"] and "Traceback" not in json.dumps(
        failed["job_peer"])
    assert failed["job_defect"]["level"] == "ERROR"
    assert "Traceback" in json.dumps(failed["job_defect"])


@pytest.mark.parametrize("queue", ["workflows", "default"])  # in process, in a work-horse
def test_a_failed_jobs_stored_traceback_holds_no_value_a_database_error_quotes(
        make_app, org, queue):
    """What rq keeps in Redis (the dashboard's traceback) and the job's record (its last
    line, shown by the job endpoints) are written as the log is."""
    from rq.job import Job

    from jobs import queue as jobqueue
    from jobs.worker import run_worker
    from models.jobs import JobRecord
    from tests.jobs.sample_jobs import QUOTED_VALUE, fails_quoting_a_row

    app = make_app(JOB_RETRY_INTERVALS_S=[0])
    job_id = f"job_quoting_a_row_{queue}"
    with app.app_context():
        jobqueue.enqueue(fails_quoting_a_row, org.id, "x", id=job_id, max_attempts=1,
                         queue=queue)
    run_worker(app, burst=True)
    with app.app_context():
        record = JobRecord.get_by_id(job_id)
        stored = Job.fetch(job_id, connection=app.extensions["redis"]).latest_result()
    assert record.status == "failed"
    assert "IntegrityError" in record.last_error and QUOTED_VALUE not in record.last_error
    assert "fails_quoting_a_row" in stored.exc_string  # the frames are kept
    assert "IntegrityError" in stored.exc_string and QUOTED_VALUE not in stored.exc_string


def test_gunicorns_own_log_holds_no_value_a_database_error_quotes(capsys):
    """An exception that escapes the app reaches gunicorn's worker, which answers 500 in the
    API's shape and logs the traceback through the logger gunicorn.conf.py names."""
    import runpy
    import socket

    import psycopg2.errors
    from gunicorn.config import Config
    from gunicorn.util import load_class

    from tests.jobs.sample_jobs import QUOTED_VALUE, UNIQUE_VIOLATION
    from web.server_worker import JSONErrorThreadWorker

    shipped = runpy.run_path("gunicorn.conf.py")
    worker = object.__new__(JSONErrorThreadWorker)  # handle_error needs only its log
    worker.log = load_class(shipped["logger_class"])(Config())
    server_end, client_end = socket.socketpair()
    with server_end, client_end:
        try:
            raise psycopg2.errors.UniqueViolation(UNIQUE_VIOLATION)
        except psycopg2.Error as exc:
            worker.handle_error(None, server_end, ("127.0.0.1", 0), exc)
        answer = client_end.recv(4096).decode()
    assert answer.startswith("HTTP/1.1 500 ") and '"code": 500' in answer
    logged = capsys.readouterr().err
    assert "error handling a request" in logged and "UniqueViolation" in logged
    assert QUOTED_VALUE not in logged


def test_debug_level_logs_no_secret_of_a_webhook_address(make_app, org, captured):
    """A clinic's endpoint may carry a token in its query string; at DEBUG the HTTP client's
    own request lines (urllib3's) would print it."""
    from jobs.outbound import deliver
    from models.base import db
    from models.outbound import WebhookDelivery
    from services.outbound import endpoints
    from services.outbound.delivery import emit
    from tests.fakes.webhook_receiver import WebhookReceiver

    app = make_app(LOG_LEVEL="DEBUG", ALLOW_PRIVATE_WEBHOOK_URLS=True)
    secret = "hook-token-not-for-logs"
    with WebhookReceiver() as receiver, app.app_context():
        endpoint = endpoints.ensure_endpoint(org.id, f"{receiver.url}?token={secret}")
        receiver.secrets = [endpoint.secret]
        with db.atomic():
            emit(endpoint, "intake.started", {"call_id": "c-1"}, ordering_key="c-1")
        # The delivery job's own function, in this process, so that its log lines are seen.
        assert deliver(WebhookDelivery.get().id, 1) == "sent"
        assert [r.path for r in receiver.requests] == [f"/hooks/intake?token={secret}"]
    assert captured.lines
    assert not [line for line in captured.lines if secret in line]


def test_debug_level_logs_nothing_of_the_card_processors_requests_or_answers(
        make_app, captured):
    """At DEBUG the card processor's client prints each request's parameters and each answer's
    body: a customer's name and email, a card's billing details."""
    from services.organizations import create_organization
    from services.tokens import create_token
    from tests.fakes.stripe_server import API_KEY, FakeStripe

    holder = "Imogen Cardholder-Test"
    with FakeStripe() as stripe_server:
        stripe_server.add_card("pm_card_visa")
        stripe_server.payment_methods["pm_card_visa"]["billing_details"]["name"] = holder
        app = make_app(LOG_LEVEL="DEBUG", STRIPE_API_KEY=API_KEY,
                       STRIPE_API_BASE=stripe_server.base_url)
        with app.app_context():
            clinic = create_organization("Rowan Clinic")
            token = create_token(clinic.id, ["billing:write"])[1]
        response = app.test_client().post(
            "/api/billing/payment-methods", headers={"Authorization": f"Bearer {token}"},
            json={"processor": "stripe", "payment_method": "pm_card_visa"})
        assert response.status_code == 201, response.json
        assert stripe_server.customers  # the customer was created with the clinic's name
    logged = "\n".join(captured.lines)
    assert "Request to Stripe api" in logged  # its request lines stay (ids, status)
    assert holder not in logged and "Rowan Clinic" not in logged


def test_the_development_servers_request_lines_hold_no_query_string(make_app, captured):
    """Under `flask run` (werkzeug's server) each request is logged once, by the service,
    with its path only: werkzeug's own request line would quote the query string."""
    import threading

    import requests
    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, make_app(), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        answer = requests.get(f"http://127.0.0.1:{server.port}/api/therapy-sessions",
                              params={"patient_id": PATIENT_ID}, timeout=10)
    finally:
        server.shutdown()
        thread.join(timeout=10)
    assert answer.status_code == 401
    messages = [record["message"] for record in captured.records()]
    assert "GET /api/therapy-sessions 401" in messages
    assert not [line for line in captured.lines if PATIENT_ID in line]
