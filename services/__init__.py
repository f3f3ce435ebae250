"""Domain logic as plain functions: a package per grown domain, cross-cutting modules at the top."""
