"""JSON request bodies parsed as RFC 8259 has them.

Python's parser also takes NaN, Infinity and -Infinity, reads a number too large for a double
(1e400) as infinity, and raises a plain ValueError (not a decoding error) on an integer of more
than 4,300 digits. A non-finite number then reaches code that expects a number (``int(nan)``
raises), and the plain ValueError escapes the body parser: both answered 500. Here all of
them are decoding errors, which the API answers 400.

A ``\\uD83D`` escape with no partner decodes to a lone surrogate, a string no database driver
can encode (500 at the first write). The API refuses it as not Unicode (RFC 7493, I-JSON); the
voice webhook, whose events must not be lost for half an emoji, has it replaced by U+FFFD.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

# Far beyond any field's range, far below what Python refuses to convert.
MAX_INTEGER_DIGITS = 100
# Only an escape can make a surrogate (UTF-8 has none): a body without one is not walked.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
# After decoding, a valid pair is one astral character: any surrogate left is lone.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
REPLACEMENT = "\ufffd"


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


def _without_lone_surrogates(value: Any, replace: bool) -> Any:
    # The depth is bounded before parsing (web.content.MAX_JSON_DEPTH).
    if isinstance(value, str):
        if _LONE_SURROGATE.search(value) is None:
            return value
        if replace:
            return _LONE_SURROGATE.sub(REPLACEMENT, value)
        # A non-empty doc: webargs reads an error with an empty one as "no body".
        raise json.JSONDecodeError("A string holds a lone UTF-16 surrogate escape, which is "
                                   "not Unicode text", _LONE_SURROGATE.sub(REPLACEMENT, value), 0)
    if isinstance(value, dict):
        return {_without_lone_surrogates(key, replace): _without_lone_surrogates(item, replace)
                for key, item in value.items()}
    if isinstance(value, list):
        return [_without_lone_surrogates(item, replace) for item in value]
    return value


def _object_without_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) != len(pairs):
        # The key is not quoted: it may be anything a client sent (a card number).
        raise json.JSONDecodeError("A key appears twice in one object", "{", 0)
    return value


def loads(data: str | bytes, *, replace_lone_surrogates: bool = False) -> Any:
    """The JSON value in ``data``; any of the above raises ``json.JSONDecodeError`` (a lone
    surrogate too, unless ``replace_lone_surrogates``). So does a key twice in one object
    (RFC 8259 leaves its meaning open: the parser kept the last, while a check may have read
    the first), except where lone surrogates are replaced: a peer's events are kept."""
    if isinstance(data, bytes):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise json.JSONDecodeError(f"Bytes decoding error : {exc.reason}",
                                       doc=str(exc.object), pos=exc.start) from exc
    value = json.loads(data, parse_int=_integer, parse_float=_float, parse_constant=_constant,
                       object_pairs_hook=None if replace_lone_surrogates
                       else _object_without_duplicate_keys)
    if _SURROGATE_ESCAPE.search(data) is not None:
        value = _without_lone_surrogates(value, replace_lone_surrogates)
    return value
