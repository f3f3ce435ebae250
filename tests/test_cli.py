"""`flask init-db | orgs | tokens`, through click's runner."""

from models.migrations import MIGRATIONS, current_version
from models.organizations import Organization, ProvisioningJob
from models.templates import Template
from services.tokens import hash_token
from tests.conftest import PLATFORM_TOKEN, bearer


def run(app, *args):
    return app.test_cli_runner().invoke(args=list(args))


def last_line(result):
    return result.output.strip().splitlines()[-1]


def create_org(app, name="Harbor Counseling"):
    result = run(app, "orgs", "create", "--name", name)
    assert result.exit_code == 0, result.output
    return last_line(result)


def test_init_db_is_idempotent(app):
    first = run(app, "init-db")
    second = run(app, "init-db")
    assert first.exit_code == second.exit_code == 0
    latest = MIGRATIONS[-1][0]
    # The first run reports what the app factory applied on a new database, if anything.
    assert last_line(first).startswith(f"schema at version {latest}")
    assert last_line(second) == f"schema at version {latest}"
    assert current_version() == latest
    assert Template.select().where(Template.builtin == True).count() == 6  # noqa: E712


def test_init_db_creates_the_schema_of_a_fresh_database(app, make_app, tmp_path):
    fresh = make_app(DATABASE_URL=f"sqlite:///{tmp_path / 'fresh.db'}", AUTO_MIGRATE=False)
    assert current_version() == 0
    result = run(fresh, "init-db")
    assert result.exit_code == 0, result.output
    versions = ", ".join(str(version) for version, _, _ in MIGRATIONS)
    assert last_line(result) == f"schema at version {MIGRATIONS[-1][0]} (applied {versions})"
    assert Template.select().count() == 6


def test_init_db_reports_the_migrations_the_app_factory_applied(app, make_app, tmp_path):
    """`flask init-db` on a new database printed only "schema at version 13": the app
    factory, which runs first, had applied them."""
    fresh = make_app(DATABASE_URL=f"sqlite:///{tmp_path / 'new.db'}")
    versions = ", ".join(str(version) for version, _, _ in MIGRATIONS)
    assert last_line(run(fresh, "init-db")) == \
        f"schema at version {MIGRATIONS[-1][0]} (applied {versions})"


def test_orgs_create_prints_the_id_last(app):
    org_id = create_org(app)
    org = Organization.get_by_id(org_id)
    assert (org.name, org.slug, org.status) == ("Harbor Counseling", "harbor-counseling",
                                                "active")


def test_orgs_create_prints_a_working_admin_token_once(app, client):
    # Before, it printed the token's prefix only: the new organization's admin token was lost.
    result = run(app, "orgs", "create", "--name", "Cedar Clinic")
    assert result.exit_code == 0, result.output
    line = next(li for li in result.output.splitlines() if "admin token" in li)
    token = line.rsplit(" ", 1)[-1]
    assert client.get("/api/therapy-sessions", headers=bearer(token)).status_code == 200
    org_id = last_line(result)
    again = client.get(f"/api/organizations/provision/{ProvisioningJob.get().id}",
                       headers=bearer(PLATFORM_TOKEN)).json
    assert again["organization_id"] == org_id and token not in str(again)


def test_orgs_create_with_a_taken_slug_fails(app):
    create_org(app)
    result = run(app, "orgs", "create", "--name", "Harbor Counseling")
    assert result.exit_code != 0
    assert "taken" in result.output
    assert Organization.select().count() == 1


def test_tokens_create_prints_a_working_token_last(app, client):
    org_id = create_org(app)
    result = run(app, "tokens", "create", "--org", org_id, "--scope", "sessions:read",
                 "--scope", "sessions:write")
    assert result.exit_code == 0, result.output
    token = last_line(result)
    assert token.startswith("cws_")
    assert client.get("/api/therapy-sessions", headers=bearer(token)).status_code == 200
    assert client.get("/api/templates", headers=bearer(token)).status_code == 403


def test_tokens_create_shows_the_token_only_in_its_output(app):
    org_id = create_org(app)
    token = last_line(run(app, "tokens", "create", "--org", org_id, "--scope", "admin"))
    from models.tokens import ApiToken

    assert ApiToken.get(ApiToken.token_hash == hash_token(token)).organization_id == org_id


def test_platform_token_can_be_created(app, client):
    result = run(app, "tokens", "create", "--platform")
    assert result.exit_code == 0, result.output
    token = last_line(result)
    assert token.startswith("cws_")
    # A platform token is valid (not 401) but reads no clinic's sessions.
    assert client.get("/api/therapy-sessions", headers=bearer(token)).status_code == 403


def test_tokens_create_for_an_unknown_org_fails(app):
    result = run(app, "tokens", "create", "--org", "org_doesnotexist", "--scope", "admin")
    assert result.exit_code != 0
    assert "org_doesnotexist" in result.output
    assert "cws_" not in result.output


def test_tokens_create_needs_org_or_platform(app):
    assert run(app, "tokens", "create", "--scope", "admin").exit_code != 0
    org_id = create_org(app)
    both = run(app, "tokens", "create", "--org", org_id, "--platform")
    assert both.exit_code != 0


def test_tokens_create_refuses_an_unknown_scope(app):
    org_id = create_org(app)
    result = run(app, "tokens", "create", "--org", org_id, "--scope", "everything")
    assert result.exit_code != 0
    assert "cws_" not in result.output


def test_org_token_needs_a_scope(app):
    org_id = create_org(app)
    result = run(app, "tokens", "create", "--org", org_id)
    assert result.exit_code != 0


def test_tokens_revoke_makes_the_token_401(app, client):
    org_id = create_org(app)
    created = run(app, "tokens", "create", "--org", org_id, "--scope", "sessions:read")
    token = last_line(created)
    token_id = created.output.split("token id ")[1].split()[0]
    assert client.get("/api/therapy-sessions", headers=bearer(token)).status_code == 200
    revoked = run(app, "tokens", "revoke", token_id)
    assert revoked.exit_code == 0, revoked.output
    assert client.get("/api/therapy-sessions", headers=bearer(token)).status_code == 401


def test_revoking_an_unknown_token_fails(app):
    result = run(app, "tokens", "revoke", "tok_doesnotexist")
    assert result.exit_code != 0


def test_an_organization_whose_provisioning_failed_takes_no_token(app):
    # Before, a token made here gave full access to the undone organization.
    org_id = create_org(app)
    Organization.update(status="failed").where(Organization.id == org_id).execute()
    result = run(app, "tokens", "create", "--org", org_id, "--scope", "admin")
    assert result.exit_code != 0 and "failed provisioning" in result.output
    from models.tokens import ApiToken

    assert ApiToken.select().where(ApiToken.organization == org_id,
                                   ApiToken.revoked_at.is_null()).count() == 1
