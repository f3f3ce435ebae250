"""Organizations: accounts (create, look up), provisioning, usage reports and quotas."""

from services.organizations.accounts import (
    SlugTaken,
    create_organization,
    get_organization,
    slugify,
)

__all__ = ["SlugTaken", "create_organization", "get_organization", "slugify"]
