"""Outbound webhooks: endpoints, signing, address checks and delivery (one mechanism for the
whole service)."""
