"""Sleep, appetite, mood, anxiety, energy, concentration, trauma and substance findings from
the patient's own statements."""

from __future__ import annotations

import re

from services.analysis.rules.document import (
    PATIENT_SIDE,
    RELAPSE_TOLD,
    Document,
    Rule,
    first_affirmed,
    make_rule,
)
from services.analysis.rules.screeners import NUMBER, as_int

# Sleep durations (hours per night) outside this range are reported as reduced/increased.
SHORT_SLEEP_HOURS = 6
LONG_SLEEP_HOURS = 10


# ---------------------------------------------------------------------------------------------
# Symptoms (patient statements)
# ---------------------------------------------------------------------------------------------

_INTENSITY = r"(?:(?:really|so|pretty|very|super|kind\s+of|kinda|a\s+bit|a\s+little|extremely)\s+)?"
_SYMPTOM_RULES: tuple[Rule, ...] = (
    make_rule("sleep_hours",
          r"\b(?:sleep(?:ing)?|slept|getting|get)\b[^.?!\d\n]{0,25}?(?<![\w-])(?P<hours>" + NUMBER
          + r")(?:\s*(?:-|to|or)\s*\w+)?\s+hours?\b"
          r"|(?<![\w-])(?P<hours_of>" + NUMBER + r")(?:\s*(?:-|to|or)\s*\w+)?\s+hours?\s+"
          r"(?:of\s+sleep|a\s+night|per\s+night|each\s+night|every\s+night)\b",
          "hours hour"),
    make_rule("sleep_onset",
          r"\bcan'?t\s+(?:fall|get\s+to)\s+(?:a)?sleep|\b(?:trouble|difficulty|hard\s+time"
          r"|problems?)\s+(?:falling|getting\s+to)\s+(?:a)?sleep|\bl(?:ie|ying)\s+awake"
          r"|\btakes?\s+(?:me\s+)?(?:hours|forever|a\s+long\s+time)\s+to\s+fall\s+asleep",
          "sleep asleep awake",
          negation_in_pattern=True),
    make_rule("sleep_waking",
          r"\b(?:wak(?:e|es|ing)|woke)\s+up\s+(?:at\s+(?:\d|two|three|four|five)|in\s+the\s+middle\s+of\s+the"
          r"\s+night|several\s+times|a\s+lot|constantly|every\s+(?:hour|night|couple))"
          r"|\bcan'?t\s+stay\s+asleep|\b(?:trouble|difficulty)\s+staying\s+asleep",
          "wake wakes waking woke asleep", negation_in_pattern=True),
    make_rule("insomnia",
          r"\binsomnia\b|\bcan'?t\s+sleep\b|\b(?:haven'?t|not)\s+been\s+sleeping\b"
          r"|\bsleep\s+(?:has\s+been|is|'s\s+been)\s+" + _INTENSITY
          + r"(?:terrible|awful|bad|poor|rough|a\s+mess|horrible)|\bbarely\s+sleep\w*"
          r"|\bup\s+all\s+night\b",
          "insomnia sleep sleeping night", negation_in_pattern=True),
    make_rule("hypersomnia",
          r"\bsleep(?:ing)?\s+(?:all\s+day|too\s+much|way\s+too\s+much|(?:1[0-6]|ten|eleven|twelve"
          r"|fourteen)\s+hours)",
          "sleep sleeping"),
    make_rule("nightmares", r"\bnightmares?\b|\bbad\s+dreams\b|\bnight\s+terrors\b",
          "nightmare nightmares bad night"),
    make_rule("sleep_better",
          r"\bsleep(?:ing)?\s+(?:has\s+been\s+|is\s+|'s\s+)?(?:a\s+lot\s+|much\s+|a\s+little\s+)?"
          r"(?:better|improved)\b",
          "sleep sleeping"),
    make_rule("appetite_down",
          r"\bnot\s+(?:very\s+|really\s+)?hungry\b|\bno\s+appetite\b|\b(?:lost|losing|lose)\s+my"
          r"\s+appetite\b|\bappetite\s+(?:is|has\s+been|'s\s+been|'s)\s+(?:gone|low|poor|down"
          r"|bad|terrible|nonexistent)|\b(?:haven'?t|not)\s+been\s+eating\b|\bskipp\w+\s+meals"
          r"|\bforg(?:e|o)t\s+to\s+eat\b|\bbarely\s+eat\w*|\b(?:lost|dropped)\s+(?:\d+|a\s+few|some"
          r"|a\s+lot\s+of)\s+(?:pounds|lbs|kilos|weight)\b",
          "hungry appetite eating meals eat pounds lbs kilos weight", negation_in_pattern=True),
    make_rule("appetite_up",
          r"\beating\s+(?:all\s+the\s+time|way\s+more|more\s+than\s+usual|a\s+lot\s+more"
          r"|constantly)|\bstress[- ]eating\b|\bbinge\w*|\bappetite\s+(?:is|has\s+been)\s+(?:up"
          r"|increased|huge)|\bgained\s+(?:\d+|a\s+lot\s+of|some)\s+(?:pounds|lbs|weight)"
          r"|\bover-?eat\w*|\bemotional\s+eating\b",
          "eating binge binged bingeing binging binges appetite gained overeat overeating eat"),
    make_rule("mood_low",
          r"\bmood\s+(?:has\s+been|is|was|'s\s+been|'s)\s+" + _INTENSITY
          + r"(?:low|down|bad|terrible|awful|depressed|flat|dark|rough)\b"
          r"|\bfe(?:el|eling|els|lt)\s+" + _INTENSITY
          + r"(?:down|depressed|sad|low|empty|numb|hopeless|miserable|blue|flat)\b"
          r"|\bI'?ve\s+been\s+" + _INTENSITY + r"(?:depressed|sad|down)\b"
          r"|\bcry(?:ing)?\s+(?:a\s+lot|all\s+the\s+time|every\s+day|constantly|at\s+night)"
          r"|\bcan'?t\s+stop\s+crying\b",
          "mood down depressed sad low empty numb hopeless miserable blue flat crying cry"),
    make_rule("mood_better",
          r"\bmood\s+(?:has\s+been|is|'s\s+been|'s)\s+"
          r"(?:a\s+lot\s+|much\s+|a\s+bit\s+|somewhat\s+)?"
          r"(?:better|improved|good|stable|more\s+stable|brighter)\b"
          r"|\bfe(?:el|eling)\s+(?:a\s+lot\s+|much\s+|a\s+little\s+|a\s+bit\s+|so\s+much\s+)?"
          r"better\b",
          "better improved good stable brighter"),
    make_rule("anhedonia",
          r"\b(?:lost|losing|no)\s+interest\b|\bdon'?t\s+enjoy\s+(?:anything|things|much)"
          r"|\bnothing\s+(?:is\s+fun|feels\s+good|brings\s+me\s+joy|interests\s+me)"
          r"|\bstopped\s+(?:doing|enjoying)\s+(?:things|the\s+things|anything)"
          r"|\bcan'?t\s+enjoy\b|\bdon'?t\s+care\s+about\s+(?:anything|things)",
          "interest enjoy enjoying fun good joy interests things anything",
          negation_in_pattern=True),
    make_rule("irritability",
          r"\birritab\w+|\bsnap(?:ping|ped)?\s+at\b|\bshort[- ]tempered\b"
          r"|\b(?:angry|mad)\s+all\s+the\s+time\b|\b(?:lose|losing|lost)\s+my\s+temper\b",
          "irritable irritability snap snapping snapped short angry mad lose losing lost"),
    make_rule("anxious",
          r"\bfe(?:el|eling|els|lt)\s+" + _INTENSITY
          + r"(?:anxious|nervous|worried|panicky|on\s+edge|tense|overwhelmed)\b"
          r"|\bI'?m\s+" + _INTENSITY + r"(?:anxious|nervous|worried)\b"
          r"|\banxiety\s+(?:has\s+been|is|'s\s+been|'s)\s+" + _INTENSITY
          + r"(?:bad|high|through\s+the\s+roof|worse|terrible|awful|up)\b"
          r"|\bworr(?:y|ying|ied)\s+(?:all\s+the\s+time|constantly|about\s+everything|nonstop)"
          r"|\bracing\s+thoughts\b|\bcan'?t\s+stop\s+worrying\b",
          "anxious nervous worried panicky edge tense overwhelmed anxiety worry worrying racing"),
    make_rule("panic",
          r"\bpanic\s+attacks?\b|\bheart\s+(?:was\s+|starts\s+|started\s+|keeps\s+)?(?:racing"
          r"|pounding)\b|\bthought\s+I\s+was\s+(?:dying|having\s+a\s+heart\s+attack)",
          "panic heart dying"),
    make_rule("panic", r"\b(?:couldn'?t|can'?t)\s+breathe\b", "breathe", negation_in_pattern=True),
    make_rule("fatigue",
          r"\bno\s+energy\b|\blow\s+energy\b|\b(?:exhausted|drained|wiped\s+out)\b"
          r"|\btired\s+all\s+the\s+time\b|\b(?:always|constantly|so)\s+tired\b|\bfatigue[d]?\b"
          r"|\bdead\s+tired\b|\b(?:can'?t|hard\s+to)\s+get\s+out\s+of\s+bed\b|\bno\s+motivation\b",
          "energy exhausted drained wiped tired fatigue fatigued bed motivation",
          negation_in_pattern=True),
    make_rule("concentration",
          r"\bcan'?t\s+(?:focus|concentrate|think\s+straight)\b|\b(?:trouble|difficulty|hard\s+time"
          r"|problems?|hard)\s+(?:to\s+)?(?:focus|focusing|concentrat\w+|paying\s+attention)\b"
          r"|\b(?:easily\s+)?distracted\b|\bbrain\s+fog\b|\bmind\s+(?:keeps\s+)?wander\w*"
          r"|\blosing\s+(?:focus|track)\b|\bforgetful\b|\bzon(?:e|ing)\s+out\b",
          "focus focusing concentrate concentrating concentration straight attention distracted"
          " fog wander wandering wanders track forgetful zone zoning", negation_in_pattern=True),
    make_rule("flashbacks",
          r"\bflashbacks?\b|\bintrusive\s+(?:memories|images|thoughts)\b|\bkeep\s+reliving\b"
          r"|\bhypervigilan\w+|\bjumpy\b|\bstartl\w+",
          "flashback flashbacks intrusive keep hypervigilant hypervigilance jumpy startle"
          " startled startles"),
    make_rule("alcohol_heavy",
          r"\b(?:\d+|two|three|four|five|six|seven|eight|nine|ten|several|a\s+few|a\s+lot\s+of)\s+"
          r"(?:drinks|beers|glasses\s+of\s+wine|shots)\s+(?:a|every|each|per)\s+(?:night|day"
          r"|evening)\b|\b(?:a|one|two)\s+bottles?\s+of\s+wine\s+(?:a|every|each|per)\s+(?:night"
          r"|day)\b|\bdrinking\s+(?:every\s+(?:night|day)|daily|heavily|a\s+lot|more)\b"
          r"|\bblack(?:ed|ing)?\s+out\b|\bblackouts?\b|\bdrink\s+(?:every\s+(?:night|day)"
          r"|in\s+the\s+morning)\b",
          "drinks beers wine shots drinking black blacked blacking blackout blackouts drink"),
    # Not after a verb of stopping: "I stopped using fentanyl three months ago" is no use now.
    make_rule("drug_use",
          r"\b(?<!stopped\s)(?<!quit\s)(?<!quitting\s)(?<!stopping\s)(?<!gave\sup\s)"
          r"(?<!given\sup\s)(?<!giving\sup\s)"
          r"(?:using|used|smoking|smoked|taking|took|doing|did|relapsed\s+on|shooting)\s+"
          r"(?:weed|cannabis|marijuana|pot|cocaine|coke|meth|heroin|fentanyl|opioids|oxy\w*"
          r"|percs?|xanax\s+bars?|molly|mdma|acid|shrooms|crack)\b|" + RELAPSE_TOLD
          + r"|\busing\s+again\b",
          "weed cannabis marijuana pot cocaine coke meth heroin fentanyl opioids oxy oxycodone"
          " oxycontin oxys percs perc xanax molly mdma acid shrooms crack relapse relapsed"
          " using"),
    make_rule("cravings", r"\bcravings?\b|\bcraving\b", "craving cravings"),
    make_rule("sobriety",
          r"\bsober\s+(?:for\s+)?(?:\d+|\w+)\s+(?:days|weeks|months|years)\b|\b(?:\d+|\w+)\s+"
          r"(?:days|weeks|months|years)\s+sober\b|\bsobriety\b|\bstayed\s+sober\b",
          "sober sobriety"),
)
_SYMPTOM_FINDINGS = {
    "sleep_onset": "Sleep: difficulty falling asleep",
    "sleep_waking": "Sleep: night-time or early waking",
    "insomnia": "Sleep: poor sleep / insomnia reported",
    "hypersomnia": "Sleep: excessive sleep reported",
    "nightmares": "Sleep: nightmares",
    "sleep_better": "Sleep: improvement reported",
    "appetite_down": "Appetite: decreased appetite or eating less",
    "appetite_up": "Appetite: increased appetite or overeating",
    "mood_low": "Mood: low or depressed mood reported",
    "mood_better": "Mood: improvement reported",
    "anhedonia": "Mood: loss of interest or enjoyment (anhedonia)",
    "irritability": "Mood: irritability",
    "anxious": "Anxiety: anxious or worried mood reported",
    "panic": "Anxiety: panic symptoms",
    "fatigue": "Energy: low energy or fatigue",
    "concentration": "Concentration: difficulty concentrating",
    "flashbacks": "Trauma: re-experiencing or hyperarousal (flashbacks, intrusive memories)",
    "alcohol_heavy": "Substance use: heavy or escalating alcohol use",
    "drug_use": "Substance use: drug use or relapse reported",
    "cravings": "Substance use: cravings",
    "sobriety": "Substance use: sobriety or abstinence reported",
}
SLEEP_PROBLEM_KEYS = frozenset({"sleep_onset", "sleep_waking", "insomnia"})
DEPRESSIVE_CORE_KEYS = frozenset({"mood_low", "anhedonia"})
NEUROVEGETATIVE_KEYS = frozenset(
    {"sleep_onset", "sleep_waking", "insomnia", "hypersomnia", "appetite_down", "appetite_up",
     "fatigue", "concentration"}
)
SUBSTANCE_KEYS = frozenset({"alcohol_heavy", "drug_use", "cravings"})


def _sleep_hours_finding(match: re.Match[str]) -> str:
    hours = as_int(match.group("hours") or match.group("hours_of"))
    if hours < SHORT_SLEEP_HOURS:
        return f"Sleep: about {hours} hours per night (reduced)"
    if hours >= LONG_SLEEP_HOURS:
        return f"Sleep: about {hours} hours per night (increased)"
    return f"Sleep: about {hours} hours per night"


def find_symptoms(doc: Document) -> tuple[dict[str, str], bool]:
    """Symptom key -> finding text (in order of first mention), and whether a sleep problem
    is described as long-standing ("for three months", "every night") where it is reported."""
    found = first_affirmed(doc, _SYMPTOM_RULES, PATIENT_SIDE)
    ordered = sorted(found.items(), key=lambda item: item[1][1].start())
    findings = {}
    for key, (_number, match) in ordered:
        if key == "sleep_hours":
            findings[key] = _sleep_hours_finding(match)
        else:
            findings[key] = _SYMPTOM_FINDINGS[key]
    last = len(doc.sentences) - 1
    chronic_sleep = any(
        _CHRONIC_RE.search(doc.text, doc.sentences[max(number - 1, 0)].start,
                           doc.sentences[min(number + 1, last)].end)
        for key, (number, _match) in found.items()
        if key in SLEEP_PROBLEM_KEYS
    )
    return findings, chronic_sleep


# ---------------------------------------------------------------------------------------------
# Differentials, plan and recommendations
# ---------------------------------------------------------------------------------------------

_CHRONIC_RE = re.compile(
    r"\bfor\s+(?:\w+\s+)?(?:months|years)\b|\b(?:three|3|four|4|six|6|several|a\s+few|many)\s+"
    r"(?:months|years)\b|\bmost\s+nights\b|\bevery\s+night\b|\bsince\s+(?:last\s+)?(?:spring"
    r"|summer|fall|autumn|winter|january|february|march|april|may|june|july|august|september"
    r"|october|november|december)\b",
    re.IGNORECASE,
)
