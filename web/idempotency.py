"""`Idempotency-Key` for creating POSTs: the same key with the same body within 24 h answers
the first response again; with another body, 409.

The key row is inserted in the same transaction as the view's own writes, so a request that
fails leaves no key behind, and a concurrent duplicate waits on the unique index and then
replays the committed answer instead of creating a second record.

A view that calls a peer (the card processor) must not run inside that transaction: on SQLite
it would hold the database's one write lock for as long as the peer takes, and every other
organization's writes would wait and fail. `idempotent_around_peer_calls` commits the key as
pending first, runs the view outside any transaction, then stores its answer (or forgets the
key when it failed). A duplicate meanwhile is 409 "still in progress"; a key left pending by a
process that died is taken over after PENDING_STALE_AFTER. Such a view must itself refuse a
second copy of what it creates (a payment method is unique per organization and processor id).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from contextlib import nullcontext
from datetime import timedelta
from functools import wraps
from typing import Any

from flask import Response, request
from flask_smorest import abort
from peewee import IntegrityError

from models.base import db, utcnow
from models.idempotency import IdempotencyRecord, stored_key
from web.apidoc import document
from web.auth import current_identity

KEY_HEADER = "Idempotency-Key"
KEY_TTL = timedelta(hours=24)
MAX_KEY_LENGTH = 255
PENDING_STATUS = 0
PENDING_STALE_AFTER = timedelta(minutes=5)


def _request_hash() -> str:
    raw = request.get_data(cache=True)
    try:
        canonical = json.dumps(json.loads(raw), sort_keys=True, separators=(",", ":")).encode()
    except ValueError:
        canonical = raw
    return hashlib.sha256(request.method.encode() + b" " + request.path.encode() + b"\n"
                          + canonical).hexdigest()


def _scope() -> str:
    identity = current_identity()
    return identity.organization_id or identity.actor


def _replay(record: IdempotencyRecord, request_hash: str) -> Response:
    if record.request_hash != request_hash:
        abort(409, message="This Idempotency-Key was already used with a different request.")
    if record.status_code == PENDING_STATUS:
        abort(409, message="A request with this Idempotency-Key is still in progress.")
    response = Response(record.response_body, status=record.status_code,
                        mimetype="application/json")
    if record.location:
        response.headers["Location"] = record.location
    response.headers["Idempotent-Replayed"] = "true"
    return response


def _key() -> str | None:
    """The stored form of the request's key (None without one); a malformed one is 400."""
    key = request.headers.get(KEY_HEADER)
    if key is None:
        return None
    if not key or len(key) > MAX_KEY_LENGTH:
        abort(400, message=f"{KEY_HEADER} must be 1 to {MAX_KEY_LENGTH} characters.")
    return stored_key(key)


def _claim(key: str, stale_pending: bool = False) -> tuple[IdempotencyRecord | None, str]:
    """Insert the key's pending row in the caller's transaction: (the row, the request's
    hash), or (None, hash) when the key is taken. An expired row (and, with `stale_pending`,
    a pending one a dead process left) is deleted first."""
    scope, request_hash = _scope(), _request_hash()
    same_key = (IdempotencyRecord.scope == scope) & (IdempotencyRecord.key == key)
    now = utcnow()
    expired = IdempotencyRecord.created_at < now - KEY_TTL
    if stale_pending:
        expired |= ((IdempotencyRecord.status_code == PENDING_STATUS)
                    & (IdempotencyRecord.created_at < now - PENDING_STALE_AFTER))
    IdempotencyRecord.delete().where(same_key & expired).execute()
    try:
        with db.atomic():
            return IdempotencyRecord.create(
                scope=scope, key=key, request_hash=request_hash, method=request.method,
                path=request.path, status_code=PENDING_STATUS, response_body=""), request_hash
    except IntegrityError:
        return None, request_hash


def _taken(key: str, request_hash: str) -> Response:
    return _replay(IdempotencyRecord.get((IdempotencyRecord.scope == _scope())
                                         & (IdempotencyRecord.key == key)), request_hash)


def _store_answer(record: IdempotencyRecord, response: Response) -> None:
    record.status_code = response.status_code
    record.response_body = response.get_data(as_text=True)
    record.location = response.headers.get("Location")
    record.save()


def _forget(record: IdempotencyRecord) -> None:
    IdempotencyRecord.delete().where(IdempotencyRecord.id == record.id).execute()


def _settle(record: IdempotencyRecord, response: Response) -> None:
    """Remember a successful answer; forget the key of any other."""
    if 200 <= response.status_code < 300:
        _store_answer(record, response)
    else:
        _forget(record)


def idempotent(view: Callable) -> Callable:
    """Decorator for creating POST views; place it under `@require(...)`, above smorest's."""
    return _idempotent(view, peer_calls=False)


def idempotent_around_peer_calls(view: Callable) -> Callable:
    """`idempotent` for a view that calls a peer: no transaction is held while it runs."""
    return _idempotent(view, peer_calls=True)


def _idempotent(view: Callable, peer_calls: bool) -> Callable:
    # Without peer calls, one transaction holds the key and the view's writes; with them, the
    # claim and the settling are transactions of their own and the view runs in between.
    whole_request = nullcontext if peer_calls else db.atomic
    own_step = db.atomic if peer_calls else nullcontext

    @wraps(view)
    def wrapper(*args: Any, **kwargs: Any):
        key = _key()
        if key is None:
            return view(*args, **kwargs)
        with whole_request():
            with own_step():
                record, request_hash = _claim(key, stale_pending=peer_calls)
            if record is None:
                return _taken(key, request_hash)
            try:
                response = view(*args, **kwargs)
            except BaseException:
                if peer_calls:  # otherwise the whole request's rollback drops the key
                    _forget(record)
                raise
            with own_step():
                _settle(record, response)
            return response

    document(wrapper, parameters=[{
        "in": "header", "name": KEY_HEADER, "required": False,
        "schema": {"type": "string", "minLength": 1, "maxLength": MAX_KEY_LENGTH},
        "description": "The same key with the same body within 24 h answers the first "
                       "response again (with `Idempotent-Replayed: true`); with another body, "
                       "409."}])

    return wrapper
