"""Payment method resource and its create body (a processor reference, never a card)."""

from __future__ import annotations

import marshmallow as ma
from marshmallow import fields, validate

from schemas.common import (
    JSONBoolean,
    RecordSchema,
    StrictSchema,
    UTCDateTime,
    WholeMatch,
    nested_errors,
)
from services.billing.cards import card_number_path

CARD_NUMBER_MESSAGE = ("Card numbers are never accepted: collect the card with the "
                       "processor's own form and send its payment method id (pm_…).")


class PaymentMethodCreateSchema(StrictSchema):
    processor = fields.String(required=True, validate=validate.OneOf(["stripe"]))
    payment_method = fields.String(required=True, validate=WholeMatch(
        r"^pm_[A-Za-z0-9_]{1,250}$", error="Must be a processor payment method id (pm_…)."))
    set_default = JSONBoolean(load_default=False)
    billing_details = fields.Dict(load_default=dict)

    @ma.pre_load
    def _refuse_card_numbers(self, data, **kwargs):
        # Before any other validation: an error message never echoes the offending value.
        path = card_number_path(data)
        if path is not None:
            raise ma.ValidationError(nested_errors([(path, [CARD_NUMBER_MESSAGE])]))
        return data


class PaymentMethodSchema(RecordSchema):
    id = fields.String()
    processor = fields.String()
    type = fields.String()
    brand = fields.String(allow_none=True)
    last4 = fields.String(allow_none=True)
    exp_month = fields.Integer(allow_none=True)
    exp_year = fields.Integer(allow_none=True)
    is_default = fields.Boolean()
    billing_details = fields.Dict()
    created_at = UTCDateTime()
