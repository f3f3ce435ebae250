"""Templates: the built-in set on a fresh database, the three listing paths, and a clinic's
own templates, visible to that clinic only."""

import json

import pytest

from models.templates import Template
from tests.conftest import SESSION_BODY, bearer

BUILTIN_FORMATS = {"soap", "dap", "birp", "girp", "biopsychosocial", "treatment_plan"}
CUSTOM = {
    "name": "Couples progress note",
    "format": "couples",
    "description": "For conjoint sessions.",
    "sections": [
        {"key": "presenting", "title": "Presenting issues", "guidance": "Both partners' views."},
        {"key": "interventions", "title": "Interventions"},
    ],
}


def _by_format(templates):
    return {t["format"]: t for t in templates}


def test_fresh_database_has_the_six_builtins(client, auth):
    templates = client.get("/api/templates?page_size=100", headers=auth).json
    builtins = _by_format(t for t in templates if t["builtin"])
    assert set(builtins) == BUILTIN_FORMATS
    for template in builtins.values():
        assert template["organization_id"] is None
        assert template["sections"], template["name"]
        for section in template["sections"]:
            assert section["key"] and section["title"]
            assert len(section["guidance"]) > 40, (template["name"], section["key"])


def test_soap_has_its_four_sections(client, auth):
    templates = client.get("/api/note-templates", headers=auth).json
    soap = _by_format(templates)["soap"]
    assert [s["key"] for s in soap["sections"]] == [
        "subjective", "objective", "assessment", "plan"]


def test_intake_is_an_assessment(client, auth):
    templates = client.get("/api/templates?kind=assessment", headers=auth).json
    assert "biopsychosocial" in _by_format(templates)


def test_note_templates_lists_only_notes(client, auth):
    templates = client.get("/api/note-templates", headers=auth).json
    assert templates
    assert {t["kind"] for t in templates} == {"note"}
    assert "biopsychosocial" not in _by_format(templates)


def test_note_templates_are_paginated(client, auth):
    response = client.get("/api/note-templates?page_size=2", headers=auth)
    assert len(response.json) == 2
    assert json.loads(response.headers["X-Pagination"])["total"] == 5


def test_templates_lists_every_kind(client, auth):
    templates = client.get("/api/templates", headers=auth).json
    assert {t["kind"] for t in templates} == {"note", "assessment"}
    assert len(templates) == 6


def test_templates_filter_by_kind(client, auth):
    templates = client.get("/api/templates?kind=note", headers=auth).json
    assert {t["kind"] for t in templates} == {"note"}
    assert len(templates) == 5


@pytest.mark.parametrize("path", ["/api/note-templates", "/api/templates",
                                  "/api/therapy/templates"])
def test_page_far_past_the_end_is_empty(client, auth, path):
    response = client.get(f"{path}?page=99999999999999999999", headers=auth)
    assert response.status_code == 200
    assert response.json == []


def test_templates_with_unknown_kind_is_422(client, auth):
    response = client.get("/api/templates?kind=letter", headers=auth)
    assert response.status_code == 422
    assert "kind" in response.json["errors"]["query"]


def test_analyzer_templates_include_section_prompts(client, auth):
    templates = client.get("/api/therapy/templates", headers=auth).json
    soap = _by_format(templates)["soap"]
    prompts = {p["key"]: p for p in soap["section_prompts"]}
    assert set(prompts) == {s["key"] for s in soap["sections"]}
    guidance = {s["key"]: s["guidance"] for s in soap["sections"]}
    assert prompts["plan"]["title"] == "Plan"
    assert guidance["plan"] in prompts["plan"]["prompt"]


def test_create_template_returns_it(client, auth, org):
    response = client.post("/api/note-templates", json=CUSTOM, headers=auth)
    assert response.status_code == 201
    template = response.json
    assert template["id"].startswith("tpl_")
    assert template["name"] == "Couples progress note"
    assert template["kind"] == "note"
    assert template["builtin"] is False
    assert template["organization_id"] == org.id
    assert template["sections"][1] == {"key": "interventions", "title": "Interventions",
                                       "guidance": ""}


def test_own_template_is_listed_for_its_organization(client, auth):
    created = client.post("/api/note-templates", json=CUSTOM, headers=auth).json
    listed = client.get("/api/note-templates", headers=auth).json
    assert created["id"] in {t["id"] for t in listed}
    assert listed[-1]["id"] == created["id"]  # built-ins first


def test_own_template_is_hidden_from_other_organizations(client, auth, other_org, make_token):
    created = client.post("/api/note-templates", json=CUSTOM, headers=auth).json
    other = bearer(make_token(other_org, "templates:read"))
    for path in ("/api/note-templates", "/api/templates", "/api/therapy/templates"):
        ids = {t["id"] for t in client.get(path, headers=other).json}
        assert created["id"] not in ids, path
        assert "tpl_builtin_soap" in ids, path


def test_session_can_use_its_organizations_template(client, auth, make_session):
    created = client.post("/api/note-templates", json=CUSTOM, headers=auth).json
    session = make_session(template_id=created["id"])
    assert session["template_id"] == created["id"]


def test_session_cannot_use_another_organizations_template(client, auth, other_org,
                                                           make_token):
    created = client.post("/api/note-templates", json=CUSTOM, headers=auth).json
    other = bearer(make_token(other_org, "sessions:write"))
    body = {**SESSION_BODY, "template_id": created["id"]}
    response = client.post("/api/therapy-sessions", json=body, headers=other)
    assert response.status_code == 422
    assert "template_id" in response.json["errors"]["json"]


def test_patch_cannot_use_another_organizations_template(client, auth, other_org, make_token):
    created = client.post("/api/note-templates", json=CUSTOM, headers=auth).json
    other = bearer(make_token(other_org, "sessions:write", "sessions:read"))
    session = client.post("/api/therapy-sessions", json=SESSION_BODY, headers=other).json
    response = client.patch(f"/api/therapy-sessions/{session['id']}",
                            json={"template_id": created["id"]}, headers=other)
    assert response.status_code == 422


def _with(**changes):
    return {**CUSTOM, **changes}


BAD_TEMPLATES = {
    "missing name": ({k: v for k, v in CUSTOM.items() if k != "name"}, "name"),
    "blank name": (_with(name="  "), "name"),
    "missing sections": ({k: v for k, v in CUSTOM.items() if k != "sections"}, "sections"),
    "no sections": (_with(sections=[]), "sections"),
    "bad section key": (_with(sections=[{"key": "Plan!", "title": "Plan"}]), "sections"),
    "section without title": (_with(sections=[{"key": "plan"}]), "sections"),
    "duplicate keys": (_with(sections=[{"key": "plan", "title": "A"},
                                       {"key": "plan", "title": "B"}]), "sections"),
    "unknown section field": (_with(sections=[{"key": "plan", "title": "P", "x": 1}]),
                              "sections"),
    "unknown kind": (_with(kind="letter"), "kind"),
    "bad format": (_with(format="Free Text"), "format"),
    "unknown field": (_with(builtin=True), "builtin"),
    "NUL in name": (_with(name="SOAP\u0000"), "name"),
    "NUL in guidance": (_with(sections=[{"key": "plan", "title": "P", "guidance": "\u0000"}]),
                        "sections"),
    "41 sections": (_with(sections=[{"key": f"s{i}", "title": "T"} for i in range(41)]),
                    "sections"),
}


@pytest.mark.parametrize("body,field", BAD_TEMPLATES.values(), ids=BAD_TEMPLATES.keys())
def test_invalid_template_is_422_and_stores_nothing(client, auth, body, field):
    response = client.post("/api/note-templates", json=body, headers=auth)
    assert response.status_code == 422
    assert response.json["code"] == 422
    assert field in response.json["errors"]["json"]
    assert Template.select().where(Template.builtin == False).count() == 0  # noqa: E712


def test_builtins_cannot_be_read_without_a_token(client):
    assert client.get("/api/templates").status_code == 401
