"""Database proxy, base model and the field types every model shares."""

from __future__ import annotations

import json
import secrets
from datetime import UTC, datetime
from typing import Any

from peewee import DatabaseProxy, DateTimeField, Model, TextField
from playhouse.db_url import connect

db = DatabaseProxy()

SQLITE_PRAGMAS = {
    "journal_mode": "wal",
    "foreign_keys": 1,
    # Web and worker processes share the file: wait for a writer instead of failing at once.
    "busy_timeout": 10_000,
    "synchronous": "normal",
}
ID_BYTES = 12


def new_id(prefix: str) -> str:
    """An opaque, non-enumerable id such as `ses_1f3a…` (96 random bits)."""
    return f"{prefix}_{secrets.token_hex(ID_BYTES)}"


def utcnow() -> datetime:
    return datetime.now(UTC)


def open_database(url: str):
    """A Peewee database for `url` (sqlite:///path or postgresql://…)."""
    if url.startswith("sqlite"):
        return connect(url, pragmas=SQLITE_PRAGMAS)
    return connect(url)


def is_postgres() -> bool:
    return type(db.obj).__name__.startswith("Postgres")


class UTCDateTimeField(DateTimeField):
    """Stored as naive UTC (sortable on both engines), read back as an aware UTC datetime."""

    def db_value(self, value: Any) -> Any:
        if isinstance(value, datetime):
            if value.tzinfo is None:
                raise ValueError("naive datetimes are not accepted; use UTC-aware values")
            value = value.astimezone(UTC).replace(tzinfo=None)
        return super().db_value(value)

    def python_value(self, value: Any) -> Any:
        value = super().python_value(value)
        if isinstance(value, datetime) and value.tzinfo is None:
            value = value.replace(tzinfo=UTC)
        return value


class JSONField(TextField):
    """JSON stored as text: identical behaviour on SQLite and PostgreSQL."""

    def db_value(self, value: Any) -> Any:
        if value is None:
            return None
        return json.dumps(value, separators=(",", ":"), sort_keys=True)

    def python_value(self, value: Any) -> Any:
        if value is None:
            return None
        return json.loads(value)


class BaseModel(Model):
    class Meta:
        database = db
        legacy_table_names = False
