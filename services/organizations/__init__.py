"""Organizations: accounts now; provisioning, usage and quotas join as they arrive."""

from services.organizations.accounts import (
    SLUG_MAX,
    SlugTaken,
    create_organization,
    get_organization,
    slugify,
)

__all__ = ["SLUG_MAX", "SlugTaken", "create_organization", "get_organization", "slugify"]
