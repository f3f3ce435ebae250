"""Raw card numbers (PANs) in request bodies: found before anything is stored or logged."""

from __future__ import annotations

import re
from collections.abc import Mapping

MIN_PAN_DIGITS, MAX_PAN_DIGITS = 13, 19
# Groups of digits parted by up to four characters that are neither letters nor digits: any
# space (tab, newline, no-break, thin, zero-width), dash, dot, slash or underscore, as people
# and forms write a card number ("4111 - 1111", "4111.1111", "4111\t1111"); not inside a
# longer number.
_DIGIT_RUN = re.compile(r"(?<!\d)\d+(?:[\W_]{1,4}\d+)*")
_SEPARATOR = re.compile(r"[\W_]+")


def luhn_valid(digits: str) -> bool:
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def contains_card_number(text: str) -> bool:
    """Whether whole groups of a digit run make 13-19 digits that pass Luhn. Digits written
    beside a card number (its expiry, its CVC, a house number) are groups of their own, so the
    number is found among them; a window that cuts a group is not tried, which keeps long
    references and phone numbers from passing by the one chance in ten Luhn leaves."""
    for match in _DIGIT_RUN.finditer(text):
        groups = _SEPARATOR.split(match.group())
        for start in range(len(groups)):
            digits = ""
            for group in groups[start:]:
                digits += group
                if len(digits) > MAX_PAN_DIGITS:
                    break
                if len(digits) >= MIN_PAN_DIGITS and luhn_valid(digits):
                    return True
    return False


def card_number_path(value: object, path: tuple[str, ...] = ()) -> tuple[str, ...] | None:
    """The keys (`("billing_details", "notes", "2")`, list items by their index) leading to the
    first card number in a decoded JSON body, or None; a key that holds one names the object
    it is in (`()` for the body itself)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int | float):
        value = str(value)
    if isinstance(value, str):
        return path if contains_card_number(value) else None
    if isinstance(value, Mapping):
        for key, item in value.items():
            if contains_card_number(str(key)):
                return path
            found = card_number_path(item, (*path, str(key)))
            if found is not None:
                return found
    if isinstance(value, list | tuple):
        for i, item in enumerate(value):
            found = card_number_path(item, (*path, str(i)))
            if found is not None:
                return found
    return None
