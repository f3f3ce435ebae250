"""A FHIR R4 server for tests, on 127.0.0.1.

It answers `GET /metadata` with a CapabilityStatement (fhirVersion 4.0.1), accepts transaction
Bundles at the base URL, records each one, and honours `ifNoneExist` on POST entries (a second
bundle with the same identifiers creates nothing new). It can fail on demand::

    with FakeFhirServer() as fhir:
        fhir.fail_next(2, status=503)      # the next two transactions get 503
        fhir.delay_next(30)                # the next transaction answers after 30 s
        ...
        assert fhir.bundles[0]["type"] == "transaction"
        assert fhir.created["Observation"] == 1
"""

from __future__ import annotations

import itertools
import json
import threading
import time
from collections import Counter
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

POLL_INTERVAL_S = 0.05
FHIR_JSON = "application/fhir+json"

CAPABILITY_STATEMENT = {
    "resourceType": "CapabilityStatement", "status": "active", "date": "2026-01-01",
    "kind": "instance", "fhirVersion": "4.0.1", "format": ["json"],
    "rest": [{"mode": "server", "interaction": [{"code": "transaction"}]}],
}


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def do_GET(self) -> None:
        if self.path.rstrip("/").endswith("/metadata"):
            self._send(HTTPStatus.OK, CAPABILITY_STATEMENT)
        else:
            self._send(HTTPStatus.NOT_FOUND, _outcome("not-found", "unknown path"))

    def do_POST(self) -> None:
        fake = self.server.fake
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            bundle = json.loads(raw)
        except ValueError:
            self._send(HTTPStatus.BAD_REQUEST, _outcome("invalid", "body is not JSON"))
            return
        fake.requests.append({"headers": dict(self.headers.items()), "body": bundle})
        status, delay, headers = fake._next_behaviour()
        if delay and fake._stopping.wait(delay):
            return
        if status:
            self._send(status, _outcome("transient", f"scripted {status}"), headers)
            return
        if bundle.get("resourceType") != "Bundle" or bundle.get("type") != "transaction":
            self._send(HTTPStatus.BAD_REQUEST, _outcome("invalid", "not a transaction Bundle"))
            return
        self._send(HTTPStatus.OK, fake._apply(bundle))

    def _send(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Type", FHIR_JSON)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _outcome(code: str, text: str) -> dict[str, Any]:
    return {"resourceType": "OperationOutcome",
            "issue": [{"severity": "error", "code": code, "diagnostics": text}]}


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    fake: FakeFhirServer


class FakeFhirServer:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.bundles: list[dict[str, Any]] = []  # transactions that were applied
        self.resources: dict[str, dict[str, Any]] = {}  # "Type/id" -> resource
        self.created: Counter[str] = Counter()
        self._by_condition: dict[tuple[str, str], str] = {}
        self._behaviours: list[tuple[int | None, float, dict[str, str]]] = []
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.fake = self
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/fhir"

    def fail_next(self, count: int = 1, status: int = 503,
                  headers: dict[str, str] | None = None, delay_s: float = 0.0) -> None:
        self._behaviours.extend([(status, delay_s, headers or {})] * count)

    def delay_next(self, seconds: float) -> None:
        self._behaviours.append((None, seconds, {}))

    def _next_behaviour(self) -> tuple[int | None, float, dict[str, str]]:
        with self._lock:
            return self._behaviours.pop(0) if self._behaviours else (None, 0.0, {})

    def _apply(self, bundle: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            self.bundles.append(bundle)
            references: dict[str, str] = {}
            responses = []
            for entry in bundle.get("entry", []):
                resource, request = entry["resource"], entry["request"]
                kind = resource["resourceType"]
                condition = request.get("ifNoneExist")
                existing = self._by_condition.get((kind, condition)) if condition else None
                if existing:
                    references[entry.get("fullUrl", "")] = existing
                    responses.append({"response": {"status": "200 OK",
                                                   "location": f"{existing}/_history/1"}})
                    continue
                location = f"{kind}/{next(self._ids)}"
                self.resources[location] = {**resource, "id": location.split("/")[1]}
                self.created[kind] += 1
                if condition:
                    self._by_condition[(kind, condition)] = location
                references[entry.get("fullUrl", "")] = location
                responses.append({"response": {"status": "201 Created",
                                               "location": f"{location}/_history/1"}})
            return {"resourceType": "Bundle", "type": "transaction-response",
                    "entry": responses}

    def start(self) -> FakeFhirServer:
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": POLL_INTERVAL_S}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeFhirServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def wait_for_requests(self, count: int, timeout_s: float = 30) -> None:
        end = time.monotonic() + timeout_s
        while len(self.requests) < count:
            if time.monotonic() > end:
                raise AssertionError(f"expected {count} FHIR requests, got {len(self.requests)}")
            time.sleep(0.05)
