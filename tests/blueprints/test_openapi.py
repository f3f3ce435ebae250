"""The OpenAPI 3 document and the interactive docs."""

import re

import pytest

HTTP_METHODS = {"get", "post", "put", "patch", "delete"}


@pytest.fixture
def spec(client):
    response = client.get("/api/openapi.json")
    assert response.status_code == 200
    return response.json


def operations(spec):
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if method in HTTP_METHODS:
                yield path, method, operation


def test_document_is_openapi_3(spec):
    assert spec["openapi"].startswith("3.")
    assert spec["info"]["title"] == "Clinical Workflow Service"


def test_document_is_public(client):
    assert client.get("/api/openapi.json").status_code == 200


def test_foundation_paths_are_documented(spec):
    for path in ("/api/therapy-sessions", "/api/therapy-sessions/{session_id}",
                 "/api/co-therapy-sessions", "/api/note-templates", "/api/templates",
                 "/api/therapy/templates", "/api/voice/webhook/health"):
        assert path in spec["paths"], path


def test_every_operation_has_a_summary(spec):
    missing = [f"{method.upper()} {path}" for path, method, operation in operations(spec)
               if not operation.get("summary")]
    assert missing == []


def test_bearer_scheme_is_the_default_security(spec):
    scheme = spec["components"]["securitySchemes"]["bearerAuth"]
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
    assert spec["security"] == [{"bearerAuth": []}]


def test_health_is_marked_public(spec):
    assert spec["paths"]["/api/voice/webhook/health"]["get"]["security"] == []


def test_session_operations_need_the_bearer_token(spec):
    for method, operation in spec["paths"]["/api/therapy-sessions"].items():
        if method in HTTP_METHODS:
            assert operation.get("security", spec["security"]) == [{"bearerAuth": []}]


def test_list_documents_pagination(spec):
    parameters = {p["name"] for p in spec["paths"]["/api/therapy-sessions"]["get"]["parameters"]}
    assert {"page", "page_size", "patient_id", "provider_id", "status", "from", "to"} \
        <= parameters


def test_docs_page_is_html(client):
    response = client.get("/api/docs")
    assert response.status_code == 200
    assert "text/html" in response.content_type
    assert "/api/openapi.json" in response.get_data(as_text=True)


def test_docs_page_loads_its_scripts_from_this_server(client):
    page = client.get("/api/docs").get_data(as_text=True)
    scripts = re.findall(r'src="([^"]+\.js)"', page)
    assert scripts and all(src.startswith("/api/docs/assets/") for src in scripts)
    for src in scripts:
        asset = client.get(src)
        assert asset.status_code == 200 and len(asset.data) > 1000


def test_every_operation_has_its_own_operation_id(spec):
    """Generated clients name their methods by it; none had one."""
    ids = [op.get("operationId") for _, _, op in operations(spec)]
    assert None not in ids and len(set(ids)) == len(ids)


@pytest.mark.parametrize(("path", "method", "scopes"), [
    ("/api/agent-workflows/executions/{execution_id}/resume", "post", ["workflows:write"]),
    ("/api/billing/payment-methods", "get", ["billing:write"]),
    ("/api/therapy-sessions", "get", ["sessions:read"]),
])
def test_an_operations_scopes_are_documented(spec, path, method, scopes):
    """A client built from the document could not know which scope an operation needs."""
    op = spec["paths"][path][method]
    assert op["x-scopes"] == scopes
    assert f"`{scopes[0]}`" in op["description"]
    assert op["responses"]["401"]["headers"]["WWW-Authenticate"]
    assert "Retry-After" in op["responses"]["429"]["headers"]


def test_every_token_operation_states_its_scopes(spec):
    public = {"/api/voice/webhook/health", "/api/voice/webhook",
              "/api/voice/webhook/assistant-request"}
    assert [(path, method) for path, method, op in operations(spec)
            if "x-scopes" not in op and path not in public] == []


def test_an_executions_body_is_documented_as_optional(spec):
    """It was documented as required, and no body started an execution with `input: {}`."""
    operation = spec["paths"]["/api/agent-workflows/{workflow_id}/executions"]["post"]
    assert operation["requestBody"]["required"] is False


def test_creating_posts_document_the_idempotency_key(spec):
    for path in ("/api/therapy-sessions", "/api/organizations/provision",
                 "/api/billing/payment-methods"):
        names = [p["name"] for p in spec["paths"][path]["post"].get("parameters", [])]
        assert "Idempotency-Key" in names, path


def test_an_operation_on_a_record_documents_its_404(spec):
    """Another organization's record is a 404 (SPEC §3); no operation documented one."""
    missing = [(path, method) for path, method, op in operations(spec)
               if "{" in path and "404" not in op["responses"]]
    assert missing == []
    webhook = spec["paths"]["/api/voice/webhook"]["post"]["responses"]
    assert {"400", "401", "503"} <= set(webhook)


@pytest.mark.parametrize("path, method, statuses", [
    ("/api/organizations/provision", "post", {"409"}),
    ("/api/billing/payment-methods", "post", {"409", "502", "503"}),
    ("/api/billing/payment-methods/{method_id}", "delete", {"502", "503"}),
    ("/api/billing/payment-methods/{method_id}/default", "post", {"502", "503"}),
])
def test_the_answers_of_a_peer_or_a_conflict_are_documented(spec, path, method, statuses):
    assert statuses <= set(spec["paths"][path][method]["responses"])
