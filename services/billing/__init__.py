"""Billing: plans, invoices and the payment provider (Stripe)."""
