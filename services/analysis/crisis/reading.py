"""Reading a patient turn into concept mentions: sentences of normalised, stemmed tokens and
the lexicon phrases (``lexicon.json``) found in them.

Text-speak, contractions and Scots forms are expanded ("kms", "im", "aren't", "gonnae",
"ah'm"), filler words dropped ("if I *just* wasn't"), words stemmed ("overdosing",
"overdosed"), dropped g's restored ("endin") and unknown long words corrected to a lexicon
word one edit away ("sucide", "kiling"). Whether a mention is asserted, and what it adds up
to, is ``concepts``' business.
"""

from __future__ import annotations

import datetime
import functools
import json
import re
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

LEXICON_PATH = Path(__file__).with_name("lexicon.json")
# A number of tablets at least this large is an overdose's count, not a dose.
MIN_MANY = 10
# The tens in words: counts, ages and spans ("thirty oxys", "I'm seventy now").
TENS = frozenset({"twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"})
# Counts written as words read as their digits do: "thirty oxys" as "30 oxys".
_MANY_WORDS = TENS | frozenset({
    "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
    "eighteen", "nineteen", "hundred", "hundreds"})
_UNITS = frozenset({"one", "two", "three", "four", "five", "six", "seven", "eight", "nine"})


# "a load of pills", "loads of them": an amount, read as "a handful"; not the verb ("loaded
# the gun").
_LOAD_WORDS = frozenset({"load", "loads"})


# What an ordinal may number that is no day of the month: "the 14th floor".
_NOT_A_DAY = frozenset({"floor", "floors", "storey", "story", "level", "row", "place", "century",
                        "street", "avenue", "grade", "year", "time", "attempt", "deck"})
# Means that are no medicine: no count or strength of them is an overdose's (firearms,
# ligatures, blades, places, ammunition and gases).
NOT_MEDICINES = frozenset({
    "gun", "guns", "firearm", "firearms", "pistol", "rifle", "shotgun", "handgun", "revolver",
    "glock", "ammo", "ammunition", "bullets", "calibre", "caliber", "rope", "belt", "cord",
    "noose", "ligature", "strap", "knife", "knives", "razor", "razors", "blade", "blades",
    "scalpel", "keys", "garage", "safe", "helium", "charcoal"})
# Words for tablets in general, no medicine's name: "tablets, 40 of them" is a count.
_TABLETS_IN_GENERAL = frozenset({
    "pill", "pills", "tablets", "tabs", "capsules", "medication", "medications", "medicine",
    "meds", "prescription", "prescriptions", "script", "painkiller", "painkillers", "dose",
    "doses", "patches"})
# A dose measured, not a count of tablets: "100 mg", "12 units of insulin".
DOSE_UNITS = frozenset({"mg", "mgs", "milligram", "milligrams", "mcg", "microgram",
                        "micrograms", "ml", "mls", "g", "unit", "units", "iu"})


def _a_strength(pairs: list[tuple[str, str]], index: int) -> bool:
    """A number told as a medicine's strength: a dose unit after it, or a medicine's name
    right before it ("Zoloft 100", "sertraline 50mg")."""
    following = pairs[index + 1][0] if index + 1 < len(pairs) else ""
    before = pairs[index - 1][0] if index > 0 else ""
    return following in DOSE_UNITS or before in _MEDICINE_NAMES


# Beside "dye", what makes it the colouring: "dye my hair", "hair dye", "the dye".
_DYED = frozenset({"my", "her", "his", "their", "your", "our", "the", "it", "them", "hair",
                   "a", "of", "some", "this", "that", "clothes", "jeans", "box"})
# Words that make a count approximate ("about 30", "nearly forty"), dropped before one.
_APPROXIMATE = frozenset({"about", "around", "roughly", "nearly", "almost", "approximately",
                          "maybe", "some", "over"})


def _amount_stems(words: list[str], stems: list[str]) -> list[str]:
    """Stems with amounts read as one: a count in words of ten or more as "dozen", as digits
    are ("thirty oxys", "when I was nineteen"), but not the tens of a compound ("thirty-eight",
    "sixty-eight"), which names a calibre or an age as written; "a load of" as "a handful of"."""
    amounts: list[str] = []
    for index, (word, stem) in enumerate(zip(words, stems, strict=True)):
        following = words[index + 1] if index + 1 < len(words) else ""
        if word in _MANY_WORDS and following not in _UNITS:
            stem = "dozen"
        elif word in _LOAD_WORDS and following == "of":
            stem = "handful"
        amounts.append(stem)
    return amounts


# Unknown words at least this long are corrected to a lexicon word one edit away.
MIN_FUZZY_LENGTH = 6
# A token longer than this is no word of any lexicon and is read as its first MAX_WORD_CHARS
# characters. Unbounded, one 200,000-character token cost the spelling corrector the square
# of its length (every deletion of it), and the per-token caches could hold such tokens.
MAX_WORD_CHARS = 45
_TOKEN_RE = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")
# A full stop before a digit ends no sentence: "2.5 mg", "the .45".
SENTENCE_RE = re.compile(r"(?:[^.!?;:\n]|\.(?=\d))[^.!?;:\n]*(?:\.(?=\d)[^.!?;:\n]*)*")
# A run-on longer than this many words is read in pieces. Speech-to-text often writes no
# punctuation, and reading a sentence costs more than linearly in its length: one unpunctuated
# turn of 20,000 characters took minutes. Longer than any sentence of the statements and sessions
# the detector is measured on (at most 73 words), so none of them is cut.
MAX_SENTENCE_WORDS = 80
# Where a run-on is cut when one is near the limit: before a conjunction, or after a comma.
_CUT_BEFORE = frozenset({"and", "but", "so", "because", "cause", "cuz", "then", "or"})
# A day of the month: "the 14th", "the 1st".
_ORDINAL_RE = re.compile(r"(?:[1-9]|[12][0-9]|3[01])(?:st|nd|rd|th)")
# A calibre written with its point ("the .45", "a .38") names a firearm.
_CALIBRE_RE = re.compile(r"(?<![\w.])\.(22|25|32|38|357|380|40|44|45)\b")


@functools.lru_cache(maxsize=20_000)
def _stem(word: str) -> str:
    """A light suffix stripper, applied alike to lexicon and text ("pills" → "pill")."""
    word = word.replace("'", "")
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word in _SAME_THING:
        return _SAME_THING[word]
    for suffix in ("ing", "ed", "es", "s", "e"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            if suffix in ("ing", "ed") and len(word) > 3 and word[-1] == word[-2] \
                    and word[-1] not in "lsz":
                word = word[:-1]
            break
    return word


def stem(word: str) -> str:
    """The stem a word is matched by (``_stem``), for rules that compare stems."""
    return _stem(word)


# Words for one thing, matched as one: a lexicon entry with "pills" covers "tablets".
_SAME_THING = {"tablet": "pill", "tablets": "pill", "capsule": "pill", "capsules": "pill"}
# A weekday in the plural is a habit ("on Sundays"), not the day: it keeps its own stem.
_HABIT_DAYS = {f"{day}days": f"{day}days" for day in ("mon", "tues", "wednes", "thurs", "fri",
                                                       "satur", "sun")}
_IRREGULAR = {**_HABIT_DAYS,
              # "plane" is no "plan": "if the plane went down"
              "plane": "plane", "planes": "plane",
              "dying": "die", "died": "die", "dies": "die", "dead": "dead", "lying": "lie",
              # "scared" is no scar: "I'm scared he's planning something"
              "scared": "scare", "scare": "scare", "scares": "scare", "scaring": "scare",
              "took": "take", "taken": "take", "gave": "give", "given": "give", "thought": "think",
              "bought": "buy", "kept": "keep", "wrote": "write", "written": "write", "hung": "hang",
              "has": "have", "had": "have", "is": "be", "was": "was", "were": "was", "am": "be",
              "are": "be", "been": "be", "being": "be", "cuts": "cut", "cutting": "cut",
              "goodbyes": "goodbye", "this": "this", "its": "its", "lives": "life",
              "living": "live", "note": "note", "notes": "note", "noted": "note",
              "finals": "finals", "training": "training", "trained": "trained",
              "exhausted": "exhausted", "exhausting": "exhausted", "care": "care",
              "cares": "care", "cared": "care"}


def _load() -> dict:
    return json.loads(LEXICON_PATH.read_text(encoding="utf-8"))


_LEXICON = _load()
# Named medicines: the means lexicon's one-word entries that are medicines' names.
_MEDICINE_NAMES = frozenset(
    entry for entry in _LEXICON["concepts"]["means"]
    if " " not in entry and entry not in NOT_MEDICINES | _TABLETS_IN_GENERAL)
_TEXT_SPEAK: dict[str, tuple[str, ...]] = {
    key: tuple(value.split()) for key, value in _LEXICON["text_speak"].items()
}
_FILLERS = frozenset(_LEXICON["fillers"])


def counts_many(token: str) -> bool:
    """Whether a token of ASCII digits counts MIN_MANY or more. A number past a few digits is
    many without converting it (Python refuses to convert one of more than 4,300 digits)."""
    digits = token.lstrip("0")
    return token.isdigit() and (len(digits) > 3 or (digits != "" and int(digits) >= MIN_MANY))


def _phrase_stems(phrase: str) -> tuple[str, ...]:
    words: list[str] = []
    for token in _TOKEN_RE.findall(phrase.lower()):
        # A number reads as the text's does ("12 gauge", "38 special", "ar 15").
        many = counts_many(token)
        words.extend(("dozen",) if many else _TEXT_SPEAK.get(token, (token,)))
    words = [word for word in words if word not in _FILLERS]
    return tuple(_amount_stems(words, [_stem(word) for word in words]))


_CONCEPTS: dict[str, tuple[tuple[str, ...], ...]] = {
    name: tuple(stems for stems in (_phrase_stems(p) for p in phrases) if stems)
    for name, phrases in _LEXICON["concepts"].items()
}
# A concept whose phrases are also another's: everyday preparations ("paid off my card",
# "picked a date") are preparations to every rule, and ordinary talk to the trained readers'
# doubt (``preparation_everyday`` in the package's ``_reads_as_ordinary``).
_ALSO: dict[str, str] = {"preparation_everyday": "preparation"}


class _Node:
    """A trie node over phrase stems: the concepts of the phrase ending here, and what follows."""

    __slots__ = ("concepts", "next")

    def __init__(self) -> None:
        self.concepts: list[str] = []
        self.next: dict[str, _Node] = {}


# Matching walks the trie from each token and stops at the first stem no phrase continues
# with: one dict lookup for most tokens, however many phrases the lexicons hold.
_TRIE: dict[str, _Node] = {}
for _name, _phrases in _CONCEPTS.items():
    for _stems in _phrases:
        _node = _TRIE.setdefault(_stems[0], _Node())
        for _stem_ in _stems[1:]:
            _node = _node.next.setdefault(_stem_, _Node())
        for _concept in (_name, *([_ALSO[_name]] if _name in _ALSO else [])):
            if _concept not in _node.concepts:
                _node.concepts.append(_concept)
_VOCABULARY = frozenset(stem for phrases in _CONCEPTS.values() for p in phrases for stem in p)
# Misspellings are corrected towards the words of what is disclosed, not of the modifiers
# around it: "shower" must not become the "showed" of "the research showed".
_UNCORRECTED_CONCEPTS = frozenset({"academic", "others", "mundane", "idiom", "historical",
                                   "accident", "hypothetical", "workplace", "at_hand_now"})
_LONG_WORDS = frozenset(
    word for name, phrases in _LEXICON["concepts"].items() if name not in _UNCORRECTED_CONCEPTS
    for phrase in phrases
    for word in _TOKEN_RE.findall(phrase.lower()) if len(word) >= MIN_FUZZY_LENGTH
)


def _deletes(word: str) -> tuple[str, ...]:
    """The word, then the word less one letter, left to right: a fixed order, so the first
    correction found is the same in every process (a set's order changes with the hash seed)."""
    return tuple(dict.fromkeys([word, *(word[:i] + word[i + 1:] for i in range(len(word)))]))


_FUZZY: dict[str, str] = {}
for _word in sorted(_LONG_WORDS):
    for _variant in _deletes(_word):
        _FUZZY.setdefault(_variant, _word)


# Ordinary words one edit away from a lexicon word ("though" / "thought").
_COMMON = frozenset({"though", "through", "should", "would", "could", "people", "little",
                     "things", "thinks", "lovely", "killer", "pretty", "planet", "plants",
                     "bridges", "tablet", "dying", "trains", "noises", "notice", "nights",
                     "blacked", "hearing", "forearm", "forearms", "paying", "strange",
                     "stranger", "strangers", "calving", "calves", "halving", "carked",
                     "cheaper", "manager", "managers", "buried", "burying"}
                    ) | frozenset(_HABIT_DAYS)  # "sundays" is no misspelt "sunday"


# Words of English that are one edit from a lexicon word ("prison" / "poison", "craving" /
# "carving", "havent" is not one): never corrected. Written by scripts/build_real_words.py
# from the SCOWL word lists (Debian's wamerican and wbritish).
REAL_WORDS_PATH = Path(__file__).with_name("real_words.txt")
_REAL_WORDS = frozenset(
    line for line in REAL_WORDS_PATH.read_text(encoding="utf-8").splitlines()
    if line and not line.startswith("#"))


@functools.lru_cache(maxsize=20_000)
def _correct(word: str) -> str:
    """A lexicon word one edit away from an unknown long word ("sucide" → "suicide"); a word
    of English is no misspelling."""
    return word if word in _REAL_WORDS else corrected(word)


def corrected(word: str) -> str:
    """``_correct`` without the words of English: what the lexicons alone would read."""
    if word.endswith("in") and len(word) >= 4 and _stem(word + "g") in _VOCABULARY:
        return word + "g"  # a dropped g: "endin", "cuttin"
    if len(word) < MIN_FUZZY_LENGTH or word in _COMMON or _stem(word) in _VOCABULARY:
        return word
    for variant in _deletes(word):
        match = _FUZZY.get(variant)
        if match is not None and match[0] == word[0] and abs(len(match) - len(word)) <= 1:
            return match
    return word


@dataclass(frozen=True)
class Mention:
    concept: str
    start: int  # token index
    end: int
    sentence: int


@dataclass
class Sentence:
    words: list[str]  # normalised words (no stemming), for quotes and neighbours
    stems: list[str]
    offset: int  # index of its first token in the turn
    mentions: list[Mention]


_CONTRACTIONS = {"'ll": "will", "'re": "are", "'ve": "have", "'d": "would", "'m": "am"}


def _contraction(token: str) -> tuple[str, ...]:
    """"you'll" → "you will", "we've" → "we have"; any other token as it is."""
    head, apostrophe, tail = token.rpartition("'")
    expanded = _CONTRACTIONS.get(apostrophe + tail) if head else None
    return (head, expanded) if expanded else (token,)


@functools.lru_cache(maxsize=50_000)
def _normal(token: str) -> tuple[tuple[str, str], ...]:
    """A token's normalised words with their stems, worked out once per distinct token. A count
    of ten or more stems to "dozen", so "took 20 pills" reads as "took dozens of pills" (counts
    in words: ``_amount_stems``)."""
    if counts_many(token):
        return ((token, "dozen"),)
    if _ORDINAL_RE.fullmatch(token):
        return ((token, "nth"),)  # "on the 14th": a day of the month, "on the nth"
    words = _TEXT_SPEAK.get(token)
    if words is None:
        # Any other contraction: "aren't" → "are not", "mustn't" → "must not".
        words = (token[:-3], "not") if token.endswith("n't") and len(token) > 3 else \
            _contraction(token)
    return tuple((word, _stem(word)) for word in (
        _correct(w) for w in words if w not in _FILLERS))


# After these an "'s" is "is", not a possessive: "Friday's the day", "that's when", "it's
# not worth it", "tonight's my last night"; a possessive is followed by what is owned
# ("Friday's match").
_AFTER_IS = frozenset({"the", "a", "an", "not", "going", "gonna", "been", "all", "over", "done",
                       "when", "too", "so", "no", "gone", "coming", "happening", "it", "how",
                       "what", "why", "where", "just", "never", "my", "your", "his", "her",
                       "our", "their"})


def _is_expanded(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for index, (word, stem) in enumerate(pairs):
        following = pairs[index + 1][0] if index + 1 < len(pairs) else ""
        if word.endswith("'s") and len(word) > 2 and following in _AFTER_IS:
            head = word[:-2]
            out += [(head, _stem(head)), ("is", _stem("is"))]
        else:
            out.append((word, stem))
    return out


# "I've just taken", "i just swallowed": an act of taking told as minutes old.
_JUST_DONE_RE = re.compile(
    r"\b(i've|i have|ive|i)\s+just\s+(?=(?:took|taken|swallowed|drank|drunk|downed|injected|"
    r"overdosed|od'd)\b)")
_YOU_KNOW_RE = re.compile(r"(?:^|,)\s*you\s+know\s*(?:,|$)")


def _normalise(text: str) -> list[tuple[str, str]]:
    text = text.lower().replace("\u2019", "'")
    if "you know" in text:
        # ", you know," is a filler of speech: "not thinking about, you know, ending things".
        text = _YOU_KNOW_RE.sub(",", text)
    if "just" in text:
        # "I've just swallowed the whole packet": this "just" (else dropped as a filler) tells
        # the act is minutes old, and reads as "now".
        text = _JUST_DONE_RE.sub(r"\1 now ", text)
    if "w/o" in text:  # one token of text-speak that the tokenizer would split
        text = text.replace("w/o", "without")
    if "." in text:
        text = _CALIBRE_RE.sub(r"\1 calibre", text)
    pairs = [pair for token in _TOKEN_RE.findall(text)
             for pair in _normal(token[:MAX_WORD_CHARS])]
    if "'s" in text:
        pairs = _is_expanded(pairs)
    words = [word for word, _ in pairs]
    if "load" in text or _MANY_WORDS.intersection(words):
        pairs = list(zip(words, _amount_stems(words, [stem for _, stem in pairs]), strict=True))
    if "nth" in (stem for _, stem in pairs):
        # "on the 14th floor", "the 3rd level": a place, not a day of the month
        pairs = [(word, word) if stem == "nth" and index + 1 < len(pairs)
                 and pairs[index + 1][0] in _NOT_A_DAY else (word, stem)
                 for index, (word, stem) in enumerate(pairs)]
    if "dozen" in (stem for _, stem in pairs):
        # "my Zoloft 100", "quetiapine 300 mg": a tablet's strength, not a count of tablets.
        pairs = [(word, word) if stem == "dozen" and word[:1].isdigit() and _a_strength(
                     pairs, index) else (word, stem) for index, (word, stem) in enumerate(pairs)]
    if "dye" in words:
        # "i want to dye" is "die" misspelt; "dye my hair", "hair dye", "a dye" are dye.
        pairs = [("die", _stem("die")) if word == "dye" and not _DYED.intersection(
                     [w for w, _ in pairs[index - 1:index] + pairs[index + 1:index + 2]])
                 else (word, stem) for index, (word, stem) in enumerate(pairs)]
    if "odd" in words:
        # "forty odd years ago", "twenty-odd": a count said roughly, not "odd".
        pairs = [pair for index, pair in enumerate(pairs)
                 if pair[0] != "odd" or index == 0
                 or not (pairs[index - 1][0] in _MANY_WORDS | _UNITS
                         or pairs[index - 1][0].isdigit())]
    if _APPROXIMATE.intersection(words):
        # "took about 30 paracetamol" reads as "took 30 paracetamol": a count said roughly.
        pairs = [pair for index, pair in enumerate(pairs)
                 if pair[0] not in _APPROXIMATE or index + 1 == len(pairs)
                 or pairs[index + 1][1] != "dozen"]
    if "no" in words:
        # Scots "Ah'm no wantin tae be here": "am no" before a verb in -ing/-in' is "am not".
        pairs = [("not", _stem("not")) if word == "no" and 0 < index < len(pairs) - 1
                 and pairs[index - 1][0] == "am" and pairs[index + 1][0].endswith(("ing", "in"))
                 else (word, stem) for index, (word, stem) in enumerate(pairs)]
    if "and" in words:
        # "I want to go and be with her" is "I want to be with her": "go and" before a verb
        # after "to" adds only the going.
        pairs = [pair for index, pair in enumerate(pairs)
                 if not (pair[0] in ("go", "and") and _goes_and(pairs, index))]
    # A word said twice is said once: speech repeats itself ("I, I think", "my, uh, my head").
    return [pair for index, pair in enumerate(pairs)
            if index == 0 or pair[0] != pairs[index - 1][0]]


def _goes_and(pairs: list[tuple[str, str]], index: int) -> bool:
    """Whether the word at ``index`` is the "go" or "and" of "to go and <verb>"."""
    start = index if pairs[index][0] == "go" else index - 1
    return 1 <= start and start + 2 < len(pairs) and pairs[start - 1][0] == "to" and \
        pairs[start][0] == "go" and pairs[start + 1][0] == "and"


def tokenize(text: str) -> list[str]:
    """Normalised words: lower case, text-speak and contractions expanded, fillers dropped."""
    return [word for word, _stem_ in _normalise(text)]


def _match(stems: list[str], offset: int, sentence: int) -> list[Mention]:
    """Every concept phrase in a sentence; a concept may overlap another concept. At each token
    a concept keeps its longest phrase."""
    found: list[Mention] = []
    count = len(stems)
    for i, stem in enumerate(stems):
        node = _TRIE.get(stem)
        if node is None:
            continue
        ends: list[tuple[int, list[str]]] = []
        j = i + 1
        while True:
            if node.concepts:
                ends.append((j, node.concepts))
            if j == count:
                break
            node = node.next.get(stems[j])
            if node is None:
                break
            j += 1
        seen: set[str] = set()
        for end, concepts in reversed(ends):
            for concept in concepts:
                if concept not in seen:
                    seen.add(concept)
                    found.append(Mention(concept, offset + i, offset + end, sentence))
    return found


# "in 1995", "like 2012": a year at least this many years back dates what is told with it.
PAST_YEARS = 2
_YEAR_MARKERS = frozenset({"in", "like", "around", "circa", "back", "of", "during"})


def _past_years(words: list[str], offset: int, sentence: int) -> list[Mention]:
    if not any(len(word) == 4 and word.isdigit() for word in words):
        return []  # most sentences name no year
    latest = datetime.date.today().year - PAST_YEARS
    return [Mention("historical", offset + i, offset + i + 1, sentence)
            for i, word in enumerate(words)
            if i > 0 and len(word) == 4 and word.isdigit() and 1900 <= int(word) <= latest
            and words[i - 1] in _YEAR_MARKERS]


# A phrase whose last word or two, with the word or two after them, say something else:
# "I won't be around the office tomorrow", "not sticking around the party" are about a place;
# "saves me trips", "saving money" are no medicine saved up; "in case my trousers are loose",
# "in case of fire" name an everyday need, not "in case it gets too much"; "throw myself a
# party", "threw myself into work"; "high enough for the lorries", "would be enough for the
# whole trip" measure something else; "(just) waiting" for a person, a bus or a result is no
# commitment ("just waiting for it to be over" is). Keyed by the phrase's last words, valued
# by the words that may follow them.
_OTHERS_THINGS = frozenset({"the", "my", "your", "his", "her", "our", "their", "those", "these"})


def _one(words: frozenset[str] | set[str]) -> frozenset[tuple[str, ...]]:
    return frozenset((word,) for word in words)


# What an amount is enough for when it is no overdose: "enough to last the week".
_ENOUGH_FOR = frozenset({"get", "last", "cover", "feed", "pay", "buy", "fill", "share", "keep"})


_SENSE_AFTER: dict[tuple[str, ...], frozenset[tuple[str, ...]]] = {
    ("around",): _one(_OTHERS_THINGS),
    ("case",): _one(_OTHERS_THINGS | {"of", "you", "he", "she", "we", "they", "someone",
                                      "anyone", "somebody", "anybody"}),
    # "everyone's acting like I'm fine" (the "like" dropped as a filler) is no play acted.
    ("acting",): _one({"i", "we", "he", "she", "they", "you"}),
    # "the most painless way to get a tattoo"; "asked what the most painless way is" leaves
    # the act unsaid.
    ("way",): _one({"to", "of", "for", "into", "through", "around", "home", "there"}),
    **dict.fromkeys((("save",), ("saves",), ("saved",), ("saving",)),
                    _one({"me", "us", "you", "time", "money", "trips", "hassle"})),
    # "a rope in the shed that would do for the swing"
    ("would", "do"): _one({"for", "the", "nicely", "fine", "better", "as", "instead"}),
    **dict.fromkeys((("throw", "myself"), ("threw", "myself"), ("throwing", "myself")),
                    _one({"a", "an", "into", "at"})),
    **dict.fromkeys((("high", "enough"), ("strong", "enough")), _one({"to", "for"})),
    # "would be enough to get me through the trip", "enough to last the week"
    ("be", "enough"): _one({"for"}) | {("to", word) for word in _ENOUGH_FOR},
    ("enough", "to"): _one(_ENOUGH_FOR),
    # "stepping off the plane in Bali"
    ("off", "the"): _one({"plane", "boat", "ferry", "bus", "ship", "escalator", "stage",
                          "treadmill", "scales", "pitch", "court", "field", "coach"}),
    # "I don't care whether I'm here or not for the meeting"
    ("or", "not"): _one({"for", "at", "in", "on"}),
    # "tired of life in the city"
    ("of", "life"): _one({"in", "at", "on"}),
    # "so he can manage without me while I'm in hospital": an absence for a while
    ("without", "me"): _one({"while", "next", "this", "during", "until", "till", "on"}),
    # "whether to use it for the hammock"
    ("use", "it"): frozenset(("for", word) for word in ("the", "a", "an", "our", "work")),
    # "my second attempt at the driving test", "two attempts at the exam"
    **dict.fromkeys((("first", "attempt"), ("second", "attempt"), ("third", "attempt"),
                     ("last", "attempt"), ("two", "attempts"), ("three", "attempts"),
                     ("several", "attempts"), ("few", "attempts"), ("2", "attempts"),
                     ("3", "attempts")),
                    _one({"at", "to", "of", "on", "for"})),
    # "to see if it would hold the new water tank": a weight that is not the patient's.
    ("would", "hold"): _one(_OTHERS_THINGS | {"a", "an", "up", "together", "all", "both"}),
    # "I am not wanting to wake up so early for work", "disappointed I woke up so early": how,
    # not that, one wakes up.
    ("wake", "up"): _one({"so", "too", "early", "late", "before", "for"}),
    ("woke", "up"): _one({"so", "too", "early", "late", "before", "with", "feeling",
                          "this"}),
    # "I'm going to join her choir": someone's company, not the dead.
    **dict.fromkeys((("join", "her"), ("join", "him"), ("join", "them")),
                    _one({"for", "at", "on", "choir", "club", "team", "group", "class", "gym",
                          "band", "company", "firm", "business", "crew", "party", "trip",
                          "walk", "book", "yoga", "church", "shift", "table", "course"})),
    # "no point going on the cruise without her": going somewhere, not living on.
    **dict.fromkeys((("going", "on"), ("carrying", "on")),
                    _one(_OTHERS_THINGS | {"a", "an", "holiday", "about", "with", "at", "to",
                                           "in", "for", "trips", "dates"})),
    # "the when and the how of the wedding"
    **dict.fromkeys((("the", "how"), ("the", "when")), _one({"of", "for", "about", "behind"})),
    # "the engine running to warm it up"
    ("engine", "running"): _one({"for", "while"}) | frozenset(
        ("to", word) for word in ("warm", "heat", "defrost", "charge", "clear", "keep")),
    # "I think about hanging a lot": how often, not a picture hung.
    **dict.fromkeys((("hang", "a"), ("hanging", "a")), _one({"lot", "bit"})),
    # "I was trying to hang the washing out", "… to jump the queue"
    ("to", "hang"): _one(_OTHERS_THINGS | {"a", "an", "out", "up", "around", "about", "on",
                                           "some", "pictures", "curtains", "washing"}),
    ("to", "jump"): _one(_OTHERS_THINGS | {"a", "over", "in", "into", "on", "start", "queue",
                                           "ahead", "higher", "rope"}),
    # "ready to meet my maker one day, but not yet"
    ("my", "maker"): _one({"one", "someday", "eventually", "when", "in"}),
    # "I want to disappear into my bed for the weekend": somewhere, for a while.
    ("disappear",): _one({"into", "to", "under", "abroad", "on"}) | frozenset(
        ("for", word) for word in ("a", "an", "the", "some", "two", "three", "few")),
    # "I don't trust myself to drive in the snow": a skill doubted, not a fear of oneself.
    ("trust", "myself"): _one({"to"}),
    # "we had two overdoses come in": patients admitted, on a ward.
    **dict.fromkeys((("overdose",), ("overdoses",)),
                    _one({"come", "came", "coming", "comes", "admitted", "admissions"})),
    # "tired of fighting with the council": a dispute, not a life.
    ("of", "fighting"): _one({"with", "for", "about", "over", "against", "the", "my", "our",
                              "traffic"}),
    # "tired of everything being so expensive": a complaint about something.
    ("of", "everything"): _one({"being", "costing", "going", "taking"}),
    # "nothing will ever change my mind": a mind, not one's life.
    ("ever", "change"): _one({"my", "your", "his", "her", "their", "our"}),
    # "my dad uses it for the pigeons": someone else's everyday use.
    ("uses", "it"): _one({"for", "to", "at", "on", "when", "every"}),
    # "I'll take them all to the vet": carried somewhere, not swallowed.
    ("them", "all"): _one({"to", "out", "home", "back", "along", "inside", "outside",
                           "upstairs", "downstairs"}),
    # "to keep living with my parents": where or with whom, not whether, to live.
    **dict.fromkeys((("keep", "living"), ("on", "living")),
                    _one(_OTHERS_THINGS | {"in", "with", "at", "near", "abroad", "there",
                                           "here", "together", "alone", "on", "off", "a"})),
    # "stay asleep till noon on Saturday": a lie-in.
    ("stay", "asleep"): _one({"till", "until", "through", "past", "in", "longer"}),
    # "Friday's the day of the interview", "my last day at work": a day of something else.
    **dict.fromkeys((("the", "day"), ("the", "night"), ("last", "day")),
                    _one({"of", "for", "off", "out", "at", "in", "on", "shift", "trip"})),
    # "so nothing's a mess after the builders leave": after something, not after the patient.
    **dict.fromkeys((("out", "after"), ("mess", "after"), ("with", "after")),
                    _one(_OTHERS_THINGS | {"a", "an", "that", "this", "it", "we", "they", "he",
                                           "she", "you", "lunch", "dinner", "work", "school",
                                           "christmas", "everyone"})),
    ("waiting",): frozenset(("for", word) for word in (
        "him", "her", "them", "you", "us", "my", "his", "their", "your", "our", "the", "a",
        "an", "someone", "somebody")),
}


_SENSE_LAST_WORDS = frozenset(key[-1] for key in _SENSE_AFTER)


def _lasts_the_days(words: list[str], start: int, reach: int) -> bool:
    """Whether "to last", "to get", "to cover" … follows within ``reach`` words of ``start``."""
    return any(words[j] == "to" and words[j + 1] in _ENOUGH_FOR
               for j in range(start, min(start + reach, len(words) - 1)))


def _another_sense(words: list[str], offset: int, mention: Mention) -> bool:
    last = mention.end - offset
    # An amount for the days: "the pills to get me through", "enough insulin to last the trip".
    if (mention.concept == "means" and _lasts_the_days(words, last, 1)) or (
            words[last - 1] == "enough" and _lasts_the_days(words, last + 1, 3)):
        return True
    if last >= len(words) or words[last - 1] not in _SENSE_LAST_WORDS:
        return False  # most phrases end in a word that has no other sense here
    after = {tuple(words[last:last + 1]), tuple(words[last:last + 2])}
    return any(not after.isdisjoint(_SENSE_AFTER.get(tuple(words[last - n:last]), ()))
               for n in (1, 2) if n <= last)


# A phrase read in one written form of its first word only: "my sister gets the albums" names
# who receives; "I'll get the groceries", "can I get the appointment" do not.
_ONLY_AS = {("farewell", "get"): frozenset({"gets"}),
            # Admitted to hospital; not "more than I want to admit", "I admit it helps".
            ("past_act", "admit"): frozenset({"admitted"})}


# A count a noun names is a check, not counting one's own: "pill count", "the narcotics count
# at shift change", "blood count"; not "counting my pills", "I count them every night".
_COUNT_NOUNS = frozenset({"count", "counts"})
_COUNTED = frozenset({"pill", "pills", "tablet", "tablets", "drug", "drugs", "narcotic",
                      "narcotics", "blood", "medication", "stock", "cd", "controlled"})


def _other_form(words: list[str], offset: int, mention: Mention) -> bool:
    at = mention.start - offset
    first = words[at]
    if first in _COUNT_NOUNS and at > 0 and words[at - 1] in _COUNTED and \
            mention.end - mention.start == 1:
        return True
    if first == "collect" and at > 0 and words[at - 1] == "to":
        return True  # "to collect my tablets" from the chemist, not collecting them up
    forms = _ONLY_AS.get((mention.concept, _stem(first)))
    return forms is not None and first not in forms


# Between "not planning on seeing" and the time not to be seen: "another Christmas".
_BEFORE_UNSEEN_TIME = frozenset({"another", "next", "the", "one", "more", "a"})


def _sees_no_time(words: list[str], offset: int, mention: Mention,
                  mentions: list[Mention]) -> bool:
    """A phrase of not seeing ("not planning on seeing") with no time as what is not seen:
    "I'm not planning on seeing Monday" is an absence, "… seeing my mum this week" is not."""
    if words[mention.end - offset - 1] not in ("see", "seeing") or \
            mention.concept not in ("self_kill_weak", "negation_exception", "death_wish"):
        return False
    time = min((m for m in mentions if m.concept == "time" and m.start >= mention.end),
               key=lambda m: m.start, default=None)
    if time is None:
        return True
    between = words[mention.end - offset:time.start - offset]
    return not (len(between) <= 2 and all(word in _BEFORE_UNSEEN_TIME for word in between))


# Before "looking after" or "taking care of" someone, the words that make the patient the one
# who cares ("I'm worn out from looking after my mum"), not one who arranges care for those left
# ("someone to look after my cat").
_CARER_BEFORE = frozenset({"i", "am", "from", "of", "been", "was", "me", "and", "still", "busy",
                           "with"})
_CARING = frozenset({"look", "looking", "looked", "take", "taking", "took"})


# Before "to look after": someone else is asked or arranged to ("I asked my sister to look
# after the kids"); without such a verb, the patient is the one caring ("I'm cutting my hours
# to look after my dad").
_ASKING = frozenset({"asked", "ask", "asking", "told", "tell", "arranged", "begged", "want",
                     "wants", "need", "needs", "got", "get", "getting", "made", "have", "has",
                     "let", "trust", "sorted"})


def _patient_cares(words: list[str], offset: int, mention: Mention) -> bool:
    at = mention.start - offset
    if mention.concept not in ("preparation_everyday", "preparation", "farewell") or \
            words[at] not in _CARING or at == 0:
        return False
    return words[at - 1] in _CARER_BEFORE or (
        words[at - 1] == "to" and not _ASKING.intersection(words[:at - 1]))


# Between a subject and "gone": "it will soon be gone", "I'm just gone".
_BEFORE_GONE = frozenset({"will", "would", "shall", "could", "should", "might", "may", "must",
                          "be", "is", "am", "are", "was", "were", "been", "being", "just", "soon",
                          "already", "finally", "all", "totally", "completely", "really",
                          "probably", "maybe", "also", "not", "never", "simply"})
# Things whose being gone is no one's death: a symptom, a craving, a medicine's effect. A person
# or a pet gone stays ("my wife's gone, my dog's gone, and I'd just as soon go too").
_THINGS_GONE = frozenset({
    "it", "that", "this", "which", "rash", "pain", "ache", "aches", "headache", "headaches",
    "itch", "itching", "swelling", "fever", "cough", "nausea", "dizziness", "tremor", "craving",
    "cravings", "urge", "urges", "effect", "effects", "symptom", "symptoms", "anxiety", "panic",
    "stress", "tension", "motivation", "appetite", "energy", "money", "savings", "paycheck",
    "job", "snow", "ice", "bruise", "bruising", "cold", "flu", "infection", "soreness", "buzz",
    "high", "hangover", "withdrawal", "worry", "fog"})


# Things whose being dead is no one's death: "my battery is dead", "the car's dead".
_THINGS_DEAD = frozenset({"it", "that", "this", "battery", "phone", "laptop", "computer",
                          "car", "engine", "plant", "plants", "line", "bulb", "signal", "wifi",
                          "internet", "torch", "remote", "mouse", "printer", "leg", "arm",
                          "hand", "foot", "town", "party", "conversation", "idea"})


def _a_thing_gone(words: list[str], offset: int, mention: Mention) -> bool:
    """"Gone" said of a thing ("by 2 pm it's gone", "the rash is gone", "the pain will be gone
    soon") is no death (it read as one, and with a time as a plan); nor is "dead" said of
    one ("my battery is dead")."""
    if mention.concept not in ("death_weak", "self_kill_weak", "death_wish"):
        return False
    span = words[mention.start - offset:mention.end - offset]
    for word, things in (("gone", _THINGS_GONE), ("dead", _THINGS_DEAD)):
        if word not in span or (word == "gone" and mention.concept == "death_wish"):
            continue
        at = mention.start - offset + span.index(word) - 1
        while at >= 0 and words[at] in _BEFORE_GONE:
            at -= 1
        return at >= 0 and words[at] in things
    return False


# Medicines taken as prescribed: "I took all my medication this week", "taking all my tablets
# every day, no missed doses", "I took every dose this week". The "all" of them is the whole
# prescription, not an overdose.
_TAKE_FORMS = frozenset({"take", "takes", "taking", "took", "taken"})
_AS_PRESCRIBED = (("as", "prescribed"), ("supposed", "to"), ("meant", "to"), ("on", "time"),
                  ("not", "missed"), ("no", "missed"), ("not", "miss"), ("never", "miss"),
                  ("every", "day"), ("every", "morning"), ("every", "night"),
                  ("every", "evening"), ("each", "day"), ("each", "morning"),
                  ("each", "night"), ("this", "week"), ("all", "week"), ("regularly",),
                  ("as", "usual"), ("like", "normal"), ("as", "normal"), ("as", "directed"))
# What makes "all" of them at once an overdose whatever the week: "all at once", "in one go".
_AT_ONCE = frozenset({"once", "go", "together", "lot", "whole", "overdose", "overdosed",
                      "hospital", "ambulance", "purpose", "pumped", "ae", "er"})
_TAKEN_CONCEPTS = frozenset({"past_act", "method_weak", "method"})
# "all my medication", "every one of my sertraline", "every dose".
_WHOLE_OF_IT = frozenset({"all", "every"})


def _schedule_spans(words: list[str]) -> list[tuple[int, int]]:
    """Where a sentence tells of a dose schedule (``_AS_PRESCRIBED``)."""
    return [(at, at + len(marker)) for marker in _AS_PRESCRIBED for at in range(len(words))
            if tuple(words[at:at + len(marker)]) == marker]


def _taken_as_prescribed(words: list[str], mention: Mention) -> bool:
    """Whether a mention of taking all of one's medicine is told with a sign of taking it as
    prescribed (a dose schedule, no doses missed) and nothing of taking it at once."""
    return mention.concept in _TAKEN_CONCEPTS and bool(_TAKE_FORMS.intersection(words)) and \
        bool(_WHOLE_OF_IT.intersection(words)) and not _AT_ONCE.intersection(words) and \
        bool(_schedule_spans(words))


def _as_prescribed_span(words: list[str], offset: int, index: int,
                        matched: list[Mention]) -> list[Mention]:
    """An idiom over medicine taken as prescribed, from the first word of taking through the
    medicine taken and the sign of a schedule after it, where a mention was dropped as such."""
    dropped = [m for m in matched if _taken_as_prescribed(words, m)]
    if not dropped:
        return []
    start = next(at for at, word in enumerate(words) if word in _TAKE_FORMS)
    end = max([m.end - offset for m in dropped]
              + [until for at, until in _schedule_spans(words) if at >= start])
    return [Mention("idiom", offset + start, offset + end, index)]


# After "gone", an absence told by how long it lasts or where it is spent: "gone all weekend
# for the fishing trip", "gone all day at work", "gone on holiday".
_SPANS_AWAY = frozenset({"weekend", "day", "week", "night", "morning", "afternoon", "evening",
                         "summer", "month", "year", "winter"})
_AWAY = (("on", "holiday"), ("on", "a", "trip"), ("on", "tour"), ("on", "vacation"),
         ("at", "work"), ("overseas",), ("abroad",))


def _gone_for_a_while(words: list[str], offset: int, mention: Mention) -> bool:
    """"Gone" followed by how long the absence lasts ("all weekend") or where it is spent ("on
    holiday") is an absence, not a death."""
    if mention.concept not in ("death_weak", "self_kill_weak") or \
            "gone" not in words[mention.start - offset:mention.end - offset]:
        return False
    after = words[mention.end - offset:mention.end - offset + 3]
    return (after[:1] == ["all"] and bool(_SPANS_AWAY.intersection(after[1:2]))) or any(
        tuple(after[:len(place)]) == place for place in _AWAY)


_CONDITIONAL = frozenset({"would", "could", "might"})


def _conditional_everyday(words: list[str], offset: int, mentions: list[Mention]) -> set[
        tuple[int, int]]:
    """The spans of everyday preparations told as what would happen ("my sister would take my
    dogs if I asked", "who would look after the cat"): not done, so no preparation."""
    return {(m.start, m.end) for m in mentions if m.concept == "preparation_everyday"
            and _CONDITIONAL.intersection(words[max(0, m.start - offset - 2):m.start - offset])}


# A habit told with its frequency ("I take my pills at 8am every morning", "at midnight every
# day", "twice a day"): the sentence's times recur, so none is a time set.
_RECURRING = frozenset({"day", "night", "morning", "evening", "afternoon", "week", "weekend",
                        "month", "monday", "tuesday", "wednesday", "thursday", "friday",
                        "saturday", "sunday"})
_FREQUENCY_WORDS = frozenset({"daily", "nightly", "weekly"})
_TIMES_A = frozenset({"once", "twice", "times"})


_HABIT_CUES = _FREQUENCY_WORDS | _TIMES_A | {"every", "each"}


# "I take all my tablets at night now": the simple present of a routine, with no time set.
_ROUTINE = (("i", "take"), ("i", "use"))
_TIME_SET = frozenset({"tonight", "tomorrow", "today", "will", "going", "gonna", "this", "next",
                       "soon", "later"})


def _habitual(words: list[str]) -> bool:
    if "take" in words or "use" in words:
        pairs = set(pairwise(words))
        if any(pair in pairs for pair in _ROUTINE) and _TIME_SET.isdisjoint(words):
            return True
    if _HABIT_CUES.isdisjoint(words):
        return False  # most sentences tell no frequency
    if _FREQUENCY_WORDS.intersection(words):
        return True
    return any((word in ("every", "each") and following in _RECURRING)
               or (word in _TIMES_A and following == "a")
               for word, following in pairwise(words))


def names(sentences: list[Sentence], concepts: frozenset[str]) -> bool:
    """Whether the turn names any of these concepts, asserted or not."""
    return any(m.concept in concepts for s in sentences for m in s.mentions)


# A trailing-off that the sentence goes on after ("going to sleep and just... not"): one
# sentence, not two. A run of points is taken only from its first, whole: tried from every
# point of a long run, the pattern cost the square of its length (20,000 points: 9.5 s).
_TRAILING_OFF = re.compile(r"(?:(?<!\.)\.{2,}+|\u2026)\s*+(?=[a-z])")


# A time on the clock ("at six a.m.", "3pm", "9:30 p.m."): one word of time, whose points end
# no sentence.
_CLOCK_TIME = re.compile(
    r"\b(\d{1,2}(?::[0-5]\d)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
    r"\s*[ap]\.?\s?m\b\.?", re.IGNORECASE)
# What any clock time holds, found fast: "6am", "9:30 p.m.", "six a.m." ("six am" is missed).
_CLOCK_HINT = re.compile(r"\d\s*[ap]\.?\s?m|[ap]\.\s?m", re.IGNORECASE)


def run_on_pieces(part: str, limit: int = MAX_SENTENCE_WORDS) -> list[str]:
    """A sentence of up to ``limit`` words as it is; a longer one in pieces of at most
    ``limit`` words, each cut before a conjunction or after a comma in its second half where
    there is one."""
    if len(part) <= 2 * limit:
        return [part]  # too short to hold more than ``limit`` words: most sentences
    words = part.split()
    if len(words) <= limit:
        return [part]
    pieces: list[str] = []
    while len(words) > limit:
        cut = next((index for index in range(limit, limit // 2, -1)
                    if words[index - 1].endswith(",")
                    or words[index].lower() in _CUT_BEFORE), limit)
        pieces.append(" ".join(words[:cut]))
        words = words[cut:]
    pieces.append(" ".join(words))
    return pieces


def read_turn(text: str) -> list[Sentence]:
    sentences: list[Sentence] = []
    offset = 0
    if "\u2026" in text or ".." in text:
        text = _TRAILING_OFF.sub(" ", text)
    if _CLOCK_HINT.search(text):
        text = _CLOCK_TIME.sub(lambda m: m[1].replace(":", " ") + " oclock ", text)
    for part in (piece for whole in SENTENCE_RE.findall(text)
                 for piece in run_on_pieces(whole)):
        pairs = _normalise(part)
        if not pairs:
            continue
        words = [word for word, _ in pairs]
        stems = [stem for _, stem in pairs]
        index = len(sentences)
        matched = _match(stems, offset, index)
        conditional = _conditional_everyday(words, offset, matched)
        mentions = [m for m in matched if not _another_sense(words, offset, m)
                    and not _other_form(words, offset, m)
                    and not (m.concept in ("preparation_everyday", "preparation")
                             and (m.start, m.end) in conditional)
                    and not _sees_no_time(words, offset, m, matched)
                    and not _patient_cares(words, offset, m)
                    and not _a_thing_gone(words, offset, m)
                    and not _gone_for_a_while(words, offset, m)
                    and not _taken_as_prescribed(words, m)]
        if len(mentions) < len(matched):
            # Medicine taken as prescribed is ordinary talk, for the language models too: an
            # idiom over it keeps its words from them (``model_reader.reads``).
            mentions += _as_prescribed_span(words, offset, index, matched)
        if _habitual(words):
            mentions = [m for m in mentions if m.concept != "time"]
        mentions += _past_years(words, offset, index)
        sentences.append(Sentence(words, stems, offset, mentions))
        offset += len(words)
    return sentences
