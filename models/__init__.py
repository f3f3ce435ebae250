"""Peewee models. `ALL_MODELS` is the list the migrations and test fixtures work from."""
