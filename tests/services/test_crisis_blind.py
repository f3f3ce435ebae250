"""Crisis detection measured on statements written apart from the detector (docs/safety-floor.md).

Only the tuning half was looked at while the detector was changed; the held-out half is
measured here and nowhere read. Run with ``-s`` to see the figures. Measured twice: the
detector alone, and through ``POST /api/therapy/analyze-session`` with the hosted path on a
model server (real ``openai`` client, 127.0.0.1) that rates every statement "low", as in the
issue.
"""

from __future__ import annotations

import time

from services.analysis.crisis.phrases import detect_phrases
from tests.conftest import bearer
from tests.services.crisis_blind import (
    BLIND_SETS,
    HELD_OUT,
    READ_SETS,
    TUNING,
    load_statements,
    measure,
    measure_detector,
    split_blind_set,
    split_one_set,
)

ANALYZE_URL = "/api/therapy/analyze-session"

# The recall goal is NOT met on the held-out halves. These floors guard the measured figures
# (2298/2661 recall, 105/1519 false alarms over the forty sets' held-out halves) against
# regression; they are not the goals.
MEASURED_MIN_RECALL = 0.86
MEASURED_MAX_FALSE_ALARMS = 0.08
# Writer 26's set, read in full (95/150 when it was added, 108/150 now): the same guard.
READ_MIN_RECALL = 0.7


def _figures(half: str):
    return measure_detector(split_blind_set()[half])


def test_split_is_stable_and_covers_every_kind():
    halves = split_blind_set()
    tuning_ids = {s["id"] for s in halves[TUNING]}
    held_ids = {s["id"] for s in halves[HELD_OUT]}
    assert not tuning_ids & held_ids
    assert {s["kind"] for s in halves[TUNING]} == {s["kind"] for s in halves[HELD_OUT]}
    for path in BLIND_SETS:
        # Within a set, a kind with an odd count gives its one extra statement to a half.
        one = split_one_set(path)
        assert abs(len(one[TUNING]) - len(one[HELD_OUT])) <= len({s["kind"] for s in one[TUNING]})
    assert split_blind_set()[HELD_OUT] == halves[HELD_OUT]


def test_blind_set_figures():
    tuning, held_out = _figures(TUNING), _figures(HELD_OUT)
    print(f"\ntuning half:   {tuning.line()}\nheld-out half: {held_out.line()}")
    assert held_out.recall >= MEASURED_MIN_RECALL
    assert held_out.false_alarm_rate <= MEASURED_MAX_FALSE_ALARMS


def test_sets_read_in_full_are_reported_apart():
    """A set read in full while tuning measures nothing about generalising: it is kept out of
    both halves and its figures are printed on their own."""
    halves = split_blind_set()
    blind_ids = {s["id"] for s in halves[TUNING] + halves[HELD_OUT]}
    assert READ_SETS
    for path in READ_SETS:
        statements = load_statements(path)
        assert not blind_ids & {s["id"] for s in statements}
        figures = measure_detector(statements)
        print(f"\nread in full, {path.name}: {figures.line()}")
        assert figures.recall >= READ_MIN_RECALL


def test_concept_reading_catches_more_than_the_phrases_alone_on_the_held_out_half():
    statements = split_blind_set()[HELD_OUT]
    phrases = measure(statements, [detect_phrases(f"Patient: {s['text']}").level or "low"
                                   for s in statements])
    combined = _figures(HELD_OUT)
    print(f"\nheld-out, phrases only: {phrases.line()}")
    assert combined.caught >= 2 * phrases.caught


def _endpoint_figures(client, headers, half: str):
    statements = split_blind_set()[half]
    levels = []
    for statement in statements:
        response = client.post(ANALYZE_URL, headers=headers, json={
            "session_transcript": f"Patient: {statement['text']}"})
        assert response.status_code == 200, (statement["id"], response.json)
        assert response.json["provider"] == "openai", (statement["id"], response.json)
        levels.append(response.json["riskAssessment"]["level"])
    return measure(statements, levels)


def test_blind_set_through_the_endpoint_with_a_model_answering_low(make_app, fake_openai,
                                                                     make_token, org):
    """Every statement of both halves, one request each, over one app and one model server."""
    assert fake_openai.default.content is not None and '"level": "low"' in \
        fake_openai.default.content
    # Over five thousand requests in one process that also runs both language models: a
    # model server thread starved for seconds must not turn the provider into the fallback.
    app = make_app(OPENAI_API_KEY="sk-test-key", OPENAI_BASE_URL=fake_openai.base_url,
                   OPENAI_TIMEOUT_S=30.0, RATELIMIT_ENABLED=False)
    client, headers = app.test_client(), bearer(make_token(org, "analysis:run"))
    started = time.perf_counter()
    held_out = _endpoint_figures(client, headers, HELD_OUT)
    tuning = _endpoint_figures(client, headers, TUNING)
    print(f"\nthrough the endpoint ({time.perf_counter() - started:.1f} s)\n"
          f"tuning half:   {tuning.line()}\nheld-out half: {held_out.line()}")
    assert held_out == _figures(HELD_OUT) and tuning == _figures(TUNING)
    assert held_out.recall >= MEASURED_MIN_RECALL
    assert held_out.false_alarm_rate <= MEASURED_MAX_FALSE_ALARMS
