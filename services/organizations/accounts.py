"""Organization accounts. Provisioning (the 16-step job) builds on `create_organization`."""

from __future__ import annotations

import re
import secrets

from models.organizations import Organization
from services.errors import Conflict

SLUG_MAX = 63
_NON_SLUG = re.compile(r"[^a-z0-9]+")


class SlugTaken(Conflict):
    """Another organization already has this slug."""


def slugify(name: str) -> str:
    slug = _NON_SLUG.sub("-", name.lower()).strip("-")[:SLUG_MAX].strip("-")
    return slug or f"org-{secrets.token_hex(4)}"


def create_organization(name: str, slug: str | None = None, status: str = "active") -> Organization:
    slug = slug or slugify(name)
    if Organization.select().where(Organization.slug == slug).exists():
        raise SlugTaken(f"slug {slug!r} is taken")
    return Organization.create(name=name, slug=slug, status=status)


def get_organization(organization_id: str) -> Organization | None:
    return Organization.get_or_none(Organization.id == organization_id)
