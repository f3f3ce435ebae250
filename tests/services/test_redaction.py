import time

import pytest

from services.analysis.redaction import (
    PLACEHOLDERS,
    redact_identifiers,
    redact_inputs,
    redact_structure,
)

# Generous bound: the patterns take well under 0.2 s here; this guards against accidental
# quadratic backtracking, which would take tens of seconds.
MAX_SECONDS_FOR_200K = 2.0
LARGE_TEXT_CHARS = 200_000


@pytest.mark.parametrize(
    "phone",
    [
        "(555) 123-4567",
        "555-123-4567",
        "555.123.4567",
        "1-555-123-4567",
        "+1 555 123 4567",
        "+1 (555) 123-4567",
        "+44 20 7946 0958",
        "5551234567",
    ],
)
def test_phone_numbers_are_redacted(phone):
    text, counts = redact_identifiers(f"You can reach me on {phone} after work.")
    assert text == "You can reach me on [PHONE] after work."
    assert counts["phone"] == 1


@pytest.mark.parametrize(
    "email", ["jane.doe@example.com", "j_d+clinic@mail.example.co.uk", "A.B-C@sub.clinic.org"]
)
def test_emails_are_redacted(email):
    text, counts = redact_identifiers(f"Email {email}.")
    assert text == "Email [EMAIL]."
    assert counts["email"] == 1


@pytest.mark.parametrize(
    "address",
    [
        "1234 Elm Street",
        "55 W. 3rd Ave Apt 4B",
        "12 Oak Rd",
        "9 North Maple Hill Drive",
        "400 Broad St, Suite 210",
    ],
)
def test_street_addresses_are_redacted(address):
    text, counts = redact_identifiers(f"She moved to {address} last month.")
    assert text == "She moved to [ADDRESS] last month."
    assert counts["address"] == 1


@pytest.mark.parametrize(("said", "sent"), [
    # The city, state and ZIP after a comma stayed in the text ("[ADDRESS], Springfield, IL
    # 62704"), and a full word's full stop went into the placeholder.
    ("I live at 123 Main St, Springfield, IL 62704 now.", "I live at [ADDRESS] now."),
    ("My address is 4567 Oak Avenue Apt 5, Portland, OR 97201.", "My address is [ADDRESS]."),
    ("We moved to 12 Elm Road, New York, NY 10001-1234 in May.", "We moved to [ADDRESS] in May."),
    ("123 Main Street. Also 77 Elm Rd.", "[ADDRESS]. Also [ADDRESS]"),
])
def test_an_address_goes_with_its_city_state_and_zip(said, sent):
    assert redact_identifiers(said)[0] == sent


def test_context_keys_that_hold_contact_details_or_a_persons_name_are_dropped():
    """Only exact key names were dropped: `patient_phone`, `zip`, `client` reached the model."""
    context = {"patient_phone": "555-0134", "patient_email": "jane dot doe at example",
               "patient_full_name": "Jane Roe", "client": "Jane Roe", "cell": "555 0134",
               "zip": "62704", "zip_code": "62704", "postal_code": "62704", "city": "Springfield",
               "street": "Elm", "emergencyContactName": "Bo Roe", "homeCity": "Springfield",
               "patient": {"name": "Jane Roe", "age": 40},
               "medication_name": "sertraline", "diagnosis": "F41.1", "prior_sessions": 3}
    _, kept, _, _ = redact_inputs("Patient: fine.", context, None)
    assert kept == {"patient": {"age": 40}, "medication_name": "sertraline",
                    "diagnosis": "F41.1", "prior_sessions": 3}


@pytest.mark.parametrize(
    ("phrase", "value"),
    [
        ("DOB 04/12/1987", "04/12/1987"),
        ("date of birth: March 3, 1990", "March 3, 1990"),
        ("born on 1/2/85", "1/2/85"),
        ("D.O.B.: 1987-04-12", "1987-04-12"),
        ("birthdate is 3rd of March 1990", "March 1990"),
    ],
)
def test_dates_of_birth_are_redacted(phrase, value):
    text, counts = redact_identifiers(f"Intake: {phrase}. Presenting with low mood.")
    assert text == "Intake: [DOB]. Presenting with low mood."
    assert value not in text
    assert counts["dob"] == 1


@pytest.mark.parametrize(
    "phrase",
    [
        "MRN 00123456",
        "MRN: 00123456",
        "medical record number: A-99812",
        "patient ID 44521",
        "SSN 123-45-6789",
        "social security number 123456789",
        "123-45-6789",
        # as speech-to-text writes a number said aloud, and the everyday label
        "123 45 6789",
        "social is 123 45 6789",
        "social 123456789",
    ],
)
def test_record_numbers_and_ssn_are_redacted(phrase):
    text, counts = redact_identifiers(f"Chart note ({phrase}) reviewed.")
    assert text == "Chart note ([RECORD_NUMBER]) reviewed."
    assert counts["record_number"] == 1


@pytest.mark.parametrize(
    "clinical_text",
    [
        "PHQ-9 score 14 today, GAD-7 of 12.",
        "Sertraline 50 mg daily, increased to 100 mg.",
        "Symptoms for 3 weeks; sleeps 5 hours a night.",
        "Session at 3:30 next Tuesday.",
        "On March 3 we met for the first time.",
        "Her mother was born in Ohio.",
        "BP 120/80, HR 72, weight 81.5 kg.",
        "She walked 3 blocks down the street.",
        "The patient ID card was lost.",
        "Patient no longer attends group.",
        "Mood went from 4 to 7 out of 10, up +3 overall.",
        "Started 2019-03-04 and stopped 04/12/2020.",
        "Scores 123 45 67 then 12 45 6789 and 123-45 6789.",
        "She is a social worker with 123 clients, 45 of them new.",
    ],
)
def test_clinical_content_is_left_alone(clinical_text):
    text, counts = redact_identifiers(clinical_text)
    assert text == clinical_text
    assert sum(counts.values()) == 0


def test_ordinary_dates_survive_next_to_a_birth_date():
    text, _ = redact_identifiers("DOB 04/12/1987. On March 3 we met; next visit 05/01/2025.")
    assert text == "[DOB]. On March 3 we met; next visit 05/01/2025."


def test_counts_report_every_kind_even_when_zero():
    _, counts = redact_identifiers("nothing to see")
    assert counts == dict.fromkeys(PLACEHOLDERS, 0)


def test_mixed_transcript_counts_each_kind():
    transcript = (
        "Therapist: Can I confirm your details? Client: Sure, DOB 04/12/1987, MRN 00123456, "
        "I live at 1234 Elm Street, phone (555) 123-4567 or +44 20 7946 0958, "
        "email jane.doe@example.com. My PHQ-9 score was 14."
    )
    text, counts = redact_identifiers(transcript)
    assert counts == {"phone": 2, "email": 1, "address": 1, "dob": 1, "record_number": 1}
    for secret in ("04/12/1987", "00123456", "1234 Elm", "123-4567", "7946", "jane.doe"):
        assert secret not in text
    assert "PHQ-9 score was 14" in text


def test_labelled_number_counts_as_record_not_phone():
    text, counts = redact_identifiers("patient ID 5551234567")
    assert text == "[RECORD_NUMBER]"
    assert counts["record_number"] == 1
    assert counts["phone"] == 0


def test_redact_structure_walks_nested_values_and_sums_counts():
    value = {
        "notes": ["call 555-123-4567", {"contact": "jane@example.com"}],
        "score": 14,
        "flag": True,
    }
    redacted, counts = redact_structure(value)
    assert redacted == {
        "notes": ["call [PHONE]", {"contact": "[EMAIL]"}],
        "score": 14,
        "flag": True,
    }
    assert counts["phone"] == 1
    assert counts["email"] == 1


@pytest.mark.parametrize(
    "unit",
    [
        "Client reports PHQ-9 score 14 and 50 mg sertraline at 3:30. Call (555) 123-4567, "
        "jane@example.com, 12 Oak Rd, DOB 04/12/1987, MRN 00123456. ",
        "a.",
        "a@",
        "1 A ",
        "12 ",
        "+1 ",
    ],
    ids=["realistic", "dotted-run", "at-run", "digit-word-run", "digit-run", "plus-run"],
)
def test_large_inputs_are_fast(unit):
    text = (unit * (LARGE_TEXT_CHARS // len(unit) + 1))[:LARGE_TEXT_CHARS]
    started = time.perf_counter()
    redact_identifiers(text)
    assert time.perf_counter() - started < MAX_SECONDS_FOR_200K


@pytest.mark.parametrize("text, kind, placeholder_text", [
    ("Call me on 07700 900123 tonight.", "phone", "Call me on [PHONE] tonight."),
    ("reach me at 020 7946 0958", "phone", "reach me at [PHONE]"),
    ("Send it to PO Box 1234, Austin TX.", "address", "Send it to [ADDRESS], Austin TX."),
    ("I live at 1234 Elm Street, Portland OR 97201 now.", "address", "I live at [ADDRESS] now."),
    ("Email jane at example dot com please", "email", "Email [EMAIL] please"),
])
def test_identifiers_the_patterns_missed_are_redacted(text, kind, placeholder_text):
    """A UK mobile, a PO box, the ZIP after a street, an address said aloud were sent to the
    model as they were."""
    redacted, counts = redact_identifiers(text)
    assert redacted == placeholder_text and counts[kind] == 1
