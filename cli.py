"""Command-line tools: `flask --app app init-db | worker | quickstart | orgs | tokens`."""

from __future__ import annotations

import click
from flask import Flask, current_app
from flask.cli import AppGroup, with_appcontext

from models.base import db
from services import organizations, tokens
from services.tokens import ALL_SCOPES, TokenError

orgs_cli = AppGroup("orgs", help="Organizations.")
tokens_cli = AppGroup("tokens", help="API tokens.")


@click.command("init-db")
@with_appcontext
def init_db() -> None:
    """Create or migrate the schema (idempotent)."""
    from models.migrations import current_version, migrate
    from services.templates import ensure_builtin_templates

    with db.connection_context():
        # The app factory migrates first (a fresh database works without this command): what
        # it applied counts as applied by this run.
        applied = [*current_app.extensions.pop("migrations_applied", []),
                   *migrate(seed=ensure_builtin_templates)]
        click.echo(f"schema at version {current_version()}"
                   + (f" (applied {', '.join(map(str, applied))})" if applied else ""))


@click.command("worker")
@click.option("--burst", is_flag=True, help="Drain the queues, then exit.")
@click.option("--queue", "queues", multiple=True, help="Only these queues (default: all).")
def worker(burst: bool, queues: tuple[str, ...]) -> None:
    """Run an RQ worker on every queue of the app."""
    from jobs.worker import run_worker

    run_worker(current_app._get_current_object(), burst=burst, queues=list(queues) or None)


@orgs_cli.command("create")
@click.option("--name", required=True)
@click.option("--slug", default=None, help="Defaults to one derived from the name.")
@click.option("--admin-email", default="admin@localhost.localdomain", show_default=True)
@click.option("--plan", default="standard", show_default=True)
@click.option("--timezone", "timezone_name", default="UTC", show_default=True)
def orgs_create(name: str, slug: str | None, admin_email: str, plan: str,
                timezone_name: str) -> None:
    """Provision an organization (the API's sixteen steps, run here); prints its id last."""
    from services.errors import Conflict
    from services.organizations import provisioning

    data = {"name": name, "slug": slug, "admin_email": admin_email, "plan": plan,
            "timezone": timezone_name}
    with db.connection_context():
        try:
            job = provisioning.provision_now(data, current_app.config)
        except Conflict as exc:
            raise click.ClickException(exc.message) from exc
        body = provisioning.status_body(job)
    for step in body["steps"]:
        click.echo(f"{step['index']:>2} {step['name']:<28} {step['status']}"
                   + (f" ({step['error']})" if step["error"] else ""))
    if body["status"] != "succeeded":
        raise click.ClickException(f"provisioning failed: {body['error']}")
    click.echo(f"organization {job.request['slug']}; admin token (shown once): "
               f"{body['result']['admin_token']}")
    click.echo(body["organization_id"])


@tokens_cli.command("create")
@click.option("--org", "org_id", default=None, help="Organization id.")
@click.option("--platform", is_flag=True, help="An operator token (no organization).")
@click.option("--scope", "scopes", multiple=True,
              type=click.Choice(ALL_SCOPES), help="Repeat for several scopes.")
@click.option("--name", default="", help="A label for the token.")
@click.option("--expires-in-days", type=click.IntRange(min=1), default=None)
def tokens_create(org_id: str | None, platform: bool, scopes: tuple[str, ...], name: str,
                  expires_in_days: int | None) -> None:
    """Create a token; prints it (once) on the last line."""
    if platform == bool(org_id):
        raise click.UsageError("Give exactly one of --org ID or --platform.")
    with db.connection_context():
        organization = organizations.get_organization(org_id) if org_id else None
        if org_id and organization is None:
            raise click.ClickException(f"no organization {org_id}")
        if organization is not None and organization.status == "failed":
            # Its provisioning was undone: a token would make it a half-active organization.
            raise click.ClickException(f"organization {org_id} failed provisioning; "
                                       "it takes no tokens")
        try:
            row, token = tokens.create_token(
                None if platform else org_id, list(scopes), name=name,
                expires_at=tokens.expiry_in_days(expires_in_days))
        except TokenError as exc:
            raise click.ClickException(str(exc)) from exc
    click.echo(f"token id {row.id} scopes {' '.join(row.scopes)} (shown once)")
    click.echo(token)


@click.command("quickstart")
@click.option("--name", default="My Clinic", show_default=True, help="The organization's name.")
def quickstart(name: str) -> None:
    """Create an organization and an admin token for it; prints the token (once) last."""
    with db.connection_context(), db.atomic():
        try:
            org = organizations.create_organization(name)
        except organizations.SlugTaken as exc:
            raise click.ClickException(str(exc)) from exc
        row, token = tokens.create_token(org.id, ["admin"], name="quickstart")
    click.echo(f"organization {org.id} ({org.slug}); admin token {row.id} (shown once):")
    click.echo(token)


@tokens_cli.command("revoke")
@click.argument("token_id")
def tokens_revoke(token_id: str) -> None:
    """Revoke a token by its id."""
    with db.connection_context():
        if not tokens.revoke_token(token_id):
            raise click.ClickException(f"no active token {token_id}")
    click.echo(f"revoked {token_id}")


def init_app(app: Flask) -> None:
    for command in (init_db, worker, quickstart, orgs_cli, tokens_cli):
        app.cli.add_command(command)
