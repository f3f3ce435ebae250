"""Organizations: accounts (create, look up), provisioning, usage reports and quotas."""

from services.organizations.accounts import (
    SLUG_MAX,
    SlugTaken,
    create_organization,
    get_organization,
    slugify,
)

__all__ = ["SLUG_MAX", "SlugTaken", "create_organization", "get_organization", "slugify"]
