"""Note, assessment and analysis templates through their three listing paths."""

from flask.views import MethodView

from schemas.templates import (
    AnalyzerTemplateSchema,
    TemplateCreateSchema,
    TemplateQuerySchema,
    TemplateSchema,
)
from services import templates as service
from web.api import ListPage, page_items
from web.auth import current_org_id, require
from web.blueprint import Blueprint
from web.idempotency import idempotent
from web.transactions import unit_of_work

blp = Blueprint("templates", __name__, url_prefix="/api",
                description="Built-in and clinic-owned note and assessment templates.")


@blp.route("/note-templates")
class NoteTemplates(MethodView):
    @require("templates:read")
    @blp.response(200, TemplateSchema(many=True))
    @blp.paginate(ListPage)
    def get(self):
        """List note templates (built-ins first)"""
        return service.visible_templates(current_org_id(), kind="note")

    @require("templates:write")
    @unit_of_work
    @idempotent
    @blp.arguments(TemplateCreateSchema)
    @blp.response(201, TemplateSchema)
    def post(self, data):
        """Add one of the organization's own templates"""
        return service.create_template(current_org_id(), data)


@blp.route("/templates")
class Templates(MethodView):
    @require("templates:read")
    @blp.arguments(TemplateQuerySchema, location="query")
    @blp.response(200, TemplateSchema(many=True))
    @blp.paginate(ListPage)
    def get(self, args):
        """List templates of every kind (filter with ?kind=)"""
        return service.visible_templates(current_org_id(), kind=args.get("kind"))


@blp.route("/therapy/templates")
class AnalyzerTemplates(MethodView):
    @require("templates:read")
    @blp.response(200, AnalyzerTemplateSchema(many=True))
    @blp.paginate()
    def get(self, pagination_parameters):
        """List the templates the analyzer can follow, with the section prompts it sends"""
        return page_items(service.analyzer_templates(current_org_id()), pagination_parameters)
