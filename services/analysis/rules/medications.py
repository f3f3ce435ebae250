"""Psychiatric medications by generic or brand name, with dose, changes, side effects and
adherence problems."""

from __future__ import annotations

import re
from dataclasses import dataclass

from services.analysis.rules.document import (
    ALL_ROLES,
    CLINICIAN_SIDE,
    PATIENT_SIDE,
    Document,
    Sentence,
    anchor_words,
)
from services.analysis.transcript import is_negated

# ---------------------------------------------------------------------------------------------
# Medications
# ---------------------------------------------------------------------------------------------

# Generic name -> brand names and other spellings.
_MEDICATIONS: dict[str, tuple[str, ...]] = {
    "sertraline": ("Zoloft",),
    "fluoxetine": ("Prozac",),
    "escitalopram": ("Lexapro",),
    "citalopram": ("Celexa",),
    "paroxetine": ("Paxil",),
    "fluvoxamine": ("Luvox",),
    "bupropion": ("Wellbutrin",),
    "venlafaxine": ("Effexor",),
    "desvenlafaxine": ("Pristiq",),
    "duloxetine": ("Cymbalta",),
    "mirtazapine": ("Remeron",),
    "trazodone": ("Desyrel",),
    "vortioxetine": ("Trintellix",),
    "amitriptyline": ("Elavil",),
    "nortriptyline": ("Pamelor",),
    "quetiapine": ("Seroquel",),
    "aripiprazole": ("Abilify",),
    "risperidone": ("Risperdal",),
    "olanzapine": ("Zyprexa",),
    "lurasidone": ("Latuda",),
    "ziprasidone": ("Geodon",),
    "clozapine": ("Clozaril",),
    "haloperidol": ("Haldol",),
    "cariprazine": ("Vraylar",),
    "lithium": ("Lithobid",),
    "lamotrigine": ("Lamictal",),
    "divalproex": ("Depakote", "valproate", "valproic acid"),
    "carbamazepine": ("Tegretol",),
    "oxcarbazepine": ("Trileptal",),
    "topiramate": ("Topamax",),
    "gabapentin": ("Neurontin",),
    "pregabalin": ("Lyrica",),
    "clonazepam": ("Klonopin",),
    "lorazepam": ("Ativan",),
    "alprazolam": ("Xanax",),
    "diazepam": ("Valium",),
    "buspirone": ("Buspar",),
    "hydroxyzine": ("Vistaril", "Atarax"),
    "propranolol": ("Inderal",),
    "prazosin": ("Minipress",),
    "clonidine": ("Kapvay",),
    "guanfacine": ("Intuniv", "Tenex"),
    "methylphenidate": ("Ritalin", "Concerta"),
    "dexmethylphenidate": ("Focalin",),
    "amphetamine salts": ("Adderall", "mixed amphetamine salts", "amphetamine"),
    "lisdexamfetamine": ("Vyvanse",),
    "atomoxetine": ("Strattera",),
    "zolpidem": ("Ambien",),
    "melatonin": (),
    "naltrexone": ("Vivitrol", "Revia"),
    "buprenorphine": ("Suboxone", "Subutex"),
    "methadone": (),
    "acamprosate": ("Campral",),
    "disulfiram": ("Antabuse",),
    "varenicline": ("Chantix",),
}
ANTIDEPRESSANTS = frozenset(
    "sertraline fluoxetine escitalopram citalopram paroxetine fluvoxamine bupropion venlafaxine"
    " desvenlafaxine duloxetine mirtazapine vortioxetine amitriptyline nortriptyline".split()
)
_BRAND_NAMES = {
    brand.lower(): brand
    for brands in _MEDICATIONS.values()
    for brand in brands
    if brand[0].isupper()
}
_MED_ALIASES = {
    alias.lower(): generic
    for generic, brands in _MEDICATIONS.items()
    for alias in (generic, *brands)
}


def _alias_patterns() -> dict[str, re.Pattern[str]]:
    """First word of an alias -> regex for the aliases starting with it (longest first), so a
    sentence is only searched for the medications whose first word it contains."""
    grouped: dict[str, list[str]] = {}
    for alias in sorted(_MED_ALIASES, key=len, reverse=True):
        grouped.setdefault(alias.split()[0], []).append(r"\s+".join(map(re.escape, alias.split())))
    return {
        word: re.compile(r"\b(?:" + "|".join(options) + r")\b", re.IGNORECASE)
        for word, options in grouped.items()
    }


_MED_PATTERNS = _alias_patterns()
_MED_ANCHORS = anchor_words(" ".join(_MED_PATTERNS))
_UNIT = r"(?P<unit>mg|mcg|milligrams?|micrograms?)\b"
_DOSE_AFTER_RE = re.compile(
    r"\s*(?:\([A-Za-z]+\)\s*)?,?\s*(?:(?:ER|XR|XL|SR|CR|IR)\s+)?"
    r"(?:(?:at|is|was|of|now|currently|on|to|up\s+to)\s+)*"
    r"(?:from\s+(?P<from>\d+(?:\.\d+)?)\s*(?:mg|mcg|milligrams?)?\s+(?:to|up\s+to|down\s+to)\s+)?"
    r"(?P<dose>\d+(?:\.\d+)?)\s*" + _UNIT,
    re.IGNORECASE,
)
_DOSE_BEFORE_RE = re.compile(
    r"(?P<dose>\d+(?:\.\d+)?)\s*" + _UNIT + r"\s+(?:of\s+)?(?:(?:her|his|my|your|the)\s+)?$",
    re.IGNORECASE,
)
_START_MED_RE = re.compile(
    r"\b(?:start(?:ing)?|begin(?:ning)?|trial\s+of|add(?:ing)?|try(?:ing)?)\s+"
    r"(?:(?:you|her|him|them)\s+)?(?:on\s+)?(?:(?:a|the|some|low[- ]dose)\s+)?"
    r"(?P<med>[A-Za-z][\w-]*)",
    re.IGNORECASE,
)
_PAST_CHANGE_WORDS = frozenset({"came", "began", "went"})
# A dose said on its own, of the one medication just named ("Are you still taking the
# mirtazapine?" / "Yes, 15 milligrams at night.").
_BARE_DOSE_RE = re.compile(r"\b(?P<dose>\d+(?:\.\d+)?)\s*" + _UNIT, re.IGNORECASE)
_TARGET_DOSE_RE = re.compile(r"\bto\s+(?P<dose>\d+(?:\.\d+)?)\s*" + _UNIT, re.IGNORECASE)
_DOSE_WINDOW_CHARS = 40
# A sentence without a medication name refers to one named this many sentences earlier.
MED_REFERENCE_SENTENCES = 3
_MED_PRONOUN_WORDS = frozenset("it dose dosage medication meds one".split())
# Words one of which every change, side-effect or adherence phrase below contains.
_CHANGE_WORDS = frozenset(
    "increase increased increasing increases up bump bumped bumping raise raising titrate"
    " titrating decrease decreased decreasing reduce reduced reducing lower lowering taper"
    " tapering tapered cut switch switched switching cross change changing changed stop"
    " stopped stopping discontinue discontinued discontinuing came come coming wean weaning"
    " quit start starting begin initiate initiating add adding trial prescribe prescribed"
    " prescribing put started continue continuing continued stay keep remain same go".split()
)
_SIDE_EFFECT_WORDS = frozenset(
    "side nausea nauseous nauseated dizzy dizziness headache headaches sexual weight gained"
    " drowsy drowsiness sedated sedation sedating groggy jittery dry tremor tremors shaky"
    " shaking shakes rash upset stomach vivid restless restlessness emotional feel feeling"
    " missed missing forget forgot forgetting ran haven havent not stopped skipped skipping"
    " skip".split()
)
_MED_PRONOUN_RE = re.compile(
    r"\b(?:it|the\s+dose|your\s+dose|the\s+dosage|the\s+medication|your\s+medication"
    r"|the\s+meds|your\s+meds|that\s+one)\b",
    re.IGNORECASE,
)

_MED_CHANGES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (change, re.compile(pattern, re.IGNORECASE))
    for change, pattern in (
        ("increase", r"\b(?:increas\w*|up\s+(?:the|your|her|his)\s+dose|bump\w*\s+(?:\w+\s+)?up"
                     r"|rais(?:e|ing)\s+(?:the|your|her|his)?\s*dose|titrat\w+\s+up"
                     r"|go\s+up\s+to)\b"),
        ("decrease", r"\b(?:decreas\w*|reduc\w*|lower(?:ing)?\s+(?:the|your|her|his)?\s*dose"
                     r"|taper\w*|cut\s+(?:back|down)|go\s+down\s+to)\b"),
        ("switch", r"\b(?:switch\w*|cross[- ]taper\w*|chang\w+\s+(?:you\s+|her\s+|him\s+)?"
                   r"(?:over\s+)?(?:to|from))\b"),
        ("stop", r"\b(?:stop\s+(?:the|taking|your|her|his)|stopp(?:ed|ing)\s+(?:the|taking|it|your"
                 r"|her|his)|discontinu\w*|came\s+off|come\s+off|coming\s+off|wean\w*\s+off"
                 r"|quit\s+(?:taking|the))\b"),
        ("start", r"\b(?:start(?:ing)?\s+(?:you\s+|her\s+|him\s+|them\s+)?on|we'?ll\s+start"
                  r"|(?:going|like)\s+to\s+start|let'?s\s+start|begin|initiat\w+|add(?:ing)?"
                  r"|trial\s+of|prescrib\w+|put\s+(?:you|her|him|them)\s+on"
                  r"|(?:just|recently)\s+started|started\s+(?:on\s+)?(?:it\s+)?(?:last|this|two"
                  r"|three|a\s+few|recently))\b"),
        ("continue", r"\b(?:continu\w*|stay\s+on|keep\s+(?:taking|you\s+on|her\s+on|him\s+on)"
                     r"|remain\s+on|same\s+dose)\b"),
    )
)
_SIDE_EFFECT_RE = re.compile(
    r"\b(?P<effect>side[- ]effects?|nause\w*|dizz\w*|headaches?|sexual\s+side\s+effects?"
    r"|weight\s+gain|gained\s+(?:\d+|a\s+few|some)\s+pounds|drows\w*|sedat\w*|groggy|jittery"
    r"|dry\s+mouth|tremors?|shak\w+|rash|upset\s+stomach|stomach\s+(?:upset|issues|problems)"
    r"|vivid\s+dreams|restless\w*|emotional\s+blunting|feel(?:ing)?\s+(?:numb|flat|like\s+a"
    r"\s+zombie))\b",
    re.IGNORECASE,
)
_ADHERENCE_RE = re.compile(
    r"\b(?:miss(?:ed|ing)\s+(?:a\s+few\s+|some\s+|several\s+|a\s+couple\s+(?:of\s+)?|a\s+)?doses?"
    r"|forg(?:o|e)t(?:ting)?\s+to\s+take|forgot\s+(?:it|them|my\s+\w+)|ran\s+out"
    r"|haven'?t\s+been\s+taking|not\s+been\s+taking|stopped\s+taking\s+(?:it|them)\s+on\s+my\s+own"
    r"|skipp\w+\s+(?:doses?|it|them|a\s+few))\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _Change:
    kind: str  # increase, decrease, switch, stop, start, continue
    phrase: str  # "increase sertraline to 100 mg"
    # Worded in the past ("we increased ..."): history, not a new prescribing decision.
    historical: bool
    by_clinician: bool
    # Asked about or weighed ("asking Dr. Patel whether a dose increase makes sense"): no
    # decision yet.
    considered: bool = False

    @property
    def is_new_prescription(self) -> bool:
        return self.by_clinician and not self.historical and not self.considered and \
            self.kind != "continue"


@dataclass
class Medication:
    generic: str
    brand: str | None
    dose: str | None
    changes: list[_Change]
    side_effects: list[str]
    adherence: bool

    @property
    def label(self) -> str:
        text = self.generic if self.dose is None else f"{self.generic} {self.dose}"
        return text if self.brand is None else f"{text} ({self.brand})"


def _format_dose(match: re.Match[str]) -> str:
    unit = match.group("unit").lower()
    unit = "mcg" if unit.startswith(("mc", "micro")) else "mg"
    return f"{match.group('dose')} {unit}"


def _dose_near(doc: Document, sentence: Sentence, start: int, end: int) -> str | None:
    after = _DOSE_AFTER_RE.match(doc.text, end, min(sentence.end, end + _DOSE_WINDOW_CHARS))
    if after is not None and after.group("from") is None:
        return _format_dose(after)
    before = _DOSE_BEFORE_RE.search(
        doc.text[max(sentence.start, start - _DOSE_WINDOW_CHARS):start]
    )
    if before is not None:
        return _format_dose(before)
    return None


def _change_phrase(doc: Document, sentence: Sentence, change: str, generic: str) -> str:
    target = _TARGET_DOSE_RE.search(doc.text, sentence.start, sentence.end)
    phrase = f"{change} {generic}"
    if target is not None and change in ("increase", "decrease", "start", "switch"):
        phrase += f" to {_format_dose(target)}"
    return phrase


def _starts_medication(doc: Document, sentence: Sentence, generic: str) -> re.Match[str] | None:
    """ "starting naltrexone", "a trial of buspirone": a start named right before the drug."""
    for match in _START_MED_RE.finditer(doc.text, sentence.start, sentence.end):
        word = match.group("med").lower()
        if any(alias.split()[0] == word for alias, name in _MED_ALIASES.items() if name == generic):
            return match
    return None


_CONSIDERED_RE = re.compile(
    r"\b(?:whether|ask(?:ing)?\s+(?:dr|doctor|your|the|him|her)|consider\w*|might|may|could"
    r"|thinking\s+about|wonder\w*|discuss\w*\s+with|talk\s+(?:to|with)\s+(?:dr|your|the))\b",
    re.IGNORECASE)


def _sentence_changes(doc: Document, sentence: Sentence, generic: str) -> list[_Change]:
    changes = []
    for kind, regex in _MED_CHANGES:
        match = regex.search(doc.text, sentence.start, sentence.end)
        if match is None and kind == "start":
            match = _starts_medication(doc, sentence, generic)
        if match is None or is_negated(doc.text, match.start()):
            continue
        first_word = match.group(0).split()[0].lower()
        changes.append(_Change(
            kind=kind,
            phrase=_change_phrase(doc, sentence, kind, generic),
            historical=first_word.endswith("ed") or first_word in _PAST_CHANGE_WORDS,
            by_clinician=sentence.role in CLINICIAN_SIDE,
            considered=_CONSIDERED_RE.search(doc.text, sentence.start, match.start())
            is not None,
        ))
    if any(change.kind == "continue" for change in changes):
        # "Continue the prazosin Dr. Lee prescribed": the decision is to continue; the
        # prescribing told beside it is how it began, no change ("start prazosin").
        changes = [change for change in changes if not change.historical]
    return changes


def _medication_mentions(doc: Document) -> tuple[dict[str, Medication], dict[int, list[str]]]:
    """Medications by generic name (first-mention order) and the generics named per sentence."""
    meds: dict[str, Medication] = {}
    by_sentence: dict[int, list[str]] = {}
    for number in doc.sentence_numbers(_MED_ANCHORS, ALL_ROLES):
        sentence = doc.sentences[number]
        matches = sorted(
            (match for word in sorted(doc.tokens[number] & _MED_ANCHORS)
             for match in _MED_PATTERNS[word].finditer(doc.text, sentence.start, sentence.end)),
            key=lambda match: match.start(),
        )
        for match in matches:
            alias = " ".join(match.group(0).lower().split())
            generic = _MED_ALIASES[alias]
            brand = _BRAND_NAMES.get(alias)
            med = meds.setdefault(generic, Medication(generic, brand, None, [], [], False))
            med.brand = med.brand or brand
            med.dose = med.dose or _dose_near(doc, sentence, match.start(), match.end())
            names = by_sentence.setdefault(number, [])
            if generic not in names:
                names.append(generic)
    return meds, by_sentence


def _referenced_medications(number: int,
                            by_sentence: dict[int, list[str]]) -> tuple[list[str], bool]:
    """Medications a sentence talks about: those it names, else those named shortly before
    ("How's the sertraline?" / "Some nausea, and I missed a few doses"). The flag tells
    whether the sentence names them itself."""
    if number in by_sentence:
        return by_sentence[number], True
    for earlier in range(number - 1, max(-1, number - 1 - MED_REFERENCE_SENTENCES), -1):
        if earlier in by_sentence:
            return by_sentence[earlier], False
    return [], False


def _note_sentence(doc: Document, number: int, med: Medication, named: bool) -> None:
    """Record changes, side effects and adherence problems stated in one sentence."""
    sentence = doc.sentences[number]
    tokens = doc.tokens[number]
    refers = named or (
        not tokens.isdisjoint(_MED_PRONOUN_WORDS)
        and _MED_PRONOUN_RE.search(doc.text, sentence.start, sentence.end) is not None
    )
    if refers and not tokens.isdisjoint(_CHANGE_WORDS):
        known = {change.phrase for change in med.changes}
        med.changes.extend(
            change for change in _sentence_changes(doc, sentence, med.generic)
            if change.phrase not in known
        )
    if sentence.role not in PATIENT_SIDE or tokens.isdisjoint(_SIDE_EFFECT_WORDS):
        return  # a clinician asking about nausea is not a report of nausea
    for effect in _SIDE_EFFECT_RE.finditer(doc.text, sentence.start, sentence.end):
        term = " ".join(effect.group("effect").lower().split())
        if term not in med.side_effects and not is_negated(doc.text, effect.start()):
            med.side_effects.append(term)
    adherence = _ADHERENCE_RE.search(doc.text, sentence.start, sentence.end)
    if adherence is not None and not is_negated(doc.text, adherence.start()):
        med.adherence = True


def find_medications(doc: Document) -> list[Medication]:
    meds, by_sentence = _medication_mentions(doc)
    if not meds:
        return []
    last = min(len(doc.sentences), max(by_sentence) + MED_REFERENCE_SENTENCES + 1)
    for number in range(min(by_sentence), last):
        generics, named = _referenced_medications(number, by_sentence)
        for generic in generics:
            _note_sentence(doc, number, meds[generic], named)
        if not named and len(generics) == 1 and meds[generics[0]].dose is None:
            sentence = doc.sentences[number]
            dose = _BARE_DOSE_RE.search(doc.text, sentence.start, sentence.end)
            if dose is not None and not _TARGET_DOSE_RE.search(doc.text, sentence.start,
                                                                 sentence.end):
                meds[generics[0]].dose = _format_dose(dose)
    return list(meds.values())


def medication_key_findings(meds: list[Medication]) -> list[str]:
    findings = []
    for med in meds:
        findings.extend(
            f"Medication continued: {med.generic}" if change.kind == "continue"
            # "since we increased the lithium": a change made before, not one decided now.
            else f"Earlier medication change mentioned: {change.phrase}" if change.historical
            else f"Medication change to consider: {change.phrase}" if change.considered
            else f"Medication change discussed: {change.phrase}"
            for change in med.changes
        )
        if med.side_effects:
            findings.append(
                f"Side effects discussed: {med.generic} ({', '.join(med.side_effects)})"
            )
        if med.adherence:
            findings.append(f"Adherence concern: {med.generic} (missed or skipped doses)")
    return findings
