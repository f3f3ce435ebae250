"""Billing: the organization's payment methods, held at the card processor."""

from flask import current_app
from flask.views import MethodView

from schemas.billing import PaymentMethodCreateSchema, PaymentMethodSchema
from services.billing import methods
from web.api import page_items
from web.auth import current_org_id, require
from web.blueprint import Blueprint
from web.idempotency import idempotent_around_peer_calls

blp = Blueprint("billing", __name__, url_prefix="/api/billing",
                description="Payment methods (processor references; card numbers refused).")

PROCESSOR_FAILED = "The payment processor failed, or could not be reached in time"
NO_PROCESSOR = "No payment processor is configured (STRIPE_API_KEY)"


@blp.route("/payment-methods")
class PaymentMethods(MethodView):
    @require("billing:write")
    @blp.response(200, PaymentMethodSchema(many=True))
    @blp.paginate()
    def get(self, pagination_parameters):
        """List the organization's payment methods"""
        return page_items(methods.list_methods(current_org_id()), pagination_parameters)

    @require("billing:write")
    @idempotent_around_peer_calls
    @blp.arguments(PaymentMethodCreateSchema)
    @blp.response(201, PaymentMethodSchema)
    @blp.alt_response(409, response="DEFAULT_ERROR", description=(
        "The payment method is already on file (or another customer's), or a request with "
        "this Idempotency-Key is still running or had another body"))
    @blp.alt_response(502, response="DEFAULT_ERROR", description=PROCESSOR_FAILED)
    @blp.alt_response(503, response="DEFAULT_ERROR", description=NO_PROCESSOR)
    def post(self, data):
        """Add a payment method collected by the processor (pm_…)"""
        return methods.add_method(current_org_id(), data, current_app.config)


@blp.route("/payment-methods/<method_id>")
class PaymentMethodItem(MethodView):
    @require("billing:write")
    @blp.response(200, PaymentMethodSchema)
    def get(self, method_id):
        """Get one payment method"""
        return methods.get_method(current_org_id(), method_id)

    @require("billing:write")
    @blp.response(204)
    @blp.alt_response(502, response="DEFAULT_ERROR", description=PROCESSOR_FAILED)
    @blp.alt_response(503, response="DEFAULT_ERROR", description=NO_PROCESSOR)
    def delete(self, method_id):
        """Detach a payment method; the oldest remaining one becomes the default"""
        methods.remove_method(current_org_id(), method_id, current_app.config)


@blp.route("/payment-methods/<method_id>/default")
class PaymentMethodDefault(MethodView):
    @require("billing:write")
    @blp.response(200, PaymentMethodSchema)
    @blp.alt_response(502, response="DEFAULT_ERROR", description=PROCESSOR_FAILED)
    @blp.alt_response(503, response="DEFAULT_ERROR", description=NO_PROCESSOR)
    def post(self, method_id):
        """Make this payment method the organization's default"""
        return methods.make_default(current_org_id(), method_id, current_app.config)
