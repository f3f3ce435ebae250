"""Whole numbers read from loosely typed values: a model's reply, a voice assistant's function
arguments, a client's free-form context, a path into workflow state."""

from __future__ import annotations


def whole_number(value: object, *, max_digits: int = 9, signed: bool = True) -> int | None:
    """``value`` as an int: an int, a float with no fraction, or a string of ASCII digits (at
    most ``max_digits``, after a minus sign where ``signed``); None for anything else, booleans
    included. Not ``str.isdigit`` alone: it passes "²", which int() refuses, and int() refuses
    a string of more than 4,300 digits."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else None  # not inf or nan
    if isinstance(value, str):
        text = value.strip()
        digits = text[1:] if signed and text.startswith("-") else text
        if 0 < len(digits) <= max_digits and digits.isascii() and digits.isdigit():
            return int(text)
    return None
