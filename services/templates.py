"""Templates: the built-in set, what an organization can see, and which the analyzer follows."""

from __future__ import annotations

from typing import Any

from peewee import ModelSelect

from models.base import utcnow
from models.templates import Template
from services.builtin_templates import BUILTIN_TEMPLATES

# Kinds whose sections the post-visit analyzer can follow when summarising a session.
ANALYZER_KINDS = ("note", "assessment", "analysis")


def ensure_builtin_templates() -> None:
    """Insert or refresh the built-in templates (idempotent; `create_app` and `init-db` run it
after the migrations, under their lock)."""
    for spec in BUILTIN_TEMPLATES:
        fields = {k: spec[k] for k in ("name", "kind", "format", "description", "sections")}
        updated = (Template.update(**fields, builtin=True, updated_at=utcnow())
                   .where(Template.id == spec["id"]).execute())
        if not updated:
            Template.create(id=spec["id"], builtin=True, organization=None, **fields)


def visible_templates(organization_id: str, kind: str | None = None) -> ModelSelect:
    """Built-ins plus the organization's own, built-ins first, then by name."""
    query = Template.select().where(
        Template.organization.is_null() | (Template.organization == organization_id))
    if kind:
        query = query.where(Template.kind == kind)
    return query.order_by(Template.builtin.desc(), Template.name, Template.id)


def analyzer_templates(organization_id: str) -> ModelSelect:
    return visible_templates(organization_id).where(Template.kind.in_(ANALYZER_KINDS))


def get_visible_template(organization_id: str, template_id: str) -> Template | None:
    return visible_templates(organization_id).where(Template.id == template_id).first()


def create_template(organization_id: str, data: dict[str, Any]) -> Template:
    return Template.create(organization=organization_id, builtin=False, **data)

