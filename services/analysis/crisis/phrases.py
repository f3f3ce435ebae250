"""Phrase patterns for crisis language, the transcript reading around them, and the safety floor.

The concept layer (``concepts.py``) reads each patient statement by meaning; this module keeps
what needs a whole transcript: clinician questions and the patient's answers, documented
findings in clinician notes, and precise phrases. ``services.analysis.crisis`` combines both.

Both analysis paths (hosted model and built-in rules) run ``detect_crisis`` over the raw
transcript and pass their ``riskAssessment`` through ``apply_safety_floor``, so a model that
under-rates risk can never hide explicit crisis language.

Signal kinds follow the C-SSRS screener: wish to be dead (Q1), non-specific suicidal thoughts
(Q2), thoughts of a method (Q3), intent (Q4), a plan (Q5) and past suicidal behaviour (Q6),
plus self-harm, access to lethal means and homicidal ideation. Any signal puts the floor at
"high"; stated intent, or a plan together with a method or means, puts it at "imminent".

How text is read:

* Labelled transcripts are split into turns. Patient/client turns, turns by other named
  speakers (family members in the room) and unlabelled text are read in full. Clinician turns
  count only where they document the patient ("Patient reports active SI with a plan").
* A clinician question about suicide or self-harm ("Any thoughts of ending your life?")
  is never a signal itself, but a plainly affirmative patient answer to it ("Yeah, sometimes")
  is reported as the asked-about kind.
* Negation is checked within the clause before the phrase ("I'm not suicidal", "denies
  SI/HI", "no thoughts of hurting myself"), and in note style after it ("SI: denies").
  Intensifiers such as "can't stop thinking about" are not negations, and phrases whose
  meaning includes a negation ("I don't want to live anymore") are signals in their own right.
* Statements about someone else ("my brother tried to kill himself", "my friend said she
  wanted to die"), hypotheticals ("if I ever feel like hurting myself I'll call") and common
  idioms ("this traffic is killing me", "I'd kill for a coffee") are not signals.
* Weak phrases that only mean something next to suicidal talk ("I have a plan", "I know how
  I'd do it", "take them all") count only when such talk occurred shortly before.
* A firearm in the home counts as means access only when the transcript also holds another
  crisis signal; stockpiling medication counts on its own.

Each kind is reported once (its first occurrence), so ``factors`` stays short. Factor texts
quote at most ``MAX_QUOTE_WORDS`` words of the triggering phrase and nothing else; this module
never logs or prints transcript text.

Reading speaker turns, clauses and negation is shared with the rules analyzer and lives in
``services.analysis.transcript``; ``assess_turns`` lets the rules analyzer reuse its turns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from services.analysis.shape import RISK_LEVELS
from services.analysis.transcript import (
    ACCIDENTAL_RE,
    CLAUSE_BOUNDARY_RE,
    FAMILY_HISTORY_RE,
    FIRST_PERSON_TOKEN_RE,
    HYPOTHETICAL_RE,
    POST_NEGATION_RE,
    REPORTED_SPEECH_RE,
    ROLE_CLINICIAN,
    ROLE_NOTE,
    Turn,
    clause_end,
    clause_start,
    normalize_text,
    prefix_negates,
    split_turns,
    subject_is_patient,
)

_LEVEL_RANK = {level: rank for rank, level in enumerate(RISK_LEVELS)}

HIGH = "high"
IMMINENT = "imminent"
REVIEW_LEVEL = "moderate"
# Used when a model returns no usable level and no crisis language was found: unknown is not
# evidence of safety, so the answer errs one step above "low".
UNKNOWN_LEVEL_DEFAULT = "moderate"

WISH_TO_BE_DEAD = "wish_to_be_dead"
SUICIDAL_IDEATION = "suicidal_ideation"
METHOD = "method"
INTENT = "intent"
PLAN = "plan"
PAST_ATTEMPT = "past_attempt"
MEANS_ACCESS = "means_access"
SELF_HARM = "self_harm"
HOMICIDAL_IDEATION = "homicidal_ideation"
# A statement the trained reader (reader.py) rated as current risk with no lexicon finding.
RISK_STATEMENT = "risk_statement"

SIGNAL_KINDS = (
    WISH_TO_BE_DEAD,
    SUICIDAL_IDEATION,
    METHOD,
    INTENT,
    PLAN,
    PAST_ATTEMPT,
    MEANS_ACCESS,
    SELF_HARM,
    RISK_STATEMENT,
    HOMICIDAL_IDEATION,
)

MAX_QUOTE_WORDS = 8
# Words of lead-in kept before the matched phrase so a quote reads naturally.
QUOTE_LEAD_WORDS = 3
# A weak phrase ("I have a plan") counts when suicidal talk happened this many characters
# earlier in the same turn ...
CONTEXT_WINDOW_CHARS = 600
# ... or this many turns earlier (patient statement, then clinician question, then answer).
CONTEXT_WINDOW_TURNS = 2
# Answer words inspected when deciding whether a reply to a screening question is a "yes".
ANSWER_WINDOW_WORDS = 6


@dataclass(frozen=True)
class CrisisSignal:
    """One piece of crisis language."""

    kind: str  # one of SIGNAL_KINDS
    factor: str  # reason for riskAssessment.factors, quoting at most MAX_QUOTE_WORDS words
    level: str  # minimum level this signal implies: "high" or "imminent"


@dataclass(frozen=True)
class CrisisAssessment:
    """All crisis signals of a transcript (one per kind, in SIGNAL_KINDS order)."""

    signals: tuple[CrisisSignal, ...]
    level: str | None  # None when there is no crisis language, else "high" or "imminent"
    # Softer cues a clinician should follow up (burden, farewells, hopelessness): they put the
    # floor at "moderate" with a "needs review" factor when there is no crisis signal.
    review: tuple[CrisisSignal, ...] = ()

    @property
    def floor_level(self) -> str | None:
        """The lowest level the analysis may report: ``level``, else "moderate" for review
        cues, else None."""
        if self.level is not None:
            return self.level
        return REVIEW_LEVEL if self.review else None


def _quote(text: str, start: int, end: int) -> str:
    lead = text[clause_start(text, start):start].split()[-QUOTE_LEAD_WORDS:]
    words = [*lead, *text[start:end].split()][:MAX_QUOTE_WORDS]
    return " ".join(words).strip(" ,;:-\"'")


# ---------------------------------------------------------------------------------------------
# Signal patterns
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Pattern:
    kind: str
    regex: str
    # Lower-case word groups separated by "|"; every match contains at least one word of each
    # group. A sentence is only run against patterns whose groups it satisfies, which keeps
    # long transcripts fast. The first group indexes the pattern.
    anchors: str
    # Only counts shortly after other suicidal talk ("I have a plan").
    needs_context: bool = False
    # The phrase itself contains a negation ("don't want to live"); skip the negation check.
    negation_in_pattern: bool = False
    # Only counts when the transcript holds another crisis signal (a gun at home).
    needs_corroboration: bool = False
    # An accidental overdose is a substance-use risk, not suicidal behaviour.
    reject_accidental: bool = False
    # Intent to do a concrete act at a stated time or place ("on Friday") is also a plan.
    plan_if_timed: bool = False
    # Chart abbreviations ("SI", "HI") must not match "si" or "Hi".
    case_sensitive: bool = False
    # A bare topic name ("self-harm", "suicidal"); in a question without "I" or "my" it only
    # names the topic ("The self-harm stuff?") and discloses nothing.
    topic_name: bool = False


_PILLS = (
    r"(?:pills|meds|medications?|tablets|tylenol|advil|painkillers|sleeping\s+pills"
    r"|prescriptions?|insulin|oxy\w*|xanax|ambien)"
)
_PILL_WORDS = (
    "pills pill meds medication medications tablets tylenol advil painkillers prescription"
    " prescriptions insulin oxy oxycodone oxycontin xanax ambien bottle"
)
_PILL_QUANTITY = (
    r"(?:all\s+(?:of\s+)?(?:my|the|those|these)\s+(?:\w+\s+)?" + _PILLS
    + r"|(?:a\s+)?(?:bunch|handful|bottle|whole\s+bottle|entire\s+bottle)\s+of\s+(?:my\s+)?"
    r"(?:\w+\s+)?" + _PILLS + r"|the\s+(?:whole|entire)\s+bottle|every\s+pill)"
)
_KILL_MYSELF_IDIOMS = (
    r"(?!\s+(?:for\b|laughing|trying|working|studying|over\s+(?:this|that|it|work)\b"
    r"|at\s+(?:work|the\s+gym|the\s+office|my\s+job|school)\b"
    r"|to\s+(?:get|finish|make|meet|keep|pay|impress|please)\b))"
)
_SELF_ACT = (
    r"(?:kill\s+myself" + _KILL_MYSELF_IDIOMS
    + r"|end\s+(?:my|it)\s+(?:own\s+)?life|end\s+it\s+all|take\s+my\s+(?:own\s+)?life"
    r"|commit\s+suicide|overdose|hang\s+myself|shoot\s+myself|drown\s+myself"
    r"|slit\s+my\s+wrists|jump\s+(?:off|from|in\s+front\s+of)\s+(?:a|the|that)\s+\w+"
    r"|take\s+" + _PILL_QUANTITY + r")"
)
_SELF_ACT_WORDS = "myself life end suicide overdose wrists jump " + _PILL_WORDS
_INTENT_LEAD = (
    r"(?:going\s+to|gonna|I'll|I\s+will|plan(?:ning)?\s+to|intend(?:ing)?\s+to|decided\s+to"
    r"|made\s+up\s+my\s+mind\s+to|ready\s+to|about\s+to|my\s+plan\s+(?:is|was)\s+to)\s+"
    r"(?:(?:just|finally|actually|really|probably|definitely)\s+)?"
)
_TIME_OR_PLACE_RE = re.compile(
    r"\b(?:tonight|tomorrow(?:\s+night)?|this\s+(?:weekend|monday|tuesday|wednesday|thursday"
    r"|friday|saturday|sunday)|next\s+(?:week|weekend|monday|tuesday|wednesday|thursday|friday"
    r"|saturday|sunday)|on\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday"
    r"|the\s+weekend|my\s+birthday|the\s+anniversary|the\s+\d{1,2}(?:st|nd|rd|th)?)"
    r"|(?:after|when|once|while)\s+(?:the\s+kids|everyone|everybody|my\s+(?:wife|husband|partner"
    r"|parents|mom|dad|roommate|family))\s+(?:\w+\s+){0,3}?(?:asleep|leaves?|left|gone|goes"
    r"|away|at\s+work|out)|in\s+the\s+garage|at\s+the\s+(?:bridge|lake|river|tracks))\b",
    re.IGNORECASE,
)
_OTHERS = (
    r"(?:him|her|them|someone|somebody|anyone|anybody|people|everyone|everybody|others"
    r"|other\s+people|(?:my|his|her|that|this|the)\s+(?:\w+\s+)?(?:boss|husband|wife|partner|ex"
    r"|father|dad|stepdad|stepfather|mother|mom|stepmom|brother|sister|coworker|co-worker"
    r"|neighbou?r|roommate|boyfriend|girlfriend|son|daughter|kids?|children|baby|manager"
    r"|supervisor|teacher|landlord|guy|girl|man|woman))\b"
    r"(?!\s+(?:feelings|back\b|by\s+(?:leaving|telling|saying)))"
)
_FIREARM = r"(?:guns?|firearms?|pistols?|handguns?|rifles?|shotguns?|revolvers?|weapons?)"
_FIREARM_WORDS = (
    "gun guns firearm firearms pistol pistols handgun handguns rifle rifles shotgun shotguns"
    " revolver revolvers weapon weapons"
)

# Order matters: where matches overlap, the earlier-starting one wins and, at the same start,
# the one listed first. Specific phrasings (past attempt, intent) therefore come before the
# generic ones they contain ("kill myself").
_PATTERNS: tuple[_Pattern, ...] = (
    # C-SSRS Q6: past suicidal behaviour.
    _Pattern(PAST_ATTEMPT,
             r"\bI(?:'ve|\s+have|\s+had)?\s+(?:(?!never\b|not\b|n't\b)\w+\s+)?(?:tried|attempted)"
             r"\s+(?:to\s+)?(?:kill\s+myself|end\s+(?:my|it)\s+(?:own\s+)?life|end\s+it(?:\s+all)?"
             r"|take\s+my\s+(?:own\s+)?life|commit\s+suicide|suicide|overdose|OD|hang\s+myself"
             r"|drown\s+myself|shoot\s+myself|slit\s+my\s+wrists|jump\s+(?:off|from))",
             "tried attempted", reject_accidental=True),
    _Pattern(PAST_ATTEMPT,
             r"\b(?:my|a|an|the)\s+(?:previous\s+|last\s+|first\s+|second\s+|prior\s+|earlier\s+)?"
             r"(?:suicide|suicidal)\s+attempts?\b",
             "attempt attempts"),
    _Pattern(PAST_ATTEMPT,
             r"\battempted\s+suicide\b", "attempted | suicide", topic_name=True),
    _Pattern(PAST_ATTEMPT,
             r"\bhistory\s+of\s+(?:a\s+|an\s+)?(?:suicide\s+attempts?|suicidal\s+behaviou?r"
             r"|overdoses?)\b",
             "history | suicide suicidal overdose overdoses", reject_accidental=True,
             topic_name=True),
    _Pattern(PAST_ATTEMPT, r"\bI\s+(?:overdosed|OD'?d|took\s+an\s+overdose|had\s+an\s+overdose)\b",
             "overdosed od overdose",
             reject_accidental=True),
    _Pattern(PAST_ATTEMPT,
             r"\b(?:after|since|survived|from)\s+(?:my|an?|the)\s+(?:\w+\s+)?"
             r"(?:overdose|attempt)\b",
             "overdose attempt", reject_accidental=True),
    _Pattern(PAST_ATTEMPT,
             r"\bI\s+(?:took|swallowed)\s+(?:(?:a\s+)?(?:bunch|handful|bottle|whole\s+bottle"
             r"|entire\s+bottle)\s+of\s+(?:my\s+)?(?:\w+\s+)?" + _PILLS
             + r"|all\s+(?:of\s+)?my\s+(?:\w+\s+)?" + _PILLS + r"\s+at\s+once)",
             "took swallowed | " + _PILL_WORDS, reject_accidental=True),
    # C-SSRS Q4: intent.
    _Pattern(INTENT, r"\b" + _INTENT_LEAD + _SELF_ACT,
             _SELF_ACT_WORDS + " | going gonna ll will plan planning intend intending decided mind"
             " ready about",
             plan_if_timed=True),
    _Pattern(INTENT,
             r"\b" + _INTENT_LEAD + r"end\s+(?:it|things|everything)\s+(?:tonight|today|now"
             r"|tomorrow|this\s+weekend|for\s+good|once\s+and\s+for\s+all)\b",
             "end | going gonna ll will plan planning intend intending decided mind ready about",
             plan_if_timed=True),
    _Pattern(INTENT,
             r"\b(?:can'?t|cannot|won'?t\s+be\s+able\s+to|not\s+sure\s+(?:if\s+)?I\s+can"
             r"|don'?t\s+(?:know|think)\s+(?:if\s+|that\s+)?I\s+can)\s+"
             r"(?:keep\s+myself\s+safe|stay\s+safe|be\s+safe|promise\s+(?:I'?ll|I\s+will|to)\s+"
             r"(?:be|stay)\s+safe)",
             "safe | keep stay be promise", negation_in_pattern=True),
    _Pattern(INTENT,
             r"\b(?:going\s+to|gonna|I'll|I\s+will|plan(?:ning)?\s+to|decided\s+to|ready\s+to"
             r"|might|think\s+I\s+(?:will|might|would)|I'd|would)\s+"
             r"(?:(?:just|finally|actually|really|probably)\s+)?"
             r"(?:do\s+it|act\s+on\s+(?:it|them|these\s+thoughts|the\s+thoughts|my\s+thoughts"
             r"|those\s+thoughts)|go\s+through\s+with\s+it|take\s+(?:them|those|these|it)\s+all"
             r"|end\s+it)\b",
             "it all act | going gonna ll will plan planning decided ready might think d would",
             needs_context=True, plan_if_timed=True),
    _Pattern(INTENT, r"\b(?:with|and)\s+(?:clear\s+|stated\s+|active\s+)?intent\b", "intent",
             needs_context=True),
    # C-SSRS Q5: plan.
    _Pattern(PLAN,
             r"\b(?:suicide\s+note|goodbye\s+(?:notes?|letters?)|farewell\s+(?:notes?|letters?))",
             "note notes letter letters"),
    _Pattern(PLAN,
             r"\bI(?:'ve|\s+have)?\s+(?:got\s+|made\s+|come\s+up\s+with\s+|came\s+up\s+with\s+"
             r"|worked\s+out\s+|figured\s+out\s+)?(?:a|the|my)\s+plan\b",
             "plan", needs_context=True),
    _Pattern(PLAN,
             r"\bwith\s+(?:a\s+)?(?:specific\s+|clear\s+|detailed\s+|concrete\s+)?plan\s+to\s+"
             + _SELF_ACT,
             "plan | " + _SELF_ACT_WORDS),
    _Pattern(PLAN, r"\bwith\s+(?:a\s+)?(?:specific\s+|clear\s+|detailed\s+|concrete\s+)?plan\b",
             "plan", needs_context=True),
    _Pattern(PLAN,
             r"\b(?:planned|planning|worked|figured|thought)\s+out\s+(?:how|when|where"
             r"|the\s+details|exactly)\b",
             "out", needs_context=True),
    _Pattern(PLAN,
             r"\bgiv(?:e|ing|en)\s+away\s+(?:all\s+)?my\s+(?:stuff|things|belongings|possessions"
             r"|cat|dog|guitar)\b",
             "away", needs_context=True),
    _Pattern(PLAN,
             r"\b(?:picked|chose|chosen|set|decided\s+on)\s+(?:a|the)\s+(?:date|day|time|spot"
             r"|place|location)\b",
             "date day time spot place location", needs_context=True),
    _Pattern(PLAN,
             r"\bI\s+know\s+(?:exactly\s+)?(?:when|where)\s+I(?:'d|\s+would|'ll|\s+will"
             r"|'m\s+going\s+to)\s+do\s+it\b",
             "it", needs_context=True),
    # Access to means: stockpiling counts on its own, a firearm in the home needs company.
    _Pattern(MEANS_ACCESS,
             r"\b(?:saving|saved|stockpil\w+|hoard\w*|collecting|collected|stashing|stashed"
             r"|hiding|hid)\s+(?:up\s+)?(?:all\s+)?(?:of\s+)?(?:my\s+|the\s+|some\s+)?(?:\w+\s+)?"
             + _PILLS + r"\b",
             _PILL_WORDS + " | saving saved stockpile stockpiles stockpiled stockpiling hoard"
             " hoards hoarded hoarding collecting collected stashing stashed hiding hid"),
    _Pattern(MEANS_ACCESS,
             r"\b(?:I\s+have|I've\s+got|I\s+got|got)\s+enough\s+(?:\w+\s+)?" + _PILLS
             + r"\s+(?:saved\s+(?:up\s+)?|stashed\s+|stockpiled\s+|left\s+|put\s+away\s+)?to\b",
             "enough | " + _PILL_WORDS),
    _Pattern(MEANS_ACCESS,
             r"\b(?:stash|supply|stockpile|collection|hoard|bag|jar)\s+of\s+(?:\w+\s+)?" + _PILLS
             + r"\s+(?:hidden|saved|stashed|put\s+away|in\s+my|for\s+when)\b",
             _PILL_WORDS + " | stash supply stockpile collection hoard bag jar"),
    _Pattern(MEANS_ACCESS,
             r"\b" + _PILLS + r"\s+(?:I've\s+|I\s+have\s+)?(?:saved|stashed|stockpiled|hidden"
             r"|hoarded)\s+(?:up\s+)?(?:to|for|in|away)\b",
             _PILL_WORDS + " | saved stashed stockpiled hidden hoarded"),
    _Pattern(MEANS_ACCESS,
             r"\bI\s+(?:have|'ve\s+got|got)\s+(?:[\w']+\s+){0,3}?" + _PILLS + r"\b",
             _PILL_WORDS + " | have got", needs_context=True),
    _Pattern(MEANS_ACCESS,
             r"\b(?:I\s+(?:have|own|keep|bought|got)|I've\s+got|there's|there\s+(?:is|are)|we\s+"
             r"(?:have|keep|own)|(?:he|she|my\s+\w+)\s+(?:has|keeps|owns))\s+(?:a\s+|some\s+"
             r"|two\s+|several\s+|his\s+|her\s+|my\s+)?(?:[\w']+\s+){0,3}?" + _FIREARM + r"\b",
             _FIREARM_WORDS, needs_corroboration=True),
    _Pattern(MEANS_ACCESS,
             r"\bI\s+know\s+where\s+(?:my\s+\w+|he|she|they)\s+(?:keeps?|hides?|stores?)\s+"
             r"(?:the|his|her|their)\s+(?:\w+\s+)?" + _FIREARM + r"\b",
             _FIREARM_WORDS, needs_corroboration=True),
    _Pattern(MEANS_ACCESS, r"\bI\s+(?:bought|got|have)\s+(?:a\s+)?rope\b", "rope",
             needs_corroboration=True),
    # C-SSRS Q3: method.
    _Pattern(METHOD,
             r"\b(?:hang|hanging|hanged|shoot|shooting|drown|drowning|electrocut\w+|poison"
             r"|poisoning|suffocat\w+|stab|stabbing|strangle|strangling)\s+myself\b"
             r"(?!\s+in\s+the\s+foot)",
             "myself | hang hanging hanged shoot shooting drown drowning poison poisoning stab"
             " stabbing strangle strangling electrocute electrocuted electrocuting suffocate"
             " suffocated suffocating"),
    _Pattern(METHOD,
             r"\b(?:slit|slitting|slice|slicing|cut|cutting|open|opening)\s+(?:my|both)\s+wrists\b",
             "wrists"),
    _Pattern(METHOD,
             r"\b(?:jump|jumping|leap|leaping|throw\s+myself|throwing\s+myself)\s+(?:off|from"
             r"|in\s+front\s+of)\s+(?:a|the|that|my)\s+(?:\w+\s+)?(?:bridge|building|roof"
             r"|rooftop|balcony|cliff|overpass|train|bus|truck|parking\s+garage|window|tracks|subway"
             r"|metro|car|cars|traffic)\b",
             "jump jumping leap leaping throw throwing"),
    _Pattern(METHOD,
             r"\b(?:step|stepping|walk|walking|lie|lying|lay|laying)\s+(?:down\s+)?"
             r"(?:in\s+front\s+of|onto|on)\s+(?:a|the)\s+(?:train|bus|truck|traffic|tracks"
             r"|highway)\b",
             "train bus truck traffic tracks highway | step stepping walk walking lie lying lay"
             " laying"),
    _Pattern(METHOD,
             r"\b(?:drive|driving|crash|crashing|swerve|swerving|steer|steering)\s+(?:my\s+car\s+"
             r"|the\s+car\s+)?(?:off|into)\s+(?:a|the|that|oncoming)\s+(?:\w+\s+)?(?:bridge|cliff"
             r"|tree|wall|pole|traffic|lane|overpass|river|lake|median|barrier|truck|road|ditch"
             r"|embankment)\b",
             "drive driving crash crashing swerve swerving steer steering | into off"),
    _Pattern(METHOD,
             r"\b(?:thought|thinking|think|thoughts|want(?:ed)?|wanna|tempted|urges?|considered"
             r"|considering|imagin\w*|picture|picturing)\s+(?:about\s+|of\s+|to\s+)?(?:just\s+)?"
             r"(?:(?:tak(?:e|ing)|swallow(?:ing)?)\s+" + _PILL_QUANTITY
             + r"|overdos(?:e|ing)|OD(?:ing)?\b)",
             _PILL_WORDS + " overdose overdosing od oding | thought thinking think thoughts want"
             " wanted wanna tempted urge urges considered considering imagine imagined imagining"
             " picture picturing"),
    _Pattern(METHOD, r"\boverdos(?:e|ing)\b", "overdose overdosing", needs_context=True),
    _Pattern(METHOD,
             r"\b(?:gun|pistol|rifle|shotgun|firearm|knife|blade)\s+(?:to|against|in)\s+"
             r"my\s+(?:head|mouth|temple|chest|throat)\b",
             "head mouth temple chest throat | gun pistol rifle shotgun firearm knife blade"),
    _Pattern(METHOD,
             r"\b(?:thinking|thought|think|thoughts|reading|read)\s+(?:about|of|up\s+on)\s+(?:ways"
             r"|how)\s+to\s+(?:die|kill\s+myself|end\s+(?:it|my\s+life))\b",
             "ways how | die kill end"),
    # Preparation (C-SSRS behaviour): a noose, pills held ready.
    _Pattern(PLAN,
             r"\b(?:made|tied|bought|got|have)\s+(?:a\s+)?noose\b|\b(?:held|holding|counted|counting"
             r"|lined\s+up|lining\s+up|poured\s+out)\s+(?:all\s+)?(?:the|my|those)\s+"
             + _PILLS + r"\s+(?:in\s+my\s+hand|out|on\s+the\s+(?:table|counter|bed))\b",
             "noose " + _PILL_WORDS),
    _Pattern(METHOD,
             r"\bhow\s+easy\s+it\s+would\s+be\s+to\s+(?:just\s+)?(?:jump|crash|step\s+off|swerve"
             r"|drive\s+off|let\s+go)\b|\b(?:crash|crashing|wreck|wrecking)\s+(?:my|the)\s+car\s+"
             r"(?:on\s+purpose|deliberately|intentionally)\b",
             "easy crash crashing wreck wrecking | jump crash step swerve drive let car"),
    _Pattern(METHOD,
             r"\bI'?d\s+(?:use|take)\s+(?:the|my|a|all\s+(?:the|my))\s+(?:pills|meds|gun|rope|knife"
             r"|razor|rifle|pistol)\b",
             "pills meds gun rope knife razor rifle pistol | d", needs_context=True),
    _Pattern(METHOD,
             r"\buse\s+(?:it|the\s+gun|a\s+gun|the\s+knife|that|them)\s+on\s+myself\b",
             "myself | use"),
    _Pattern(METHOD, r"\bcarbon\s+monoxide\b|\b(?:car|engine)\s+running\s+in\s+the\s+garage\b"
             r"|\bin\s+the\s+garage\s+with\s+the\s+(?:car|engine)\s+running\b",
             "monoxide garage"),
    _Pattern(METHOD,
             r"\b(?:look(?:ed|ing)?\s+up|research(?:ed|ing)?|googl(?:e|ed|ing)|search(?:ed|ing)"
             r"(?:\s+for)?)\s+(?:how\s+(?:many|much)|(?:\w+\s+)?ways\s+to|how\s+to)\s+(?:\w+\s+){0,5}?"
             r"(?:it\s+would\s+take|to\s+(?:die|kill)|kill\s+myself|die|end\s+(?:it|my\s+life)"
             r"|overdose)\b",
             "look looked looking research researched researching google googled googling"
             " search searched searching"),
    _Pattern(METHOD,
             r"\bI\s+know\s+(?:exactly\s+)?how\s+I(?:'d|\s+would|'ll|\s+will|'m\s+going\s+to"
             r"|\s+could)\s+do\s+it\b",
             "it", needs_context=True),
    _Pattern(METHOD,
             r"\b(?:thought|thinking|think)\s+about\s+how\s+(?:I\s+(?:would|could|might)|I'd|to)"
             r"\s+do\s+it\b",
             "it", needs_context=True),
    # Self-harm (non-suicidal).
    _Pattern(SELF_HARM,
             r"\b(?:cut|cutting|burn|burned|burnt|burning|scratch|scratching|carve|carving"
             r"|hit|hitting|punch|punching)\s+myself\b"
             r"(?!\s+(?:shaving|cooking|on\b|while|by\s+accident|accidentally|chopping"
             r"|in\s+the\s+kitchen))",
             "myself | cut cutting burn burned burnt burning scratch scratching carve carving hit"
             " hitting punch punching"),
    _Pattern(SELF_HARM,
             r"\bI(?:'ve|\s+have|\s+had)?\s+(?:been\s+|started\s+|started\s+to\s+|keep\s+)?"
             r"(?:cut|cutting)\s+(?:again|my\s+(?:arms?|legs?|wrists?|thighs?|skin|stomach)"
             r"|on\s+my\s+(?:arms?|legs?|thighs?)|last\s+night|yesterday|this\s+(?:morning|week)"
             r"|today)\b",
             "cut cutting"),
    _Pattern(SELF_HARM, r"\bself[- ]?harm(?:ing|ed)?\b|\bNSSI\b|\bself[- ]injur(?:y|ing|ious)\b",
             "harm harming harmed selfharm selfharming nssi injury injuring injurious",
             topic_name=True),
    _Pattern(SELF_HARM,
             r"\b(?:urges?|thoughts?|thinking|want|wanted|wanting|tempted|felt\s+like|feel\s+like"
             r"|feeling\s+like|going|gonna|might)\s+(?:to\s+|of\s+|about\s+)?(?:\w+\s+)?"
             r"(?:hurt|harm|hurting|harming|injur\w*)\s+myself\b",
             "myself | hurt harm hurting harming injure injured injuring"),
    _Pattern(SELF_HARM,
             r"\bI\s+(?:\w+\s+)?(?:burn|burned|burnt|cut|scratch|scratched|hit|bite|bit|carve|carved)\s+"
             r"my\s+(?:arms?|legs?|wrists?|thighs?|skin|stomach|hands?)\s+(?:with\s+(?:a\s+)?(?:lighter"
             r"|cigarettes?|razors?|blades?|knife|scissors|match(?:es)?)|on\s+purpose|when\s+I)\b",
             "arm arms leg legs wrist wrists thigh thighs skin stomach hand hands"
             " | burn burned burnt cut scratch scratched hit bite bit carve carved"),
    _Pattern(SELF_HARM, r"\b(?:been|started|keep|kept)\s+(?:hurting|harming)\s+myself\b",
             "myself | hurting harming"),
    _Pattern(SELF_HARM,
             r"\b(?:hurt|harm)(?:ed|ing)?\s+myself\s+(?:on\s+purpose|deliberately|intentionally)\b",
             "myself | purpose deliberately intentionally"),
    # C-SSRS Q1: wish to be dead (passive ideation).
    _Pattern(WISH_TO_BE_DEAD,
             r"\bwish(?:ed|ing)?\s+(?:that\s+)?I\s+(?:was|were|could\s+be|'d\s+been|had\s+been)\s+"
             r"dead\b",
             "dead | wish wished wishing"),
    _Pattern(WISH_TO_BE_DEAD,
             r"\bwish(?:ed|ing)?\s+(?:that\s+)?I\s+(?:could\s+)?(?:just\s+)?"
             r"(?:die|disappear\s+forever"
             r"|not\s+exist|didn'?t\s+exist|stop\s+existing|never\s+wake\s+up|wasn'?t\s+(?:here"
             r"|alive|born)|weren'?t\s+(?:here|alive|born)|had\s+never\s+been\s+born"
             r"|was\s+never\s+born|(?:go\s+to\s+)?sleep\s+forever)\b",
             "wish wished wishing", negation_in_pattern=True),
    _Pattern(WISH_TO_BE_DEAD,
             r"\b(?:wants?|wanted|wanting|wanna)\s+to\s+(?:just\s+)?(?:die\b(?!\s+(?:of|from|laughing))"
             r"|be\s+dead\b)",
             "die dead"),
    _Pattern(WISH_TO_BE_DEAD,
             r"\b(?:might|may)\s+as\s+well\s+(?:be\s+dead|die)\b", "dead die | well"),
    _Pattern(WISH_TO_BE_DEAD,
             r"\bdon'?t\s+care\s+(?:if|whether)\s+I\s+(?:live|die|wake\s+up)\b",
             "live die wake | care", negation_in_pattern=True),
    _Pattern(WISH_TO_BE_DEAD,
             r"\b(?:death|dying|being\s+dead)\s+would\s+be\s+(?:a\s+)?(?:relief|easier|better"
             r"|welcome|peaceful)\b|\b(?:about|of)\s+not\s+being\s+(?:here|alive|around)\b",
             "death dying dead being | relief easier better welcome peaceful here alive around",
             negation_in_pattern=True),
    _Pattern(WISH_TO_BE_DEAD,
             r"\b(?:way\s+out|escape)\s+(?:except|but|other\s+than)\s+(?:dying|death|suicide"
             r"|killing\s+myself)\b",
             "dying death suicide killing | way escape", negation_in_pattern=True),
    _Pattern(WISH_TO_BE_DEAD,
             r"\b(?:don'?t|do\s+not|didn'?t|did\s+not|no\s+longer)\s+(?:really\s+)?want\s+to\s+"
             r"(?:live|be\s+alive|exist|be\s+here\s+any\s?more|be\s+around\s+any\s?more"
             r"|wake\s+up)\b",
             "live alive exist anymore more wake | want", negation_in_pattern=True),
    _Pattern(WISH_TO_BE_DEAD,
             r"\b(?:go|going|fall|falling)\s+(?:to\s+sleep|asleep)\s+and\s+(?:not|never)\s+"
             r"wak(?:e|ing)\s+up\b",
             "wake waking", negation_in_pattern=True),
    _Pattern(WISH_TO_BE_DEAD,
             r"\b(?:hope|hoping|hoped)\s+(?:that\s+)?(?:I\s+)?(?:don'?t|won'?t|never|wouldn'?t)\s+"
             r"wake\s+up\b(?!\s+(?:late|early|too|again\s+at))",
             "wake", negation_in_pattern=True),
    _Pattern(WISH_TO_BE_DEAD,
             r"\bbetter\s+off\s+(?:dead|not\s+existing|not\s+alive|not\s+being\s+(?:here|alive))\b"
             r"|\b(?:better\s+off|happier|better|easier)\s+(?:without\s+me"
             r"|if\s+I\s+(?:was|were|wasn'?t|weren'?t)\s+(?:dead|gone|here|around|alive))\b",
             "off better happier easier | dead me was were wasn weren existing alive being",
             negation_in_pattern=True),
    _Pattern(WISH_TO_BE_DEAD,
             r"\bcan'?t\s+(?:see|imagine|picture)\s+myself\s+(?:living|being\s+alive|alive"
             r"|being\s+here)\s+(?:past|beyond|much\s+longer|in\s+\w+\s+years)\b"
             r"|\bdeserve\s+to\s+die\b|\b(?:should|ought\s+to)\s+(?:just\s+)?(?:die|be\s+dead)\b"
             r"(?!\s+(?:of|from|laughing))",
             "living alive here die dead | see imagine picture deserve should ought",
             negation_in_pattern=True),
    _Pattern(WISH_TO_BE_DEAD,
             r"\b(?:life|living)\s+(?:is(?:n'?t|\s+not|\s+no\s+longer)|isn'?t|wasn'?t)\s+worth\s+"
             r"(?:living|it)\b|\bnot\s+worth\s+living\b",
             "worth", negation_in_pattern=True),
    _Pattern(WISH_TO_BE_DEAD,
             r"\bno\s+(?:reason|point)\s+(?:for\s+me\s+)?(?:to|in)\s+(?:living|live|be(?:ing)?\s+alive"
             r"|going\s+on|keep\s+living|stay(?:ing)?\s+alive)\b"
             r"|\bno\s+(?:reason|point)\s+(?:for|in)\s+me\s+(?:to\s+)?(?:be(?:ing)?\s+(?:here|around|alive)"
             r"|liv(?:e|ing))\b|\bwhat'?s\s+the\s+point\s+(?:of|in)\s+(?:living|being\s+alive"
             r"|going\s+on|staying\s+alive)\b",
             "reason point | living live alive going staying here around",
             negation_in_pattern=True),
    _Pattern(WISH_TO_BE_DEAD,
             r"\btired\s+of\s+(?:living|being\s+alive)\b|\bcan'?t\s+(?:go\s+on|keep)\s+living\b"
             r"|\bfe(?:el|eling|lt)\s+like\s+dying\b(?!\s+(?:of|from|laughing))"
             r"|\b(?:rather|prefer\s+to)\s+be\s+dead\b",
             "living alive dead dying | tired go keep rather prefer feel feeling felt",
             negation_in_pattern=True),
    _Pattern(WISH_TO_BE_DEAD,
             r"\b(?:wish(?:ed)?\s+(?:it|everything)\s+would\s+(?:all\s+)?(?:just\s+)?end"
             r"|want(?:ed)?\s+(?:it\s+all|everything)\s+to\s+(?:just\s+)?end"
             r"|want(?:ed)?\s+(?:it\s+all|everything|it)\s+to\s+(?:just\s+)?(?:all\s+)?stop\s+forever)\b",
             "end stop | wish wished want wanted"),
    _Pattern(WISH_TO_BE_DEAD,
             r"\bhop(?:e|ing|ed)\s+(?:that\s+)?I\s+(?:get|got|would\s+get)\s+(?:hit|run\s+over)\s+by"
             r"|\bhop(?:e|ing|ed)\s+(?:that\s+)?I\s+(?:just\s+)?die\b",
             "hit run die | hope hoping hoped"),
    _Pattern(WISH_TO_BE_DEAD,
             r"\b(?:fantasi[sz]\w*|daydream\w*|think\w*|dream\w*)\s+about\s+(?:my\s+own\s+death"
             r"|my\s+(?:own\s+)?funeral|being\s+dead)\b",
             "death funeral dead | fantasize fantasise fantasizing fantasising daydream"
             " daydreaming think thinking dream dreaming"),
    _Pattern(WISH_TO_BE_DEAD,
             r"\b(?:nobody|no\s+one)\s+would\s+(?:even\s+)?(?:notice|care|miss\s+me)\s+if\s+I"
             r"\s+(?:died|was\s+gone|disappeared|killed\s+myself|wasn'?t\s+here|was\s+dead)\b",
             "notice care miss | died gone disappeared killed wasn dead", negation_in_pattern=True),
    _Pattern(WISH_TO_BE_DEAD,
             r"\b(?:want|wanted)\s+to\s+(?:not\s+be\s+here|disappear\s+forever|stop\s+existing"
             r"|not\s+exist)\b",
             "here forever existing exist | want wanted", negation_in_pattern=True),
    _Pattern(WISH_TO_BE_DEAD,
             r"\bpassive\s+(?:suicidal\s+ideation|death\s+wish|suicidal\s+thoughts)",
             "passive", topic_name=True),
    # C-SSRS Q2: active, non-specific suicidal thoughts.
    _Pattern(SUICIDAL_IDEATION, r"\b(?:kill|killing|killed)\s+myself\b" + _KILL_MYSELF_IDIOMS,
             "myself | kill killing killed"),
    _Pattern(SUICIDAL_IDEATION, r"\b(?:end|ending|ended|take|taking)\s+my\s+(?:own\s+)?life\b",
             "life | my"),
    _Pattern(SUICIDAL_IDEATION, r"\bend(?:ing)?\s+it\s+all\b", "all | end ending"),
    _Pattern(SUICIDAL_IDEATION,
             r"\b(?:commit(?:ting)?|contemplat\w+|consider(?:ed|ing)?)\s+suicide\b", "suicide"),
    _Pattern(SUICIDAL_IDEATION,
             r"\b(?:suicide|dying|killing\s+myself)\s+(?:feels|seems|is|looks)\s+like\s+(?:the\s+)?"
             r"(?:only|best|easiest)\s+(?:option|way|answer|choice)\b|\bthe\s+only\s+(?:way\s+out"
             r"|option|answer)\s+is\s+(?:suicide|to\s+die|dying|to\s+kill\s+myself)\b",
             "suicide dying killing die | option way answer choice"),
    _Pattern(SUICIDAL_IDEATION,
             r"\b(?:thoughts?|thinking|thought|think|ideas?)\s+(?:about|of)\s+(?:suicide\b"
             r"|ending\s+(?:it|things|everything)\b(?!\s+with))",
             "suicide ending"),
    _Pattern(SUICIDAL_IDEATION,
             r"\b(?:urges?|urged|impulses?|tempted)\s+to\s+(?:just\s+)?end\s+(?:it|things|everything)\b"
             r"(?!\s+with)",
             "urge urges urged impulse impulses tempted | end"),
    _Pattern(SUICIDAL_IDEATION,
             r"\bsuicidal\b(?:\s+(?:thoughts?|ideation|feelings?|urges?|ideas?))?", "suicidal",
             topic_name=True),
    _Pattern(SUICIDAL_IDEATION, r"\bunalive\s+myself\b|\bkms\b", "unalive kms"),
    _Pattern(SUICIDAL_IDEATION,
             r"\bwon'?t\s+be\s+(?:around|here)\s+(?:much\s+longer|for\s+(?:much\s+)?longer|for\s+long"
             r"|any\s?more)\b",
             "around here | won wont", negation_in_pattern=True),
    # "I'm scared I'll do something to myself": a vague statement that still needs asking.
    _Pattern(SUICIDAL_IDEATION,
             r"\b(?:do|doing|did)\s+something\s+(?:stupid\s+|drastic\s+|bad\s+)?to\s+myself\b",
             "myself | do doing did"),
    # Homicidal ideation.
    _Pattern(HOMICIDAL_IDEATION,
             r"\b(?:I'll|I\s+will|I'm\s+gonna)\s+(?:kill|hurt|stab|shoot|strangle|murder)\s+"
             + _OTHERS,
             "kill hurt stab shoot strangle murder | ll will gonna"),
    _Pattern(HOMICIDAL_IDEATION,
             r"\b(?:want|wanted|wanting|wanna|going|gonna|plan(?:ning)?|intend(?:ing)?|decided"
             r"|ready|urges?|tempted)\s+to\s+(?:kill|hurt|harm|stab|shoot|strangle|murder|attack"
             r"|beat\s+up|choke|poison)\s+" + _OTHERS,
             "kill hurt harm stab shoot strangle murder attack beat choke poison | want wanted"
             " wanting wanna going gonna plan planning intend intending decided ready urge urges"
             " tempted"),
    _Pattern(HOMICIDAL_IDEATION,
             r"\b(?:thoughts?|thinking|thought|fantasi[sz](?:e|ed|ing)|fantas(?:y|ies)|urges?"
             r"|images?|dreams?)\s+(?:about|of)\s+(?:killing|hurting|harming|stabbing|shooting"
             r"|strangling|murdering|attacking|choking|poisoning)\s+" + _OTHERS,
             "killing hurting harming stabbing shooting strangling murdering attacking choking"
             " poisoning | thoughts thought thinking fantasize fantasise fantasized fantasised"
             " fantasizing fantasising fantasy fantasies urge urges image images dream dreams"),
    _Pattern(HOMICIDAL_IDEATION,
             r"\bhomicidal\b(?:\s+(?:thoughts?|ideation|feelings?|urges?))?", "homicidal",
             topic_name=True),
    _Pattern(HOMICIDAL_IDEATION,
             r"\bshoot(?:ing)?\s+up\s+(?:the|my|a)\s+(?:school|office|workplace|work|church"
             r"|store)\b",
             "shoot shooting"),
    # Chart abbreviations.
    _Pattern(WISH_TO_BE_DEAD, r"\b(?i:passive)\s+SI\b", "si", case_sensitive=True,
             topic_name=True),
    _Pattern(SUICIDAL_IDEATION, r"\b(?:(?i:active)\s+)?SI\b", "si", case_sensitive=True,
             topic_name=True),
    _Pattern(HOMICIDAL_IDEATION, r"\bHI\b", "hi", case_sensitive=True, topic_name=True),
    _Pattern(PAST_ATTEMPT, r"\bI\s+OD'?d\b", "od", case_sensitive=True, reject_accidental=True),
)

_COMPILED = tuple(
    re.compile(p.regex, 0 if p.case_sensitive else re.IGNORECASE) for p in _PATTERNS
)


def _anchor_index(groups: tuple[tuple[frozenset[str], ...], ...]) -> dict[str, tuple[int, ...]]:
    index: dict[str, list[int]] = {}
    for number, pattern_groups in enumerate(groups):
        for word in pattern_groups[0]:
            index.setdefault(word, []).append(number)
    return {word: tuple(numbers) for word, numbers in index.items()}


_ANCHOR_GROUPS = tuple(
    tuple(frozenset(group.split()) for group in pattern.anchors.split("|")) for pattern in _PATTERNS
)
_ANCHOR_INDEX = _anchor_index(_ANCHOR_GROUPS)
_EXTRA_ANCHOR_GROUPS = tuple(groups[1:] for groups in _ANCHOR_GROUPS)
_ANCHOR_WORDS = frozenset(_ANCHOR_INDEX)
_STRONG_ANCHOR_WORDS = frozenset(
    word
    for pattern, groups in zip(_PATTERNS, _ANCHOR_GROUPS, strict=True)
    if not pattern.needs_context
    for word in groups[0]
)
_TOKEN_RE = re.compile(r"[a-z0-9]+")

_KIND_STATEMENT = {
    WISH_TO_BE_DEAD: "Patient expressed a wish to be dead",
    SUICIDAL_IDEATION: "Patient reported suicidal ideation",
    METHOD: "Patient described a suicide method",
    INTENT: "Patient expressed intent to act on suicidal thoughts",
    PLAN: "Patient described a suicide plan",
    PAST_ATTEMPT: "Patient reported a past suicide attempt",
    MEANS_ACCESS: "Patient reported access to lethal means",
    SELF_HARM: "Patient reported self-harm",
    HOMICIDAL_IDEATION: "Patient reported thoughts of harming others",
    RISK_STATEMENT: "Patient's statement reads as current suicide or self-harm risk",
}
_KIND_TOPIC = {
    WISH_TO_BE_DEAD: "a wish to be dead",
    SUICIDAL_IDEATION: "suicidal thoughts",
    METHOD: "a suicide method",
    INTENT: "intent to act on suicidal thoughts",
    PLAN: "a suicide plan",
    PAST_ATTEMPT: "past suicide attempts",
    MEANS_ACCESS: "access to lethal means",
    SELF_HARM: "self-harm",
    HOMICIDAL_IDEATION: "thoughts of harming others",
}
# Kinds whose presence makes weak follow-up phrases ("I have a plan") meaningful.
_SUICIDE_CONTEXT_KINDS = frozenset(SIGNAL_KINDS) - {HOMICIDAL_IDEATION, RISK_STATEMENT}

# ---------------------------------------------------------------------------------------------
# Clinician questions and patient answers
# ---------------------------------------------------------------------------------------------

_SENTENCE_RE = re.compile(r"[^.!?\n]+[.!?]*")
_QUESTION_START_RE = re.compile(
    r"^\s*(?:have|has|do|does|did|are|is|was|were|would|will|could|any|how\s+often|when)\b",
    re.IGNORECASE,
)
# Priority order: the first topic a question matches is the kind a "yes" confirms.
# Priority order: the first topic a question matches is the kind a "yes" confirms. Each topic
# lists words one of which its pattern needs, so most questions skip the regex entirely.
_QUESTION_TOPICS: tuple[tuple[str, re.Pattern[str], frozenset[str]], ...] = tuple(
    (kind, re.compile(regex, re.IGNORECASE), frozenset(words.split()))
    for kind, regex, words in (
        (INTENT, r"\b(?:intend|intention|intent|act\s+on|going\s+to\s+(?:do|act))\b",
         "intend intention intent act"),
        (PLAN, r"\bplan(?:s|ned)?\b|\bwhen\s+and\s+where\b|\bworked\s+out\s+(?:the\s+)?details\b",
         "plan plans planned where details"),
        (METHOD, r"\bhow\s+(?:you\s+)?(?:would|might|could|'d)\s+(?:do|kill|end)\b|\bmethod\b",
         "how method"),
        (PAST_ATTEMPT, r"\b(?:tried|attempted)\s+to\s+(?:kill|end|take)\b|\battempt(?:ed|s)?\b"
                       r"|\bdone\s+anything\b.{0,40}\b(?:end\s+your\s+life|kill\s+yourself)",
         "tried attempted attempt attempts anything"),
        (MEANS_ACCESS, r"\baccess\s+to\b|\b(?:any|have|own|keep|are\s+there)\s+(?:\w+\s+){0,3}?"
                       + _FIREARM + r"\b|\b" + _FIREARM + r"\s+(?:in|at)\s+(?:the|your)\s+"
                       r"(?:home|house)\b|\bstockpil\w*|\bsaving\s+(?:up\s+)?(?:your\s+)?"
                       r"(?:pills|meds)",
         "access stockpile stockpiled stockpiling saving " + _FIREARM_WORDS),
        (SUICIDAL_IDEATION, r"\b(?:kill|killing)\s+yourself\b|\bsuicid\w*|\b(?:end|ending|take"
                            r"|taking)\s+your\s+(?:own\s+)?life\b|\bending\s+it\b",
         "yourself suicide suicidal suicidality life ending"),
        (SELF_HARM, r"\b(?:hurt|harm|hurting|harming|cut|cutting|burn|burning|injur\w*)\s+"
                    r"yourself\b|\bself[- ]?harm",
         "yourself self selfharm"),
        (HOMICIDAL_IDEATION, r"\b(?:hurt|harm|kill|hurting|harming|killing)\s+(?:someone|anyone"
                             r"|anybody|others|other\s+people)\b|\bhomicid",
         "someone anyone anybody others other homicidal"),
        (WISH_TO_BE_DEAD, r"\bwish(?:ed)?\s+you\s+(?:were|was)\s+dead\b|\bbetter\s+off\s+dead\b"
                          r"|\bnot\s+wake\s+up\b|\bwant(?:ed)?\s+to\s+die\b"
                          r"|\b(?:want|wanted)\s+to\s+(?:live|be\s+alive)\b",
         "dead wake die live alive"),
    )
)
_QUESTION_WORDS = frozenset().union(*(words for _kind, _regex, words in _QUESTION_TOPICS))
# Kinds a question can be about without earlier context; "Do you have a plan?" alone is not
# a suicide question, but "Are there guns in the house?" is a standard screening item.
_CORE_QUESTION_KINDS = frozenset(
    {SELF_HARM, HOMICIDAL_IDEATION, SUICIDAL_IDEATION, WISH_TO_BE_DEAD, MEANS_ACCESS, PAST_ATTEMPT}
)
_AFFIRMATIVE_RE = re.compile(
    r"^\W*(?:(?:um+|uh+|well|honestly|i\s+mean|i\s+guess|hmm+|so|okay|ok|i\s+think|to\s+be\s+honest"
    r"|truthfully)\W+)*"
    r"(?:yes|yeah|yea|yep|yup|mm-?hmm|uh-?huh|sometimes|a\s+little|a\s+bit|kind\s+of|sort\s+of"
    r"|kinda|i\s+have|i\s+do|i\s+did|i\s+am|i've\s+had|lately|more\s+than\s+once|every\s+day"
    r"|a\s+lot|often|maybe|probably|i\s+think\s+so|not\s+gonna\s+lie|definitely|constantly"
    r"|all\s+the\s+time|once|twice|there\s+(?:is|are|was)|more\s+than\s+i'?d\s+like"
    r"|more\s+(?:often\s+)?than\s+i\s+(?:want|care)\s+to\s+admit|too\s+often|a\s+few\s+times"
    r"|(?:most|some)\s+(?:days|nights)|here\s+and\s+there|on\s+and\s+off|off\s+and\s+on"
    r"|now\s+and\s+then|every\s+(?:day|night))\b",
    re.IGNORECASE,
)
_DOCUMENTATION_RE = re.compile(r"\b(?:patient|client|pt)\b|^\s*(?:endorses|reports|denies|states"
                               r"|admits|discloses)\b", re.IGNORECASE)
_SECOND_PERSON_RE = re.compile(r"\b(?:you|your|you're|you've)\b", re.IGNORECASE)
# Turn-level pre-check for _DOCUMENTATION_RE, which anchors some words at a sentence start.
_DOCUMENTATION_WORD_RE = re.compile(
    r"\b(?:patient|client|pt|endorses|reports|denies|states|admits|discloses)\b", re.IGNORECASE
)


_BARE_PLAN_QUESTION_RE = re.compile(
    r"\b(?:do|did)\s+you\s+(?:have|make)\s+a\s+plan\s*\??\s*$", re.IGNORECASE
)


def _question_kind(turn_text: str, context: bool) -> str | None:
    """The crisis topic of the clinician's last screening question in a turn, if any."""
    if _QUESTION_WORDS.isdisjoint(_TOKEN_RE.findall(turn_text.lower())):
        return None
    questions = [
        sentence for sentence in _SENTENCE_RE.findall(turn_text)
        if sentence.rstrip().endswith("?") or _QUESTION_START_RE.match(sentence)
    ]
    for question in reversed(questions):
        if _BARE_PLAN_QUESTION_RE.search(question):
            return PLAN  # "Do you have a plan?" with nothing after "plan" is a safety question
        tokens = frozenset(_TOKEN_RE.findall(question.lower()))
        kinds = [
            kind for kind, regex, words in _QUESTION_TOPICS
            if not words.isdisjoint(tokens) and regex.search(question)
        ]
        if not kinds:
            continue
        if context or any(kind in _CORE_QUESTION_KINDS for kind in kinds):
            return kinds[0]
        return None
    return None


_FILLER_CLAUSE_RE = re.compile(r"^\W*(?:(?:um+|uh+|hmm+|well|so|okay|ok|honestly|i\s+mean)\W*)*$",
                               re.IGNORECASE)


def _affirmative_answer(answer: str) -> bool:
    """True when the first real clause of a reply is a plain "yes" ("Yeah, sometimes")."""
    clauses = (part for part in CLAUSE_BOUNDARY_RE.split(answer) if part)
    first_clause = next((part for part in clauses if not _FILLER_CLAUSE_RE.match(part)), "")
    if not _AFFIRMATIVE_RE.match(first_clause):
        return False
    words = first_clause.split()[:ANSWER_WINDOW_WORDS]
    return not prefix_negates(" ".join(words))


# ---------------------------------------------------------------------------------------------
# Scanning
# ---------------------------------------------------------------------------------------------

@dataclass
class _ScanState:
    signals: dict[str, CrisisSignal] = field(default_factory=dict)
    pending: dict[str, CrisisSignal] = field(default_factory=dict)
    turn_index: int = 0
    context_turn: int | None = None

    def add(self, signal: CrisisSignal, needs_corroboration: bool = False) -> None:
        target = self.pending if needs_corroboration else self.signals
        target.setdefault(signal.kind, signal)

    def mark_context(self) -> None:
        self.context_turn = self.turn_index

    def context_from_earlier_turns(self) -> bool:
        return (
            self.context_turn is not None
            and self.turn_index - self.context_turn <= CONTEXT_WINDOW_TURNS
        )

    def assessment(self) -> CrisisAssessment:
        signals = dict(self.signals)
        if signals:
            for kind, signal in self.pending.items():
                signals.setdefault(kind, signal)
        ordered = tuple(signals[kind] for kind in SIGNAL_KINDS if kind in signals)
        return CrisisAssessment(signals=ordered, level=_assessment_level(ordered))


def _assessment_level(signals: tuple[CrisisSignal, ...]) -> str | None:
    if not signals:
        return None
    kinds = {signal.kind for signal in signals}
    if any(signal.level == IMMINENT for signal in signals):
        return IMMINENT
    if PLAN in kinds and kinds & {METHOD, MEANS_ACCESS}:
        return IMMINENT
    return HIGH


def _make_signal(kind: str, factor: str) -> CrisisSignal:
    return CrisisSignal(kind=kind, factor=factor, level=IMMINENT if kind == INTENT else HIGH)


def _statement_signal(kind: str, quote: str) -> CrisisSignal:
    return _make_signal(kind, f"{_KIND_STATEMENT[kind]} ('{quote}')")


_SENTENCE_SPAN_RE = re.compile(r"[^.!?\n]+")


def _sentence_matches(
    text: str, lowered: str, start: int, end: int, in_context: bool
) -> list[tuple[int, int, _Pattern]]:
    """Non-overlapping pattern matches in text[start:end], earliest first.

    Only patterns whose anchor words occur in the sentence are run. Where matches overlap, the
    earlier one wins, and at the same start the pattern listed first. Weak (context-only)
    matches never displace strong ones, because without context they would be discarded.
    """
    tokens = set(_TOKEN_RE.findall(lowered, start, end))
    words = _ANCHOR_WORDS.intersection(tokens)
    if not words:
        return []
    candidates = {number for word in words for number in _ANCHOR_INDEX[word]}
    numbers = sorted(
        number for number in candidates
        if not _EXTRA_ANCHOR_GROUPS[number] or all(
            not group.isdisjoint(tokens) for group in _EXTRA_ANCHOR_GROUPS[number]
        )
    )
    if not numbers:
        return []
    strong = _non_overlapping(
        _raw_matches(text, start, end, [n for n in numbers if not _PATTERNS[n].needs_context])
    )
    # Weak patterns only matter in context, which may also arise from a strong match in this
    # very sentence; _scan_text makes the exact per-match decision.
    if not (in_context or strong):
        return strong
    weak = _non_overlapping(
        _raw_matches(text, start, end, [n for n in numbers if _PATTERNS[n].needs_context])
    )
    weak = [w for w in weak if all(w[1] <= s[0] or w[0] >= s[1] for s in strong)]
    return sorted(strong + weak, key=lambda match: match[0])


def _non_overlapping(found: list[tuple[int, int, int]]) -> list[tuple[int, int, _Pattern]]:
    kept: list[tuple[int, int, _Pattern]] = []
    last_end = -1
    for match_start, number, match_end in sorted(found):
        if match_start >= last_end:
            kept.append((match_start, match_end, _PATTERNS[number]))
            last_end = match_end
    return kept


def _raw_matches(text: str, start: int, end: int, numbers: list[int]) -> list[tuple[int, int, int]]:
    return [
        (match.start(), number, match.end())
        for number in numbers
        for match in _COMPILED[number].finditer(text, start, end)
    ]


def _accept(text: str, start: int, end: int, pattern: _Pattern, pronoun_is_patient: bool) -> bool:
    """Whether a raw match is the patient's own, affirmed experience."""
    opening = clause_start(text, start)
    prefix = text[opening:start]
    if not pattern.negation_in_pattern and (
        prefix_negates(prefix) or POST_NEGATION_RE.match(text, end)
    ):
        return False
    if HYPOTHETICAL_RE.search(prefix) or REPORTED_SPEECH_RE.search(prefix):
        return False
    clause = text[opening:clause_end(text, end)]
    if FAMILY_HISTORY_RE.search(clause):
        return False
    if pattern.reject_accidental and ACCIDENTAL_RE.search(clause):
        return False
    if FIRST_PERSON_TOKEN_RE.search(text, start, end):
        return True
    return subject_is_patient(prefix, clause, pronoun_is_patient)


def _scan_text(text: str, state: _ScanState, pronoun_is_patient: bool) -> None:
    """Record every accepted signal in one patient-side passage."""
    lowered = text.lower()
    earlier_context = state.context_from_earlier_turns()
    if not earlier_context and _STRONG_ANCHOR_WORDS.isdisjoint(_TOKEN_RE.findall(lowered)):
        return  # nothing here can match, and weak patterns need context that is absent
    context_end: int | None = None
    for sentence in _SENTENCE_SPAN_RE.finditer(text):
        sentence_start, sentence_end = sentence.span()
        sentence_context = earlier_context or (
            context_end is not None and sentence_start - context_end <= CONTEXT_WINDOW_CHARS
        )
        matches = _sentence_matches(text, lowered, sentence_start, sentence_end, sentence_context)
        impersonal_question: bool | None = None
        for start, end, pattern in matches:
            in_context = earlier_context or (
                context_end is not None and start - context_end <= CONTEXT_WINDOW_CHARS
            )
            if pattern.needs_context and not in_context:
                continue
            if pattern.topic_name:
                if impersonal_question is None:
                    impersonal_question = _impersonal_question(text, sentence)
                if impersonal_question:
                    continue
            if not _accept(text, start, end, pattern, pronoun_is_patient):
                continue
            state.add(_statement_signal(pattern.kind, _quote(text, start, end)),
                      pattern.needs_corroboration)
            if pattern.kind in _SUICIDE_CONTEXT_KINDS:
                context_end = end
                state.mark_context()
            if pattern.plan_if_timed:
                _add_plan_from_timing(text, start, end, state)


def _impersonal_question(text: str, sentence: re.Match[str]) -> bool:
    return text.startswith("?", sentence.end()) and not FIRST_PERSON_TOKEN_RE.search(
        text, sentence.start(), sentence.end()
    )


def _add_plan_from_timing(text: str, start: int, end: int, state: _ScanState) -> None:
    """Intent tied to a time or place ("... take them all on Friday") is a plan as well."""
    closing = clause_end(text, end)
    timing = _TIME_OR_PLACE_RE.search(text, clause_start(text, start), closing)
    if timing is None:
        return
    quote_end = max(end, timing.end())
    state.add(_statement_signal(PLAN, _quote(text, start, quote_end)))


def _scan_clinician_turn(text: str, state: _ScanState) -> str | None:
    """Read documented findings from a clinician turn; return the screening topic it asks."""
    documents = _DOCUMENTATION_WORD_RE.search(text) is not None
    for sentence_match in _SENTENCE_RE.finditer(text) if documents else ():
        sentence = sentence_match.group(0)
        if sentence.rstrip().endswith("?") or _SECOND_PERSON_RE.search(sentence):
            continue
        if _DOCUMENTATION_RE.search(sentence):
            _scan_text(sentence, state, pronoun_is_patient=True)
    kind = _question_kind(text, state.context_from_earlier_turns())
    if kind is not None and kind in _SUICIDE_CONTEXT_KINDS:
        state.mark_context()
    return kind


def _answer_quote(answer: str) -> str:
    """The start of an answer: its first sentence of two or more words, at most
    MAX_QUOTE_WORDS words ("Um... yeah, sometimes.")."""
    words: list[str] = []
    for word in answer.split():
        words.append(word)
        if len(words) >= MAX_QUOTE_WORDS or (len(words) > 1 and word[-1] in ".!?"):
            break
    return " ".join(words).strip(" ,;:-\"'")


def _scan_answer(answer: str, asked_kind: str, state: _ScanState) -> None:
    if not _affirmative_answer(answer):
        return
    quote = _answer_quote(answer)
    factor = f"Patient answered yes when asked about {_KIND_TOPIC[asked_kind]} ('{quote}')"
    state.add(_make_signal(asked_kind, factor), needs_corroboration=asked_kind == MEANS_ACCESS)
    if asked_kind in _SUICIDE_CONTEXT_KINDS:
        state.mark_context()


def detect_phrases(transcript: str) -> CrisisAssessment:
    """Find crisis phrases in a transcript (see the module docstring)."""
    if not transcript or not transcript.strip():
        return CrisisAssessment(signals=(), level=None)
    return assess_phrases(split_turns(normalize_text(transcript)))


def assess_phrases(turns: list[Turn]) -> CrisisAssessment:
    """``detect_phrases`` for a transcript already split with ``split_turns`` (after
    ``normalize_text``)."""
    state = _ScanState()
    asked_kind: str | None = None
    for index, turn in enumerate(turns):
        state.turn_index = index
        if turn.role == ROLE_CLINICIAN:
            asked_kind = _scan_clinician_turn(turn.text, state)
            continue
        if asked_kind is not None:
            _scan_answer(turn.text, asked_kind, state)
        _scan_text(turn.text, state, pronoun_is_patient=turn.role == ROLE_NOTE)
        asked_kind = None
    return state.assessment()


# ---------------------------------------------------------------------------------------------
# Levels and the safety floor
# ---------------------------------------------------------------------------------------------

def _normalize_level(level: object) -> str | None:
    if not isinstance(level, str):
        return None
    candidate = level.strip().lower()
    return candidate if candidate in _LEVEL_RANK else None


def max_level(a: str, b: str) -> str:
    """The more severe of two risk levels (case and surrounding spaces are ignored).

    Raises ValueError for a value outside RISK_LEVELS, so a typo cannot silently rank as safe.
    """
    first, second = _normalize_level(a), _normalize_level(b)
    if first is None or second is None:
        raise ValueError(f"unknown risk level: {a!r} / {b!r}")
    return first if _LEVEL_RANK[first] >= _LEVEL_RANK[second] else second


def apply_safety_floor(risk: dict, assessment: CrisisAssessment) -> dict:
    """Return a new riskAssessment dict that is never less severe than the crisis floor.

    * level: max(risk level, assessment.level). The level is never lowered.
    * An unknown or missing risk level (None, "", "severe", not a string) is treated as below
      the floor: it becomes assessment.level when crisis language was found, otherwise
      "moderate", because an unknown rating is not evidence of low risk.
    * Review cues alone (no crisis signal) put the floor at "moderate" and add their
      "needs review" factors, so a softer cue is never silently "low".
    * factors: every signal's factor is appended unless already present; existing factors
      are kept in order (non-string items are dropped, a lone string becomes a list).
    * summary: kept; when the floor raised a known level, one sentence saying so is appended
      so the summary does not contradict the level.
    The input dict is not modified.
    """
    source = risk if isinstance(risk, dict) else {}
    result = dict(source)
    current = _normalize_level(source.get("level"))
    floor = assessment.floor_level
    if current is None:
        level = floor or UNKNOWN_LEVEL_DEFAULT
    elif floor is None:
        level = current
    else:
        level = max_level(current, floor)
    result["level"] = level

    factors = _string_list(source.get("factors"))
    for signal in (*assessment.signals, *assessment.review):
        if signal.factor not in factors:
            factors.append(signal.factor)
    result["factors"] = factors

    summary = source.get("summary") if isinstance(source.get("summary"), str) else ""
    if current is not None and level != current:
        reason = "crisis language was detected" if assessment.level else \
            "the patient said things a clinician should follow up"
        note = f"Risk level raised from {current} to {level} because {reason}."
        summary = f"{summary.rstrip()} {note}".strip()
    result["summary"] = summary
    return result


def _string_list(value: object) -> list[str]:
    if isinstance(value, str):
        return [value] if value.strip() else []
    if not isinstance(value, list):
        return []
    return [item for item in value if isinstance(item, str) and item.strip()]


def statement_factor(kind: str, quote: str, detail: str = "") -> str:
    """The factor text for a signal of ``kind`` quoting the patient's words (``detail``, e.g.
    ", with a time set", goes between the statement and the quote)."""
    return f"{_KIND_STATEMENT[kind]}{detail} ('{quote}')"


def assessment_level(signals: tuple[CrisisSignal, ...]) -> str | None:
    """"high" for any signal, "imminent" for intent or a plan with a method or means."""
    return _assessment_level(signals)
