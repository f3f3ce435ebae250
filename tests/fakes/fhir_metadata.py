"""A FHIR server's `/metadata` (CapabilityStatement) on 127.0.0.1, for the provisioning check."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

POLL_INTERVAL_S = 0.05


def capability_statement(fhir_version: str = "4.0.1") -> dict[str, Any]:
    return {"resourceType": "CapabilityStatement", "status": "active",
            "date": "2026-01-01", "kind": "instance", "fhirVersion": fhir_version,
            "format": ["application/fhir+json"],
            "software": {"name": "Test FHIR Server", "version": "1.0"},
            "rest": [{"mode": "server", "resource": [{"type": "Encounter"}]}]}


class FakeFhirMetadata:
    """`GET {base}/metadata`; `statuses` (a list) scripts the first answers' status codes."""

    def __init__(self, fhir_version: str = "4.0.1", statuses: list[int] | None = None) -> None:
        self.fhir_version = fhir_version
        self.statuses = list(statuses or [])
        self.requests: list[dict[str, str]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                fake.requests.append({"path": self.path, "accept": self.headers.get("Accept")})
                status = fake.statuses.pop(0) if fake.statuses else 200
                if self.path.rstrip("/").endswith("/fhir/metadata") and status == 200:
                    body = capability_statement(fake.fhir_version)
                else:
                    status = status if status != 200 else 404
                    body = {"resourceType": "OperationOutcome", "issue": [
                        {"severity": "error", "code": "exception"}]}
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/fhir+json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": POLL_INTERVAL_S}, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/fhir"

    def __enter__(self) -> FakeFhirMetadata:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def unreachable_base_url() -> str:
    """A 127.0.0.1 address where nothing listens (connection refused)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/fhir"
