"""Identifier redaction for text that is about to leave the service.

Transcripts and clinical context are sent to a hosted model. Before that happens, direct
identifiers are replaced with fixed placeholders so that the model still sees *that* a phone
number or date of birth was mentioned, but never the value itself.

Placeholders (and the count keys returned alongside the text):

=================  ===================  ==================================================
kind (count key)   placeholder          examples
=================  ===================  ==================================================
``dob``            ``[DOB]``            "DOB 04/12/1987", "date of birth: March 3, 1990",
                                        "born on 1/2/85"
``record_number``  ``[RECORD_NUMBER]``  "MRN 00123456", "patient ID 44521",
                                        "SSN 123-45-6789", a bare "123-45-6789"
                                        or "123 45 6789", "my social is …"
``email``          ``[EMAIL]``          "jane.doe@example.com", "jane at example dot com"
``phone``          ``[PHONE]``          "(555) 123-4567", "+44 20 7946 0958", "07700 900123"
``address``        ``[ADDRESS]``        "1234 Elm Street", "55 W. 3rd Ave Apt 4B",
                                        "PO Box 1234", with a following
                                        ", Portland OR 97201"
=================  ===================  ==================================================

Social security numbers are counted and labelled as record numbers: downstream consumers only
need to know an identifier was removed, and one placeholder for every "number that identifies
a person" keeps the prompt vocabulary small.

For labelled kinds (DOB, record numbers) the whole phrase, label included, becomes the
placeholder, so "DOB 04/12/1987" turns into "[DOB]".

What is deliberately *not* redacted: ordinary dates ("next Tuesday", "on March 3 we met"),
screener scores ("PHQ-9 score 14"), doses ("50 mg"), durations and clock times ("at 3:30").
A date is only treated as a date of birth when a birth label sits right before it.

Street addresses are recognised by a house number, one to four capitalised (or ordinal) name
words and a street-type suffix. A fully lower-cased address ("12 oak road") is not caught: the
looser pattern needed for that also swallows everyday phrases such as "3 blocks down the
street".
"""

from __future__ import annotations

import re

PHONE = "phone"
EMAIL = "email"
ADDRESS = "address"
DOB = "dob"
RECORD_NUMBER = "record_number"

PLACEHOLDERS: dict[str, str] = {
    PHONE: "[PHONE]",
    EMAIL: "[EMAIL]",
    ADDRESS: "[ADDRESS]",
    DOB: "[DOB]",
    RECORD_NUMBER: "[RECORD_NUMBER]",
}

_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?"
    r"|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
_DATE_VALUE = (
    r"(?:"
    r"\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}"  # 04/12/1987, 1-2-85, 12.04.1987
    r"|\d{4}-\d{1,2}-\d{1,2}"  # 1987-04-12
    rf"|{_MONTHS}\s+{_DAY}(?:,?\s+\d{{4}})?"  # March 3, 1990 / March 3
    rf"|{_DAY}\s+(?:of\s+)?{_MONTHS}(?:,?\s+\d{{4}})?"  # 3 March 1990 / 3rd of March
    r")"
)
_DOB_LABEL = r"(?:d\.?o\.?b\.?|date\s+of\s+birth|birth\s*date|birthday|born(?:\s+on)?)"
_DOB_RE = re.compile(
    rf"\b{_DOB_LABEL}\s*(?:(?:is|was)\s+)?[:=-]?\s*(?:on\s+)?{_DATE_VALUE}\b",
    re.IGNORECASE,
)

_RECORD_LABEL = (
    r"(?:mrn|medical\s+record\s+(?:number|no\.?|num\.?|\#)?"
    r"|(?:patient|client|chart|member|insurance|record)\s+(?:id|number|no\.?|num\.?|\#)"
    r"|policy\s+(?:number|no\.?|\#))"
)
# A record value must contain at least one digit, so "patient ID card" is left alone.
_RECORD_VALUE = r"(?=[A-Za-z0-9-]*\d)[A-Za-z0-9][A-Za-z0-9-]{2,}"
_LABEL_JOIN = r"\s*(?:(?:is|was)\s+)?[:=\#-]?\s*"
_RECORD_RE = re.compile(rf"\b{_RECORD_LABEL}{_LABEL_JOIN}{_RECORD_VALUE}", re.IGNORECASE)

_SSN_LABEL = r"(?:ssn|social(?:\s+security)?(?:\s+(?:number|no\.?|\#))?)"
# With a label any separator (or none) is accepted; without one only the 3-2-4 form with one
# separator throughout (dashes, or spaces as speech-to-text writes a number said aloud) is
# distinctive enough to redact.
_LABELLED_SSN_RE = re.compile(
    rf"\b{_SSN_LABEL}{_LABEL_JOIN}\d{{3}}[- ]?\d{{2}}[- ]?\d{{4}}(?!\d)", re.IGNORECASE
)
_BARE_SSN_RE = re.compile(r"(?<![\d-])\d{3}([- ])\d{2}\1\d{4}(?![\d-])")

# Length bounds follow RFC 5321 (64-char local part, 63-char labels); they also keep the scan
# linear on long runs such as "a.a.a.a..." that would otherwise backtrack quadratically.
_EMAIL_RE = re.compile(r"\b[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9-]{1,63}\.){1,8}[A-Za-z]{2,63}\b")

_MIN_INTL_PHONE_DIGITS = 8
_PHONE_RE = re.compile(
    r"(?<![\w+])(?:"
    # International: +CC then digit groups, e.g. +44 20 7946 0958, +1 (555) 123 4567. The
    # lookahead demands enough digits that "+2 3" in a score change is not taken for a phone.
    rf"\+(?=(?:[\s.()-]{{0,2}}\d){{{_MIN_INTL_PHONE_DIGITS}}})"
    r"\d{1,3}(?:[\s.-]?\(\d{1,4}\))?(?:[\s.-]?\d{1,4}){2,5}"
    # North American: (555) 123-4567, 555-123-4567, 555.123.4567, 1-555-123-4567.
    r"|(?:1[\s.-])?(?:\(\d{3}\)\s?|\d{3}[\s.-])\d{3}[\s.-]\d{4}"
    # A national number with its trunk 0, as in the UK, Ireland, Australia: 07700 900123,
    # 020 7946 0958, 0412 345 678.
    r"|0\d{2,4}(?:[\s.-]?\d{3,4}){2}"
    # Ten digits run together, e.g. 5551234567.
    r"|\d{10}"
    r")(?![\w-])"
)

# A full word takes no full stop (the one after it ends the sentence); an abbreviation may.
_STREET_SUFFIX = (
    r"(?:(?:street|avenue|road|boulevard|lane|drive|court|way|place|terrace|circle|parkway"
    r"|highway|square|trail)\b"
    r"|(?:st|ave|rd|blvd|ln|dr|ct|pl|ter|cir|pkwy|hwy|sq|trl)\b\.?)"
)
_UNIT = r"(?:,?\s+(?:apt|apartment|suite|ste|unit|\#)\.?\s*\#?[A-Za-z0-9-]+)"
# What may follow a street or a PO box: ", Portland OR 97201", "Springfield, IL 62704",
# "New York, NY 10001-1234": one to three capitalised words, a comma or not, the state, the ZIP.
_CITY_ZIP = (r"(?:,?\s+[A-Z][A-Za-z'-]{1,30}(?:\s+[A-Z][A-Za-z'-]{1,30}){0,2},?\s+"
             r"[A-Z]{2}\.?,?\s+\d{5}(?:-\d{4})?(?!\d))")
_PO_BOX_RE = re.compile(rf"\bP\.?\s?O\.?\s*Box\s+\d{{1,7}}\b{_CITY_ZIP}?", re.IGNORECASE)
# An e-mail address said aloud, as speech-to-text writes it: "jane at example dot com".
_SPOKEN_EMAIL_RE = re.compile(
    r"\b[A-Za-z0-9._%+-]{1,64}\s+at\s+(?:[A-Za-z0-9-]{1,63}\s+dot\s+){1,4}"
    r"(?:com|org|net|edu|gov|io|co|uk|us|ca|au|nz|ie|info|me|de|fr|nl)\b", re.IGNORECASE)
_ADDRESS_RE = re.compile(
    r"\b\d{1,6}[A-Za-z]?\s+"
    r"(?:(?:[NSEW]|North|South|East|West)\.?\s+)?"
    # Name words are capitalised or ordinals ("Elm", "Oak Hill", "3rd"), and so is the suffix
    # ("Street", "ST", "Rd"): lower-case "way" or "court" are everyday words.
    r"(?:(?:[A-Z][A-Za-z'-]{0,30}|\d{1,4}(?:st|nd|rd|th))\s+){1,4}"
    rf"(?=[A-Z])(?i:{_STREET_SUFFIX})"
    rf"(?i:{_UNIT})?"
    rf"{_CITY_ZIP}?"
)

# Cheap necessary conditions, one per pass: when a guard finds nothing, its pattern cannot
# match either, so the pass is skipped. Each guard is a flat alternation of literals or starts
# with a plain character class, the forms the regex engine can skip ahead on instead of trying
# every position (the full patterns start with look-behinds or \b, which it cannot). Guards
# marked `lower` run on the lower-cased text.
_DOB_GUARD = re.compile(r"birth|born|dob|d\.ob|do\.b|d\.o\.b")
_RECORD_LABEL_WORDS = ("patient", "client", "chart", "member", "insurance", "record")
_RECORD_GUARD = re.compile("|".join((
    "mrn", r"medical\s+record", r"policy\s+(?:n|\#)",
    *(rf"{word}\s+(?:id|n|\#)" for word in _RECORD_LABEL_WORDS))))
_SSN_LABEL_GUARD = re.compile(r"ssn|social")
_SSN_SHAPE_GUARD = re.compile(r"[0-9][0-9][0-9][- ][0-9][0-9][- ][0-9]{4}")
_EMAIL_GUARD = re.compile(r"@")
_SPOKEN_EMAIL_GUARD = re.compile(r" dot ")
_PO_BOX_GUARD = re.compile(r"box")
# Every phone form has at least _MIN_INTL_PHONE_DIGITS digits, at most 3 characters apart.
_PHONE_GUARD = re.compile(rf"[0-9](?:[^0-9]{{0,3}}[0-9]){{{_MIN_INTL_PHONE_DIGITS - 1}}}")
# A house number, then a capitalised (or ordinal) word.
_ADDRESS_GUARD = re.compile(r"[0-9][A-Za-z]?\s+[A-Z0-9]")

# Order matters: labelled patterns run first so that, e.g., "patient ID 5551234567" is counted as
# a record number rather than a phone number, and emails go before phones because an email's
# local part may contain digit runs. Placeholders contain no digits, so later passes never
# re-match an earlier placeholder.
_PASSES: tuple[tuple[str, re.Pattern[str], re.Pattern[str], bool], ...] = (
    # (kind, pattern, guard, guard runs on lower-cased text)
    (DOB, _DOB_RE, _DOB_GUARD, True),
    (RECORD_NUMBER, _RECORD_RE, _RECORD_GUARD, True),
    (RECORD_NUMBER, _LABELLED_SSN_RE, _SSN_LABEL_GUARD, True),
    (RECORD_NUMBER, _BARE_SSN_RE, _SSN_SHAPE_GUARD, False),
    (EMAIL, _EMAIL_RE, _EMAIL_GUARD, False),
    (EMAIL, _SPOKEN_EMAIL_RE, _SPOKEN_EMAIL_GUARD, True),
    (PHONE, _PHONE_RE, _PHONE_GUARD, False),
    (ADDRESS, _ADDRESS_RE, _ADDRESS_GUARD, False),
    (ADDRESS, _PO_BOX_RE, _PO_BOX_GUARD, True),
)


def redact_identifiers(text: str) -> tuple[str, dict[str, int]]:
    """Replace identifiers with placeholders before text leaves the service; returns the redacted
    text and counts per kind.

    The counts dict always contains every kind in ``PLACEHOLDERS`` (zero when nothing was
    found), so callers can report it without key checks.
    """
    counts = dict.fromkeys(PLACEHOLDERS, 0)
    # Lower-cased once: placeholders contain no digits and no label word of a later pass, so a
    # guard that fails on the original text also fails after earlier replacements.
    lower = text.lower()
    for kind, pattern, guard, on_lower in _PASSES:
        if not guard.search(lower if on_lower else text):
            continue
        text, found = pattern.subn(PLACEHOLDERS[kind], text)
        counts[kind] += found
    return text, counts


def redact_structure(value: object) -> tuple[object, dict[str, int]]:
    """Redact every string inside a JSON-like value (dicts, lists, scalars).

    Returns the redacted copy and the per-kind counts summed over all strings. Keys are kept as
    they are; non-string scalars are returned unchanged.
    """
    counts = dict.fromkeys(PLACEHOLDERS, 0)

    def walk(item: object) -> object:
        if isinstance(item, str):
            redacted, found = redact_identifiers(item)
            for kind, number in found.items():
                counts[kind] += number
            return redacted
        if isinstance(item, dict):
            return {key: walk(child) for key, child in item.items()}
        if isinstance(item, list | tuple):
            return [walk(child) for child in item]
        return item

    return walk(value), counts


# Context keys (compared lower-case with separators removed) whose values are identifiers.
# They are dropped outright: redacting a bare name is not possible with patterns.
IDENTIFIER_KEYS = frozenset(
    {
        "name",
        "patientname",
        "clientname",
        "firstname",
        "lastname",
        "middlename",
        "fullname",
        "preferredname",
        "guardianname",
        "emergencycontact",
        "phone",
        "phonenumber",
        "mobile",
        "telephone",
        "email",
        "emailaddress",
        "address",
        "streetaddress",
        "homeaddress",
        "dob",
        "dateofbirth",
        "birthdate",
        "birthday",
        "mrn",
        "medicalrecordnumber",
        "patientid",
        "clientid",
        "ssn",
        "socialsecuritynumber",
        "insuranceid",
        "memberid",
    }
)
_KEY_SEPARATORS = re.compile(r"[\s_\-.]+")
_KEY_WORDS = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+")
# A key with one of these words holds contact or location details, whatever else it says
# ("patient_phone", "cellNumber", "zip_code", "home_city").
CONTACT_WORDS = frozenset({
    "phone", "phones", "telephone", "tel", "mobile", "cell", "cellphone", "fax", "email",
    "emails", "address", "addresses", "street", "city", "town", "zip", "zipcode", "postal",
    "postcode", "dob", "birth", "birthdate", "birthday", "mrn", "ssn"})
# A name is dropped when every other word of its key is about a person ("patient_full_name",
# "emergencyContactName"), not when it names a thing ("medication_name").
PERSON_WORDS = frozenset({
    "patient", "client", "caller", "first", "last", "middle", "full", "given", "family",
    "preferred", "legal", "maiden", "nick", "sur", "guardian", "parent", "mother", "father",
    "spouse", "partner", "contact", "emergency", "next", "of", "kin", "user", "person"})
# Keys that are a person when their value is text: `"client": "Jane Roe"`. As an object
# (`"patient": {"name": …}`) they are walked and their own identifier keys dropped.
PERSON_KEYS = frozenset({"patient", "client", "caller", "guardian", "parent", "spouse",
                         "partner", "contact", "emergencycontact", "nextofkin", "person"})


def _is_identifier_key(key: object, value: object = None) -> bool:
    if not isinstance(key, str):
        return False
    joined = _KEY_SEPARATORS.sub("", key).lower()
    if joined in IDENTIFIER_KEYS or (joined in PERSON_KEYS and isinstance(value, str)):
        return True
    words = {word.lower() for word in _KEY_WORDS.findall(key)}
    if words & CONTACT_WORDS:
        return True
    named = words & {"name", "names", "surname", "firstname", "lastname", "fullname"}
    return bool(named) and words - named <= PERSON_WORDS


def _drop_identifier_keys(value: object) -> object:
    if isinstance(value, dict):
        return {
            key: _drop_identifier_keys(item)
            for key, item in value.items()
            if not _is_identifier_key(key, item)
        }
    if isinstance(value, list | tuple):
        return [_drop_identifier_keys(item) for item in value]
    return value


def _add_counts(total: dict[str, int], more: dict[str, int]) -> None:
    for kind, number in more.items():
        total[kind] = total.get(kind, 0) + number


def redact_inputs(
    transcript: str, clinical_context: dict | None, vital_signs: dict | None
) -> tuple[str, dict | None, dict | None, dict[str, int]]:
    """The transcript redacted, and the context and vital signs without identifier keys and
    with identifiers redacted in their values; plus the counts of what was replaced."""
    transcript, counts = redact_identifiers(transcript)
    cleaned: list[dict | None] = []
    for extra in (clinical_context, vital_signs):
        if extra is None:
            cleaned.append(None)
            continue
        redacted, found = redact_structure(_drop_identifier_keys(extra))
        _add_counts(counts, found)
        # A dict always comes back as a dict; anything else is dropped rather than sent as-is.
        cleaned.append(redacted if isinstance(redacted, dict) else None)
    return transcript, cleaned[0], cleaned[1], counts
