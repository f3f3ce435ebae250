"""Agent workflows: definitions, the step engine, node behaviour, FHIR mapping, ready workflows."""
