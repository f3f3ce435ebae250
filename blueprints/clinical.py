"""The live AI clinical session: start, stream transcript chunks, stop."""

from flask.views import MethodView

from schemas.clinical import (
    ClinicalSessionSchema,
    ClinicalStartSchema,
    TranscriptChunkInSchema,
    TranscriptChunkSchema,
    TranscriptSchema,
)
from services import clinical as service
from web.auth import audit_access, current_org_id, require
from web.blueprint import Blueprint
from web.idempotency import idempotent
from web.transactions import unit_of_work

blp = Blueprint("clinical", __name__, url_prefix="/api/clinical",
                description="Live clinical sessions that end in a post-visit analysis.")

RESOURCE = "clinical_session"


@blp.route("/start")
class ClinicalStart(MethodView):
    @require("sessions:write")
    @unit_of_work
    @idempotent
    @blp.arguments(ClinicalStartSchema)
    @blp.response(201, ClinicalSessionSchema)
    def post(self, body):
        """Start the live clinical session of a therapy session (it becomes in_progress)"""
        clinical = service.start(current_org_id(), body["session_id"])
        audit_access("create", RESOURCE, clinical.id)
        return clinical


@blp.route("/<id_except(start):clinical_session_id>")
class ClinicalSession(MethodView):
    @require("sessions:read")
    @blp.response(200, ClinicalSessionSchema)
    def get(self, clinical_session_id):
        """A clinical session and the state of its analysis"""
        clinical = service.get_clinical(current_org_id(), clinical_session_id)
        audit_access("read", RESOURCE, clinical.id)
        return clinical


@blp.route("/<clinical_session_id>/transcript")
class ClinicalTranscript(MethodView):
    @require("sessions:write")
    @unit_of_work
    @idempotent
    @blp.arguments(TranscriptChunkInSchema)
    @blp.response(201, TranscriptChunkSchema)
    def post(self, body, clinical_session_id):
        """Append a transcript chunk (numbered in arrival order)"""
        clinical = service.get_clinical(current_org_id(), clinical_session_id)
        chunk = service.append_chunk(clinical, body["speaker"], body["text"])
        audit_access("update", RESOURCE, clinical.id)
        return chunk

    @require("sessions:read")
    @blp.response(200, TranscriptSchema)
    def get(self, clinical_session_id):
        """The transcript so far, in order"""
        clinical = service.get_clinical(current_org_id(), clinical_session_id)
        audit_access("read", RESOURCE, clinical.id)
        return {"clinical_session_id": clinical.id,
                "entries": service.transcript_chunks(clinical)}


@blp.route("/<clinical_session_id>/stop")
class ClinicalStop(MethodView):
    @require("sessions:write")
    @unit_of_work
    @idempotent
    @blp.response(202, ClinicalSessionSchema)
    def post(self, clinical_session_id):
        """Stop: the therapy session completes and its analysis is queued"""
        clinical = service.get_clinical(current_org_id(), clinical_session_id)
        clinical = service.stop(clinical)
        audit_access("update", RESOURCE, clinical.id)
        return clinical
