"""A card processor on 127.0.0.1 speaking Stripe's wire format, for the real `stripe` client.

What the service calls, as Stripe answers it: form-encoded requests (`invoice_settings[...]`,
`metadata[...]`), Bearer secret key, `Idempotency-Key` honoured (the same key answers the
same response), objects with `"object"`, and errors as `{"error": {"type", "code",
"message"}}` with Stripe's status codes::

    with FakeStripe() as fake:
        fake.add_card("pm_card_visa", brand="visa", last4="4242", exp_month=12, exp_year=2030)
        fake.fail_next(402, "card_error", "card_declined", "Your card was declined.")
        ...
        assert fake.customers[cus_id]["invoice_settings"]["default_payment_method"] == "pm_…"
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl

API_KEY = "sk_test_fake_0123456789"
POLL_INTERVAL_S = 0.05


def _nested(pairs: list[tuple[str, str]]) -> dict[str, Any]:
    """`a[b][c]=v` form fields into nested dicts, as Stripe reads them."""
    result: dict[str, Any] = {}
    for key, value in pairs:
        parts = key.replace("]", "").split("[")
        target = result
        for part in parts[:-1]:
            target = target.setdefault(part, {})
        target[parts[-1]] = value
    return result


class FakeStripe:
    def __init__(self) -> None:
        self.payment_methods: dict[str, dict[str, Any]] = {}
        self.customers: dict[str, dict[str, Any]] = {}
        self.requests: list[dict[str, Any]] = []
        self._failures: deque[tuple[int, str, str, str, str]] = deque()
        self._idempotent: dict[str, tuple[int, dict]] = {}
        self._lock = threading.Lock()
        # Cleared, every request waits for it (a processor that is slow until told otherwise).
        self.gate = threading.Event()
        self.gate.set()
        self.waiting = 0  # requests that reached the gate
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": POLL_INTERVAL_S}, daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def __enter__(self) -> FakeStripe:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def add_card(self, pm_id: str, brand: str = "visa", last4: str = "4242",
                 exp_month: int = 12, exp_year: int = 2099) -> None:
        self.payment_methods[pm_id] = {
            "id": pm_id, "object": "payment_method", "type": "card", "customer": None,
            "created": int(time.time()), "livemode": False,
            "billing_details": {"address": None, "email": None, "name": None, "phone": None},
            "card": {"brand": brand, "last4": last4, "exp_month": exp_month,
                     "exp_year": exp_year, "country": "US", "funding": "credit"}}

    def fail_next(self, status: int, type_: str, code: str, message: str,
                  path: str = "/", headers: dict[str, str] | None = None,
                  html: str | None = None) -> None:
        """The next request whose path starts with `path` fails so (with these headers; with
        `html`, that page is the body instead of an error object, as a proxy in front sends)."""
        self._failures.append((status, type_, code, message, path, headers or {}, html))

    def _failure_for(self, path: str) -> tuple | None:
        for failure in self._failures:
            if path.startswith(failure[4]):
                self._failures.remove(failure)
                return failure
        return None

    def writes(self, path_prefix: str = "") -> list[dict[str, Any]]:
        return [r for r in self.requests if r["method"] == "POST"
                and r["path"].startswith(path_prefix)]

    # ---- request handling ----

    def _error(self, status: int, type_: str, code: str | None, message: str,
               param: str | None = None) -> tuple[int, dict]:
        error = {"type": type_, "message": message}
        if code:
            error["code"] = code
        if param:
            error["param"] = param
        return status, {"error": error}

    def _missing(self, kind: str, ident: str, param: str) -> tuple[int, dict]:
        return self._error(404, "invalid_request_error", "resource_missing",
                           f"No such {kind}: '{ident}'", param)

    def answer(self, method: str, path: str, form: dict[str, Any]) -> tuple[int, dict]:
        parts = path.strip("/").split("/")
        if parts[:2] == ["v1", "payment_methods"] and len(parts) >= 3:
            pm = self.payment_methods.get(parts[2])
            if pm is None:
                return self._missing("PaymentMethod", parts[2], "payment_method")
            if method == "GET" and len(parts) == 3:
                return 200, pm
            if method == "POST" and parts[3:] == ["attach"]:
                customer = form.get("customer")
                if customer not in self.customers:
                    return self._missing("customer", str(customer), "customer")
                if pm["customer"] not in (None, customer):
                    return self._error(400, "invalid_request_error", "resource_already_exists",
                                       "The payment method is attached to another customer.")
                pm["customer"] = customer
                return 200, pm
            if method == "POST" and parts[3:] == ["detach"]:
                if pm["customer"] is None:
                    return self._error(400, "invalid_request_error", None,
                                       "The payment method is not attached to a customer.")
                pm["customer"] = None
                return 200, pm
        if parts[:2] == ["v1", "customers"]:
            if method == "POST" and len(parts) == 2:
                customer = {"id": f"cus_{secrets.token_hex(7)}", "object": "customer",
                            "created": int(time.time()), "livemode": False,
                            "name": form.get("name"), "email": form.get("email"),
                            "metadata": form.get("metadata", {}),
                            "invoice_settings": {"default_payment_method": None}}
                self.customers[customer["id"]] = customer
                return 200, customer
            customer = self.customers.get(parts[2]) if len(parts) == 3 else None
            if customer is None:
                return self._missing("customer", parts[-1], "id")
            if method == "GET":
                return 200, customer
            settings = form.get("invoice_settings", {})
            if "default_payment_method" in settings:
                default = settings["default_payment_method"] or None
                if default and self.payment_methods.get(default, {}).get("customer") \
                        != customer["id"]:
                    return self._error(400, "invalid_request_error", "resource_missing",
                                       f"No such PaymentMethod: '{default}'",
                                       "invoice_settings[default_payment_method]")
                customer["invoice_settings"]["default_payment_method"] = default
            return 200, customer
        return self._error(404, "invalid_request_error", None,
                           f"Unrecognized request URL ({method}: {path}).")

    def _handler(self):
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def _serve(self, method: str) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length).decode() if length else ""
                form = _nested(parse_qsl(raw, keep_blank_values=True))
                extra_headers: dict[str, str] = {}
                html = None
                record = {"method": method, "path": self.path, "form": form,
                          "headers": {k.lower(): v for k, v in self.headers.items()}}
                fake.waiting += 1
                fake.gate.wait(timeout=30)
                with fake._lock:
                    fake.requests.append(record)
                    key = self.headers.get("Idempotency-Key")
                    if self.headers.get("Authorization") != f"Bearer {API_KEY}":
                        status, body = fake._error(401, "invalid_request_error", None,
                                                   "Invalid API Key provided.")
                    elif method == "POST" and key and key in fake._idempotent:
                        status, body = fake._idempotent[key]
                    elif (failure := fake._failure_for(self.path)) is not None:
                        status, type_, code, message, _, extra_headers, html = failure
                        status, body = fake._error(status, type_, code, message)
                        if method == "POST" and key and status >= 500:
                            # Stripe keeps a key's first answer, a 500 included.
                            fake._idempotent[key] = (status, body)
                    else:
                        status, body = fake.answer(method, self.path.split("?")[0], form)
                        if method == "POST" and key and status < 500:
                            fake._idempotent[key] = (status, json.loads(json.dumps(body)))
                payload = html.encode() if html else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "text/html" if html else "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.send_header("Request-Id", f"req_{secrets.token_hex(6)}")
                for name, value in extra_headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(payload)

            def do_GET(self) -> None:
                self._serve("GET")

            def do_POST(self) -> None:
                self._serve("POST")

            def do_DELETE(self) -> None:
                self._serve("DELETE")

        return Handler
