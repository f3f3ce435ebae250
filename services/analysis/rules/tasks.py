"""Tasks and next steps from clinician statements: homework, follow-ups, referrals, labs."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from services.analysis.crisis import IMMINENT, CrisisAssessment
from services.analysis.rules.document import (
    ASSIGNEE_PATIENT,
    CLINICIAN_SIDE,
    MAX_DESCRIPTION_CHARS,
    Document,
    Rule,
    make_rule,
    shorten,
)
from services.analysis.rules.medications import Medication
from services.analysis.transcript import is_negated

ASSIGNEE_CLINICIAN = "clinician"
ASSIGNEE_CARE_TEAM = "care team"


# ---------------------------------------------------------------------------------------------
# Tasks and next steps (clinician statements)
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _TaskTemplate:
    title: str
    assignee: str
    icon: str
    priority: str
    estimated_time: str


# Activities that are homework only when the sentence also assigns them (see _HOMEWORK_CUE).
_HOMEWORK_RULES: tuple[tuple[Rule, _TaskTemplate], ...] = (
    (make_rule("thought_record",
           r"\bthought\s+(?:record|log|diary|journal)s?\b|\bABC\s+(?:worksheet|sheet)\b"
           r"|\bcognitive\s+distortions?\s+(?:worksheet|log)\b",
           "thought abc cognitive"),
     _TaskTemplate("Complete thought record", ASSIGNEE_PATIENT, "clipboard", "medium",
                   "15 min")),
    (make_rule("sleep_diary",
           r"\bsleep\s+(?:diary|log|journal|tracker)\b|\btrack(?:ing)?\s+(?:your\s+)?sleep\b",
           "sleep track tracking"),
     _TaskTemplate("Keep a sleep diary", ASSIGNEE_PATIENT, "moon", "medium", "5 min/day")),
    (make_rule("mood_log",
           r"\bmood\s+(?:log|diary|tracker|chart|journal)\b|\btrack(?:ing)?\s+(?:your\s+)?mood\b"
           r"|\brate\s+(?:your\s+)?mood\b",
           "mood track tracking rate"),
     _TaskTemplate("Track mood daily", ASSIGNEE_PATIENT, "clipboard", "low", "5 min/day")),
    (make_rule("relaxation",
           r"\bbreathing\s+(?:exercise|practice|technique)s?\b|\bbox\s+breathing\b"
           r"|\bdiaphragmatic\s+breathing\b|\b4-7-8\b|\bprogressive\s+muscle\s+relaxation\b"
           r"|\brelaxation\s+(?:exercise|practice|recording|technique)s?\b|\bgrounding\s+"
           r"(?:exercise|technique|skill)s?\b|\b5-4-3-2-1\b|\bmindfulness\s+(?:practice|exercise"
           r"|meditation)s?\b|\bmeditat\w+|\bbody\s+scan\b|\bbreathing\b",
           "breathing box diaphragmatic 4 progressive relaxation grounding 5 mindfulness meditate"
           " meditation meditating body"),
     _TaskTemplate("Practise relaxation or breathing exercise", ASSIGNEE_PATIENT, "heart",
                   "medium", "10 min/day")),
    (make_rule("exposure",
           r"\bexposures?\b|\bfear\s+(?:ladder|hierarchy)\b",
           "exposure exposures fear"),
     _TaskTemplate("Complete exposure practice", ASSIGNEE_PATIENT, "activity", "medium",
                   "20 min")),
    (make_rule("activation",
           r"\bbehaviou?ral\s+activation\b|\bactivity\s+(?:schedule|log|scheduling)\b"
           r"|\bpleasant\s+activit\w+|\benjoyable\s+activit\w+|\b(?:go\s+for|take)\s+a\s+walk\b"
           r"|\bwalk(?:ing)?\s+(?:every|each|\d+|three|twice)\b",
           "behavioral behavioural activity pleasant enjoyable go take walk walking"),
     _TaskTemplate("Schedule pleasant activities", ASSIGNEE_PATIENT, "activity", "medium",
                   "30 min")),
    (make_rule("journaling",
           r"\bjournal(?:ing)?\b|\bwrite\s+(?:down|about|a\s+letter)\b|\bgratitude\s+(?:list"
           r"|journal)\b|\bworry\s+(?:time|log|list)\b",
           "journal journaling write gratitude worry"),
     _TaskTemplate("Journaling exercise", ASSIGNEE_PATIENT, "book", "low", "15 min")),
    (make_rule("reading",
           r"\bread\s+(?:the\s+|this\s+|that\s+)?(?:chapter|handout|worksheet|article|book"
           r"|pages?)\b|\b(?:review|look\s+over|go\s+over)\s+(?:the\s+)?(?:handout|worksheet"
           r"|materials?)\b",
           "read review look go"),
     _TaskTemplate("Review handout or reading", ASSIGNEE_PATIENT, "book", "low", "20 min")),
    (make_rule("self_monitoring",
           r"\btrack(?:ing)?\s+(?:your\s+|the\s+)?(?:drinks|drinking|use|cravings|urges|spending"
           r"|meals|food)\b|\b(?:drink|drinking|craving|urge)\s+(?:log|diary|tracker)\b"
           r"|\bcount(?:ing)?\s+(?:your\s+)?drinks\b",
           "track tracking drink drinking craving urge count counting"),
     _TaskTemplate("Keep a self-monitoring log (drinks, cravings or urges)", ASSIGNEE_PATIENT,
                   "clipboard", "medium", "5 min/day")),
    (make_rule("medication_adherence",
           r"\btake\s+(?:your|the|it|them)\s+(?:\w+\s+)?(?:medication|meds|pills?|dose)?\s*"
           r"(?:every|each|daily|consistently|as\s+prescribed|at\s+the\s+same\s+time)\b"
           r"|\bset\s+(?:a|an)\s+(?:alarm|reminder)\b",
           "take set"),
     _TaskTemplate("Take medication as prescribed", ASSIGNEE_PATIENT, "pill", "medium",
                   "daily")),
)
# Unmistakable assignments ("I'd like you to ...", "for homework ..."), used when the
# activity itself is not one of the recognised ones above.
_ASSIGNMENT = make_rule(
    "assignment",
    r"\bhomework\b|\bI'?d\s+(?:also\s+)?like\s+(?:you|both\s+of\s+you)(?:\s+(?:both|two|all))?\s+to\s+"
    r"(?!(?:tell|talk|share|say|describe|think|come|see|meet|call|return|schedule|answer"
    r"|consider|know|feel|remember|understand|hear|bring)\b)|\bI\s+want\s+you(?:\s+both)?\s+to\s+"
    r"(?!(?:know|feel|remember|understand|hear|tell|talk|think)\b)|\b(?:can|could|would)\s+you\s+"
    r"(?:try|keep|practi[cs]e|complete|fill|start|use|write|track)\b[^.?!]{0,60}\b(?:this\s+week"
    r"|each|every|daily|nightly|before)\b",
    "homework like want can could would",
)
_HOMEWORK_CUE = make_rule(
    "homework_cue",
    r"\bhomework\b|\bthis\s+(?:coming\s+)?week\b|\bbefore\s+(?:our\s+|your\s+)?next\s+(?:session"
    r"|time|visit|appointment)\b|\bbetween\s+(?:now\s+and|sessions)\b|\b(?:every|each)\s+(?:day"
    r"|night|morning|evening)\b|\bdaily\b|\bnightly\b|\bI'?d\s+like\s+you\s+to\b"
    r"|\bI\s+want\s+you\s+to\b|\b(?:can|could|would)\s+you\s+(?:try|practi[cs]e|do|keep"
    r"|complete|fill|start|use)\b|\btry\s+(?:to\s+)?(?:practi[cs]e|do|use|keep|write|track"
    r"|notice|fill|complete|the)\b|\bfor\s+next\s+time\b|\bassignment\b|\bat\s+home\b"
    r"|\b(?:once|twice|three\s+times|\w+\s+times)\s+a\s+(?:day|week)\b|\bkeep\s+(?:a|an|the"
    r"|your)\b|\bfill\s+(?:out|in)\b|\bcomplete\b|\bpractice\b|\bpractise\b",
    "homework",
)
_SCREENER_TASK = make_rule(
    "screener_task",
    r"\b(?:fill\s+out|complete|do|take)\s+(?:the\s+|a\s+|another\s+|your\s+)?(?P<what>PHQ[\s-]?9"
    r"|PHQ[\s-]?2|GAD[\s-]?7|GAD[\s-]?2|PCL[\s-]?5|AUDIT(?:[\s-]?C)?|questionnaire|screener"
    r"|survey|forms?)\b",
    "phq phq9 phq2 gad gad7 gad2 pcl pcl5 audit auditc questionnaire screener survey form forms",
)
_FOLLOW_UP = make_rule(
    "follow_up",
    # "see you" as a leave-taking, not "I see you rated urges a 4 on Tuesday" (a past day).
    r"\b(?:schedule|book|set\s+up|see\s+you(?=\s+(?:both\s+|all\s+|two\s+)?(?:again\s+|then\s+)?(?:in|next|on|tomorrow"
    r"|same|weekly|every|after|within|the\s+same)\b)|meet|follow[- ]?up|check[- ]?in|come\s+back"
    r"|same\s+(?:time|day)|next\s+(?:session|appointment|visit))\b[^.?!]{0,60}?"
    r"\b(?P<when>(?:in|within|after)\s+"
    r"(?:a|one|two|three|four|five|six|eight|\d+|a\s+couple\s+(?:of\s+)?|a\s+few)\s*(?:weeks?"
    r"|days?|months?)|next\s+(?:week|month|monday|tuesday|wednesday|thursday|friday)|tomorrow"
    r"|on\s+(?:monday|tuesday|wednesday|thursday|friday|saturday)|weekly"
    r"|every\s+(?:week|other\s+week|two\s+weeks))\b",
    "weeks week days day months month tomorrow monday tuesday wednesday thursday friday"
    " saturday weekly every",
)
# A referral is a task only when someone commits to making it ("I'll send a referral to ...",
# "Refer to psychiatry" in a plan), not when the text says the patient was self-referred.
_REFERRAL = make_rule(
    "referral",
    r"(?:\b(?:I'll|I\s+will|I'm\s+going\s+to|I'd\s+like\s+to|I\s+want\s+to|let\s+me|we'll"
    r"|we\s+will|we're\s+going\s+to|going\s+to|plan\s+to|will)\s+(?:\w+\s+){0,2}?"
    r"(?:refer|send\s+(?:a|the|in\s+a)\s+referral|put\s+in\s+(?:a\s+)?referral"
    r"|(?:make|place|submit)\s+(?:a\s+)?referral)"
    r"|(?:^|(?<=[.!?:\n])|(?<=[.!?:\n]\s))\s*(?:plan:\s*)?refer(?:ral)?)"
    r"(?:\s+(?:you|her|him|them))?[^.?!]{0,30}?\b(?:to|for)\s+"
    r"(?:(?:a|an|the|your|our)\s+)?(?P<to>(?:(?:St|Mt|Dr)\.\s+)?[A-Za-z][\w/-]*(?:\s+(?!(?:so|and|for|to|who|next"
    r"|this|today|because|about|if|as|that|soon|when)\b)(?:(?:St|Mt|Dr)\.\s+)?[A-Za-z][\w/'-]*)"
    r"{0,3})",
    "refer referral",
)
_CONTACT = make_rule(
    "contact",
    r"\b(?:I'll|I\s+will|I'm\s+going\s+to|let\s+me|I'd\s+like\s+to|I\s+want\s+to|I\s+need\s+to"
    r"|I\s+plan\s+to)\s+(?:call|reach\s+out\s+to|contact|email|message|talk\s+(?:to|with)"
    r"|speak\s+(?:to|with)|coordinate\s+with|consult\s+with|check\s+(?:in\s+)?with|loop\s+in"
    r"|let)\s+(?P<who>(?:your|her|his|the|their|our)\s+(?!(?:this|that|today|tonight|tomorrow"
    r"|later|soon|now|next|after|before|again|back|first|when|if|and|about)\b)"
    r"(?:primary\s+care\s+(?:doctor|provider"
    r"|physician)|[A-Za-z][\w-]*(?:\s+(?:team|doctor|provider|physician|nurse|psychiatrist"
    r"|therapist|counsel+or|prescriber|worker|manager|line|clinic))?)|Dr\.?\s+[A-Za-z]+)",
    "call reach contact email message talk speak coordinate consult check loop let",
)
_SEND = make_rule(
    "send",
    r"\b(?:I'll|I\s+will|let\s+me|I'm\s+going\s+to)\s+(?:send|email|give|print)\s+you\s+"
    r"(?:a\s+|the\s+|some\s+|that\s+|this\s+)?(?:copy\s+of\s+(?:the\s+)?)?"
    r"(?P<what>worksheet|handout"
    r"|link|information|info|resources?|list|recording|app|materials?|article)\b",
    "send email give print",
)
# "I will send the refill to your pharmacy", "I'll call in the prescription".
_PHARMACY = make_rule(
    "pharmacy",
    r"\b(?:I'll|I\s+will|let\s+me|I'm\s+going\s+to)\s+(?:send|call\s+in|e-?prescribe|fax)\s+"
    r"(?:the\s+|a\s+|your\s+|that\s+|this\s+)?(?:new\s+)?(?P<what>refill|prescription|script"
    r"|rx)\b",
    "send call prescribe eprescribe fax",
)
# "I will give you a new naloxone kit before you leave today."
_HAND_OVER = make_rule(
    "hand_over",
    r"\b(?:I'll|I\s+will|let\s+me|I'm\s+going\s+to)\s+(?:give|get)\s+you\s+"
    r"(?:a\s+|the\s+|some\s+|another\s+)?(?:new\s+|fresh\s+|spare\s+)?"
    r"(?P<what>(?:naloxone|narcan)(?:\s+kit)?|kit|letter|work\s+note|school\s+note|note\s+for"
    r"\s+(?:work|school)|voucher|bus\s+pass|safety\s+plan\s+card|crisis\s+card)\b",
    "give get naloxone narcan kit letter note voucher pass card",
)
# "Bring the job application next week": something for the patient to bring.
_BRING = make_rule(
    "bring",
    r"(?:^|(?<=[.!?:\n])|(?<=[.!?:\n]\s)|\b(?:please|can\s+you|could\s+you|remember\s+to"
    r"|don't\s+forget\s+to)\s+)\s*(?:please\s+)?bring\s+(?:in\s+)?(?:the\s+|your\s+|a\s+|an\s+"
    r"|that\s+|those\s+)?(?P<what>[A-Za-z][\w-]*(?:\s+(?!(?:next|to|on|with|when|tomorrow|so"
    r"|and|for|in|at|this|that|back)\b)[A-Za-z][\w-]*){0,3})",
    "bring",
)
_POSSESSIVE_RE = re.compile(r"^(?:your|her|his|their)\s+", re.IGNORECASE)
# Sent for an emergency evaluation: a task for today, not a week's homework.
_EMERGENCY = make_rule(
    "emergency",
    r"\b(?:emergency|urgent|crisis)\s+(?:psychiatric\s+|mental\s+health\s+)?(?:evaluation"
    r"|assessment|room|department)\b|\bgo\s+(?:straight\s+|directly\s+)?to\s+(?:the\s+)?"
    r"(?:ER|ED|emergency\s+room|emergency\s+department)\b",
    "emergency urgent crisis er ed",
)
_LABS = make_rule(
    "labs",
    r"\b(?:order|check|draw|get)\s+(?:a\s+|some\s+|your\s+|her\s+|his\s+)?"
    r"(?P<what>labs?|blood\s*work"
    r"|(?:lithium|TSH|thyroid|CBC|CMP|metabolic|A1c|lipid|valproate|depakote)\s+(?:level|panel"
    r"|labs?|tests?)s?|EKG|ECG)\b",
    "labs lab bloodwork blood lithium tsh thyroid cbc cmp metabolic a1c lipid valproate depakote"
    " ekg ecg",
)
_SAFETY_PLAN_TASK = make_rule(
    "safety_plan",
    r"\b(?:let'?s|we'?ll|we\s+will|we\s+should|going\s+to|want\s+to)\s+(?:\w+\s+){0,3}?"
    r"(?:review|update|go\s+over|complete|write|revisit|work\s+on)\s+(?:your\s+|the\s+|a\s+)?"
    r"safety\s+plan\b",
    "safety",
)

_TASK_FOLLOW_UP = _TaskTemplate("Schedule follow-up", ASSIGNEE_CARE_TEAM, "calendar", "medium",
                                "5 min")
_TASK_REFERRAL = _TaskTemplate("Send referral", ASSIGNEE_CLINICIAN, "phone", "medium", "15 min")
_TASK_CONTACT = _TaskTemplate("Contact", ASSIGNEE_CLINICIAN, "phone", "medium", "10 min")
_TASK_SEND = _TaskTemplate("Send", ASSIGNEE_CLINICIAN, "book", "low", "5 min")
_TASK_PHARMACY = _TaskTemplate("Send prescription to pharmacy", ASSIGNEE_CLINICIAN, "pill",
                               "medium", "5 min")
_TASK_HAND_OVER = _TaskTemplate("Give patient", ASSIGNEE_CLINICIAN, "clipboard", "medium",
                                "5 min")
_TASK_BRING = _TaskTemplate("Bring", ASSIGNEE_PATIENT, "clipboard", "low", "5 min")
_TASK_LABS = _TaskTemplate("Order labs", ASSIGNEE_CLINICIAN, "clipboard", "medium", "10 min")
_TASK_EMERGENCY = _TaskTemplate("Go for an emergency evaluation today", ASSIGNEE_PATIENT,
                                "alert", "urgent", "today")
_TASK_HOMEWORK = _TaskTemplate("Complete assigned homework", ASSIGNEE_PATIENT, "book", "medium",
                               "1 week")
_TASK_SCREENER = _TaskTemplate("Complete questionnaire before next session", ASSIGNEE_PATIENT,
                               "clipboard", "low", "5 min")
_TASK_SAFETY_PLAN = _TaskTemplate("Review safety plan", ASSIGNEE_CLINICIAN, "alert", "high",
                                  "20 min")
_TASK_PRESCRIPTION = _TaskTemplate("Update prescription", ASSIGNEE_CLINICIAN, "pill", "medium",
                                   "10 min")
_TASK_CRISIS = _TaskTemplate("Complete safety plan / crisis follow-up", ASSIGNEE_CLINICIAN,
                             "alert", "urgent", "30 min")
_CRISIS_DESCRIPTIONS = {
    IMMINENT: "Imminent-risk language detected. Do not end contact without a safety plan; "
              "arrange same-day crisis evaluation (988 or emergency services if needed) and "
              "means restriction.",
    "high": "Crisis language detected. Complete a Stanley-Brown safety plan, counsel on means "
            "restriction and schedule a check-in within 24-72 hours.",
}
_SCREENER_NAME_CLEAN = {"PHQ": "PHQ-", "GAD": "GAD-", "PCL": "PCL-"}


@dataclass(frozen=True)
class _Task:
    template: _TaskTemplate
    title: str
    description: str
    start: int  # position in the transcript, for ordering


def _task(template: _TaskTemplate, description: str, start: int, title: str | None = None) -> _Task:
    return _Task(template, title or template.title, shorten(description, MAX_DESCRIPTION_CHARS),
                 start)


def clinician_matches(doc: Document, rule: Rule) -> Iterator[tuple[int, re.Match[str]]]:
    for number, match in doc.finditer(rule.regex, rule.anchors, CLINICIAN_SIDE):
        if not is_negated(doc.text, match.start()):
            yield number, match


def _homework_tasks(doc: Document) -> list[_Task]:
    tasks = []
    assigned: set[int] = set()
    for rule, template in _HOMEWORK_RULES:
        for number, match in clinician_matches(doc, rule):
            sentence = doc.sentences[number]
            if _HOMEWORK_CUE.regex.search(doc.text, sentence.start, sentence.end):
                tasks.append(_task(template, doc.sentence_text(number), match.start()))
                assigned.add(number)
                break
    # An explicit assignment with no recognised activity still becomes a (generic) task.
    for number, match in clinician_matches(doc, _ASSIGNMENT):
        sentence = doc.sentences[number]
        # "I'd like you to go for an emergency evaluation today": that task, not homework.
        if number not in assigned and not any(
                rule.regex.search(doc.text, sentence.start, sentence.end)
                for rule in (_EMERGENCY, _LABS)):
            tasks.append(_task(_TASK_HOMEWORK, doc.sentence_text(number), match.start()))
            assigned.add(number)
    return tasks


def _screener_task_title(what: str) -> str:
    name = what.upper().replace(" ", "").replace("-", "")
    for prefix, clean in _SCREENER_NAME_CLEAN.items():
        if name.startswith(prefix):
            return f"Complete {clean}{name[len(prefix):]} before next session"
    if name.startswith("AUDIT"):
        return f"Complete {'AUDIT-C' if name.endswith('C') else 'AUDIT'} before next session"
    return _TASK_SCREENER.title


def _scheduling_tasks(doc: Document) -> list[_Task]:
    tasks = []
    for number, match in clinician_matches(doc, _SCREENER_TASK):
        title = _screener_task_title(match.group("what"))
        tasks.append(_task(_TASK_SCREENER, doc.sentence_text(number), match.start(), title))
        break
    for _number, match in clinician_matches(doc, _FOLLOW_UP):
        when = " ".join(match.group("when").split())
        tasks.append(_task(_TASK_FOLLOW_UP, f"Follow-up {when}", match.start(),
                           f"Schedule follow-up {when}"))
        break
    return tasks


def _words(match: re.Match[str], group: str) -> str:
    return " ".join(match.group(group).split())


@dataclass(frozen=True)
class _Action:
    """What a clinician commits to or asks for, one task per sentence that says it: the rule,
    the task's template, its title from the match, and whether a condition in the sentence
    ("If it gets worse, go to the ER": a safety plan's step) makes it no task for now."""

    rule: Rule
    template: _TaskTemplate
    title: Callable[[re.Match[str]], str]
    not_if_conditional: bool = False


_ACTION_RULES: tuple[_Action, ...] = (
    _Action(_REFERRAL, _TASK_REFERRAL, lambda m: f"Send referral to {_words(m, 'to')}"),
    _Action(_CONTACT, _TASK_CONTACT,
            lambda m: "Contact " + _POSSESSIVE_RE.sub("patient's ", _words(m, "who"))),
    _Action(_SEND, _TASK_SEND, lambda m: f"Send {m.group('what').lower()} to patient"),
    _Action(_PHARMACY, _TASK_PHARMACY, lambda m: "Send refill to pharmacy"
            if m.group("what").lower() == "refill" else "Send prescription to pharmacy"),
    _Action(_HAND_OVER, _TASK_HAND_OVER, lambda m: f"Give patient {_words(m, 'what')}"),
    _Action(_BRING, _TASK_BRING, lambda m: f"Bring {_words(m, 'what')} to next session"),
    _Action(_LABS, _TASK_LABS, lambda m: f"Order labs ({_words(m, 'what')})"),
    _Action(_EMERGENCY, _TASK_EMERGENCY, lambda m: _TASK_EMERGENCY.title,
            not_if_conditional=True),
)
_CONDITION_RE = re.compile(r"\b(?:if|whenever|when|should|in\s+case|unless)\b", re.IGNORECASE)


def _clinician_action_tasks(doc: Document) -> list[_Task]:
    tasks = [_task(action.template, doc.sentence_text(number), match.start(),
                   action.title(match))
             for action in _ACTION_RULES
             for number, match in clinician_matches(doc, action.rule)
             if not (action.not_if_conditional
                     and _CONDITION_RE.search(doc.sentence_text(number)))]
    for number, match in clinician_matches(doc, _SAFETY_PLAN_TASK):
        tasks.append(_task(_TASK_SAFETY_PLAN, doc.sentence_text(number), match.start()))
        break
    return tasks


def _prescription_tasks(meds: list[Medication]) -> list[_Task]:
    tasks = []
    for med in meds:
        new = [change for change in med.changes if change.is_new_prescription]
        if new:
            tasks.append(_task(_TASK_PRESCRIPTION, f"Medication change discussed: {new[0].phrase}.",
                               0, f"Update {med.generic} prescription ({new[0].kind})"))
    return tasks


def build_tasks(doc: Document, assessment: CrisisAssessment,
                 meds: list[Medication]) -> list[dict]:
    found = (
        _homework_tasks(doc) + _scheduling_tasks(doc) + _clinician_action_tasks(doc)
    )
    found.sort(key=lambda task: task.start)
    found += _prescription_tasks(meds)
    if assessment.level is not None:
        # The crisis task below already covers safety planning.
        found = [task for task in found if task.template is not _TASK_SAFETY_PLAN]
        found.insert(0, _task(_TASK_CRISIS, _CRISIS_DESCRIPTIONS[assessment.level], -1))
    tasks: list[dict] = []
    seen: set[str] = set()
    for task in found:
        if task.title.lower() in seen:
            continue
        seen.add(task.title.lower())
        tasks.append({
            "id": len(tasks) + 1,
            "title": task.title,
            "description": task.description,
            "assignee": task.template.assignee,
            "icon": task.template.icon,
            "priority": task.template.priority,
            "estimatedTime": task.template.estimated_time,
        })
    return tasks


def next_steps(tasks: list[dict]) -> list[str]:
    return [f"{task['assignee'].capitalize()}: {task['title']}" for task in tasks]
