"""Rate limits per token (and per client address), counted in the app's Redis."""

from tests.conftest import bearer

URL = "/api/therapy-sessions"


def limited_client(make_app, **overrides):
    config = {"RATELIMIT_ENABLED": True, "RATELIMIT_DEFAULT": "3 per minute", **overrides}
    return make_app(**config).test_client()


def test_fourth_request_in_a_minute_is_429(make_app, auth):
    client = limited_client(make_app)
    statuses = [client.get(URL, headers=auth).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]


def test_429_has_retry_after_and_the_error_shape(make_app, auth):
    client = limited_client(make_app)
    for _ in range(3):
        client.get(URL, headers=auth)
    response = client.get(URL, headers=auth)
    assert response.status_code == 429
    assert 0 < int(response.headers["Retry-After"]) <= 60
    assert response.json["code"] == 429
    assert response.json["status"] == "Too Many Requests"
    assert response.json["message"]


def test_limit_is_per_token(make_app, auth, org, make_token):
    client = limited_client(make_app)
    for _ in range(4):
        client.get(URL, headers=auth)
    other = bearer(make_token(org, "sessions:read"))
    assert client.get(URL, headers=other).status_code == 200


def test_requests_without_a_valid_token_are_limited_per_address(make_app):
    client = limited_client(make_app, RATELIMIT_DEFAULT="100 per minute",
                            RATELIMIT_PER_IP="3 per minute")
    guesses = [{"Authorization": f"Bearer cws_guess{i}"} for i in range(3)] + [{}]
    statuses = [client.get(URL, headers=headers).status_code for headers in guesses]
    assert statuses == [401, 401, 401, 429]


def test_an_addresss_requests_without_a_valid_token_share_one_count_over_every_endpoint(
        make_app):
    """RATELIMIT_PER_IP is the address's allowance, whatever it calls: it was counted per
    endpoint (1,200 a minute on each), and a request with no token was held to the per-token
    limit instead."""
    client = limited_client(make_app, RATELIMIT_DEFAULT="2 per minute",
                            RATELIMIT_PER_IP="5 per minute")
    paths = ["/api/therapy-sessions", "/api/templates", "/api/note-templates",
             "/api/agent-workflows", "/api/voice/deployments", "/api/therapy-sessions"]
    statuses = [client.get(path).status_code for path in paths]
    assert statuses == [401, 401, 401, 401, 401, 429]


def test_a_revoked_token_gets_401_even_once_its_allowance_was_spent(make_app, org, make_token):
    """Refused tokens all get the same 401; a revoked one whose per-token count was full got
    429 instead, which told a guesser that it had once been valid."""
    from services.tokens import revoke_token

    client = limited_client(make_app, RATELIMIT_DEFAULT="2 per minute",
                            RATELIMIT_PER_IP="100 per minute")
    token = make_token(org, "sessions:read")
    assert [client.get(URL, headers=bearer(token)).status_code for _ in range(3)] == \
        [200, 200, 429]
    with client.application.app_context():
        from services.tokens import authenticate

        revoke_token(authenticate(token).actor)
    assert client.get(URL, headers=bearer(token)).status_code == 401


def test_valid_tokens_behind_one_address_are_limited_per_token_only(make_app, org, make_token):
    client = limited_client(make_app, RATELIMIT_DEFAULT="100 per minute",
                            RATELIMIT_PER_IP="3 per minute")
    tokens = [bearer(make_token(org, "sessions:read")) for _ in range(4)]
    statuses = [client.get(URL, headers=headers).status_code for headers in tokens * 2]
    assert statuses == [200] * 8


def test_limits_are_off_when_disabled(make_app, auth):
    client = make_app(RATELIMIT_ENABLED=False, RATELIMIT_DEFAULT="1 per minute").test_client()
    assert [client.get(URL, headers=auth).status_code for _ in range(3)] == [200, 200, 200]


def test_counts_live_in_the_apps_redis(make_app, auth):
    client = limited_client(make_app)
    for _ in range(3):
        client.get(URL, headers=auth)
    again = limited_client(make_app)  # a second process on the same Redis
    assert again.get(URL, headers=auth).status_code == 429


def test_redis_down_does_not_fail_requests(make_app, auth):
    client = limited_client(make_app, REDIS_URL="redis://127.0.0.1:1/0")
    assert client.get(URL, headers=auth).status_code == 200


def test_a_redis_that_never_answers_does_not_hold_requests(make_app, auth):
    """A socket that accepts connections (the kernel's backlog) but never replies: the first
    request waits for the limiter's short Redis timeout (not redis-py's 5 s default), the next
    is counted in process memory at once."""
    import socket
    import threading

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    client = limited_client(make_app, REDIS_URL=f"redis://127.0.0.1:{silent.getsockname()[1]}/0")
    statuses: list[int] = []
    caller = threading.Thread(target=lambda: statuses.extend(
        client.get(URL, headers=auth).status_code for _ in range(2)), daemon=True)
    caller.start()
    caller.join(timeout=4)
    silent.close()
    assert statuses == [200, 200]


def test_redis_down_still_limits_in_process_memory(make_app, auth):
    client = limited_client(make_app, REDIS_URL="redis://127.0.0.1:1/0")
    statuses = [client.get(URL, headers=auth).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]


def test_paths_no_route_serves_share_one_count_per_address(make_app):
    """A scanner trying random paths is limited as one client, not per path."""
    client = limited_client(make_app, RATELIMIT_DEFAULT="100 per minute",
                            RATELIMIT_PER_IP="3 per minute")
    statuses = [client.get(f"/no-such-path-{i}").status_code for i in range(4)]
    assert statuses == [404, 404, 404, 429]


def test_limits_count_per_endpoint(make_app, auth):
    """A token's allowance is per endpoint: listing does not use up reading one session."""
    client = limited_client(make_app)
    assert [client.get(URL, headers=auth).status_code for _ in range(4)][-1] == 429
    assert client.get("/api/templates", headers=auth).status_code == 200
    # Per operation, not per path: creates were refused once the list had spent its allowance.
    created = client.post(URL, headers=auth, json={
        "patient_id": "pat-1", "provider_id": "prov-1", "session_date": "2026-12-01T15:00:00Z"})
    assert created.status_code == 201


def test_signed_voice_messages_are_not_limited_per_address(make_app):
    """The voice platform posts every call's events from a few addresses; its HMAC, not the
    per-address limit, is what admits them. Everything else from that address still counts."""
    from tests.fakes.voice_platform import Call, body_of, sign

    client = limited_client(make_app, RATELIMIT_PER_IP="3 per minute",
                            VOICE_WEBHOOK_SECRET="limits-secret")
    statuses = []
    for index in range(6):
        body = body_of(Call(f"call-limit-{index}").status("in-progress", 0))
        statuses.append(client.post("/api/voice/webhook", data=body, headers={
            "Content-Type": "application/json",
            "service-voice-signature": sign("limits-secret", body)}).status_code)
    assert statuses == [200] * 6
    health = [client.get("/api/voice/webhook/health").status_code for _ in range(4)]
    assert health == [200, 200, 200, 429]


def test_voice_messages_with_a_wrong_signature_are_limited_per_address(make_app):
    # Guesses at the webhook's secret were never limited: 1,400 in 3 s all answered 401.
    from tests.fakes.voice_platform import Call, body_of, sign

    client = limited_client(make_app, RATELIMIT_PER_IP="3 per minute",
                            VOICE_WEBHOOK_SECRET="limits-secret")
    body = body_of(Call("call-guess").status("in-progress", 0))
    guesses = [client.post("/api/voice/webhook", data=body, headers={
        "Content-Type": "application/json",
        "service-voice-signature": sign("a-guess", body)}) for _ in range(5)]
    assert [g.status_code for g in guesses] == [401, 401, 401, 429, 429]
    assert int(guesses[-1].headers["Retry-After"]) >= 1
    # The platform's own signed messages still pass.
    signed = client.post("/api/voice/webhook", data=body, headers={
        "Content-Type": "application/json", "service-voice-signature": sign("limits-secret", body)})
    assert signed.status_code == 200
