"""Whether a concept mention in a patient turn is asserted: ConText-style modifiers.

A mention counts only when it is asserted, judged within its clause: not negated ("never been
on the table"), not hypothetical ("hypothetically, if I were"), not about someone else ("my gf
said she …"), not academic ("my pharmacology exam"), not said in jest, and not historical when
the turn says it is over ("… but none now, I feel safe"). ``concepts`` combines what is
asserted into C-SSRS kinds; turns are read into mentions by ``reading``.
"""

from __future__ import annotations

import re

from services.analysis.crisis.reading import SENTENCE_RE, TENS, Mention, Sentence, tokenize

# Negation and other ConText modifiers reach this many tokens forward within a clause.
MODIFIER_WINDOW_TOKENS = 6
# Clause terminators for ConText modifiers ("…, but none now").
_TERMINATORS = frozenset({"but", "though", "although", "however", "except", "yet", "whereas"})
FIRST_PERSON = frozenset({"i", "me", "my", "myself", "mine"})
# Someone else as the subject of a clause ("he said", "she doesn't know").
_THIRD_PERSON_SUBJECTS = frozenset({"he", "she", "they", "someone", "somebody"})
# Subjects and owners only: an object ("I told him I want to die", "taking them") does not
# make the statement someone else's.
_THIRD_PERSON = _THIRD_PERSON_SUBJECTS | frozenset({"her", "his", "their", "people", "character",
                                                    "himself", "herself", "themselves"})
_OBJECT_MARKERS = frozenset({"of", "see", "visit", "join", "told", "tell", "call", "called",
                             "text", "texted", "miss", "with", "to", "for", "about", "wrote",
                             "write", "gave", "give", "left", "leave", "sent", "send", "hugged",
                             "thanked", "kissed"})
_REFLEXIVE_OTHER = frozenset({"himself", "herself", "themselves", "yourself"})
TOPIC_WORDS = frozenset({"suicid", "suicidal"})

# Concepts whose phrases carry their own negation ("not wake up", "do not care"): a negation
# word inside them is part of the meaning, not a modifier.
MODIFIER_CONCEPTS = frozenset({"negation", "negation_exception", "hypothetical", "others",
                               "mundane", "worth_living", "hope_doubted", "academic",
                               "historical", "resolved", "recent", "accident", "idiom",
                               "question_echo", "exasperation", "help_for_other"})


def clause_bounds(sentence: Sentence, position: int) -> tuple[int, int]:
    start, end = sentence.offset, sentence.offset + len(sentence.words)
    for index in range(position - 1, sentence.offset - 1, -1):
        if sentence.words[index - sentence.offset] in _TERMINATORS:
            start = index + 1
            break
    for index in range(position, end):
        if sentence.words[index - sentence.offset] in _TERMINATORS:
            end = index
            break
    return start, end


def _covered(sentence: Sentence, position: int) -> bool:
    """Whether a token is part of a concept phrase (so a "not" inside one is no negation)."""
    return any(m.start <= position < m.end for m in sentence.mentions
               if m.concept not in MODIFIER_CONCEPTS)


# "I don't think I want to …": the negation moves across these verbs to the clause they hold.
_NEG_RAISING = frozenset({"think", "feel", "believe", "guess", "suppose", "know", "say", "saying",
                          "said", "mean", "expect", "want", "felt", "thought", "believed",
                          "knew", "meant", "expected", "wanted", "feeling", "thinking"})
# "I've never felt like I wanted to die", "I never thought that I would": the clause a
# negated verb of thinking or feeling holds, opened by "like" or "that".
_COMPLEMENTIZERS = frozenset({"like", "that"})


# Whose verb of thinking a negation raises from: the patient's ("I don't think I …"), not
# another's ("He doesn't know I stole his pills to overdose").
_OTHER_SUBJECTS = frozenset({"nobody", "everyone"}) | _THIRD_PERSON_SUBJECTS
_SUBJECT_REACH = 4


def _patients_verb(sentence: Sentence, verb: int) -> bool:
    others = {m.end - sentence.offset - 1 for m in sentence.mentions if m.concept == "others"}
    for position in range(verb - 1, max(-1, verb - 1 - _SUBJECT_REACH), -1):
        word = sentence.words[position]
        if word == "i":
            return True
        if word in _OTHER_SUBJECTS or position in others:  # "My mum doesn't know I …"
            return False
    return True


def _new_subject(sentence: Sentence, start: int, end: int) -> bool:
    """Whether "I" opens a new clause between two tokens ("if things aren't better … I'm
    done"), which a negation before it does not reach."""
    words = sentence.words
    for index in range(max(start, sentence.offset + 1), end):
        position = index - sentence.offset
        if position >= len(words) or words[position] != "i":
            continue
        verb = position - 1 if words[position - 1] in _NEG_RAISING else position - 2 if (
            words[position - 1] in _COMPLEMENTIZERS and position >= 2
            and words[position - 2] in _NEG_RAISING) else None
        if verb is not None and _patients_verb(sentence, verb):
            continue
        return True
    return False


def _negated(sentence: Sentence, mention: Mention) -> bool:
    """Whether a negation cue before or just after the mention denies it. A cue inside the
    mention's own words never does ("never gave it back", "so nobody finds me"), so a concept
    phrase needs no ``negation_exception`` entry: exceptions keep a cue off other words."""
    start, end = clause_bounds(sentence, mention.start)
    exceptions = [m for m in sentence.mentions if m.concept == "negation_exception"]
    for cue in sentence.mentions:
        if cue.concept != "negation" or _covered(sentence, cue.start):
            continue
        if cue.start < mention.start < cue.end:
            # "I wish I'd never wake up": a cue ("would never") that runs into the mention's
            # own words ("never wake up") is part of them.
            continue
        inside = [e for e in exceptions if e.start <= cue.start < e.end]
        if any(cue.end <= mention.start and mention.end <= e.end for e in inside):
            # "I don't know how much longer …": an exception keeps the negation off what
            # follows it, not off its own words after the cue ("know how" is no plan).
            return True
        if inside:
            continue
        before = start <= cue.start < mention.start and \
            mention.start - cue.end <= MODIFIER_WINDOW_TOKENS and \
            not _new_subject(sentence, cue.end, mention.start + 1)
        # "Ending things has never been on the table": a denial right after the topic.
        # Not a new coordinated clause: "sleep for a long time and not deal with any of it".
        # Only an auxiliary, a pronoun or a particle between ("… is not", "… for me, never"):
        # not "ending things, thinking, not the usual venting", a denial of what follows it.
        after = mention.end <= cue.start < min(end, mention.end + 3) and \
            sentence.words[cue.start - sentence.offset] not in _DENIES_ONLY_AHEAD and (all(
            sentence.words[i - sentence.offset] in _BETWEEN_TOPIC_AND_DENIAL
            for i in range(mention.end, cue.start))
            or bool(_DENIED_SINCE.intersection(
                sentence.words[cue.start - sentence.offset:cue.end - sentence.offset + 1])))
        if before or after:
            return True
    return False


# "without" denies what follows ("without a plan"), never what came before: "I've been
# cutting without anyone noticing".
_DENIES_ONLY_AHEAD = frozenset({"without"})
_BETWEEN_TOPIC_AND_DENIAL = frozenset({
    "is", "was", "are", "were", "am", "be", "been", "has", "have", "had", "do", "does", "did",
    "will", "would", "could", "should", "can", "it", "that", "this", "for", "me", "to"})
# A denial of what was before it, whatever lies between: "…, not anymore", "no longer".
_DENIED_SINCE = frozenset({"anymore", "longer", "now", "any", "since", "lately"})
_PLURAL_IT = frozenset({"they", "them", "their"})
_THINGS = frozenset({"thought", "means", "method_weak", "method"})


# Possessive determiners that name only whose a thing is.
_OWNERS_OF_MEANS = frozenset({"his", "her", "their"})


def about_someone_else(sentence: Sentence, mention: Mention) -> bool:
    last: str | None = None
    for index in range(sentence.offset, mention.start):
        word = sentence.words[index - sentence.offset]
        if word in _PLURAL_IT and any(m.concept in _THINGS and 0 <= index - m.end <= 2
                                      for m in sentence.mentions):
            continue  # "whenever the thoughts come they go straight to …": the thoughts
        if word in _OWNERS_OF_MEANS and any(m.concept in ("means", "method_weak")
                                            and m.start == index + 1 for m in sentence.mentions):
            continue  # "I stole his pills to overdose": whose the means are, not who acts
        if any(m.concept == "others" and m.start == index for m in sentence.mentions):
            # "a bottle of my mom's xanax" names an owner, "see my grandma", "told my mom"
            # someone the patient acts on: neither is who is speaking.
            previous = sentence.words[index - sentence.offset - 1] if index > sentence.offset \
                else ""
            owner = sentence.words[index - sentence.offset].endswith("'s") or any(
                m.concept == "others" and m.start == index
                and sentence.words[m.end - 1 - sentence.offset].endswith("'s")
                for m in sentence.mentions)
            if previous not in _OBJECT_MARKERS or owner:  # "about my mom's overdose"
                last = "other"
        elif word in FIRST_PERSON and not (word == "me" and last == "other"):
            last = "self"  # "a friend sent me a goodbye text" stays the friend's
        elif word in _THIRD_PERSON and not _covered(sentence, index):
            last = "other"
    after = sentence.words[mention.end - sentence.offset:mention.end - sentence.offset + 3]
    if any(word in _REFLEXIVE_OTHER for word in after):
        return True
    return last == "other"


def has(sentence: Sentence, concept: str) -> bool:
    return any(m.concept == concept for m in sentence.mentions)


def hypothetical(sentence: Sentence, mention: Mention) -> bool:
    start, _end = clause_bounds(sentence, mention.start)
    return any(m.concept == "hypothetical" and (m.start < mention.start or m.start == start)
               # "if I ever did it, it'd be …" is a phrase of its own, not a hypothetical; nor
               # is the "what if" of the idiom "tell you what, if …".
               and not any((o.concept not in MODIFIER_CONCEPTS or o.concept == "idiom")
                           and _holds(o, m.start, m.end)
                           for o in sentence.mentions)
               for m in sentence.mentions)


_QUALIFIERS = frozenset({"academic", "mundane"})


_LIFETIME = frozenset({"past_act", "recent", "method", "self_harm_act", "means", "preparation"})


def _someone_elses(sentence: Sentence, mention: Mention) -> bool:
    """A mundane purpose whose subject, just before it, is someone else's: "when he moved out"
    explains what he did, not the patient's sentence."""
    at = mention.start - sentence.offset
    return at > 0 and sentence.words[at - 1] in _THIRD_PERSON_SUBJECTS


def _denied(sentence: Sentence, mention: Mention) -> bool:
    """A modifier itself negated: "they're not for headaches"."""
    previous = sentence.words[mention.start - sentence.offset - 1] \
        if mention.start > sentence.offset else ""
    return previous in ("not", "no", "never") or _negated(sentence, mention)


# The clinical names of the topic: "passive and active suicidal ideation".
_TOPIC_TERMS = frozenset({("suicidal", "ideation"),
                          # what speech recognition makes of "suicide"
                          ("soda", "side"), ("sue", "aside"), ("sewer", "side"),
                          ("sue", "side"),
                          # and what short-video captions make of it
                          ("sewer", "slide")})


def _topic_word(sentence: Sentence, mention: Mention) -> bool:
    """"suicide" or "suicidal" alone, or "suicidal ideation": the topic, which study and news
    talk about too."""
    at, end = mention.start - sentence.offset, mention.end - sentence.offset
    return (end - at == 1 and sentence.stems[at] in TOPIC_WORDS) or \
        tuple(sentence.words[at:end]) in _TOPIC_TERMS


# "getting used to it", "I'm used to it": accustomed, not a habit of the past.
_ACCUSTOMED = frozenset({"get", "gets", "getting", "got", "gotten", "am", "is", "are", "be",
                         "being"})


# "I'm in my twenties", "I'm in first year": a time of life told as the present one.
_PRESENT_COPULA = frozenset({"am", "is", "are"})


def _historical(sentence: Sentence) -> bool:
    words = sentence.words
    return any(m.concept == "historical" and not (
        words[m.start - sentence.offset:m.end - sentence.offset] == ["used", "to"]
        and m.start > sentence.offset
        and words[m.start - sentence.offset - 1] in _ACCUSTOMED)
        and not _PRESENT_COPULA.intersection(
            words[max(0, m.start - sentence.offset - 1):m.start - sentence.offset])
        for m in sentence.mentions)


# Words of dying or self-harm (not the weak ones ordinary talk uses: "be gone", "I'm done").
_DYING = frozenset({"self_kill", "death_wish", "self_harm_act", "self_harm_cue", "past_act"})


def names_dying(sentences: list[Sentence]) -> bool:
    """Whether the turn says dying, killing oneself or self-harm in so many words (the topic
    word "suicide" alone aside): an intent or plan told so is never ordinary talk, however a
    trained reader rates it ("Once the divorce is finalised I'm checking out for good.")."""
    return any(m.concept in _DYING and not (m.concept == "self_kill" and _topic_word(s, m))
               for s in sentences for m in s.mentions)


def carries_modifier(sentences: list[Sentence], text: str) -> bool:
    """Whether a turn holds a ConText modifier anywhere, whatever its scope: a past time ("in my
    twenties", "when I was in the service"), someone else as a sentence's subject ("Our
    neighbour overdosed"), a study or mundane purpose ("For my pharmacology exam:"), a question,
    or laughter and hyperbole ("ha", and "lol", "literally", "💀" that the reading drops). The rules
    scope each to the words it governs; where they did not reach a finding, the trained
    readers may still have read it. (Denials are left out: plain disclosures are full of "not"
    and "never", and the readers rate some of them near 0.)"""
    return "?" in text or bool(_JOKE_MARKERS.search(text)) or any(
        _historical(s) or tells_of_someone_else(s) or _LAUGHTER.intersection(s.words)
        or any(m.concept in _QUALIFIERS for m in s.mentions) for s in sentences)


# Laughter and hyperbole as written, which the reading drops as fillers.
_JOKE_MARKERS = re.compile(
    r"\b(?:lol|lmao|lmfao|ha(?:ha)+|jk|literally)\b|[\U0001F480\U0001F602\U0001F923]",
    re.IGNORECASE)


def qualified(sentences: list[Sentence]) -> bool:
    """Whether a turn carries a ConText modifier that can make a topic word not a disclosure:
    academic, a joke or an exasperated hyperbole, or historical thoughts ("suicidal in my
    twenties") — not an act, which counts for life, and not when the turn says it is back
    ("lately", "again")."""
    found = {m.concept for s in sentences for m in s.mentions}
    if any(m.concept in _QUALIFIERS and not _denied(s, m) for s in sentences
           for m in s.mentions):
        return True  # "they're not for headaches" is no mundane reason
    if found & _HYPERBOLE and any(_hyperbole(sentences, index) for index in range(len(sentences))):
        return True  # "kms lol this meme", "one more ad and I'll shoot myself": hyperbole
    if _question_denied(sentences):
        return True  # "I put 'not at all' for the question about being better off dead"
    if "help_for_other" in found and all(tells_of_someone_else(s) for s in sentences
                                         if {m.concept for m in s.mentions} & _RISK_TOLD):
        return True  # "my teammate keeps talking about jumping …, should i tell coach"
    if not any(_historical(s) for s in sentences) or found & _LIFETIME:
        return False
    acts = [m for s in sentences for m in s.mentions if m.concept == "self_kill"
            and s.stems[m.start - s.offset:m.end - s.offset][0] not in TOPIC_WORDS]
    return not acts and bool(found & {"thought", "self_kill", "death_wish", "death_weak"})


def distanced(sentences: list[Sentence], names: frozenset[str]) -> bool:
    """Whether the turn holds any of the named concepts at a distance: denied, hypothetical or
    someone else's, or the whole turn studied, long past or resolved ("I don't have any plan
    to kill myself"). Word counts and a sentence encoder both read such a turn as risk."""
    if qualified(sentences) or turn_is_resolved(sentences):
        return True
    return any(m.concept in names and (_negated(s, m) or hypothetical(s, m)
                                       or about_someone_else(s, m))
               for s in sentences for m in s.mentions)


# Risk told in the present ("… but I want to kill myself") is not what a turn calls resolved.
_PRESENT_VERBS = frozenset({"want", "wants", "wanna", "am", "is", "are", "keep", "keeps",
                            "will", "going", "gonna", "have", "has", "plan", "planning",
                            "thinking", "think", "need", "can", "decided"})
_RISK_TOLD = frozenset({"self_kill", "self_kill_weak", "death_wish", "self_harm_act", "method",
                        "means", "plan", "intent", "preparation", "act_pronoun"})


def _told_as_current(sentence: Sentence, mention: Mention) -> bool:
    start, _end = clause_bounds(sentence, mention.start)
    start = max(start, mention.start - 3)
    return bool(_PRESENT_VERBS.intersection(
        sentence.words[start - sentence.offset:mention.end - sentence.offset]))


# Past tense before a risk phrase: "I wanted to die", "I was suicidal", "I self harmed".
_PAST_VERBS = frozenset({"was", "were", "wanted", "tried", "had", "did", "thought", "felt",
                         "used", "went", "got", "harmed", "cut"})
_PRESENT_STATE = frozenset({"now", "nowadays", "today", "these", "since"})
# What a turn told wholly in the past leaves behind; attempts count for life (C-SSRS).
_IDEATION_TOLD = frozenset({"self_kill", "self_kill_weak", "death_wish", "self_harm_act",
                            "self_harm_cue"})


def _told_in_the_past(sentences: list[Sentence]) -> bool:
    """A turn whose ideation or self-harm is all told in the past tense, with a sentence of
    the present free of it ("back in high school i wanted to die most days. therapy helped a
    ton, now i'm just here for adhd stuff"); not when an attempt or any present risk is told."""
    risky = [s for s in sentences if any(m.concept in _RISK_TOLD | _IDEATION_TOLD
                                         for m in s.mentions)]
    if not risky or any(has(s, "past_act") or has(s, "relapse") for s in sentences):
        return False
    if any(has(s, "recent") and not _historical(s) for s in risky):
        return False  # "I wanted to die last week. Now I'm at work."
    for s in risky:
        for m in s.mentions:
            if m.concept not in _RISK_TOLD | _IDEATION_TOLD:
                continue
            if _told_as_current(s, m):
                return False
            at = m.start - s.offset
            if not (_PAST_VERBS.intersection(s.words[max(0, at - 3):at + 2])
                    or _historical(s)):
                return False
    # Dated ("back in high school", "in 2012", "twenty-some years") and the present told as
    # well ("I am happy", "now i'm just here for adhd stuff"): not "Now I'm not sure."
    dated = any(_historical(s) for s in risky) or any(
        _AGES_AND_SPANS.intersection(s.words) or any(w.isdigit() for w in s.words)
        for s in sentences)
    return dated and any(
        s not in risky and _PRESENT_STATE.intersection(s.words) and (
            _WELL.intersection(s.words) or {"here", "for"} <= set(s.words)
            or {"here", "about"} <= set(s.words))
        for s in sentences)


_WELL = frozenset({"happy", "well", "fine", "good", "better", "okay", "ok", "great", "stable",
                   "sober", "clean", "grateful", "glad", "mentor", "thriving"})


def turn_is_resolved(sentences: list[Sentence]) -> bool:
    """A turn that says the risk is over ("that's long passed and I'm hopeful now") and does
    not bring it back ("again", "still", "lately") nor tell any of it in the present ("My
    knee is better now. I want to kill myself."); or one that tells all of it in the past
    and speaks of the present apart."""
    # "I'm not in a good place", "I am not safe now": a recovery denied is none.
    resolved = any(m.concept == "resolved" and not _negated(s, m)
                   for s in sentences for m in s.mentions)
    if not resolved:
        return _told_in_the_past(sentences)
    from services.analysis.crisis.concepts import taken_within_hours  # it imports this module

    if taken_within_hours(sentences):
        # "I took about thirty of my paracetamol at teatime. I feel okay now.": feeling fine
        # hours after an overdose is no recovery (paracetamol harms a day later).
        return False
    if any(m.concept in _RISK_TOLD and not _historical(s) and _told_as_current(s, m)
           and not _negated(s, m)
           and not any(r.concept == "resolved" and r.start < m.end and m.start < r.end
                       for r in s.mentions)
           for s in sentences for m in s.mentions):
        return False
    return not any(
        m.concept == "recent" and not any(
            r.concept == "resolved" and r.start <= m.start < r.end for r in s.mentions)
        # "In first year I … thought about ending it almost every day": how often, back then.
        and not (_historical(s) and tuple(s.words[m.start - s.offset:m.end - s.offset])
                 in _HOW_OFTEN)
        # "I'm 58 now, and those thoughts haven't returned", "im 34 now", "Now is forty
        # years": a "now" that dates the recovery or counts the time since; not "but now I
        # want to die", which brings it back.
        and not (s.stems[m.start - s.offset:m.end - s.offset] == ["now"]
                 and not _contrasted(s, m)
                 and (has(s, "resolved") or _AGES_AND_SPANS.intersection(s.words)
                      or any(word.isdigit() for word in s.words)))
        for s in sentences for m in s.mentions
    )


_CONTRAST = frozenset({"but", "and", "yet", "until", "till", "right", "since"})
_HOW_OFTEN = frozenset({("every", "day"), ("every", "night"), ("most", "days"),
                        ("most", "nights"), ("daily",), ("all", "the", "time")})


def _contrasted(sentence: Sentence, mention: Mention) -> bool:
    return mention.start > sentence.offset and \
        sentence.words[mention.start - sentence.offset - 1] in _CONTRAST


_AGES_AND_SPANS = TENS | frozenset({"years", "decades", "teens", "twenties", "thirties",
                                    "forties", "fifties"})


# Means are often someone else's ("my dad's pistol"): access is what counts. Review cues are
# kept whoever else the sentence names ("told my friend bye"): a clinician follows them up.
_OWNERLESS = frozenset({"means", "possession", "purpose", "time", "burden", "farewell",
                        "hopeless", "access", "firearm", "alone"})
_SPEAKER = frozenset({"i", "me", "my", "mine"})


def _speaker_inside(sentence: Sentence, mention: Mention) -> bool:
    """"after I'm gone", "meant to me": the phrase names the patient whoever else is named."""
    words = sentence.words[mention.start - sentence.offset:mention.end - sentence.offset]
    return bool(_SPEAKER.intersection(words))


def _holds(mention: Mention, start: int, end: int) -> bool:
    return mention.start <= start and end <= mention.end and \
        mention.end - mention.start > end - start


# Acts of the patient's own that a qualifier in the sentence does not make a topic.
_OWN_ACTS = frozenset({"death_wish", "method", "self_harm_act", "self_kill"})
_WILLS = frozenset({"intent", "commitment", "desire", "plan", "purpose", "thought"})
# The will governs the act it comes just before: "plan to jump off", "saving it up to
# overdose"; not "I have to do a presentation on self-harm".
_WILL_REACH = 3


_SAYING = frozenset({"saying", "says", "said", "texting", "texted", "posting", "posted",
                     "messaging", "messaged", "writing", "wrote", "joking", "joked"})


_SAYING_AUX = frozenset({"keeps", "kept", "keep", "always", "was", "is", "been", "has", "have",
                         "just", "still", "had", "be"})


def _quoted(sentence: Sentence, act: Mention) -> bool:
    """Whether the act is in words someone else is saying: a verb of saying whose subject is
    not the patient ("my partner keeps saying 'I'm gonna jump'"; not "I keep saying …")."""
    before = sentence.words[:act.start - sentence.offset]
    said = next((i for i, word in enumerate(before) if word in _SAYING), None)
    if said is None:
        return False
    subject = next((word for word in reversed(before[:said]) if word not in _SAYING_AUX), "")
    return subject not in ("", "i", "me", "we")


def _wills_an_act(sentence: Sentence) -> bool:
    """Whether the patient wills an act of their own in the sentence ("I want to die", "I've
    decided to kill myself after my exams"), which a qualifier beside it does not make a topic.
    A wish to be dead is a will whole; other acts need an intent, plan, wish or purpose just
    before them (before the topic word "suicide", a "want" means the word)."""
    if not FIRST_PERSON.intersection(sentence.words):
        return False
    wills = [m for m in sentence.mentions if m.concept in _WILLS]
    # "I won't be here next week, I'm on holiday": words of absence, which a trip explains.
    absence = {(m.start, m.end) for m in sentence.mentions if m.concept == "self_kill_weak"}
    for act in sentence.mentions:
        pronoun = act.concept == "act_pronoun"  # "thinking about doing it that way"
        if (act.concept not in _OWN_ACTS and not pronoun) or (
                act.concept == "self_kill" and _topic_word(sentence, act)) or \
                (act.start, act.end) in absence:
            continue
        if _reported(sentence, act) or about_someone_else(sentence, act) or \
                _quoted(sentence, act):
            continue  # "my partner keeps saying 'I'm gonna jump off the library'"
        # "stealing morphine to kill myself", "saving them to take all at once": an act
        # named as the purpose of another.
        at = act.start - sentence.offset
        purpose = "to" in sentence.words[max(0, at - 2):at]
        if pronoun:
            # "it" is an act the patient thinks of or wishes for, not one they are "going to
            # do" on Friday (shaving their head for a fundraiser).
            if any(will.concept in ("thought", "desire") and 0 <= act.start - will.end <= 2
                   for will in wills):
                return True
            continue
        if act.concept == "death_wish" or purpose or any(
                0 <= act.start - will.end <= _WILL_REACH
                # "want to kill me" holds its wish; "suicidal thoughts" holds no will
                or (will.concept != "thought" and _holds(act, will.start, will.end))
                for will in wills):
            return True
    return False


# Acts the patient tells as done: a course, a show or a game beside them says when, not what
# ("I took 30 pills after the game"). The "I" that does them comes just before, with only
# these words between ("I've been cutting", "I keep cutting", "I just took").
_DONE_ACTS = frozenset({"self_harm_act", "self_harm_cue", "past_act"})
_BETWEEN_DOER_AND_ACT = frozenset({"have", "had", "has", "been", "keep", "kept", "again",
                                   "also", "then", "finally", "did", "do", "am", "was"})


# Taking a medicine is what a mundane purpose explains ("I took all my tablets as directed").
_TAKING_WORDS = frozenset({"take", "takes", "took", "taken", "taking"})


def _does_an_act(sentence: Sentence, taking: bool = True) -> bool:
    """Whether the patient tells a self-harm act or an attempt as their own doing in the
    sentence ("I overdosed on my paracetamol after the lecture", "I keep cutting my thighs"),
    which a study qualifier or a trip beside it does not make a topic or ordinary. Not an act
    named as a topic ("my thesis on suicide attempts") or seen ("I'm a paramedic and I see
    overdoses"); with ``taking`` false, not a medicine taken ("I took all my tablets")."""
    words = sentence.words
    for m in sentence.mentions:
        if m.concept not in _DONE_ACTS or (
                not taking and words[m.start - sentence.offset] in _TAKING_WORDS):
            continue
        at = m.start - sentence.offset
        doer = at - 1
        while doer >= 0 and words[doer] in _BETWEEN_DOER_AND_ACT:
            doer -= 1
        if doer >= 0 and words[doer] == "i":
            return True
    return False


# Words that say an overdose or a crash was not meant ("by accident", "by mistake").
_ACCIDENTAL = frozenset({"accident", "accidentally", "mistake"})
# What an accident stated in the same sentence takes back (not a self-harm act: "I cut myself
# by accident" is judged by the self-harm rule's own context).
_ACCIDENT_UNDOES = frozenset({"past_act", "self_kill", "method"})
# "he posted 'I won't be here Monday'": what someone else said, in their words.
_REPORTING = frozenset({"said", "says", "say", "saying", "posted", "posts", "wrote", "writes",
                        "texted", "texts", "messaged", "tweeted", "told", "tells", "put"})
_REPORTERS = _THIRD_PERSON_SUBJECTS


def _by_accident_or_mistake(sentence: Sentence) -> bool:
    """Whether a sentence says what it tells was not meant ("took too many by mistake"): it
    takes back an attempt, a method or killing oneself (``_ACCIDENT_UNDOES``)."""
    # "it wasn't an accident" (`self_harm_deliberate`) says the opposite.
    deliberate = [(m.start, m.end) for m in sentence.mentions
                  if m.concept == "self_harm_deliberate"]
    return any(m.concept == "accident" and _ACCIDENTAL.intersection(
                   sentence.words[m.start - sentence.offset:m.end - sentence.offset])
               and not _denied(sentence, m)
               and not any(start <= m.start and m.end <= end for start, end in deliberate)
               for m in sentence.mentions)


def told_as_an_accident(sentence: Sentence) -> bool:
    """Whether a sentence tells its injury as an accident, its setting enough to say so: it
    takes back a self-harm act. "burned my hand on the kettle" is one; "… on the stove on
    purpose" and "I was cooking and I decided to burn my arm" are not."""
    people = [m for m in sentence.mentions if m.concept == "others"]
    # "where nobody at work can see": the people at work, not an accident's setting.
    setting = any(m.concept == "accident" and not any(
        p.start <= m.start and m.end <= p.end for p in people) for m in sentence.mentions)
    return setting and not (
        has(sentence, "self_harm_deliberate") or has(sentence, "commitment"))


# What ends a report: the patient's own clause after it ("He said I was useless, so I
# swallowed …").
_REPORT_ENDS = frozenset({"so", "then", "but"})


def _reported(sentence: Sentence, mention: Mention) -> bool:
    """Whether the mention is inside what a third person said, posted or wrote."""
    before = sentence.words[:mention.start - sentence.offset]
    if not _REPORTING.intersection(before):
        return False  # most mentions follow no word of saying
    others_end = {m.end - sentence.offset for m in sentence.mentions if m.concept == "others"}
    # "My brother's been giving his stuff away and saying things like …": the subject says it.
    other_subject = bool(before) and (before[0] in _REPORTERS or any(
        m.concept == "others" and m.start == sentence.offset for m in sentence.mentions))
    return any(word in _REPORTING and index > 0 and (
        before[index - 1] in _REPORTERS or index in others_end
        or (before[index - 1] == "and" and other_subject and "i" not in before[:index]))
               and not any(before[j] in _REPORT_ENDS and before[j + 1] == "i"
                           for j in range(index + 1, len(before) - 1))
               for index, word in enumerate(before))


_AFFIRMATIONS = frozenset({"yes", "yeah", "yep", "yup", "truth"})


def tells_of_someone_else(sentence: Sentence) -> bool:
    """A sentence whose subject is someone else (he, she, my son …) and that says nothing of
    the patient's own ("I", "myself", "me"), but for asking how to help them ("my teammate
    keeps talking about jumping in front of a train, should i tell coach")."""
    helping = {at for m in sentence.mentions if m.concept == "help_for_other"
               for at in range(m.start - sentence.offset, m.end - sentence.offset)}
    words = {word for at, word in enumerate(sentence.words) if at not in helping} if helping \
        else set(sentence.words)
    return (bool(_THIRD_PERSON & words) or has(sentence, "others")) and \
        not {"i", "myself", "me"} & words


def _question_denied(sentences: list[Sentence]) -> bool:
    """A question repeated ("you asked if I want to hurt myself", "everyone keeps asking if
    I'm suicidal") and answered no in the turn, with no yes anywhere in it."""
    if not any(has(s, "question_echo") for s in sentences):
        return False  # most turns: no question repeated
    return not any(_AFFIRMATIONS.intersection(s.words) for s in sentences) and \
        any(has(s, "negation") for s in sentences)


def asserted_concepts(sentences: list[Sentence]) -> list[list[Mention]]:
    """Per sentence, the concept mentions asserted as the patient's own, present experience."""
    resolved = turn_is_resolved(sentences)
    echoed = _question_denied(sentences)
    for_other = any(has(s, "help_for_other") for s in sentences)
    result: list[list[Mention]] = []
    for index, sentence in enumerate(sentences):
        # "my thesis on suicide" is study; "I will kill myself after my exams" is not.
        # "my thesis on suicide", "life insurance now the baby is here": a reason that is not a
        # disclosure; "I will kill myself after my exams" is one.
        idioms = [(m.start, m.end) for m in sentence.mentions if m.concept == "idiom"]
        # Not when the patient wills an act of their own in it: "The movie made me realize I
        # want to die", "I take sertraline for my anxiety and I've been saving it up to
        # overdose", "I'm on holiday next week and I plan to jump off the cliffs".
        academic = any(m.concept == "academic" and not any(  # not "showing up"
            start <= m.start and m.end <= end for start, end in idioms)
            for m in sentence.mentions)
        mundane = any(m.concept == "mundane" and not _denied(sentence, m)
                      and not _someone_elses(sentence, m) for m in sentence.mentions)
        # An act the patient tells as done is theirs beside a study word or a trip (but a
        # medicine taken is what a mundane purpose explains).
        studying = ((academic and not _does_an_act(sentence))
                    or (mundane and not _does_an_act(sentence, taking=False))) \
            and not _wills_an_act(sentence)
        if resolved or studying:
            result.append([])
            continue
        historical = _historical(sentence) and not has(sentence, "recent")
        accidental = _by_accident_or_mistake(sentence)
        # "I'm hanging in there", "killing time": words inside an idiom mean something else.
        kept = [
            m for m in sentence.mentions
            if m.concept not in MODIFIER_CONCEPTS
            and not historical
            # A longer phrase holding the idiom is meant ("thinking to kill me").
            and not any(m.start < end and start < m.end and not _holds(m, start, end)
                        for start, end in idioms)
            and (m.concept == "time" or not _negated(sentence, m))  # "not better by Friday"
            and not hypothetical(sentence, m)
            and not (accidental and m.concept in _ACCIDENT_UNDOES)  # "overdosed by accident"
            and (m.concept in _OWNERLESS or (
                not _reported(sentence, m)
                and (_speaker_inside(sentence, m) or not about_someone_else(sentence, m))))
        ]
        if (index + 1 < len(sentences) and _only_denies(sentences[index + 1].words)) or \
                _denied_item(sentence.words):
            kept = []  # "But wanting to die? No.", "Wanting to be dead, no."
        if echoed and has(sentence, "question_echo"):
            kept = []  # "The form asked if I've wanted to die and I ticked no."
        if for_other and tells_of_someone_else(sentence):
            # "My son keeps saying he wants to die, and I found pills hidden in his room.
            # What should I do?": someone else's risk, asked about.
            kept = []
        if _hyperbole(sentences, index):
            # "… I'll throw myself off a bridge, ha", "kms lol this meme", "if I hear one more
            # ad I'll shoot myself": a hyperbole.
            kept = [m for m in kept if m.concept not in _HYPERBOLE]
        result.append(kept)
    return result


_DENIALS = frozenset({"no", "nope", "never", "not", "nah"})
# Laughter closing a sentence, or a next sentence that takes it back as a joke.
_LAUGHTER = frozenset({"ha", "haha", "hahaha", "hehe", "jk"})
_TAKEN_BACK = frozenset({"kidding", "joking", "jk"})
# What a joke takes back: the act and its method, not a wish to be dead ("i want to die lol").
_HYPERBOLE = frozenset({"self_kill", "method", "method_weak", "act_pronoun", "intent"})


def _joking(sentences: list[Sentence], index: int) -> bool:
    words = sentences[index].words
    following = sentences[index + 1].words[:2] if index + 1 < len(sentences) else []
    # "…, joking obviously" at the sentence's end; not "I'm not joking".
    ending = len(words) - 3
    return bool(_LAUGHTER.intersection(words[-2:]) or _LAUGHTER.intersection(words[:2])
                or _TAKEN_BACK.intersection(following)
                or any(word in _TAKEN_BACK and words[at - 1] not in _DENIALS
                       for at, word in enumerate(words[max(1, ending):], max(1, ending))))


# A word without which no sentence of a turn is denied, laughed off or taken back.
_CAN_DENY = _DENIALS | _LAUGHTER | _TAKEN_BACK | frozenset({"none"})
# What a denial may add to its "no": "No, not at all.", "None, not now and not ever."
_DENIAL_WORDS = _DENIALS | frozenset({"none", "at", "all", "really", "ever", "now", "and",
                                      "absolutely", "definitely", "honestly"})


def _hyperbole(sentences: list[Sentence], index: int) -> bool:
    """A sentence said as a joke or in exasperation ("if I hear one more ad …")."""
    return _joking(sentences, index) or has(sentences[index], "exasperation")


def _only_denies(words: list[str]) -> bool:
    """A sentence that only says no ("No.", "Nope, never.", "No, not at all."), answering the
    one before."""
    return 0 < len(words) <= 6 and words[0] in _DENIALS | {"none"} and \
        _DENIAL_WORDS.issuperset(words)


def _denied_item(words: list[str]) -> bool:
    """A topic answered no in its own short sentence, as a checklist is: "Self-harm, no.",
    "A plan, no." (not the patient's own words: no "I")."""
    return 1 < len(words) <= 5 and words[-1] in ("no", "never", "nope", "none") and \
        "i" not in words


def without_denied(text: str, sentences: list[Sentence] | None = None) -> str:
    """The turn without the sentences its next sentence answers "no" to ("Wanting to die?
    No.") or that are said as a joke, for readers that do not see sentences. ``sentences``,
    the turn as ``read_turn`` read it, spares reading it again when nothing in it jokes or
    denies."""
    if sentences is not None and not _CAN_DENY.intersection(
            word for sentence in sentences for word in sentence.words):
        return text  # most turns: no word that answers no, laughs or takes back
    parts = list(SENTENCE_RE.finditer(text))
    if len(parts) == 1 and sentences is not None and len(sentences) == 1:
        said = [sentences[0].words]  # one sentence, already read
    else:
        said = [tokenize(part.group()) for part in parts]
    denied = [index for index in range(len(parts) - 1) if _only_denies(said[index + 1])]
    denied += [index for index, words in enumerate(said) if _denied_item(words)]
    # "… I'll throw myself off the roof, haha.": a joke, not read as a disclosure either.
    joking = sentences is None or any(_joking(sentences, i) for i in range(len(sentences)))
    denied += [index for index, words in enumerate(said if joking else []) if words and (
        _LAUGHTER.intersection(words[-2:]) or _LAUGHTER.intersection(words[:2])
        or (index + 1 < len(said) and _TAKEN_BACK.intersection(said[index + 1][:2])))]
    denied = sorted(set(denied))
    for index in reversed(denied):
        text = text[:parts[index].start()] + text[parts[index].end():]
    return text
