"""Storing a call's final transcript lines: once per dedup key, within the call's character
limit, counted on the call in the same transaction.

Transcript lines are most of a call's messages, so on PostgreSQL a line for a call already
known is stored by a single statement run on its own (its own transaction, committed when it
returns): one round trip instead of BEGIN, a read of the call, an insert, an update and COMMIT.
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import replace
from datetime import datetime
from enum import Enum

from models.audit import AUDIT_ROW_COLUMNS, AuditEvent
from models.base import db, is_postgres, new_id, prepared, utcnow
from models.voice import VoiceCall, VoiceTranscriptEntry
from services import audit
from services.audit import AuditContext
from services.limits import MAX_TRANSCRIPT_CHARS

logger = logging.getLogger(__name__)


class Outcome(Enum):
    STORED = "stored"
    DUPLICATE = "duplicate"  # the same message again: nothing changed
    FULL = "full"  # the call's transcript limit is reached: the line is not stored
    NO_CALL = "no_call"  # the call is not known yet: nothing was done


# The call row is locked first, so concurrent lines of one call queue here and each sees the
# character count the previous one left. FOR UPDATE, not FOR NO KEY UPDATE: the lock must also
# keep out the key-share locks that foreign-key checks of other lines take on the row, or two
# of these statements can deadlock between the lock and the update. A repeat of this statement
# (the pool retries a statement whose connection dropped) changes nothing: the dedup key
# conflicts, and only an inserted line is counted. Parameters (`_params`): platform call id,
# dedup key, role, text, time, then the text's length and the limit where each is used, and the
# audit row's id, time, actor, address and request id (the line's write, SPEC §3). Prepared
# once per connection (`models.base.prepared`): planning it costs the server about as much as
# running it.
_APPEND_SQL = """
WITH call AS (
    SELECT id, organization_id, transcript_chars FROM voice_call
    WHERE call_id = %s::text FOR UPDATE
), line AS (
    INSERT INTO voice_transcript_entry (call_id, dedup_key, role, text, at)
    SELECT id, %s::text, %s::text, %s::text, %s::timestamp FROM call
    WHERE transcript_chars + %s::integer <= %s::integer
      AND NOT EXISTS (SELECT 1 FROM voice_transcript_entry WHERE dedup_key = %s::text)
    ON CONFLICT DO NOTHING
    RETURNING call_id
), counted AS (
    UPDATE voice_call SET transcript_count = transcript_count + 1,
                          transcript_chars = transcript_chars + %s::integer
    FROM line WHERE voice_call.id = line.call_id
    RETURNING voice_call.id
), logged AS (
    INSERT INTO audit_event ({audit_columns})
    SELECT %s::text, %s::timestamp, call.organization_id, %s::text, 'update', 'voice_call',
           counted.id, %s::text, %s::text
    FROM counted JOIN call ON call.id = counted.id
)
SELECT call.id, (SELECT count(*) FROM counted), call.transcript_chars + %s::integer > %s::integer
FROM call
""".format(audit_columns=", ".join(AUDIT_ROW_COLUMNS))  # noqa: S608 (the table's columns)


def _params(platform_call_id: str, dedup_key: str, role: str, text: str, at: datetime,
            audited: AuditContext) -> list:
    length, limit = len(text), MAX_TRANSCRIPT_CHARS
    return [platform_call_id, dedup_key, role, text, VoiceTranscriptEntry.at.db_value(at),
            length, limit, report_line_key(platform_call_id, role, text), length,
            new_id("aud"), AuditEvent.at.db_value(utcnow()), audited.actor, audited.ip,
            audited.request_id, length, limit]


def report_line_key(platform_call_id: str, role: str, text: str, occurrence: int = 0) -> str:
    """The key of a line taken from the end-of-call report (`artifact.messages`). A report
    that came before the call's transcript messages filled the transcript: a message whose
    line the report already holds (its first occurrence) is then not stored again."""
    digest = hashlib.sha256(f"{role}\n{text}".encode("utf-8", "surrogatepass")).hexdigest()
    return f"{platform_call_id}:report:{digest[:32]}:{occurrence}"[:300]


def append(call_pk: str, dedup_key: str, role: str, text: str, at: datetime,
           covered_by: str | None = None) -> Outcome:
    """Store one line of a loaded call, inside the caller's transaction; DUPLICATE when the
    line stored under `covered_by` (the report's copy of it) is there."""
    if covered_by is not None and VoiceTranscriptEntry.select().where(
            VoiceTranscriptEntry.dedup_key == covered_by).exists():
        return Outcome.DUPLICATE
    inserted = (VoiceTranscriptEntry.insert(call=call_pk, dedup_key=dedup_key, role=role,
                                            text=text, at=at)
                .on_conflict_ignore().as_rowcount().execute())
    if inserted != 1:
        return Outcome.DUPLICATE
    claimed = (VoiceCall.update(transcript_count=VoiceCall.transcript_count + 1,
                                transcript_chars=VoiceCall.transcript_chars + len(text))
               .where((VoiceCall.id == call_pk)
                      & (VoiceCall.transcript_chars + len(text) <= MAX_TRANSCRIPT_CHARS))
               .execute())
    if not claimed:
        VoiceTranscriptEntry.delete().where(VoiceTranscriptEntry.dedup_key == dedup_key).execute()
        return _full(call_pk)
    return Outcome.STORED


def append_to_platform_call(platform_call_id: str, dedup_key: str, role: str, text: str,
                            at: datetime, audited: AuditContext) -> Outcome:
    """Store one line of the call the platform names, committed on return with its audit row
    (`audited`, whose organization is the call's); NO_CALL (and nothing done) when that call
    is not stored yet."""
    if is_postgres():
        row = db.execute_sql(prepared(_APPEND_SQL), _params(
            platform_call_id, dedup_key, role, text, at, audited)).fetchone()
        if row is None:
            return Outcome.NO_CALL
        call_pk, stored, full = row
        if stored:
            return Outcome.STORED
        return _full(call_pk) if full else Outcome.DUPLICATE
    with db.atomic():
        found = (VoiceCall.select(VoiceCall.id, VoiceCall.organization)
                 .where(VoiceCall.call_id == platform_call_id).tuples().first())
        if found is None:
            return Outcome.NO_CALL
        call_pk, organization_id = found
        outcome = append(call_pk, dedup_key, role, text, at,
                         covered_by=report_line_key(platform_call_id, role, text))
        if outcome is Outcome.STORED:
            audit.record(replace(audited, organization_id=organization_id), "update",
                         "voice_call", [call_pk])
        return outcome


def _full(call_pk: str) -> Outcome:
    logger.warning("voice call %s transcript limit reached; line not stored", call_pk)
    return Outcome.FULL
