"""Append-only audit log of access to patient data (UPDATE/DELETE are refused by triggers)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from peewee import SQL, CharField, ModelSelect

from models.base import (
    BaseModel,
    JSONField,
    UTCDateTimeField,
    db,
    execute_later,
    is_postgres,
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
    # A list's one entry names every record the page returned, in the page's order (a JSON
    # array); resource_id is then empty. `entries_about` finds a record in either.
    resource_ids = JSONField(null=True)


def entries_about(resource_type: str, resource_id: str) -> ModelSelect:
    """Every entry about one record, oldest first: its own (read, create, update…) and those
    of the lists that returned it. The lists' are found by reading the list entries of that
    resource type (no index covers the ids inside them): an auditor's question, not a hot
    path."""
    if is_postgres():
        listed = SQL("(resource_ids::jsonb ? %s)", [resource_id])
    else:
        listed = SQL("EXISTS (SELECT 1 FROM json_each(resource_ids) WHERE value = ?)",
                     [resource_id])
    return (AuditEvent.select()
            .where((AuditEvent.resource_type == resource_type)
                   & ((AuditEvent.resource_id == resource_id)
                      | (AuditEvent.resource_ids.is_null(False) & listed)))
            .order_by(AuditEvent.at, AuditEvent.id))


@dataclass(frozen=True)
class AuditEntry:
    """What one operation writes to the audit trail: one row per record it touches (which
    only the record id tells apart), or for a list one row naming every record returned."""

    actor: str
    organization_id: str | None
    action: str
    resource_type: str
    ip: str | None
    request_id: str | None


# The columns of one record's row, in the order `insert_rows` (and the voice transcript's
# one-statement store) writes them.
AUDIT_ROW_COLUMNS = _COLUMNS = ("id", "at", "organization_id", "actor", "action",
                                "resource_type", "resource_id", "ip", "request_id")
_LIST_COLUMNS = ("id", "at", "organization_id", "actor", "action", "resource_type",
                 "resource_ids", "ip", "request_id")
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


def insert_list(entry: AuditEntry, resource_ids: Sequence[str]) -> None:
    """One row for a list that returned these records (none for an empty page); inside a
    transaction, with its commit at the latest (`execute_later`)."""
    if not resource_ids:
        return
    placeholders = ", ".join([db.param] * len(_LIST_COLUMNS))
    # Only constants and placeholders are formatted in; every value is a bound parameter.
    sql = f"INSERT INTO {_TABLE} ({', '.join(_LIST_COLUMNS)}) VALUES ({placeholders})"  # noqa: S608
    execute_later(prepared(sql), [
        new_id("aud"), AuditEvent.at.db_value(utcnow()), entry.organization_id, entry.actor,
        entry.action, entry.resource_type, AuditEvent.resource_ids.db_value(list(resource_ids)),
        entry.ip, entry.request_id])


_AUDITED: dict[str, str] = {}


def audited_select(select_sql: str, params: list, entry: AuditEntry) -> tuple[str, list]:
    """PostgreSQL: `select_sql` (the records' own `"t1"."id"` among its columns, an ORDER BY
    and then a LIMIT) as one statement that also writes the list's audit row naming every
    record it returns (none when it returns nothing): the rows read and the rows audited come
    from one snapshot, in one round trip instead of two.

    The rows come back in the SELECT's order: the outer query and the aggregate of the ids
    repeat its ORDER BY, on the CTE named as the inner query's table alias."""
    sql = _AUDITED.get(select_sql)
    if sql is None:
        order = select_sql[select_sql.rindex(" ORDER BY "):select_sql.rindex(" LIMIT ")]
        sql = _AUDITED[select_sql] = (
            f'WITH "t1" AS ({select_sql}), "logged" AS ('  # noqa: S608 (constants only)
            f"INSERT INTO {_TABLE} ({', '.join(_LIST_COLUMNS)}) "
            f'SELECT %s, %s, %s, %s, %s, %s, json_agg("t1"."id"{order})::text, %s, %s '
            'FROM "t1" HAVING COUNT(*) > 0) '
            f'SELECT * FROM "t1"{order}')
    return sql, [*params, new_id("aud"), AuditEvent.at.db_value(utcnow()),
                 entry.organization_id, entry.actor, entry.action, entry.resource_type,
                 entry.ip, entry.request_id]
