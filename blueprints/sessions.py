"""Therapy sessions and co-therapy sessions."""

from flask.views import MethodView

from schemas.sessions import (
    CoTherapySessionCreateSchema,
    SessionCreateSchema,
    SessionQuerySchema,
    SessionSchema,
    SessionUpdateSchema,
)
from services import sessions as service
from web.api import page_items
from web.auth import audit_access, current_org_id, require
from web.blueprint import Blueprint
from web.idempotency import idempotent
from web.transactions import unit_of_work

blp = Blueprint("therapy_sessions", __name__, url_prefix="/api",
                description="Therapy sessions: scheduling, co-therapy and the status machine.")

RESOURCE = "therapy_session"


def _create(data: dict):
    session = service.create_session(current_org_id(), data)
    audit_access("create", RESOURCE, session.id)
    return session


@blp.route("/therapy-sessions")
class TherapySessions(MethodView):
    @require("sessions:read")
    @blp.arguments(SessionQuerySchema, location="query")
    @blp.response(200, SessionSchema(many=True))
    @blp.paginate()
    def get(self, filters, pagination_parameters):
        """List the organization's sessions (newest session date first)"""
        return page_items(service.list_sessions(current_org_id(), filters),
                          pagination_parameters, audit=("list", RESOURCE))

    @require("sessions:write")
    @unit_of_work
    @idempotent
    @blp.arguments(SessionCreateSchema)
    @blp.response(201, SessionSchema)
    def post(self, data):
        """Create a session with one provider"""
        return _create(data)


@blp.route("/co-therapy-sessions")
class CoTherapySessions(MethodView):
    @require("sessions:write")
    @unit_of_work
    @idempotent
    @blp.arguments(CoTherapySessionCreateSchema)
    @blp.response(201, SessionSchema)
    def post(self, data):
        """Create a session run by more than one clinician"""
        return _create(data)


@blp.route("/therapy-sessions/<session_id>")
class TherapySession(MethodView):
    @require("sessions:read")
    @blp.response(200, SessionSchema)
    def get(self, session_id):
        """Get one session"""
        session = service.get_session(current_org_id(), session_id)
        audit_access("read", RESOURCE, session.id)
        return session

    @require("sessions:write")
    @unit_of_work
    @blp.arguments(SessionUpdateSchema)
    @blp.response(200, SessionSchema)
    def patch(self, changes, session_id):
        """Edit a session or move it along its status machine"""
        session = service.get_session(current_org_id(), session_id)
        session = service.update_session(session, changes)
        audit_access("update", RESOURCE, session.id)
        return session
