"""Patterned fields match the whole value: Python's `$` also matches before a final newline,
so "slug\n" was taken as a slug (and stored, beside "slug")."""

import marshmallow as ma
import pytest

from schemas.billing import PaymentMethodCreateSchema
from schemas.organizations import ProvisionRequestSchema
from schemas.templates import TemplateCreateSchema
from schemas.voice import DeploymentCreateSchema
from services.organizations.steps import request_errors
from services.workflows.definition import definition_problems

PROVISION = {"name": "Harbor", "admin_email": "a@harbor.example", "slug": "harbor"}
DEPLOYMENT = {"name": "Line", "phone_number": "+15550100200"}
TEMPLATE = {"name": "Note", "format": "soap", "sections": [{"key": "subjective",
                                                             "title": "Subjective"}]}


@pytest.mark.parametrize(("schema", "body", "field"), [
    (ProvisionRequestSchema, PROVISION, "slug"),
    (PaymentMethodCreateSchema, {"processor": "stripe", "payment_method": "pm_card_visa"},
     "payment_method"),
    (DeploymentCreateSchema, DEPLOYMENT, "phone_number"),
    (TemplateCreateSchema, TEMPLATE, "format"),
])
def test_a_final_newline_is_refused_where_the_value_itself_is_taken(schema, body, field):
    schema().load(body)
    with pytest.raises(ma.ValidationError) as refused:
        schema().load({**body, field: body[field] + "\n"})
    assert field in refused.value.messages


def test_section_keys_and_the_provisioning_checks_match_whole_values():
    with pytest.raises(ma.ValidationError):
        TemplateCreateSchema().load({**TEMPLATE, "sections": [{"key": "subjective\n",
                                                               "title": "Subjective"}]})
    assert "admin_email" in request_errors({**PROVISION, "admin_email": "a@harbor.example\n"})


def test_workflow_node_ids_and_event_names_match_whole_values():
    def definition(node_id: str, event: str) -> dict:
        return {"start": "a", "nodes": [
            {"id": "a", "type": "webhook", "config": {"event": event}, "next": node_id},
            {"id": node_id, "type": "end"}]}

    assert definition_problems(definition("done", "workflow.ready")) == {}
    assert definition_problems(definition("done\n", "workflow.ready"))
    assert definition_problems(definition("done", "workflow.ready\n"))
