"""Statements built once and reused on the hot paths.

Building even a two-condition SELECT through Peewee's query builder costs more CPU than the
indexed query takes on the database, and every request runs the same few shapes (its token,
the record it names). The SQL is built by Peewee once per model, columns and database, then
only the values change."""

from __future__ import annotations

from typing import Any, TypeVar

from peewee import (
    SQL,
    CharField,
    Field,
    ForeignKeyField,
    IntegerField,
    Node,
    fn,
)

from models.audit import AuditEntry, audited_select, insert_list
from models.base import BaseModel, db, execute_later, is_postgres, prepared

M = TypeVar("M", bound=BaseModel)

SQL_STAR = SQL("*")
_SELECTS: dict[tuple[type, tuple[str, ...], str], str] = {}


def _equal_to_placeholders(model: type[BaseModel], fields: tuple[str, ...]) -> Node:
    condition = None
    for name in fields:
        term = getattr(model, name) == ""  # a placeholder: only the SQL text is kept
        condition = term if condition is None else condition & term
    return condition


def _select_sql(model: type[BaseModel], fields: tuple[str, ...]) -> str:
    key = (model, fields, db.param)
    sql = _SELECTS.get(key)
    if sql is None:
        sql, _ = model.select().where(_equal_to_placeholders(model, fields)).sql()
        _SELECTS[key] = sql
    return sql


_ROW_PLANS: dict[tuple[type, tuple[str, ...]], tuple[tuple[str, Any, type], ...]] = {}


class _NoType:
    """Matches no value's type: the column's value is always converted."""


def _unconverted_type(field: Field) -> type:
    """The type of the values this field's `python_value` returns as they are (text of a
    text column, an integer of an integer column): those are stored without the call."""
    if isinstance(field, ForeignKeyField):
        field = field.rel_field
    kind = type(field)
    if kind.python_value is Field.python_value:  # i.e. python_value is adapt
        if kind.adapt is CharField.adapt:  # TextField's too
            return str
        if kind.adapt is IntegerField.adapt:
            return int
    return _NoType


def _instances(model: type[M], cursor: Any, limit: int | None = None) -> list[M]:
    """Model instances for the rows of `cursor` (a SELECT of the model's own columns), as
    Peewee's cursor wrapper builds them, but with the column-to-field mapping resolved once
    per shape instead of once per query (a third of a one-row lookup's CPU)."""
    rows = cursor.fetchmany(limit) if limit else cursor.fetchall()
    if not rows:
        return []
    return _rows_to_instances(model, tuple(column[0] for column in cursor.description), rows)


def _row_plan(model: type[BaseModel], columns: tuple[str, ...]) -> tuple:
    """For each column: its field's name, the attribute an instance shows it under (a foreign
    key's `…_id`), its converter, and the type of the values kept as they are."""
    key = (model, columns)
    plan = _ROW_PLANS.get(key)
    if plan is None:
        by_column = model._meta.columns
        plan = _ROW_PLANS[key] = tuple(
            (field.name,
             field.object_id_name if isinstance(field, ForeignKeyField) else field.name,
             field.python_value, _unconverted_type(field))
            for field in (by_column[name] for name in columns))
    return plan


def _rows_to_instances(model: type[M], columns: tuple[str, ...], rows: list) -> list[M]:
    plan = _row_plan(model, columns)
    instances = []
    for row in rows:
        instance = model.__new__(model)
        instance.__data__ = {
            name: value if value is None or value.__class__ is kept else convert(value)
            for (name, _, convert, kept), value in zip(plan, row, strict=False)}
        instance._dirty = set()
        instance.__rel__ = {}
        instances.append(instance)
    return instances


def _rows_to_mappings(model: type[BaseModel], columns: tuple[str, ...],
                      rows: list) -> list[dict[str, Any]]:
    """The rows as dicts of the values an instance would show, under its attribute names
    (`organization_id` for the foreign key `organization`): what a response schema reads,
    without building instances only to dump them (reading a dict is also half the cost of
    reading an instance's fields through their descriptors)."""
    plan = _row_plan(model, columns)
    return [{attribute: value if value is None or value.__class__ is kept else convert(value)
             for (_, attribute, convert, kept), value in zip(plan, row, strict=False)}
            for row in rows]


def first_where(model: type[M], **equals: Any) -> M | None:
    """The first `model` row whose fields equal these values (plain values: ids, hashes)."""
    cursor = db.execute_sql(prepared(_select_sql(model, tuple(equals))), list(equals.values()))
    found = _instances(model, cursor, limit=1)
    return found[0] if found else None


_INSERTS: dict[tuple[type, tuple[str, ...], str], tuple[str, tuple]] = {}


def insert_row(instance: M) -> M:
    """INSERT a new instance's values (the model has filled in its defaults) and return it,
    as `Model.create` would; for models whose primary key is set before the insert. Inside a
    PostgreSQL transaction the INSERT travels with the next statement or the COMMIT
    (`execute_later`): its errors surface there."""
    model = type(instance)
    data = instance.__data__
    names = tuple(name for name in model._meta.sorted_field_names if name in data)
    key = (model, names, db.param)
    cached = _INSERTS.get(key)
    if cached is None:
        fields = tuple(model._meta.fields[name] for name in names)
        columns = ", ".join(f'"{field.column_name}"' for field in fields)
        placeholders = ", ".join([db.param] * len(fields))
        # Only identifiers of the model and placeholders are formatted in.
        sql = f'INSERT INTO "{model._meta.table_name}" ({columns}) VALUES ({placeholders})'  # noqa: S608
        cached = _INSERTS[key] = (sql, fields)
    sql, fields = cached
    execute_later(prepared(sql), [field.db_value(data[field.name]) for field in fields])
    instance._dirty.clear()
    return instance


class RowsWhere:
    """A model's rows whose fields equal given values, in a fixed order, with the two methods
    list pagination uses (`count`, `paginate`); their SQL is built once per shape.

    `order_by` is a module-level tuple: the cache knows it by identity (and keeps it). With
    `mappings`, the rows come as dicts (`_rows_to_mappings`) instead of model instances, for
    a list whose rows are only dumped."""

    _SQL: dict[tuple, tuple[str, str, str, tuple]] = {}

    def __init__(self, model: type[M], order_by: tuple[Node, ...], *, mappings: bool = False,
                 **equals: Any) -> None:
        self.model, self.order_by, self.equals = model, order_by, equals
        self._rows = _rows_to_mappings if mappings else _rows_to_instances
        key = (model, tuple(equals), id(order_by), db.param)
        cached = self._SQL.get(key)
        if cached is None:
            where = _equal_to_placeholders(model, tuple(equals))
            count_query = model.select(fn.COUNT(SQL_STAR)).where(where)
            count_sql, _ = count_query.sql()
            page_sql, params = (model.select().where(where).order_by(*self.order_by)
                                .limit(1).offset(1).sql())
            assert params[-2:] == [1, 1], "LIMIT and OFFSET are the last two parameters"
            # The page with the total as a last column: one round trip instead of two. The
            # count is an uncorrelated subquery, run once, not a window over every row.
            counted_sql, params = (
                model.select(*model._meta.sorted_fields, count_query.alias("_total"))
                .where(where).order_by(*self.order_by).limit(1).offset(1).sql())
            assert len(params) == 2 * len(equals) + 2, "the subquery's values come first"
            cached = self._SQL[key] = (count_sql, page_sql, counted_sql, order_by)
        self._count_sql, self._page_sql, self._counted_sql, _ = cached

    def count(self) -> int:
        return db.execute_sql(prepared(self._count_sql),
                              list(self.equals.values())).fetchone()[0]

    def paginate(self, page: int, page_size: int) -> list:
        values = [*self.equals.values(), page_size, (page - 1) * page_size]
        cursor = db.execute_sql(prepared(self._page_sql), values)
        rows = cursor.fetchall()
        if not rows:
            return []
        return self._rows(self.model, tuple(column[0] for column in cursor.description), rows)

    def page_and_count(self, page: int, page_size: int,
                       audit: AuditEntry | None = None) -> tuple[list, int | None]:
        """A page and the total count in one statement; the count is None when the page is
        empty (past the end, or no rows), which carries no total. With `audit`, the page gets
        its list audit row naming every record returned (on PostgreSQL in the same
        statement)."""
        equals = list(self.equals.values())
        sql, values = self._counted_sql, [*equals, *equals, page_size, (page - 1) * page_size]
        if audit is not None and is_postgres():
            sql, values = audited_select(sql, values, audit)
            audit = None
        cursor = db.execute_sql(prepared(sql), values)
        rows = cursor.fetchall()
        if not rows:
            return [], None
        columns = tuple(column[0] for column in cursor.description[:-1])
        items = self._rows(self.model, columns, rows)
        if audit is not None:
            at = columns.index(self.model._meta.primary_key.column_name)
            insert_list(audit, [row[at] for row in rows])
        return items, rows[0][-1]
