"""Post-visit analysis of a transcript, and a session's latest analysis."""

from flask import current_app
from flask.views import MethodView

from schemas.analysis import AnalysisSchema, AnalysisSourceQuerySchema, AnalyzeSessionSchema
from services import analysis as service
from services.sessions import get_session
from web.api import page_items
from web.auth import audit_access, current_org_id, require
from web.blueprint import Blueprint

blp = Blueprint("analysis", __name__, url_prefix="/api",
                description="Post-visit analysis by the hosted model or the rules analyzer.")

RESOURCE = "session_analysis"


@blp.route("/therapy/analyze-session")
class AnalyzeSession(MethodView):
    @require("analysis:run")
    @blp.arguments(AnalyzeSessionSchema)
    @blp.response(200, AnalysisSchema)
    @blp.alt_response(502, response="DEFAULT_ERROR",
                      description="The model failed or answered unparseable output twice")
    @blp.alt_response(504, response="DEFAULT_ERROR", description="The model did not answer in time")
    def post(self, body):
        """Analyse a session transcript (tasks, summary, risk, findings, plan)"""
        org_id = current_org_id()
        data = service.AnalysisInput(
            transcript=body["session_transcript"], clinical_context=body["clinical_context"],
            vital_signs=body["vital_signs"], ai_metadata=body["ai_metadata"])
        session = service.linked_session(org_id, data.clinical_context)
        analysis = service.analyze(org_id, data, current_app.config, session=session)
        audit_access("create", RESOURCE, analysis.id)
        return analysis


@blp.route("/therapy-sessions/<session_id>/analysis")
class SessionAnalysis(MethodView):
    @require("sessions:read")
    @blp.arguments(AnalysisSourceQuerySchema, location="query")
    @blp.response(200, AnalysisSchema)
    def get(self, query, session_id):
        """The session's newest analysis (`?source=clinical_session` for the live session's)"""
        org_id = current_org_id()
        session = get_session(org_id, session_id)
        analysis = service.latest_for_session(org_id, session, query.get("source"))
        audit_access("read", RESOURCE, analysis.id)
        return analysis


@blp.route("/therapy-sessions/<session_id>/analyses")
class SessionAnalyses(MethodView):
    @require("sessions:read")
    @blp.arguments(AnalysisSourceQuerySchema, location="query")
    @blp.response(200, AnalysisSchema(many=True))
    @blp.paginate()
    def get(self, query, session_id, pagination_parameters):
        """Every analysis of the session, newest first"""
        org_id = current_org_id()
        get_session(org_id, session_id)
        return page_items(service.analyses_for_session(org_id, session_id, query.get("source")),
                          pagination_parameters, audit=("list", RESOURCE))
