"""JSON request bodies parsed as RFC 8259 has them.

Python's parser also takes NaN, Infinity and -Infinity, reads a number too large for a double
(1e400) as infinity, and raises a plain ValueError (not a decoding error) on an integer of more
than 4,300 digits. A non-finite number then reaches code that expects a number (``int(nan)``
raises), and the plain ValueError escapes the body parser: both answered 500. Here all of
them are decoding errors, which the API answers 400.
"""

from __future__ import annotations

import json
import math
from typing import Any

# Far beyond any field's range, far below what Python refuses to convert.
MAX_INTEGER_DIGITS = 100


def _refused(what: str, doc: str) -> json.JSONDecodeError:
    return json.JSONDecodeError(f"{what} is not a JSON number this API takes", doc[:40], 0)


def _constant(name: str) -> Any:
    raise _refused(name, name)


def _integer(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INTEGER_DIGITS:
        raise _refused("An integer of more than 100 digits", text)
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _refused("A number beyond a double's range", text)
    return value


def loads(data: str | bytes) -> Any:
    """The JSON value in ``data``; any of the above raises ``json.JSONDecodeError``."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise json.JSONDecodeError(f"Bytes decoding error : {exc.reason}",
                                       doc=str(exc.object), pos=exc.start) from exc
    return json.loads(data, parse_int=_integer, parse_float=_float, parse_constant=_constant)
