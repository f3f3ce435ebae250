"""Concept-based crisis detection: the C-SSRS kinds a patient statement asserts.

Phrase patterns (``phrases``) generalise one phrase at a time. This module reads a patient
turn as concepts instead, from the lexicons in ``lexicon.json``: death and dying, a wish, a
self-directed act, self-harm, a method, lethal means (medication classes and named drugs, a
firearm, a rope), possession and purpose, preparation, a plan, intent and commitment, a time,
and the softer cues a clinician would follow up (burden, farewells, hopelessness).

Turns are read into mentions by ``reading`` (normalised, stemmed, spelling-tolerant tokens),
and a mention counts only where ``assertion`` finds it asserted (not negated, hypothetical,
someone else's, academic or over and done). C-SSRS kinds then come from combinations of
asserted concepts in a sentence and its neighbours, so a method needs a thought or a plan, a
medication needs possession and a purpose, and "do it" needs a commitment, a time or earlier
suicidal talk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from itertools import pairwise

from services.analysis.crisis.assertion import (
    FIRST_PERSON,
    MODIFIER_WINDOW_TOKENS,
    TOPIC_WORDS,
    about_someone_else,
    asserted_concepts,
    clause_bounds,
    has,
    hypothetical,
    tells_of_someone_else,
    told_as_an_accident,
)
from services.analysis.crisis.reading import (
    DOSE_UNITS,
    NOT_MEDICINES,
    Mention,
    Sentence,
    names,
    read_turn,
    stem,
)
from services.analysis.crisis.signals import RISK_STATEMENT

# Sentences either side of a sentence whose concepts combine with it ("I've worked it out.
# The pills, the hotel room, the note. I just need the weekend.").
NEIGHBOUR_SENTENCES = 2
# "cut" only means self-harm when it is not cutting something else ("cut back", "cut ties").
_CUT_OBJECTS = frozenset({"back", "ties", "off", "down", "out", "the", "a", "an", "it", "him",
                          "her", "them", "in", "up", "class", "corner", "hair", "onion", "cost",
                          "carb", "sugar", "hour", "line", "deal", "loose", "short", "through",
                          "open", "my finger", "people", "contact", "vegetabl", "veg",
                          "carrot", "potato", "meat", "bread", "cake", "grass", "lawn", "hedge",
                          "wood", "paper", "fabric", "tree", "branch", "spending", "toenail"})
_IDIOM_AFTER_DEATH = frozenset({"of", "from", "to", "laughing", "tired", "end", "line", "for",
                                "than", "serious", "late", "early", "in", "on", "at", "haha"})
_IDIOM_AFTER_PHRASE = frozenset({"late", "early", "haha", "lol", "laughing", "tired", "until",
                                 "till", "til"})
# "killing myself at the gym", "ending it with Tom": the act is about something else.
_IDIOM_AFTER_ACT = frozenset({"at", "for", "over", "trying", "working", "studying", "laughing",
                              "with", "to", "of", "home", "back", "out", "shopping", "bed"})
_PRESENT_OR_FUTURE = frozenset({"am", "will", "gonna", "going", "shall"})
_BODY_WORDS = frozenset({"myself", "hand", "hands", "head", "arm", "arms", "wrist", "wrists",
                         "leg", "legs", "thigh", "thighs", "skin", "face", "fist", "fists",
                         "knuckles", "finger", "fingers", "body", "stomach", "hair", "nails"})
_BODY_PARTS = frozenset({"arm", "arms", "wrist", "wrists", "thigh", "thighs", "leg", "legs",
                         "skin", "stomach", "body", "chest", "hip", "hips", "forearm",
                         "forearms", "shin", "shins", "ankle", "ankles", "calf", "calves",
                         "belly", "tummy", "ribs", "shoulder", "shoulders", "knee", "knees",
                         "foot", "feet"})


@dataclass(frozen=True)
class ConceptFinding:
    kind: str  # a crisis kind, or REVIEW for a softer cue
    imminent: bool
    quote: str
    cue: str = ""  # for REVIEW: burden, farewell or hopeless


REVIEW = "review"
_SUICIDAL = frozenset({"self_kill", "death_wish", "method", "plan", "preparation"})
_MEANS_OR_METHOD = frozenset({"method", "method_weak", "means"})
# A low time ("when I'm low", "with the thoughts I've been having") names what means are for
# when it is told with them: thinking of them, keeping them, reaching them.
_DARK_WITH = frozenset({"purpose", "thought", "possession", "access", "means", "plan"})
_LONG_PLAN_TOKENS = 4


def _quote(sentence: Sentence, mention: Mention, words: int) -> str:
    start = max(sentence.offset, mention.start - 3) - sentence.offset
    return " ".join(sentence.words[start:start + words])


# "cut on my thigh", "at ma arms with the blade": the patient's own body, named after "my" or
# the dialect "ma"/"me", a word or two after the cut or the blade.
_OWN = frozenset({"my", "ma", "me"})
_OWN_BODY = _BODY_PARTS | frozenset({"hand", "hands", "wrist", "wrists", "neck", "face",
                                     "forearm", "forearms", "ankle", "ankles", "shoulder",
                                     "shoulders", "belly", "finger", "fingers"})
_CUT_PREPOSITIONS = frozenset({"on", "in", "into", "at", "across", "along", "up", "to"})
# "my hours got cut", "the budget was cut": something else was cut.
_PASSIVE = frozenset({"got", "get", "gets", "getting", "was", "were", "be", "been", "being",
                      "is", "are"})
# Cues that are an instrument, not the act: they count on the patient's own body, told as
# something recent or gone back to ("the lighter again. On my wrist").
_INSTRUMENTS = frozenset({"blade", "blades", "razor", "razors", "lighter", "compass", "scissors",
                          "scalding", "boiling", "hot iron", "pocketknife", "pocket knife",
                          "penknife", "stanley knife", "box cutter", "boxcutter", "craft knife",
                          "utility knife", "razor blade", "razor blades", "curling iron"})


def _own_body_at(words: list[str], start: int, reach: int = 4) -> bool:
    """Whether "my <body part>" (or "my left arm") begins within ``reach`` words of ``start``."""
    for index in range(start, min(start + reach, len(words))):
        if words[index] in _OWN and any(
                word in _OWN_BODY for word in words[index + 1:index + 3]):
            return True
    return False


def _cut_is_self_harm(sentence: Sentence, mention: Mention, relapse: bool = False) -> bool:
    words = sentence.words
    at, end = mention.start - sentence.offset, mention.end - sentence.offset
    if sentence.stems[at] != "cut":
        return False
    following = words[end:end + 3]
    if following and following[0] in _CUT_PREPOSITIONS | _OWN:
        # "cut my arm", "cut on my thigh", "cuts in my legs"; not "cut in line".
        return _own_body_at(words, end, reach=2) or (
            following[0] in _OWN and len(following) > 1 and following[1] in _BODY_PARTS)
    if at > 0 and words[at - 1] in _PASSIVE:
        return False  # "my hours got cut"
    if following and (following[0] in _CUT_OBJECTS or sentence.stems[end] in _CUT_OBJECTS):
        return False  # "cutting onions", "cut the grass"
    if any(m.concept == "means" and m.start == mention.end for m in sentence.mentions):
        return False  # "I'm bad at cutting pills": a tablet cut in half
    return relapse or any(word in FIRST_PERSON for word in words)


def _instrument_on_the_body(sentences: list[Sentence], index: int, mention: Mention) -> bool:
    """"the lighter again. On my wrist", "pressed the hot iron on my hand": an instrument of
    self-harm and the patient's own body, in the sentence or the next; or an instrument the
    patient has gone back to ("back to my old habit, the one with the blades")."""
    sentence = sentences[index]
    if " ".join(sentence.words[mention.start - sentence.offset:
                               mention.end - sentence.offset]) not in _INSTRUMENTS:
        return False
    if has(sentence, "relapse") and FIRST_PERSON.intersection(sentence.words):
        return True
    following = sentences[index + 1].words if index + 1 < len(sentences) else []
    return _own_body_at(sentence.words, 0, len(sentence.words)) or \
        _own_body_at(following, 0, 3)


# Injuries seen on the body, and the one who made them: "The scratches on my arms aren't from
# the cat, they're from me."
_MARKS = frozenset({"marks", "scratches", "scars", "cuts", "burns", "bruises", "scabs", "nicks"})
# Marks told small ("only a few scratches", "little nicks", "not deep") or out of sight
# ("nowhere anyone would see"): how self-harm is minimised, not how an accident is told.
_MINIMISED = frozenset({"only", "few", "little", "small", "tiny"})
_MINIMISED_PAIRS = frozenset({("not", "deep"), ("not", "serious"), ("big", "deal"),
                              ("nowhere", "anyone"), ("nobody", "sees"), ("no", "one")})
# A cause told after the marks: "from the cat", "after the football", "because I fell";
# after small marks also "when", "playing", "at", "off" ("… at boxing", "… off the bike").
_CAUSES_NAMED = frozenset({"from", "after", "because"})
_CAUSE_WORDS = _CAUSES_NAMED | frozenset({"when", "playing", "at", "off"})


def _marks_are_own(sentence: Sentence, number: int) -> Mention | None:
    """Marks on the patient's body told as from the patient ("… are from me", "I did them"),
    or as not from what they seem ("The marks on my legs aren't from the dog.") with nothing
    else named as their cause."""
    words = sentence.words
    at = next((i for i, word in enumerate(words) if word in _MARKS), None)
    if at is None or not _own_body_at(words, at, reach=6):
        return None
    pairs = list(pairwise(words[at:]))
    from_me = ("from", "me") in pairs or (("did", "them") in pairs and "i" in words)
    # Another cause named ("… my husband did it", "… it's eczema") leaves it theirs or that.
    denied = False
    if ("not", "from") in pairs and words.count("from") == 1:
        source = words.index("from")  # what the marks are not from: "from (the) dog"
        denied = not any(m.concept in ("others", "accident") and m.start - sentence.offset > at
                         and not source <= m.start - sentence.offset <= source + 1
                         for m in sentence.mentions)
    # "It's only a few scratches on my thighs, nowhere anyone would see": told small, with no
    # cause named ("from the cat", "gardening") and no one else's.
    minimised = bool(_MINIMISED.intersection(words) or _MINIMISED_PAIRS.intersection(
        pairwise(words))) and not _CAUSE_WORDS.intersection(words[at:]) \
        and not told_as_an_accident(sentence) \
        and not any(m.concept in ("others", "accident") for m in sentence.mentions)
    if from_me or denied or minimised:
        return Mention("self_harm_cue", sentence.offset + at, sentence.offset + at + 1, number)
    return None


# What rows of cuts are likened to: "my arms look like a barcode", "… a noughts and crosses
# board", "… railway tracks".
_LINED = frozenset({"barcode", "barcodes", "zebra", "noughts", "tic", "ladder", "ladders",
                    "tracks", "railway", "railroad", "grater", "crossword"})
_LOOK = frozenset({"look", "looks", "looking", "looked"})


def _body_told_as_lined(sentence: Sentence, number: int) -> Mention | None:
    """The patient's own arms or legs likened to rows of lines ("My arms look like a barcode
    at this point."): how cut scars are named without naming them."""
    words = sentence.words
    if told_as_an_accident(sentence) or _CAUSES_NAMED.intersection(words):
        return None  # "… like a zebra from the sunburn lines"
    for at, word in enumerate(words):
        # ("like" is read as a filler and dropped: "look a barcode".)
        # "My forearms are starting to look like a barcode": the body a few words back.
        if word in _LINED and at >= 3 and _LOOK.intersection(words[max(0, at - 4):at]) and \
                _own_body_at(words, max(0, at - 8), reach=7):
            return Mention("self_harm_cue", sentence.offset + at, sentence.offset + at + 1,
                           number)
    return None


def _act_on_the_body(sentence: Sentence, mention: Mention) -> bool:
    """"cutting my (stupid) arm", "cutting my self", not "cutting my pills in half"."""
    if sentence.words[mention.end - 1 - sentence.offset] != "my":
        return True
    following = sentence.words[mention.end - sentence.offset:mention.end - sentence.offset + 3]
    return not following or bool((_BODY_WORDS | _BODY_PARTS | {"self"}).intersection(following))


# Means that have no everyday use to schedule ("use the rope tonight"), unlike a medicine.
_LIGATURES = frozenset({"rope", "noose", "cord", "ligature", "belt"})
# Words that make medicine an overdose's amount ("all my", "the whole", "a handful").
# A use stated after the means: "the rope to tie the canoe", "the rifle for deer season".
_EVERYDAY_USE = frozenset({"to", "for", "hunting", "shooting", "at", "back", "round", "over"})
# Patches are put on, not taken: "I'm putting all my fentanyl patches on tonight".
_PATCH_VERBS = frozenset({"put", "putting", "stick", "sticking", "apply", "applying"})
# Before a medicine: someone else's ("my dad's pills", "her sleeping pills").
_OTHERS_OWN = frozenset({"his", "her", "their", "parents"})
_ERRAND_AFTER = frozenset({"in", "out", "up", "along", "away", "home", "off"})
_USE_VERBS = frozenset({"use", "using", "take", "taking", "inject", "injecting", "swallow",
                        "swallowing", "down", "drink", "drinking"})
_AMOUNTS = frozenset({"all", "whole", "entire", "handful", "bunch", "dozen", "dozens", "every",
                      "everything"})


# Words before an act's own word that make it one to come: "might overdose", "gonna jump".
_MODALS = frozenset({"might", "will", "ll", "would", "could", "gonna", "wanna", "shall",
                     "may", "should"})


def _act_to_come(sentence: Sentence, concepts: list[Mention], act: Mention) -> bool:
    """Whether an act's word is said as one to come, not one done: after a modal, as a gerund
    after "about", "of" or "like", or after "to" that follows no word of a past act ("a plan
    to overdose", "I want to overdose"; not "I tried to overdose")."""
    index = act.start - sentence.offset
    before = sentence.words[index - 1] if index > 0 else ""
    if before in _MODALS:
        return True
    if before in ("about", "of", "like") and sentence.words[index].endswith("ing"):
        return True  # "thinking about overdosing", "I feel like overdosing"
    return before == "to" and not any(
        m.concept == "past_act" and m is not act and m.end in (act.start, act.start - 1)
        for m in concepts)


def _scheduled_means(sentence: Sentence, concepts: list[Mention]) -> Mention | None:
    """Lethal means the patient says they will use at a time or when alone: a firearm or a
    ligature, or a medicine in an overdose's amount ("all my Seroquel … on Friday night")."""
    for mention in concepts:
        if mention.concept != "means":
            continue
        words = sentence.words[mention.start - sentence.offset:mention.end - sentence.offset]
        after = sentence.words[mention.end - sentence.offset:mention.end - sentence.offset + 2]
        before = sentence.words[max(sentence.offset, mention.start - 4) - sentence.offset:
                                mention.start - sentence.offset]
        patch = "patch" in sentence.stems[mention.start - sentence.offset:
                                          mention.end - sentence.offset]
        verbs = _USE_VERBS | _PATCH_VERBS if patch else _USE_VERBS
        if _EVERYDAY_USE.intersection(after) or not verbs.intersection(before):
            continue  # "use the rope to tie the canoe down", "clean my gun this weekend"
        if _LIGATURES.intersection(words) or any(
                m.concept == "firearm" and m.start == mention.start for m in concepts):
            return mention
        if before[-1:] and (before[-1].endswith("'s") or before[-1] in _OTHERS_OWN) and \
                not patch and not _ERRAND_AFTER.intersection(after):
            # Someone else's medicine: "I'm using my dad's pills this weekend"; not "taking her
            # prescription in".
            return mention
        if any(m.concept == "method_weak" and _AMOUNTS.intersection(
                sentence.words[m.start - sentence.offset:m.end - sentence.offset])
               for m in concepts):
            return mention
    return None


# An overdose told by its amount: "all the pens I have", "thirty oxys", "a few boxes".
_OVERDOSE_AMOUNTS = _AMOUNTS | frozenset({"box", "boxes", "bottle", "bottles", "pack", "packs",
                                          "pen", "pens", "lot"})
_AMOUNT_REACH = 4
_CARRIED = frozenset({("with", "me"), ("with", "us"), ("back", "to"), ("them", "back"),
                      ("it", "back")})
# The patient's own use, told in the present for a time to come ("tonight I take", "I'm
# taking them"): not "took", which is an attempt's past.
_TAKING = _USE_VERBS | frozenset({"wash", "washing", "downing"})


def _carried(sentence: Sentence, concepts: list[Mention]) -> bool:
    """A medicine taken somewhere, not swallowed: "I took all my old meds back to the
    pharmacy", "… with me on the trip" (the words right after the medicine)."""
    after = (sentence.words[m.end - sentence.offset:m.end - sentence.offset + 2]
             for m in concepts if m.concept == "means")
    return any(tuple(words) in _CARRIED or words[:1] == ["back"] for words in after)


def _overdose_taken(sentence: Sentence, concepts: list[Mention]) -> Mention | None:
    """A medicine the patient speaks of taking in an overdose's amount: "tonight after my wife
    falls asleep I'm taking them" (thirty oxys), "Tonight I take the insulin, all the pens I
    have", "I want to take all my morphine"."""
    words = set(sentence.words)
    pairs = set(pairwise(sentence.words))
    if not (words & FIRST_PERSON and words & _TAKING) or "along" in words or pairs & _CARRIED:
        return None  # taken along, not taken: "taking all my meds with me on the trip"
    for mention in concepts:
        if mention.concept != "means" or any(f.concept == "firearm" and f.start == mention.start
                                             for f in concepts):
            continue
        # The amount is the medicine's: not "a bottle of wine and my sleeping pill".
        low = max(0, mention.start - sentence.offset - _AMOUNT_REACH)
        if _OVERDOSE_AMOUNTS.intersection(_without_frequencies(
                sentence.stems, low, mention.end - sentence.offset + _AMOUNT_REACH)):
            return mention
    return None


# What "every" counts when it is how often, not how many: "my Zoloft every morning".
_FREQUENCIES = frozenset(stem(word) for word in (
    "day", "morning", "night", "evening", "week", "month", "time", "other", "few", "hour",
    "single"))


def _without_frequencies(stems: list[str], low: int, high: int) -> list[str]:
    """``stems[low:high]`` without an "every" that tells how often."""
    return [stem for at, stem in enumerate(stems[low:high], start=low)
            if stem != "every" or at + 1 >= len(stems) or stems[at + 1] not in _FREQUENCIES]


# Words between an absence ("not come back") and who is absent: auxiliaries and adverbs.
_BEFORE_ABSENCE = frozenset({"do", "does", "did", "will", "would", "could", "should", "can",
                             "may", "might", "am", "is", "are", "be", "was", "were", "just",
                             "ever", "never", "probably", "definitely", "really", "honestly"})
# What may come just before them when the absence is the patient's ("I want to go to sleep
# and not come back", "I'd rather not be around").
_ABSENT_PATIENT = FIRST_PERSON | {"and", "or", "to", "rather", "then", "gonna", "wanna", "im",
                                  "simply", "maybe", "hopefully"}


def _absence_is_the_patients(sentence: Sentence, absence: Mention) -> bool:
    """Whether a weak act of absence ("not come back", "not be around") is the patient's, not
    what follows another subject: "I hope the pain doesn't come back" is no wish."""
    told = sentence.words[absence.start - sentence.offset:absence.end - sentence.offset]
    if told[0] != "not" or FIRST_PERSON.intersection(told):
        return True  # "you won't have to worry about me": the patient is named in it
    words = sentence.words[:absence.start - sentence.offset]
    while words and words[-1] in _BEFORE_ABSENCE:
        words.pop()
    return not words or words[-1] in _ABSENT_PATIENT


# After "done" and a verb in -ing: what the patient is done doing, with someone or about
# something ("I'm done fighting with my sister"), not done with life ("I'm done fighting.").
_DONE_DOING_WHAT = frozenset({"with", "about", "over", "for", "my", "the", "his", "her",
                              "their", "our", "your"})


def _done_with_something(sentence: Sentence, act: Mention) -> bool:
    after = sentence.words[act.end - sentence.offset:act.end - sentence.offset + 2]
    return sentence.words[act.end - sentence.offset - 1] == "done" and len(after) == 2 and \
        after[0].endswith("ing") and after[1] in _DONE_DOING_WHAT


# A piece of work the patient is finishing: "Work deadlines are brutal; I'm going to finish it
# tonight" names what "it" is. ("work" and "job" alone do not: "I can't take work any more,
# I'll finish it tonight" may mean the patient's life.)
_TASKS = frozenset({
    "deadline", "deadlines", "project", "projects", "paper", "papers", "essay", "essays",
    "report", "reports", "thesis", "dissertation", "assignment", "assignments", "homework",
    "coursework", "task", "tasks", "chapter", "book", "novel", "puzzle", "painting", "exam",
    "presentation", "proposal", "draft", "application", "taxes", "spreadsheet", "renovation",
    "quilt", "sweater", "scarf", "season", "series", "episode", "game", "level", "course",
    "marathon", "race", "shift", "degree", "semester"})


def _finishes_a_task(sentences: list[Sentence], index: int, act: Mention) -> bool:
    """Whether "finish it" (or "finish this") takes its object from a piece of work the turn
    names before it, in this sentence or the one before."""
    sentence = sentences[index]
    if sentence.words[act.start - sentence.offset] != "finish":
        return False
    before = sentence.words[:act.start - sentence.offset]
    if index > 0:
        before = sentences[index - 1].words + before
    return bool(_TASKS.intersection(before))


# A cue named as a thought to work on, not said of oneself: "learning to catch the 'I'm a
# failure' thoughts", "the 'I'm a burden' belief".
_THOUGHT_WORDS = frozenset({"thought", "thoughts", "thinking", "belief", "beliefs", "story",
                            "stories", "voice", "voices", "mantra"})


def _a_thought_named(sentence: Sentence, mention: Mention) -> bool:
    after = sentence.words[mention.end - sentence.offset:mention.end - sentence.offset + 1]
    return bool(after) and after[0] in _THOUGHT_WORDS


# The act that ends a sentence naming its place first ("… up to the roof and jumping").
_LEAPS = frozenset({"jump", "leap"})


def _death_is_wished(sentence: Sentence, mention: Mention, concepts: list[Mention]) -> bool:
    if any(m.concept == "burden" and m.start <= mention.start < m.end for m in concepts):
        return False  # "I'm dead weight" is burden, a review cue
    after = sentence.words[mention.end - sentence.offset:mention.end - sentence.offset + 1]
    # "the end of the month"; but "a bus took me out on the way here" ends where it ends.
    if after and after[0] in (_IDIOM_AFTER_DEATH if mention.end - mention.start <= 2
                              else _IDIOM_AFTER_PHRASE):
        return False
    # "I want to …"; "I'm going to see my grandma in heaven soon, I've decided": an intent
    # counts when committed or timed ("I'm afraid I'll die alone" is a fear, not a wish).
    willed = ("desire", "intent", "commitment") if {"commitment", "time"} & {
        m.concept for m in concepts} else ("desire",)
    wishes = [m for m in concepts if m.concept in willed and m.start < mention.start]
    if not wishes and "if" in sentence.words[:mention.start - sentence.offset]:
        # "If I crashed the car tomorrow I wouldn't mind": the death is the condition, and what
        # follows welcomes it ("If I die, I want to be cremated" wants something else).
        wishes = [m for m in concepts if m.concept == "welcoming" and m.start >= mention.end]
        # "I wouldn't be upset if I just carked it in my sleep": welcomed first, then the
        # patient's own death as its condition (not "… if the printer carked it").
        wishes += [m for m in concepts if m.concept == "welcoming" and m.end <= mention.start
                   and _contains(sentence.words[m.end - sentence.offset:
                                                mention.start - sentence.offset], ["if", "i"])]
    if not wishes and any(m.concept == "thought" and m.start < mention.start for m in concepts):
        # "I think about death all the time and it feels peaceful": dwelt on, and welcomed.
        wishes = [m for m in concepts if m.concept == "desire"]
    if sentence.stems[mention.start - sentence.offset:mention.end - sentence.offset] == \
            ["wake", "up"]:
        return any("not" in sentence.words[m.start - sentence.offset:m.end - sentence.offset]
                   for m in wishes)
    return bool(wishes)


# Words that deny or question what follows ("no reason to live", "wondering if it's worth it").
_DOUBT_WORDS = frozenset({"no", "not", "never", "any", "lost", "wonder", "wondering", "wondered",
                          "whether", "why", "question", "questioning", "doubt", "sure", "if",
                          "nothing"})


def _life_doubted(sentence: Sentence, mention: Mention) -> bool:
    """"no reason to live", "wondering if it's worth it to keep going": the worth of living is
    denied or questioned before it is named, in the same clause, by the patient."""
    start, _end = clause_bounds(sentence, mention.start)
    start = max(start, mention.start - MODIFIER_WINDOW_TOKENS)
    before = sentence.words[start - sentence.offset:mention.start - sentence.offset]
    doubted = bool(_DOUBT_WORDS.intersection(before)) or before[:1] in (["is"], ["does"])
    return doubted and not about_someone_else(sentence, mention) and \
        not hypothetical(sentence, mention)


# Giving a possession away: a giving word followed, within a few words, by "away" or by
# someone it goes to ("gave my guitar to my cousin", "giving my tools away to the guys").
_GIVING = frozenset({"give", "gives", "gave", "giving", "given", "handed", "handing"})
_GIVING_REACH = 6


def _receivers(sentence: Sentence) -> dict[int, int]:
    """Where, in the sentence's words, someone else is named (start: end): who a thing goes to."""
    return {m.start - sentence.offset: m.end - sentence.offset for m in sentence.mentions
            if m.concept == "others"}


def _farewell_at(sentence: Sentence, index: int, number: int) -> Mention:
    return Mention("farewell", sentence.offset + index, sentence.offset + index + 1, number)


def _given_away(sentence: Sentence, number: int) -> Mention | None:
    words = sentence.words
    if not _GIVING.intersection(words):
        return None  # most sentences give nothing
    receivers = _receivers(sentence)
    for i, word in enumerate(words):
        ahead = range(i + 1, min(len(words), i + 1 + _GIVING_REACH))
        if word in _GIVING and any(words[j] == "away" or (words[j - 1] == "to" and j in receivers)
                                   for j in ahead):
            return _farewell_at(sentence, i, number)
    return None


# How far after "gave my" the one who receives may come: "gave my fav hoodie and my
# headphones to my friends".
_BELONGINGS_REACH = 10
# The past of giving only: a thing already given, not one to give.
_GAVE = _GIVING & {"gave", "given", "handed"}
# A thing given back, or replaced: a clear-out, not a farewell.
_REPLACED = frozenset({"back", "old", "new", "spare"})
_NOT_GIVEN = frozenset({"not", "never"})


def _belongings_given(sentence: Sentence, number: int) -> Mention | None:
    """The patient's own things given to someone named ("I gave my mom's ring to my niece",
    "Gave my nephew my watch collection last week"): a farewell to review, as the writers of
    the blind sets read it. Not what someone else gave, nor a thing given back or replaced."""
    words = sentence.words
    if not _GAVE.intersection(words) or _REPLACED.intersection(words):
        return None  # most sentences give nothing; "my old car since I bought a new one"
    receivers = _receivers(sentence)
    for i, word in enumerate(words):
        if word not in _GAVE or (i > 0 and "i" not in words[:i]) or \
                _NOT_GIVEN.intersection(words[max(0, i - 3):i]):
            continue  # someone else gave it, or it was not given: "I haven't given my …"
        if words[i + 1:i + 2] == ["my"] and any(
                words[j - 1] == "to" and j in receivers
                for j in range(i + 3, min(len(words), i + 1 + _BELONGINGS_REACH))):
            return _farewell_at(sentence, i, number)
        end = receivers.get(i + 1)
        if end is not None and words[end:end + 1] == ["my"]:
            return _farewell_at(sentence, i, number)
    return None


# What a cover story hides: things given away, means bought, an injury treated.
_COVERED = {"farewell": "plan", "preparation_weak": "plan", "method": "plan",
            "means": "means_access", "self_harm_cue": "self_harm"}


# A sentence this short that says no takes back the story before it: "I didn't.", "It
# wasn't.", "I'm not retiring."
_TAKES_BACK_WORDS = 8


def _story_taken_back(sentences: list[Sentence], index: int, story: Mention) -> bool:
    """Whether the patient says the story they told is not so: after a "but" in its own
    sentence ("I told her it was my hours, but really I didn't want …"), or in a short denial
    in one of the next two sentences."""
    sentence = sentences[index]
    after = sentence.words[story.end - sentence.offset:]
    if "but" in after and any(m.concept == "negation" and m.start >= story.end
                              for m in sentence.mentions):
        return True
    return any(len(s.words) <= _TAKES_BACK_WORDS and has(s, "negation")
               for s in sentences[index + 1:index + 3])


def _time_alone(sentences: list[Sentence], index: int) -> bool:
    """Whether the sentence before or after ``index`` is a time and nothing else ("Tonight.",
    "This Friday.")."""
    for near in sentences[max(0, index - 1):index] + sentences[index + 1:index + 2]:
        told = {position for m in near.mentions if m.concept == "time"
                for position in range(m.start, m.end)}
        if told and all(near.offset + i in told for i in range(len(near.words))):
            return True
    return False


# "I want to be with her" is a wish to join the dead only where a death is told: not of a
# girlfriend or a daughter the patient misses ("I want to go and be with her for Christmas").
_TO_BE_WITH = ["want", "to", "be", "with"]
_A_DEATH_TOLD = frozenset({"died", "dead", "death", "passed", "gone", "lost", "went", "funeral",
                           "grave", "heaven", "buried", "late", "killed", "suicide", "widow",
                           "widowed", "widower", "ashes", "memorial", "anniversary", "again",
                           "cemetery", "graveyard", "miscarriage", "stillborn", "angel"})


def _company_of_the_living(sentences: list[Sentence], sentence: Sentence,
                           mention: Mention) -> bool:
    """Whether "want to be with …" is said in a turn that names someone of the patient's
    ("my girlfriend", not a bare "him") and tells of no death."""
    at = mention.start - sentence.offset
    if sentence.words[at:at + len(_TO_BE_WITH)] != _TO_BE_WITH:
        return False
    return any(m.concept == "others" and m.end - m.start > 1  # "my daughter", not "him"
               for s in sentences for m in s.mentions) and \
        not any(_A_DEATH_TOLD.intersection(s.words) for s in sentences)


# A time long gone: "last year", "two months ago", "in 2019" (not "last night", "an hour ago").
_LONG_SPANS = frozenset({"year", "years", "month", "months", "summer", "winter", "spring",
                         "autumn", "fall", "christmas", "decade"})


def _long_gone(sentence: Sentence) -> bool:
    """Whether a sentence tells what it tells at a time long gone ("I was standing on the
    ledge last year"): a preparation then is history to ask about, not an emergency."""
    words = sentence.words
    for i, word in enumerate(words):
        if word == "last" and i + 1 < len(words) and words[i + 1] in _LONG_SPANS:
            return True
        if word == "ago" and _LONG_SPANS.intersection(words[max(0, i - 2):i]):
            return True
        if len(word) == 4 and word.isdigit() and 1950 <= int(word) <= 2100 and i > 0 and \
                words[i - 1] in ("in", "since", "back"):
            return True
    return False


def _a_time_alone_near(sentences: list[Sentence], low: int, high: int, index: int) -> bool:
    """Whether a sentence near ``index`` names a time on its own ("Tonight. After my parents
    go to sleep. I'm done.")."""
    return any(number != index and _names_a_time_alone(near)
               for number, near in enumerate(sentences[low:high], start=low))


def _concealed(sentences: list[Sentence], index: int) -> bool:
    """Whether sentence ``index`` or the next two hide something: a concealment ("They don't
    need to know why", "I let them think so"), or a story told to others that the patient takes
    back ("Told 'em I'm retiring. I'm not retiring."). Read whatever their negations or their
    "they": the story is others' belief, the act the patient's."""
    for number in range(index, min(len(sentences), index + 3)):
        for m in sentences[number].mentions:
            if m.concept == "cover_story" or (
                    m.concept == "told_story" and _story_taken_back(sentences, number, m)):
                return True
    return False


def _covered(sentences: list[Sentence], index: int, concepts: list[Mention]) -> list[
        tuple[str, Mention]]:
    """What a turn's concealment (``_concealed``) hides in sentence ``index``: something given
    away, means, a method or an injury."""
    if tells_of_someone_else(sentences[index]) or not _concealed(sentences, index):
        return []
    # A method told as done is a past attempt hidden, not a plan ("i jumped off the parking
    # deck in march … everyone thinks it was an accident and i let them").
    done = any(m.concept == "past_act" for m in concepts)
    hidden = [(_COVERED[m.concept], m) for m in concepts
              if m.concept in _COVERED and not (done and m.concept == "method")]
    given = _given_away(sentences[index], index)
    return hidden + ([("plan", given)] if given is not None else [])


# A fear for oneself said in so many words: "… safe with myself", "… of what I might do".
_ONESELF = frozenset({"myself", "might", "will"})
# What one may not trust oneself not to do that is a risk: "… not to do something stupid".
_RISKY_ACTS = frozenset({"do", "hurt", "harm", "kill", "take", "use", "act", "go", "end", "jump",
                         "cut", "overdose", "try", "swallow"})


def _unsafe_with_oneself(sentence: Sentence, unsafe: Mention) -> bool:
    """Not being safe said of oneself ("I don't feel safe with myself"), not of a place or a
    skill ("… walking home", "… not to eat the whole cake")."""
    words = sentence.words
    end = unsafe.end - sentence.offset
    after = words[end:end + 3]
    if after[:2] == ["not", "to"] and after[2:] and after[2] not in _RISKY_ACTS:
        return False  # "I can't trust myself not to eat the whole cake."
    return bool(_ONESELF.intersection(words[unsafe.start - sentence.offset:end + 3]))


# "I keep thinking about that box": a thought kept on means named nearby.
_BACK_REFERENCES = frozenset({"that", "those", "them", "it", "this", "these"})
_DWELLING = frozenset({"keep", "kept", "keeps", "always", "constantly"})


# Ways of dying that need no object: "thought of hanging", "thinking about jumping".
_WAYS = frozenset({"hanging", "jumping", "drowning", "gassing", "suffocating"})


def _thought_of_a_way(sentence: Sentence, concepts: list[Mention]) -> bool:
    """A thought of (about) a way of dying that ends the sentence: "I've thought of hanging."
    (not "… of hanging the pictures")."""
    words = sentence.words
    return bool(words) and words[-1] in _WAYS and words[-2:-1] in (["of"], ["about"]) and any(
        m.concept == "method_weak" and m.end - sentence.offset == len(words) for m in concepts)


# What an amount of one's medicine is asked to do: "how many of my mirtazapine it would take",
# "how much insulin would kill you".
_LETHAL_ASKED = frozenset({("would", "take"), ("it", "takes"), ("would", "kill"),
                           ("it", "take"), ("takes", "to")})
# What it may be asked to take them to do: an end, not "… to bring my sugars down".
_LETHAL_ENDS = frozenset({"kill", "die", "end", "overdose", "do", "be", "not"})


def _lethal_amount_asked(sentence: Sentence, concepts: list[Mention]) -> Mention | None:
    """The patient's means asked about as a lethal amount: "I looked up how many of my
    mirtazapine it would take" (not "… to last the trip", "… to bring my sugars down")."""
    words = sentence.words
    for mention in concepts:
        at, end = mention.start - sentence.offset, mention.end - sentence.offset
        if mention.concept != "means" or not any(
                words[i:i + 2] in (["how", "many"], ["how", "much"])
                for i in range(max(0, at - 4), at)):
            continue
        for i in range(end, min(end + 4, len(words) - 1)):
            if (words[i], words[i + 1]) in _LETHAL_ASKED:
                then = words[i + 2:i + 4]
                if then[:1] != ["to"] or (then[1:] and then[1] in _LETHAL_ENDS):
                    return mention
    return None


def _dwells_on_it(sentence: Sentence, thought: Mention) -> bool:
    """Whether the patient keeps thinking about something named before ("I keep thinking
    about that box", "I think about them constantly")."""
    words = sentence.words
    at, end = thought.start - sentence.offset, thought.end - sentence.offset
    ahead = words[end:end + 2]
    thing = ahead[1:2] if ahead[:1] in (["about"], ["of"]) else ahead[:1]
    return bool(_BACK_REFERENCES.intersection(thing)) and bool(
        _DWELLING.intersection(words[max(0, at - 2):end + 5]))


def find(text: str, quote_words: int, earlier_context: bool = False) -> list[ConceptFinding]:
    """Crisis kinds and review cues asserted in one patient turn."""
    return find_in(read_turn(text), quote_words, earlier_context)


# What makes "do it" the act even when it answers a proposal: words of dying, a method, means.
_NAMES_THE_ACT = frozenset({"self_kill", "death_wish", "method", "means", "self_harm_act",
                            "past_act", "preparation"})


def proposes_an_act(sentences: list[Sentence]) -> bool:
    """Whether a clinician's turn proposes something to do ("Would you be willing to text her
    this week?", "What if the bag gets packed the night before?") and names no risk itself
    (no act, nor a plan or a weak word of dying): the patient's "I'll do it tonight" then has
    an antecedent, and "it" is that."""
    return names(sentences, frozenset({"proposal"})) and not names(
        sentences, _NAMES_THE_ACT | {"plan", "self_kill_weak", "death_weak"})


# Every finding needs one of these in its own sentence; a turn without any (most turns of an
# ordinary session) is done without weighing assertion or combinations.
_LEAD_CONCEPTS = frozenset({
    "self_harm_act", "self_harm_cue", "death_wish", "death_weak", "self_kill", "self_kill_weak",
    "act_pronoun", "past_act", "method", "method_weak", "means", "plan", "preparation",
    "preparation_weak", "burden", "hopeless", "farewell", "worth_living", "self_harm_deliberate",
    "hope_doubted", "survival_regret", "attempt_told", "cover_story", "told_story", "drug_stock",
    "unsafe",
})


def _without_answered_pronoun(asserted: list[list[Mention]]) -> list[list[Mention]]:
    """The turn's mentions without its "do it" and the plans made of it ("I'm going to do it
    tonight"), when the turn answers a proposal and names no act of its own."""
    if any(m.concept in _NAMES_THE_ACT for mentions in asserted for m in mentions):
        return asserted
    pronouns = [m for mentions in asserted for m in mentions if m.concept == "act_pronoun"]
    return [[m for m in mentions if m.concept != "act_pronoun" and not (
        m.concept == "plan" and any(m.start <= p.start and p.end <= m.end for p in pronouns))]
        for mentions in asserted]


def _it_named_after(sentences: list[Sentence]) -> bool:
    """Whether the turn says what its "do it" is, after it, as an intent whose verb names no
    risk ("I'm going to do it, I'm going to ask her out on Friday.")."""
    mentions = [m for s in sentences for m in s.mentions]
    pronoun = next((m for m in mentions if m.concept == "act_pronoun"), None)
    if pronoun is None:
        return False
    words = [word for s in sentences for word in s.words]
    risky = {at for m in mentions if m.concept in _LEAD_CONCEPTS
             for at in range(m.start, m.end)}
    return any(m.concept == "intent" and m.start >= pronoun.end and m.end < len(words)
               and m.end not in risky and words[m.end].isalpha()
               and words[m.end] not in _NO_ACT_NAMED
               and "i" in words[max(0, m.start - 2):m.start + 1] for m in mentions)


# After "I'm going to" / "I will", words that name no act of their own: "but I will. I am
# decided.", "I will be free", "I will do it".
_NO_ACT_NAMED = frozenset({"i", "you", "he", "she", "they", "we", "it", "be", "do", "really",
                           "not", "never", "am", "is", "are", "just", "finally", "actually",
                           "definitely", "go", "end", "make", "get"})


def find_in(sentences: list[Sentence], quote_words: int, earlier_context: bool = False,
            antecedent: bool = False) -> list[ConceptFinding]:
    """``find`` for a turn already read with ``read_turn``. ``antecedent``: the turn answers a
    proposal (``proposes_an_act``), so its "do it" needs suicidal talk to be the act."""
    swallowed = _overdose_told_by_its_count(sentences)
    if swallowed is not None:
        # "Already took them. Forty. Half an hour ago.": the means unnamed, the count and
        # the hour told; an overdose under way.
        sentence, taken = swallowed
        return [ConceptFinding("past_attempt", True, _quote(sentence, taken, quote_words))]
    if not any(m.concept in _LEAD_CONCEPTS for s in sentences for m in s.mentions) and \
            not any(_GAVE.intersection(s.words) or _MARKS.intersection(s.words)
                    or _LINED.intersection(s.words) for s in sentences):
        return []
    asserted = asserted_concepts(sentences)
    if (antecedent or _it_named_after(sentences)) and not earlier_context:
        asserted = _without_answered_pronoun(asserted)
    findings: list[ConceptFinding] = []
    context = earlier_context
    for index, (sentence, concepts) in enumerate(zip(sentences, asserted, strict=True)):
        low, high = max(0, index - NEIGHBOUR_SENTENCES), index + NEIGHBOUR_SENTENCES + 1
        window = {m.concept for near in asserted[low:high] for m in near}
        own = {m.concept for m in concepts}
        timed = "time" in window
        recent_near = any(has(near, "recent") for near in sentences[low:high])
        first = {m.concept: m for m in reversed(concepts)}
        found_before = len(findings)

        def add(kind: str, mention: Mention, imminent: bool = False, cue: str = "",
                sentence: Sentence = sentence) -> None:
            findings.append(ConceptFinding(kind, imminent, _quote(sentence, mention, quote_words),
                                           cue))

        # A bare topic ("The self-harm stuff?") discloses nothing without "I" or a time.
        # "relapsed. cut 3x this wk": a relapse told nearby makes the cut the patient's own.
        relapse = "relapse" in window
        accidental = told_as_an_accident(sentence) \
            or not (set(sentence.words) & FIRST_PERSON or has(sentence, "recent") or relapse)
        lately = recent_near or relapse or timed
        for mention in () if accidental else concepts:
            if (mention.concept == "self_harm_act" and _act_on_the_body(sentence, mention)) or (
                mention.concept == "self_harm_cue" and (
                    _cut_is_self_harm(sentence, mention, relapse)
                    or (lately and _instrument_on_the_body(sentences, index, mention))
                    or _cutting_and_bleeding_now(sentences, sentence, mention))
            ) or (
                # "I slammed my hand in the door on purpose": an injury meant to the body.
                mention.concept == "self_harm_deliberate"
                and _BODY_WORDS.intersection(sentence.words)
            ):
                add("self_harm", mention, imminent=injured_now(sentences)
                    or _harm_under_way(sentence))
                break
        else:
            # The patient's marks told as theirs; the cause they seem to have is denied.
            marks = (_marks_are_own(sentence, index) or _body_told_as_lined(sentence, index)) \
                if FIRST_PERSON.intersection(sentence.words) else None
            if marks is not None:
                add("self_harm", marks)
        for mention in concepts:
            # "dead tired", "sleep forever haha"; but "not wake up in the morning" is meant.
            idiom = set(sentence.words[mention.end - sentence.offset:][:1]) & (
                _IDIOM_AFTER_DEATH if mention.end - mention.start == 1 else _IDIOM_AFTER_PHRASE)
            # "I'm dead weight"; "nobody would even notice if I wasn't around": an absence
            # told as a condition beside a burden is the burden (review).
            conditional = sentence.words[mention.start - sentence.offset] == "if"
            # "better off if I wasn't dragging them down": the absence is of the burden.
            burden = any(m.concept == "burden" and (
                conditional or (m.start < mention.end and mention.start < m.end)
                or m.start == mention.end) for m in concepts)
            if (mention.concept == "death_wish" and not idiom and not burden
                    and not _company_of_the_living(sentences, sentence, mention)) or (
                mention.concept == "death_weak" and _death_is_wished(sentence, mention, concepts)
            ):
                add("wish_to_be_dead", mention)
                # "I'll be dead by Sunday"; "This is the weekend I go to sleep for good. I've
                # made my mind up.": a death with its time, decided in the next breath.
                if (own & {"intent", "commitment"} or "commitment" in window) and "time" in own:
                    add("intent", mention, imminent=True)
                context = True
                break
        worth = next((m for m in sentence.mentions if m.concept == "worth_living"), None)
        if worth is not None and _life_doubted(sentence, worth):
            add("wish_to_be_dead", worth)  # "wondering if it's worth it to keep going"
            context = True
        act = first.get("self_kill")
        if act is None and "self_kill_weak" in own and window & {
            "intent", "commitment", "desire", "purpose", "plan", "thought", "possession", "means",
            "time", "preparation"
        } and _absence_is_the_patients(sentence, first["self_kill_weak"]) \
                and not _a_move_told(sentences[low:high]):
            act = first["self_kill_weak"]
        if act is not None and set(sentence.words[act.end - sentence.offset:][:1]) & \
                _IDIOM_AFTER_ACT and not any(m.concept in ("time", "purpose")
                                             and m.start == act.end for m in sentence.mentions):
            # "end it with Tom", "killing myself at the gym"; not "… at night", "… for good"
            act = None
        if act is not None and _done_with_something(sentence, act):
            act = None
        if act is not None and act.end - act.start == 1 and \
                sentence.stems[act.start - sentence.offset] in TOPIC_WORDS and not (
                    window & {"thought", "desire", "intent", "plan", "past_act"}
                    or sentence.words[act.start - sentence.offset - 1:act.start - sentence.offset]
                    in (["am"], ["feel"], ["feeling"], ["be"])):
            act = None  # "suicide runs in my family", "what suicide means"
        if act is None and "act_pronoun" in own and (
            context or window & _SUICIDAL or "commitment" in window
            or ("intent" in own and timed) or (timed and window & {"means", "method"})
        ) and not _finishes_a_task(sentences, index, first["act_pronoun"]):
            act = first["act_pronoun"]
        if act is None and "ingest_pronoun" in own and "poison" in window:
            # "I've got bleach under the sink. I'm going to drink it tonight.": drinking what
            # the turn names as a poison is the act, as "drink the bleach" is.
            act = first["ingest_pronoun"]
        bare = next((m for m in concepts if m.concept == "method_weak"
                     and m.end == sentence.offset + len(sentence.words)), None)
        if act is None and bare is not None and "intent" in own and (
                context or "commitment" in window):
            act = bare  # "I'm going to jump. I mean it this time."
        # "I'm jumping off the bridge later today": a present tense with a time to come.
        upcoming = "time" in own and bool(_PRESENT_OR_FUTURE.intersection(sentence.words))
        if act is None and "method" in own and (own & {"intent", "commitment"} or upcoming):
            act = first["method"]  # "I'm going to drive my car off the bridge"
        if act is None and bare is not None and upcoming and set(sentence.words) & FIRST_PERSON \
                and sentence.stems[bare.start - sentence.offset] in _LEAPS \
                and any(m.concept == "method_weak" and m.end <= bare.start for m in concepts):
            act = bare  # "Tonight I'm going up to the roof and jumping.": the place, then the act
        intended = ("intent" in own and ("time" in own or "alone" in window)) or upcoming
        if act is None and intended and set(sentence.words) & FIRST_PERSON:
            # "Tonight I will use the rope", "I'm using the rope tomorrow"
            act = _scheduled_means(sentence, concepts)
        if act is None and "time" in own and "means" in own:
            act = _overdose_taken(sentence, concepts)
        if act is None and "past_act" in own and (own & {"method", "method_weak"} or (
                "means" in own and any(m.concept == "past_act" and m.end - m.start > 1
                                       for m in concepts))) and not _carried(sentence, concepts):
            # "I swallowed a bottle of my antidepressants", "did something stupid with my
            # meds": the act named by its means (a bare "tried" with a medicine is not).
            act = first["past_act"]
        if act is None and "attempt_told" in own:
            act = first["attempt_told"]  # "They pumped my stomach in January."
        regret = first.get("survival_regret")
        if act is None and regret is not None:
            act = regret  # "angry that it didn't work"
        elif act is None and (recent_near or "time" in window) and (
                ("past_act" in window and "past_act" not in own
                 and own & {"method", "method_weak", "self_harm_deliberate"})
                # "I drove my car into the guardrail on purpose, two months ago."
                # "I crashed my car into a wall on purpose in the summer": a method told as
                # such needs only a time, a weak one ("drive") something recent.
                or ("self_harm_deliberate" in own and own & {"method", "method_weak"}
                    and (recent_near or "method" in own))):
            # "I've only been out of the ICU since Monday. I didn't fall, I jumped."
            act = first.get("method") or first.get("method_weak") or \
                first["self_harm_deliberate"]
            regret = act
        if act is not None:
            context = True
            if ("past_act" in own or regret is not None) and not upcoming and \
                    not _act_to_come(sentence, concepts, act):
                add("past_attempt", act,
                    imminent=_within_hours(sentence) or injured_now(sentences))
            elif own & {"intent", "commitment"} or "commitment" in window or (
                    ("time" in own or _a_time_alone_near(sentences, low, high, index))
                    and act.concept in ("self_kill", "self_kill_weak", "act_pronoun",
                                        "method", "method_weak", "means")
                    and not own & {"thought", "desire"}):
                # "I'm killing myself this weekend": the act with a time is intent.
                add("intent", act, imminent=timed)
                if timed:
                    add("plan", act, imminent=True)
            elif "plan" in window:
                add("plan", act, imminent=timed or bool(window & _MEANS_OR_METHOD))
            elif act.concept != "self_kill" or any(w in FIRST_PERSON for w in sentence.words) \
                    or window & {"thought", "desire"}:
                add("suicidal_ideation", act)
        method = first.get("method")
        if method is not None and (window & {"thought", "desire", "plan", "intent"}
                                   or own & {"means", "purpose"}):
            add("method", method)
            context = True
        elif "thought" in own and _thought_of_a_way(sentence, concepts):
            # "I've thought of hanging. We have beams in the loft."
            add("method", first["method_weak"])
            context = True
        elif "thought" in own and set(sentence.words) & FIRST_PERSON and \
                (asked := _lethal_amount_asked(sentence, concepts)) is not None:
            # "I looked up how many of my mirtazapine it would take": a lethal dose researched
            add("method", asked)
            context = True
        elif "method_weak" in window and "ease" in own and \
                set(sentence.words) & FIRST_PERSON:
            # "we passed the tracks, and I thought how easy it would be to just stand there"
            add("method", first["ease"])
            context = True
        elif "method_weak" in own and (context or window & {"self_kill", "death_wish"} or (
                "plan" in window and not has(sentence, "accident"))):  # not "planning a trip"
            add("method", first["method_weak"])
            context = True
            if "plan" in window and (timed or "plan" not in own):
                # "I've got it all planned. Friday night, the bridge on Main Street.", "I have
                # a plan. The bridge on the bypass.": a plan told, and its method beside it.
                add("plan", first["method_weak"], imminent=True)
        means = first.get("means")
        if method is None and means is not None and "purpose" in own and window & {
                "thought", "desire", "intent", "plan"}:
            add("method", means)  # "using my dad's gun on myself"
            context = True
        elif method is None and means is not None and window & {"thought", "desire"} and \
                _overdose_taken(sentence, concepts) is not None:
            add("method", means)  # "I want to take all my morphine"
            context = True
        # "gun's in my truck … when I get low I go sit out there with it": means kept at hand,
        # told together with the low times they belong to.
        darkened = "dark_state" in window and (
            "firearm" in window or any(
                any(m.concept == "dark_state" for m in near)
                and {m.concept for m in near} & _DARK_WITH
                for near in asserted[low:high]))
        # Means the patient has at hand, told beside their not being safe with themselves:
        # "I am not safe now. I have the rope.", "… and I don't trust myself with it."
        # "… hold onto my pills for me because I don't trust myself with them": "my" before
        # the means is the patient's having them.
        owned = "possession" in own or any(
            m.concept == "means" and sentence.words[m.start - sentence.offset - 1:
                                                    m.start - sentence.offset] == ["my"]
            for m in concepts)
        darkened = darkened or ("unsafe" in window and owned
                                and bool(set(sentence.words) & FIRST_PERSON))
        at_work = has(sentence, "workplace")
        if means is not None and ("possession" in window or darkened) and (
            window & {"purpose", "self_kill", "self_kill_weak", "death_wish", "commitment"}
            or darkened
        ):
            add("means_access", means,
                imminent=bool(window & {"time", "commitment", "plan", "preparation"}))
            context = True
        elif means is not None and set(sentence.words) & FIRST_PERSON and (
                "access" in own or {"firearm", "acquired"} <= own) and not at_work and \
                not tells_of_someone_else(sentence):  # "My dad keeps the key to the gun …"
            # "I know the code to my dad's gun safe", "I bought a handgun on Saturday": access
            # to lethal means is what a clinician asks about, whatever the stated reason. Not
            # the drug cupboard a nurse holds the key to at work: that access is the job, and
            # counts only beside a dark state or not being safe (above).
            add("means_access", means, imminent=bool(window & {"commitment", "plan",
                                                               "preparation"}))
            context = True
        elif means is None and "means" in window and "access" in own and not at_work and \
                set(sentence.words) & FIRST_PERSON:
            # "There's guns in the house. … and I know where the key is."
            add("means_access", first["access"],
                imminent=bool(window & {"commitment", "plan", "preparation"}))
            context = True
        elif means is None and "means" in window and ({"purpose", "possession"} <= own or (
                ({"purpose", "thought"} <= own or (darkened and own & _DARK_WITH)
                 or ("thought" in own and "possession" in window
                     and _dwells_on_it(sentence, first["thought"])))
                and set(sentence.words) & FIRST_PERSON)):
            # "My psychiatrist upped my dose. … I've been keeping them all in a jar."
            # "… I walk past them every morning and think about using them."
            add("means_access", next(m for m in concepts if m.concept in _DARK_WITH),
                imminent=bool(window & {"time", "commitment", "plan", "preparation"}))
            context = True
        if "drug_stock" in window and own & {"access", "unsafe"} and window & {
                "unsafe", "dark_state"} and set(sentence.words) & FIRST_PERSON and any(
                has(near, "workplace") for near in sentences[low:high]):
            # "I work in a pharmacy. I have access to basically everything. And with how I've
            # been feeling …": the stock at work, told beside a dark state or not being safe.
            # The workplace counts as named, asserted or not ("I'm a nurse" reads as a topic).
            add("means_access", first.get("access") or first["unsafe"])
            context = True
        if means is not None and "possession" in own and set(sentence.words) & FIRST_PERSON \
                and _time_alone(sentences, index):
            # "I've got the rope. Tonight.": a time told alone beside means the patient has.
            add("plan", means, imminent=True)
            context = True
        if means is not None and not findings[found_before:] and \
                _on_the_way_with_means(sentence, means):
            # "I'm heading up to the cliffs now with the rope.": the patient on the way now to
            # a method's place, with the means.
            add("plan", means, imminent=True)
            context = True
        held = (means, sentence) if means is not None else _named_just_before(
            sentences, asserted, index)
        if held is not None and len(findings) == found_before and not at_work and \
                _lethal_means_in_hand(sentence, concepts, *held):
            # "I've got my husband's gun in my lap right now.", "… the pill bottle open in my
            # lap right now", "Got a vial of pentobarbital … It's in my hand as I type this.":
            # a firearm, a medicine opened or all of it, or a drug that kills in any amount,
            # in the patient's hands at this moment, whatever reason is given or none.
            add("means_access", held[0], imminent=True, sentence=held[1])
            context = True
        if own & {"means", "method_weak"} and "covert" in window and (
                set(sentence.words) & FIRST_PERSON or not tells_of_someone_else(sentence)):
            # "taking all my pills once everyone is asleep": means with a time chosen to be alone;
            # "Sunday morning, the bridge, before anyone's up.", told without a subject.
            add("plan", first.get("means") or first["method_weak"], imminent=True)
            context = True
        plans = [m for m in concepts if m.concept == "plan"]
        plan = max(plans, key=lambda m: m.end - m.start) if plans else None
        if plan is not None and len(sentence.words) > 1 and (
            window & {"self_kill", "self_kill_weak", "method", "means", "act_pronoun",
                      "preparation"}
            or (context and window & {"time", "method_weak"})
            or plan.end - plan.start >= _LONG_PLAN_TOKENS
        ):
            add("plan", plan, imminent=timed or bool(window & _MEANS_OR_METHOD))
            context = True
        preparation = first.get("preparation")
        if preparation is None and "preparation_weak" in own and (
            context or window & {"method", "method_weak", "means", "self_kill", "death_wish",
                                 "preparation"}
            or {"commitment", "time"} <= window  # "It's happening tonight, I've written …"
        ):
            preparation = first["preparation_weak"]
        if preparation is not None and not _someone_elses_ready(sentence, preparation):
            # "… so it's easy for them. I am ready now.": preparations done and readiness told.
            add("plan", preparation, imminent=not _long_gone(sentence) and (
                bool(window & (_MEANS_OR_METHOD | {"commitment"})) or timed))
            context = True
        for kind, hidden in _covered(sentences, index, concepts):
            # "I gave my dog to my neighbour and told her it was for good. She didn't ask why
            # and I didn't say.": concealment makes the giving a preparation.
            add(kind, hidden)
            context = True
        unsafe = first.get("unsafe")
        if unsafe is not None and len(findings) == found_before and \
                _unsafe_with_oneself(sentence, unsafe):
            # "I don't feel safe with myself right now.": the patient fears what they might do.
            add(RISK_STATEMENT, unsafe, imminent=timed)
            context = True
        for cue in ("burden", "hopeless", "farewell"):
            if cue in own and not _a_thought_named(sentence, first[cue]):
                add(REVIEW, first[cue], cue=cue)
        belongings = None if "farewell" in own else _belongings_given(sentence, index)
        if belongings is not None:
            add(REVIEW, belongings, cue="farewell")
        doubted = next((m for m in sentence.mentions if m.concept == "hope_doubted"), None)
        if "hopeless" not in own and doubted is not None and _life_doubted(sentence, doubted):
            add(REVIEW, doubted, cue="hopeless")  # "I can't imagine things ever being okay"
    raised = [f for f in findings if f.kind != REVIEW]
    day = _the_day_named(sentences, asserted) if not raised and any(
        f.cue == "farewell" for f in findings) else None
    if day is not None:
        # "Gave the dog to me sister and cancelled me phone plan. Tonight's the night.": the
        # goodbyes, and a day named as the day, are a plan with its time.
        findings.append(ConceptFinding("plan", True, _quote(*day, quote_words)))
        return findings
    at_hand = next((f for f in raised if f.kind in _AT_HAND_KINDS), None)
    if at_hand is not None and not any(f.imminent for f in raised) and \
            _at_hand_now(sentences, asserted):
        # "I've got my husband's gun in my lap right now": means or a method's place at hand
        # at this moment is an emergency, as a time set is.
        findings[findings.index(at_hand)] = replace(at_hand, imminent=True)
        return findings
    if raised and not any(f.imminent for f in raised):
        # "Tonight, the bridge. I'm done.": beside risk told, a sentence that is only a time
        # and a method's place is the plan with its time.
        for sentence, concepts in zip(sentences, asserted, strict=True):
            place = _time_and_place(sentence, concepts)
            if place is not None:
                findings.append(ConceptFinding("plan", True,
                                               _quote(sentence, place, quote_words)))
                break
    return findings


# What a sentence of a time and a place may hold besides them: "Sunday, the top of the car
# park, level 6."
_FRAGMENT_WORDS = frozenset({"the", "a", "an", "my", "at", "on", "in", "of", "by", "off",
                             "from", "then", "and", "level", "floor", "top", "side", "up",
                             "night", "morning", "evening", "afternoon"})


def _the_day_named(sentences: list[Sentence],
                   asserted: list[list[Mention]]) -> tuple[Sentence, Mention] | None:
    """A day named as the day ("Tonight's the night"), with a time in its sentence, asserted,
    in a turn that names no everyday occasion or work ("Friday is my last day, I'm retiring"
    is a job's last day)."""
    if any(has(sentence, concept) for sentence in sentences
           for concept in ("mundane", "workplace", "academic")):
        return None
    for sentence, concepts in zip(sentences, asserted, strict=True):
        day = next((m for m in concepts if m.concept == "day_named"
                    and "last" not in sentence.words[m.start - sentence.offset:
                                                     m.end - sentence.offset]), None)
        if day is not None and any(_a_time_set(sentence, m) for m in concepts):
            return sentence, day
    return None


# Findings that means or a method's place at hand now makes imminent; not a wish to be dead
# or ideation ("I want to die right now" is a wish, told now).
_AT_HAND_KINDS = frozenset({"means_access", "plan", "method", "intent", "self_harm",
                            "past_attempt"})
_AT_HAND_PARTS = frozenset({"method", "method_weak", "means", "firearm", "self_harm_act",
                            "self_harm_cue", "past_act", "self_kill", "act_pronoun"})


# A habit, not this moment: "when I want to die I go and stand in front of it", "some
# evenings I sit in there".
_HABIT_WORDS = frozenset({"when", "whenever", "every", "sometimes", "lately", "often",
                          "always", "usually", "some", "keep", "until", "if", "then"})


def _of_this_moment(sentence: Sentence) -> bool:
    """A sentence of the patient's present: no habit word, no time gone by, no one else as a
    subject."""
    words = sentence.words
    return not (_HABIT_WORDS.intersection(words) or _TIME_GONE_BY.intersection(words)
                or _OTHERS_SUBJECTS.intersection(words))


# The ``at_hand_now`` phrases that put the means in the patient's hands, not merely near them
# ("in my lap", "in front of me", "across me knees", "I'm holding", "sat here with").
_IN_HAND = frozenset({"lap", "hand", "hands", "front", "knees", "beside", "next", "holding",
                      "with"})
# A medicine ready to be taken whole: opened, all of it, the lot.
_READY = frozenset({"open", "opened", "all", "whole", "full", "lot", "every"})


def _lethal_means_in_hand(sentence: Sentence, concepts: list[Mention], means: Mention,
                          named_in: Sentence | None = None) -> bool:
    """Whether the patient tells of a firearm, a medicine opened or all of it, or a drug that
    kills in any amount, in their hands at this moment: in their lap, hand or in front of them,
    in a sentence of the present with no habit word and no one else as its subject. The means
    may be named in ``named_in``, the sentence before ("… It's in my hand")."""
    words = sentence.words
    if not any(m.concept == "at_hand_now" and _IN_HAND.intersection(
            words[m.start - sentence.offset:m.end - sentence.offset]) for m in concepts) or \
            not FIRST_PERSON.intersection(words) or not _of_this_moment(sentence):
        return False
    named_in = named_in or sentence
    if any(m.concept == "firearm" and m.start == means.start for m in named_in.mentions):
        return True
    named = named_in.words[means.start - named_in.offset:means.end - named_in.offset]
    if NOT_MEDICINES.intersection(named):
        return False
    told = set(words) | set(named_in.words)
    return bool(_KILLS_IN_ANY_AMOUNT.intersection(named) or _READY.intersection(told)
                or "dozen" in sentence.stems or "dozen" in named_in.stems)


# Drugs a vial or a few tablets of can kill: held at all, they are an emergency.
_KILLS_IN_ANY_AMOUNT = frozenset({"pentobarbital", "pentobarbitone", "nembutal", "barbiturate",
                                  "barbiturates", "euthanasia", "potassium", "cyanide",
                                  "arsenic", "strychnine", "nitrite", "paraquat"})


def _named_just_before(sentences: list[Sentence], asserted: list[list[Mention]],
                       index: int) -> tuple[Mention, Sentence] | None:
    """Means named in the sentence before, referred back to by this one ("It's in my hand")."""
    if index == 0 or not _BACK_REFERENCES.intersection(sentences[index].words):
        return None
    means = next((m for m in asserted[index - 1] if m.concept == "means"), None)
    return None if means is None else (means, sentences[index - 1])


def _at_hand_now(sentences: list[Sentence], asserted: list[list[Mention]]) -> bool:
    """Whether the patient tells of being, at this moment, with means or at a method's place
    ("in my lap right now", "I'm standing in there now", "once I finish this call"): an
    ``at_hand_now`` phrase asserted in a sentence of the patient's present, beside means, a
    method or an act."""
    for index, (sentence, concepts) in enumerate(zip(sentences, asserted, strict=True)):
        if not any(m.concept == "at_hand_now" for m in concepts) or \
                not _of_this_moment(sentence):
            continue
        low, high = max(0, index - 1), index + 2
        if any(m.concept in _AT_HAND_PARTS for near in asserted[low:high] for m in near):
            return True
    return False


def at_hand_now(sentences: list[Sentence]) -> bool:
    """``_at_hand_now`` for a turn already read as a risk statement."""
    return _at_hand_now(sentences, asserted_concepts(sentences))


def _time_and_place(sentence: Sentence, concepts: list[Mention]) -> Mention | None:
    """The method or means of a sentence holding nothing but a time and a method's place or
    means (and articles, prepositions, a level's number)."""
    place = next((m for m in concepts if m.concept in _MEANS_OR_METHOD), None)
    if place is None or not any(m.concept == "time" for m in concepts):
        return None
    told = {at for m in concepts if m.concept in _MEANS_OR_METHOD | {"time"}
            for at in range(m.start - sentence.offset, m.end - sentence.offset)}
    if all(at in told or word in _FRAGMENT_WORDS or word.isdigit()
           for at, word in enumerate(sentence.words)):
        return place
    return None


# Taking, swallowing or drinking told as done: with a time within the last hours, an attempt
# under way ("i already took them like the whole bottle … twenty minutes ago").
_TAKEN = frozenset({"took", "taken", "swallowed", "drank", "downed", "overdosed", "od'd",
                    "jumped", "cut"})


def taken_within_hours(sentences: list[Sentence]) -> bool:
    """Whether a turn tells of something taken, swallowed or done within the last hours
    ("last night" is a night gone by: "Took a few extra of me tablets last night" is a time
    to ask about): read only in a turn already read as a risk statement, where it is an
    attempt under way."""
    return any(_TAKEN.intersection(s.words) and _hours_ago(s)
               and not _contains(s.words, ["out", "of"])  # "took the rounds out of the safe"
               for s in sentences)


# A dose measured or routine, not a count of tablets: "12 units of insulin as usual".
_A_DOSE = DOSE_UNITS | frozenset({"puffs", "drops", "usual"})
# What was taken, told by a pronoun or as all of it: "took them", "swallowed the lot".
_TAKEN_WHAT = frozenset({"them", "it", "lot", "everything"})
# An overdose's count: ten or more (read as "dozen"), the lot, a whole bottle or box.
_COUNTS = frozenset({"dozen", "lot", "whole", "everything"})


def _a_count_of_things(sentence: Sentence) -> bool:
    """An overdose's count in the sentence, not one of time ("twenty minutes ago")."""
    return any((stem in _COUNTS or word in _COUNTS)
               and not _SPANS_OF_TIME.intersection(sentence.words[i + 1:i + 2])
               for i, (word, stem) in enumerate(zip(sentence.words, sentence.stems,
                                                    strict=True)))


def _overdose_told_by_its_count(sentences: list[Sentence]) -> tuple[Sentence, Mention] | None:
    """A turn that tells of something taken with an overdose's count and within the last
    hours, the means unnamed ("Already took them. Forty. Half an hour ago."): the sentence
    and the taking. No one else may be its subject, nor the time "last night"."""
    if not any(_TAKEN.intersection(s.words) for s in sentences) or \
            not any(_a_count_of_things(s) for s in sentences) or \
            not any(_hours_ago(s) for s in sentences) or \
            any(_A_DOSE.intersection(s.words) or has(s, "mundane") for s in sentences):
        return None
    for number, sentence in enumerate(sentences):
        words = sentence.words
        for at, word in enumerate(words):
            if word in _TAKEN and _TAKEN_WHAT.intersection(words[at + 1:at + 3]) and \
                    not _OTHERS_SUBJECTS.intersection(words[:at]) and \
                    not _an_amount_of_something_named(words, at):
                return sentence, Mention("past_act", sentence.offset + at,
                                         sentence.offset + at + 1, number)
    return None


def _an_amount_of_something_named(words: list[str], at: int) -> bool:
    """"took a lot of blood": an amount of something the sentence names, not "the lot"."""
    return words[at + 1:at + 4] == ["a", "lot", "of"] and \
        words[at + 4:at + 5] not in (["them"], ["it"], [])


def _contains(words: list[str], phrase: list[str]) -> bool:
    return any(words[i:i + len(phrase)] == phrase for i in range(len(words)))


# Harm that needs emergency care now: bleeding that will not stop or soaks through, a wound
# gaping, the patient going faint or dizzy, vomiting, ears ringing after something swallowed
# ("Just cut myself. It's gaping. Still pouring.", "Bled through two tea towels. Feeling
# dizzy.").
_INJURED_NOW = re.compile(
    r"\b(?:blood\s+everywhere|(?:(?:a\s+lot|lots|loads)\s+of|so\s+much)\s+blood|gaping|"
    r"still\s+(?:pouring|bleeding)|(?:not|can\s+not|cannot)\s+"
    r"stop\s+(?:the\s+)?(?:bleeding|blood)|(?:feel|feeling|going|getting)\s+(?:\w+\s+)?faint|"
    r"passing\s+out|bleeding\s+through|it\s+(?:is|will)\s+not\s+stop(?:ping)?|"
    r"taking\s+a\s+while\s+to\s+stop|dizzy|woozy|groggy|light\s*headed|throwing\s+up|vomiting|"
    r"ears\s+(?:are\s+)?ringing|can\s+not\s+breathe|(?:stomach|belly|throat)\s+(?:is\s+)?"
    r"burning)\b")


def _someone_elses_ready(sentence: Sentence, preparation: Mention) -> bool:
    """Means told as ready that are someone else's: "Mum's pills are ready in her blister
    pack", not "The pills are ready"."""
    return sentence.words[preparation.end - 1 - sentence.offset] == "ready" and \
        tells_of_someone_else(sentence)


# After the act: less of it, not more of it now ("I'm cutting less now").
_LESS = frozenset({"less", "fewer", "down", "back"})


def _harm_under_way(sentence: Sentence) -> bool:
    """"I'm burning my arm right now": self-harm told as done at this moment (an act in -ing
    after "am", and "now" or "as we speak"), an emergency like harm needing care."""
    words = sentence.words
    if not (("now" in words or _contains(words, ["as", "we", "speak"]))
            and _of_this_moment(sentence)):
        return False
    for mention in sentence.mentions:
        at = mention.start - sentence.offset
        if mention.concept in ("self_harm_act", "self_harm_cue") and \
                words[at].endswith("ing") and "am" in words[max(0, at - 2):at] and \
                not _LESS.intersection(words[at + 1:at + 3]):
            return True
    return False


# What may follow "cutting" told with no object: "cutting right now", "cutting again".
_CUTTING_ON = frozenset({"right", "now", "again", "and", "still", "myself"})


def _cutting_and_bleeding_now(sentences: list[Sentence], sentence: Sentence,
                              mention: Mention) -> bool:
    """"I'm cutting in the toilets right now … there's a lot of blood": the patient cutting
    at this moment, told with harm needing care now, where the body is not named."""
    following = sentence.words[mention.end - sentence.offset:mention.end - sentence.offset + 1]
    return sentence.stems[mention.start - sentence.offset] == "cut" and \
        (not following or following[0] in _CUT_PREPOSITIONS | _CUTTING_ON) and \
        bool(FIRST_PERSON.intersection(sentence.words)) and has(sentence, "recent") and \
        _of_this_moment(sentence) and injured_now(sentences)


# "leaving for good, moving to Leeds": a move named makes leaving for good a move.
_A_MOVE = re.compile(r"\b(?:moving|move|moved|emigrating|emigrate|relocating|relocate)\s+"
                     r"(?:to|back|abroad|away|out|house|home|in)\b")


def _a_move_told(sentences: list[Sentence]) -> bool:
    return any(_A_MOVE.search(" ".join(sentence.words)) for sentence in sentences)


def injured_now(sentences: list[Sentence]) -> bool:
    """Whether a turn tells of harm needing emergency care now (``_INJURED_NOW``), with no
    time gone by ("it wouldn't stop bleeding last year"). A tense of the past elsewhere in the
    turn tells of the act, not of the harm: "I took all the amitriptyline I had around
    midnight … Still feeling a bit woozy." """
    words = [word for sentence in sentences for word in sentence.words]
    if _TIME_LONG_GONE.intersection(words):
        return False
    for sentence in sentences:
        text = " ".join(sentence.words)
        if _INJURED_NOW.search(text) is None:
            continue
        gone = _TIME_GONE_BY.intersection(sentence.words)
        if _JUST_BEFORE.search(text):
            gone -= {"before"}  # "I just cut … before this call and it won't stop bleeding"
        if not gone:
            return True
    return False


# Places of a method one goes to, and going there now.
_METHOD_PLACES = frozenset({"bridge", "cliff", "cliffs", "viaduct", "quarry", "tracks", "railway",
                            "roof", "rooftop", "headland", "pier", "reservoir", "river", "woods",
                            "motorway", "overpass", "ledge", "crossing"})
_GOING = frozenset({"going", "heading", "driving", "walking", "off", "way"})
# What the means are for, on the way: "with the rope for the boat", "climbing", "fishing".
_OUTING = frozenset({"climbing", "abseiling", "fishing", "boat", "canoe", "kayak", "camping",
                     "hunting", "shoot", "range", "tow", "towing", "work", "job", "shift"})


def _on_the_way_with_means(sentence: Sentence, means: Mention) -> bool:
    """Whether the patient tells of going now to a method's place with the means: "I'm
    heading up to the cliffs now with the rope", not "… with the rope for the boat"."""
    words = sentence.words
    following = words[means.end - sentence.offset:][:1]
    named = words[means.start - sentence.offset:means.end - sentence.offset]
    # Means carried there for no errand: a ligature or a firearm (the lexicon's, as
    # ``_lethal_means_in_hand`` reads it); tablets go everywhere in a bag.
    carried = bool(_LIGATURES.intersection(named)) or any(
        m.concept == "firearm" and m.start == means.start for m in sentence.mentions)
    return carried and bool(FIRST_PERSON.intersection(words)) and "now" in words and \
        bool(_GOING.intersection(words)) and bool(_METHOD_PLACES.intersection(words)) and \
        not _OUTING.intersection(words) and not set(following) & _EVERYDAY_USE


# An attempt told as made within the last hours is under way: a medical emergency ("I took
# thirty of my pills an hour ago"), not a history to ask about.
_HOUR_WORDS = frozenset({"minute", "minutes", "min", "mins", "hour", "hours", "hr", "hrs"})
# Any span of time a number may count: "twenty minutes ago" is no count of tablets.
_SPANS_OF_TIME = _HOUR_WORDS | frozenset({"second", "seconds", "secs", "day", "days", "week",
                                          "weeks", "month", "months", "year", "years"})
_WITHIN_HOURS = (["earlier", "today"], ["earlier", "tonight"],
                 ["this", "morning"], ["this", "afternoon"], ["this", "evening"],
                 ["tonight"], ["last", "night"])
# A meal of the day, with no other day named: "I took about thirty of my paracetamol at
# teatime" (not "last Christmas at teatime").
_MEAL_TIMES = (["at", "teatime"], ["at", "lunchtime"], ["at", "dinnertime"],
               ["at", "suppertime"], ["at", "tea", "time"], ["at", "lunch", "time"],
               ["at", "dinner", "time"])
# Days named by their feast, beside the weekdays, birthdays and holidays ending in "day".
_FEASTS = frozenset({"christmas", "xmas", "easter", "eid", "diwali", "hanukkah", "weekend"})


def _hours_ago(sentence: Sentence) -> bool:
    """``_within_hours``, "last night" aside: a night gone by is a time to ask about."""
    return _within_hours(sentence) and not _contains(sentence.words, ["last", "night"])


def _within_hours(sentence: Sentence) -> bool:
    words = sentence.words
    for i, word in enumerate(words):
        if word == "ago" and _HOUR_WORDS.intersection(words[max(0, i - 2):i]):
            return True
        if word == "now" and words[i + 1:i + 2] and words[i + 1] in _TAKEN and \
                not _TIME_GONE_BY.intersection(words):
            return True  # "I've just swallowed …", read as "I have now swallowed"
    return any(_contains(words, phrase) for phrase in _WITHIN_HOURS) or (
        any(_contains(words, phrase) for phrase in _MEAL_TIMES)
        and not _TIME_GONE_BY.intersection(words)
        and not any((word.endswith(("day", "days")) and word != "today")
                    or word in _FEASTS for word in words))


# Just before a time word: a recurring time ("every other weekend"), a condition ("if I
# leave") or a time gone by ("since about Easter") sets no time.
_NOT_SET = frozenset({"every", "each", "if", "unless", "since"})
# What makes a time the patient's own time to come, beside their present or future tense:
# an intent, a commitment ("It's happening tonight") or a day named as the day ("Tonight's
# the night").
_SETS_A_TIME = frozenset({"intent", "commitment", "day_named"})
# A habit, not a time set: "At night I am looking at the cupboard where it is."
_HABITUAL = (["at", "night"], ["late", "at", "night"])


# A short sentence that opens with a time and tells nothing that is over: "Thursday.",
# "Saturday morning, early, before anyone's about.", "Next run's Thursday." In a turn read
# as a risk statement, the time it names is the time set for it.
_TIME_ALONE_MAX_WORDS = 8
_TIME_ALONE_LEAD = frozenset({"next", "this", "on", "by", "until", "till", "so", "then"})
_TIME_GONE_BY = frozenset({"last", "ago", "was", "were", "did", "had", "used", "yesterday",
                           "before", "since"})
_JUST_BEFORE = re.compile(r"\bbefore\s+(?:this\s+call|i\s+(?:called|rang|phoned)|calling|"
                          r"ringing|phoning)\b")
# The words of it that date a whole turn, not only the sentence they are in.
_TIME_LONG_GONE = frozenset({"last", "ago", "used", "yesterday"})


def _names_a_time_alone(sentence: Sentence) -> bool:
    words = sentence.words
    if len(words) > _TIME_ALONE_MAX_WORDS:
        return False
    for mention in sentence.mentions:
        start = mention.start - sentence.offset
        if mention.concept == "time" and \
                all(word in _TIME_ALONE_LEAD or word.endswith("'s") for word in words[:start]):
            return not _TIME_GONE_BY.intersection(words[:start + 1]) and \
                not _TIME_GONE_BY.intersection(words[mention.end - sentence.offset:][:2]) and \
                words[start:mention.end - sentence.offset] not in _HABITUAL
    return False


# What a plan is made of beside its time: a method or means, a preparation or a goodbye.
_PLAN_PARTS = frozenset({"method", "method_weak", "means", "firearm", "plan", "preparation",
                         "farewell", "acquired"})


# Verbs told in the past: the time beside them is when something happened ("on Saturday I
# drove my car into a pole"), not one set.
_PAST_FORMS = frozenset({"was", "were", "did", "had", "took", "drove", "went", "got", "bought",
                         "kept", "sat", "made", "left", "gave", "told", "said", "thought",
                         "felt", "came", "ran", "found", "woke", "ate", "drank", "cut",
                         "jumped", "swallowed", "overdosed", "tried", "ended"})


# "when things get bad", "the third time this month", "bad like this week": a condition, a
# count or a comparison, not a time set.
_RECURRING = frozenset({"time", "times", "twice", "again", "like"})
# Someone else's doing: "she even let me have the kids for Thanksgiving".
_OTHERS_SUBJECTS = frozenset({"he", "she", "they"})


# Done now for a time to come: "I've scheduled a post to go up at midnight tonight".
_DONE_FOR_LATER = frozenset({"scheduled", "booked", "timed", "arranged"})


def _told_as_done(word: str) -> bool:
    return word in _PAST_FORMS or (len(word) > 4 and word.endswith("ed")
                                   and word not in _DONE_FOR_LATER)


def time_with_a_plan(sentences: list[Sentence]) -> bool:
    """Whether a turn names what a plan is made of (a method, means, a preparation, a goodbye)
    and a time that is neither recurring, conditional nor gone by ("i have the rope … thinkin
    sunday when its quiet"): read only in a turn already read as a risk statement, where the
    time is the plan's."""
    if not any(m.concept in _PLAN_PARTS for s in sentences for m in s.mentions):
        return False
    for sentence in sentences:
        words = sentence.words
        if _TIME_GONE_BY.intersection(words) or _OTHERS_SUBJECTS.intersection(words) or \
                any(_told_as_done(word) for word in words):
            continue
        if any(_a_time_set(sentence, m, _NOT_SET | _RECURRING)
               and words[m.start - sentence.offset] != "when" for m in sentence.mentions):
            return True
    return False


def _a_time_set(sentence: Sentence, mention: Mention,
                not_after: frozenset[str] = _NOT_SET) -> bool:
    """Whether ``mention`` is a time word that neither follows (within two words) one of
    ``not_after`` nor names a habit ("at night")."""
    start, end = mention.start - sentence.offset, mention.end - sentence.offset
    return mention.concept == "time" and \
        not not_after.intersection(sentence.words[max(0, start - 2):start]) and \
        sentence.words[start:end] not in _HABITUAL


def time_to_come(sentences: list[Sentence]) -> bool:
    """A sentence in which the patient sets a time to come for what they say: a time word
    ("Sunday", "tomorrow night", "after my shift") with the patient's own present or future
    ("I'm going", "I'll", "gonna"), or a time named on its own ("Thursday. Garage."). A
    recurring or conditional time and someone else's future ("he will find me whenever") set
    none."""
    for number, sentence in enumerate(sentences):
        if not any(_a_time_set(sentence, m) for m in sentence.mentions):
            continue
        if _names_a_time_alone(sentence):
            return True
        ahead = [m for m in sentence.mentions if m.concept in _SETS_A_TIME] + [
            Mention("intent", sentence.offset + i, sentence.offset + i + 1, number)
            for i, word in enumerate(sentence.words) if word in _PRESENT_OR_FUTURE]
        # "going to the bridge tomorrow night": a patient's sentence with no subject is theirs.
        # "Tonight's my last night.": a day named as the day needs no "I".
        if any(m.start == sentence.offset or (("i" in sentence.words or m.concept == "day_named")
                                              and not about_someone_else(sentence, m))
               for m in ahead):
            return True
    return False
