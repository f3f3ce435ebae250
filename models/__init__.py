"""Peewee models: `base` (the database proxy, fields, connections), then one module per domain.
`migrations` creates their tables in numbered steps."""
