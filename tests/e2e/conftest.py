"""End-to-end fixtures: one running service (gunicorn + a worker process) per test session."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.service import Client, Service


@pytest.fixture(scope="session")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    running = Service(tmp_path_factory.mktemp("e2e")).start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def clinic(service: Service, request: pytest.FixtureRequest) -> Client:
    """A fresh organization (from the CLI) and a client with its admin token."""
    return Client(service.base, service.new_admin_token(f"Clinic {request.node.name}"))


@pytest.fixture
def client_for(service: Service):
    def factory(token: str | None) -> Client:
        return Client(service.base, token)

    return factory
