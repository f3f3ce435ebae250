"""Workflows: the engine, its nodes and conditions, and the FHIR mapping."""
