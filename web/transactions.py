"""One transaction per write request: the change, its usage event and its audit row commit
together, once (or not at all)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from models.base import db


def unit_of_work(view: Callable) -> Callable:
    """Run the view in one database transaction; place it under `@require(...)`.

    Services group their writes with `db.transaction()`, which joins this one instead of
    adding savepoints. Not for views that wait on another service (a model call, a card
    processor): on SQLite the transaction holds the write lock from its start."""

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any):
        with db.transaction():
            return view(*args, **kwargs)

    return wrapper
