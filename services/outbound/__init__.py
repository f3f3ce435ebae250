"""Outbound webhooks: delivery, signing and the addresses they may go to."""
