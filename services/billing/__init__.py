"""Billing: the card processor's customer and payment methods (never card numbers)."""
