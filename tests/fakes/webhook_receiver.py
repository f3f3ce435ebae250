"""A clinic's webhook receiver on 127.0.0.1 that checks what a careful receiver checks.

Every request is recorded with its headers and raw body, and both signatures are verified
against the secrets the test gives it: `Service-Signature` (hex HMAC of the body) and the
Standard Webhooks headers (with the `standardwebhooks` reference library). Replies are scripted
(status, extra headers, or a hang longer than the sender's timeout); once the script is
exhausted every request gets 200::

    with WebhookReceiver() as receiver:
        receiver.script(Reply(500), Reply(410), Reply.redirect("http://example.org/"))
        ...
        assert receiver.requests[0].service_signature_ok
"""

from __future__ import annotations

import hashlib
import hmac
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks import Webhook, WebhookVerificationError

POLL_INTERVAL_S = 0.05


@dataclass
class Reply:
    status: int = 200
    headers: dict = field(default_factory=dict)
    hang_s: float = 0.0

    @classmethod
    def redirect(cls, location: str) -> Reply:
        return cls(302, {"Location": location})

    @classmethod
    def hang(cls, seconds: float) -> Reply:
        return cls(200, hang_s=seconds)


@dataclass
class Received:
    path: str
    headers: dict
    body: bytes
    service_signature_ok: bool
    standard_signature_ok: bool
    at: float


class WebhookReceiver:
    def __init__(self, secrets: list[str] | None = None) -> None:
        self.secrets: list[str] = list(secrets or [])
        self.requests: list[Received] = []
        self._script: deque[Reply] = deque()
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                headers = {k.lower(): v for k, v in self.headers.items()}
                with receiver._lock:
                    receiver.requests.append(Received(
                        self.path, headers, body, receiver._service_ok(headers, body),
                        receiver._standard_ok(headers, body), time.time()))
                    reply = receiver._script.popleft() if receiver._script else Reply()
                if reply.hang_s:
                    time.sleep(reply.hang_s)
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks/intake"
        self._thread = threading.Thread(target=self.server.serve_forever,
                                        kwargs={"poll_interval": POLL_INTERVAL_S}, daemon=True)

    def script(self, *replies: Reply) -> None:
        with self._lock:
            self._script.extend(replies)

    def _service_ok(self, headers: dict, body: bytes) -> bool:
        presented = headers.get("service-signature", "")
        return any(hmac.compare_digest(
            presented, "sha256=" + hmac.new(s.encode(), body, hashlib.sha256).hexdigest())
            for s in self.secrets)

    def _standard_ok(self, headers: dict, body: bytes) -> bool:
        for secret in self.secrets:
            try:
                Webhook(secret).verify(body, headers)
                return True
            except WebhookVerificationError:
                continue
        return False

    def __enter__(self) -> WebhookReceiver:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()
