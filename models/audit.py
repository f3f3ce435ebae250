"""Append-only audit log of access to patient data (UPDATE/DELETE are refused by triggers)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from peewee import CharField

from models.base import (
    BaseModel,
    UTCDateTimeField,
    db,
    execute_later,
    new_id,
    prepared,
    utcnow,
)


class AuditEvent(BaseModel):
    id = CharField(primary_key=True, default=lambda: new_id("aud"))
    at = UTCDateTimeField(default=utcnow, index=True)
    organization_id = CharField(max_length=40, null=True, index=True)
    actor = CharField(max_length=64)  # token id, or "platform" / "system"
    action = CharField(max_length=20)  # read | list | create | update | delete
    resource_type = CharField(max_length=40)
    resource_id = CharField(max_length=64, null=True, index=True)
    ip = CharField(max_length=64, null=True)
    request_id = CharField(max_length=64, null=True)


@dataclass(frozen=True)
class AuditEntry:
    """What one operation writes to the audit trail for each record it touches (one row per
    record, which only the record id tells apart)."""

    actor: str
    organization_id: str | None
    action: str
    resource_type: str
    ip: str | None
    request_id: str | None


_COLUMNS = ("id", "at", "organization_id", "actor", "action", "resource_type", "resource_id",
            "ip", "request_id")
_TABLE = AuditEvent._meta.table_name


def insert_rows(entry: AuditEntry, resource_ids: Iterable[str | None]) -> None:
    """One row per record id, in one statement (inside a transaction, with its commit at the
    latest: `execute_later`).

    The statement is written here rather than by Peewee's insert_many: building a 20-row
    insert through the query builder cost more CPU than the rest of a list request."""
    at = AuditEvent.at.db_value(utcnow())
    params: list[object] = []
    for rid in resource_ids:
        params += (new_id("aud"), at, entry.organization_id, entry.actor, entry.action,
                   entry.resource_type, rid, entry.ip, entry.request_id)
    if not params:
        return
    row = "(" + ", ".join([db.param] * len(_COLUMNS)) + ")"
    count = len(params) // len(_COLUMNS)
    # Only constants and placeholders are formatted in; every value is a bound parameter.
    sql = (f"INSERT INTO {_TABLE} ({', '.join(_COLUMNS)}) "  # noqa: S608
           f"VALUES {', '.join([row] * count)}")
    execute_later(prepared(sql), params)


_AUDITED: dict[str, str] = {}


def audited_select(select_sql: str, params: list, entry: AuditEntry,
                   max_rows: int) -> tuple[str, list]:
    """PostgreSQL: `select_sql` (the records' own `"t1"."id"` among its columns, an ORDER BY
    and then a LIMIT of at most `max_rows`) as one statement that also writes an audit row
    for each row it returns: the rows read and the rows audited come from one snapshot, in
    one round trip instead of two.

    The rows come back in the SELECT's order: the outer query repeats its ORDER BY, on the
    CTE named as the inner query's table alias. Fresh audit ids are paired with the rows by
    position (any pairing will do)."""
    sql = _AUDITED.get(select_sql)
    if sql is None:
        order = select_sql[select_sql.rindex(" ORDER BY "):select_sql.rindex(" LIMIT ")]
        sql = _AUDITED[select_sql] = (
            f'WITH "t1" AS ({select_sql}), "logged" AS ('  # noqa: S608 (constants only)
            f"INSERT INTO {_TABLE} ({', '.join(_COLUMNS)}) "
            "SELECT a.id, %s, %s, %s, %s, %s, r.id, %s, %s "
            'FROM (SELECT "id", row_number() OVER () AS n FROM "t1") AS r '
            "JOIN unnest(%s::text[]) WITH ORDINALITY AS a(id, n) USING (n)) "
            f'SELECT * FROM "t1"{order}')
    ids = [new_id("aud") for _ in range(max_rows)]
    return sql, [*params, AuditEvent.at.db_value(utcnow()), entry.organization_id, entry.actor,
                 entry.action, entry.resource_type, entry.ip, entry.request_id, ids]
