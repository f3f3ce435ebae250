"""Tenant-scoped lookups: another organization's record is indistinguishable from none."""

from __future__ import annotations

from typing import TypeVar

from models.base import BaseModel
from models.statements import first_where
from services.errors import NotFound

M = TypeVar("M", bound=BaseModel)


def get_owned(model: type[M], organization_id: str, record_id: str, what: str) -> M:
    """The organization's `model` row with this id, else NotFound("<what> not found.")."""
    record = first_where(model, id=record_id, organization=organization_id)
    if record is None:
        raise NotFound(f"{what} not found.")
    return record
