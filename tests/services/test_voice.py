"""Voice intake's pure parts: screener bands, inbound signature checks, message shapes."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from services.voice import messages, screeners
from services.voice.verification import SignatureInvalid, verify

SECRET = "s3cret"


@pytest.mark.parametrize(("name", "total", "band"), [
    ("phq9", 0, "minimal"), ("phq9", 4, "minimal"), ("phq9", 5, "mild"), ("phq9", 9, "mild"),
    ("phq9", 10, "moderate"), ("phq9", 14, "moderate"), ("phq9", 15, "moderately_severe"),
    ("phq9", 19, "moderately_severe"), ("phq9", 20, "severe"), ("phq9", 27, "severe"),
    ("gad7", 4, "minimal"), ("gad7", 5, "mild"), ("gad7", 10, "moderate"),
    ("gad7", 15, "severe"), ("gad7", 21, "severe"),
    ("phq2", 2, "negative"), ("phq2", 3, "positive"), ("gad2", 6, "positive"),
])
def test_severity_bands(name, total, band):
    assert screeners.SCREENERS[name].severity(total) == band


def test_answers_are_checked():
    phq9 = screeners.get("PHQ-9")
    with pytest.raises(screeners.ScreenerError):
        screeners.answers_from_list(phq9, [0] * 8)
    with pytest.raises(screeners.ScreenerError):
        screeners.answers_from_list(phq9, [0] * 8 + [-1])
    with pytest.raises(screeners.ScreenerError):
        screeners.answers_from_list(phq9, [0] * 8 + [True])
    assert screeners.total(phq9, screeners.answers_from_list(phq9, [3] * 9)) == (27, "severe")


def _hex(payload: bytes) -> str:
    return hmac.new(SECRET.encode(), payload, hashlib.sha256).hexdigest()


def test_signature_of_body_and_of_timestamped_body():
    verify(SECRET, b'{"a":1}', _hex(b'{"a":1}'), None)
    verify(SECRET, b'{"a":1}', "sha256=" + _hex(b'{"a":1}').upper(), None)
    verify(SECRET, b"{}", _hex(b"1000.{}"), "1000", now=1000)
    stamp_ms = "1795000000000"
    verify(SECRET, b"{}", _hex(stamp_ms.encode() + b".{}"), stamp_ms, now=1_795_000_299)


@pytest.mark.parametrize(("signature", "timestamp", "now"), [
    (None, None, None), ("", None, None), ("abc", None, None),
    (_hex(b"1000.{}"), "1000", 1301), (_hex(b"1000.{}"), "1000", 699),
    (_hex(b"nan.{}"), "nan", 1000), (_hex(b"{}"), "1000", 1000),
])
def test_signature_refusals(signature, timestamp, now):
    with pytest.raises(SignatureInvalid):
        verify(SECRET, b"{}", signature, timestamp, now=now)


def test_tool_call_shapes():
    listed = {"toolCallList": [{"id": "a", "type": "function",
                                "function": {"name": "f", "arguments": '{"x": 1}'}}]}
    legacy = {"toolCalls": [{"id": "a", "name": "f", "parameters": {"x": 1}}]}
    nested = {"toolWithToolCallList": [{"type": "function", "function": {"name": "f"},
                                        "toolCall": {"id": "a", "function": {
                                            "name": "f", "parameters": {"x": 1}}}}]}
    for message in (listed, legacy, nested):
        assert messages.tool_calls(message) == [("a", "f", {"x": 1})]


def test_time_formats():
    assert messages.parse_time(1_795_000_000_000).year == 2026
    assert messages.parse_time("2026-11-23T10:00:00Z").hour == 10
    assert messages.parse_time("garbage") is None


def test_credentials_are_stripped_anywhere():
    payload = {"message": {"phoneNumber": {"number": "+1", "twilioAuthToken": "x"},
                           "call": {"phoneNumber": {"credentialId": "c", "number": "+1"}}}}
    stripped = messages.strip_credentials(payload)
    assert stripped == {"message": {"phoneNumber": {"number": "+1"},
                                    "call": {"phoneNumber": {"number": "+1"}}}}


@pytest.mark.parametrize("answer", ["\u00b2", "1" * 5000, "3.0.0"])
def test_an_answer_that_is_no_whole_number_is_for_the_assistant_to_correct(answer):
    with pytest.raises(screeners.ScreenerError):
        screeners.check_item(screeners.get("phq9"), 1, answer)
    assert screeners.check_item(screeners.get("phq9"), "1", " 2 ") == (1, 2)


def test_refusals_are_read_back_in_plain_words():
    # "unknown screener None" (arguments that were no JSON object); "items 9 are not answered".
    with pytest.raises(screeners.ScreenerError, match=r"^no screener named; use one of"):
        screeners.get(None)
    phq9 = screeners.get("phq9")
    with pytest.raises(screeners.ScreenerError, match=r"item 9 is not answered$"):
        screeners.total(phq9, {i: 0 for i in range(1, 9)})
    with pytest.raises(screeners.ScreenerError, match=r"items 8, 9 are not answered$"):
        screeners.total(phq9, {i: 0 for i in range(1, 8)})
