"""HTTP plumbing shared by every blueprint: API object, errors, auth, idempotency, logging,
rate limits and the queue dashboard. Each module exposes `init_app(app)`."""
