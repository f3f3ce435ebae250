"""Raw card numbers found anywhere in a body: 13-19 digits passing Luhn."""

import pytest

from services.billing.cards import card_number_path, contains_card_number, luhn_valid


@pytest.mark.parametrize("text", [
    "4242424242424242", "4242 4242 4242 4242", "4242-4242-4242-4242",
    "card: 5555555555554444 exp 12/30", "378282246310005", "6011111111111117",
    "4000 0566 5566 5556",
    # Digits glued to an identifier still look like a card to a careful filter.
    "pm_1NvX4242424242424242",
    # Digits beside the number, and separators of more than one character: all were taken.
    "card 4111 1111 1111 1111 12 28", "4111111111111111 123", "12 4111111111111111",
    "4111 - 1111 - 1111 - 1111", "4111  1111  1111  1111", "exp 12-28 4242424242424242",
    # Other spaces and punctuation between the groups: all were stored.
    "4111\t1111\t1111\t1111", "4111\n1111\n1111\n1111", "4111\u00a01111\u00a01111\u00a01111",
    "4111    1111    1111    1111", "4111.1111.1111.1111", "4111_1111_1111_1111",
    "4111\u20091111\u20091111\u20091111", "4111\u200b1111\u200b1111\u200b1111",
    "4111\u20141111\u20141111\u20141111", "4111/1111/1111/1111", "4111 -- 1111 -- 1111 -- 1111",
])
def test_card_numbers_are_found(text):
    assert contains_card_number(text)


@pytest.mark.parametrize("text", [
    "4242424242424241",  # fails Luhn
    "123456789012",  # 12 digits
    "call +1 555 010 0199", "2026-11-23", "42424242424242424242424",  # too long
    "ref 7001 0002 0003 0004 0005 0006",  # no window of whole groups passes Luhn
])
def test_other_digit_runs_are_not_card_numbers(text):
    assert not contains_card_number(text)


def test_the_path_of_a_nested_card_number_is_named():
    body = {"billing_details": {"notes": ["ok", {"x": "4242 4242 4242 4242"}]}}
    assert card_number_path(body) == ("billing_details", "notes", "1", "x")
    assert card_number_path({"n": 4242424242424242}) == ("n",)
    assert card_number_path({"4242424242424242": "key"}) == ()
    assert card_number_path({"ok": "pm_card_visa", "flag": True}) is None


def test_luhn():
    assert luhn_valid("79927398713") and not luhn_valid("79927398710")
