"""Tokens as an operator manages them: created and revoked with the CLI (its own process) while
gunicorn's workers serve requests with them."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

from tests.e2e.service import Client, Service

# The service's default TOKEN_TRUST_SECONDS: how long a worker takes a token it found valid
# without reading its row again.
TRUST_WINDOW_S = 1.0


def test_a_token_revoked_with_the_cli_is_refused_by_every_worker_within_the_window(
        service: Service) -> None:
    org_id = service.cli("quickstart", "--name", "Revocation Clinic").split()[1]
    created = service.cli("tokens", "create", "--org", org_id, "--scope", "sessions:read")
    token_id, token = created.split()[2], created.strip().splitlines()[-1]
    client = Client(service.base, token)
    # Both workers and their threads verify the token (8 concurrent requests, repeatedly).
    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(lambda _: client.call("GET", "/api/therapy-sessions")
                                 .status_code, range(64)))
    assert set(statuses) == {200}

    service.cli("tokens", "revoke", token_id)
    # The row is revoked before the CLI returns; past the window no worker takes the token.
    time.sleep(TRUST_WINDOW_S + 0.1)
    # New connections: the first ones have idled past gunicorn's keep-alive (2 s) meanwhile,
    # and one the server closes just as it is reused is reset (a client's retry, not a 401).
    client = Client(service.base, token)
    with ThreadPoolExecutor(8) as pool:
        statuses = list(pool.map(lambda _: client.call("GET", "/api/therapy-sessions")
                                 .status_code, range(64)))
    assert set(statuses) == {401}
