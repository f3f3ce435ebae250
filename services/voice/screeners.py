"""The intake screeners: items, answer range, total and severity band."""

from __future__ import annotations

from dataclasses import dataclass

from services.numbers import whole_number

ITEM_MIN, ITEM_MAX = 0, 3
PHQ9_SUICIDALITY_ITEM = 9


@dataclass(frozen=True)
class Screener:
    name: str
    items: int
    bands: tuple[tuple[int, str], ...]  # (lowest total of the band, band), ascending

    def severity(self, total: int) -> str:
        label = self.bands[0][1]
        for floor, band in self.bands:
            if total >= floor:
                label = band
        return label


SCREENERS = {
    "phq9": Screener("phq9", 9, ((0, "minimal"), (5, "mild"), (10, "moderate"),
                                 (15, "moderately_severe"), (20, "severe"))),
    "gad7": Screener("gad7", 7, ((0, "minimal"), (5, "mild"), (10, "moderate"),
                                 (15, "severe"))),
    "phq2": Screener("phq2", 2, ((0, "negative"), (3, "positive"))),
    "gad2": Screener("gad2", 2, ((0, "negative"), (3, "positive"))),
}
DEFAULT_SCREENERS = ["phq9", "gad7"]


class ScreenerError(ValueError):
    """An answer the assistant must correct; the message is read back to it."""


def get(name: object) -> Screener:
    key = str(name or "").strip().lower().replace("-", "")
    if key not in SCREENERS:
        # No name at all is what arguments that are not a JSON object come to.
        said = f"unknown screener {name!r}" if key else "no screener named"
        raise ScreenerError(f"{said}; use one of {', '.join(SCREENERS)}")
    return SCREENERS[key]


def check_item(screener: Screener, item: object, score: object) -> tuple[int, int]:
    number, value = _integer(item, "item"), _integer(score, "score")
    if not 1 <= number <= screener.items:
        raise ScreenerError(f"{screener.name} has items 1 to {screener.items}")
    if not ITEM_MIN <= value <= ITEM_MAX:
        raise ScreenerError(f"each answer is scored {ITEM_MIN} to {ITEM_MAX}")
    return number, value


def total(screener: Screener, answers: dict[int, int]) -> tuple[int, str]:
    """Score and band of a complete answer set (every item answered)."""
    missing = [i for i in range(1, screener.items + 1) if i not in answers]
    if missing:
        raise ScreenerError(f"{screener.name} is incomplete: "
                            + (f"item {missing[0]} is" if len(missing) == 1 else
                               f"items {', '.join(map(str, missing))} are") + " not answered")
    score = sum(answers[i] for i in range(1, screener.items + 1))
    return score, screener.severity(score)


def answers_from_list(screener: Screener, answers: object) -> dict[int, int]:
    if not isinstance(answers, list):
        raise ScreenerError("answers must be a list of item scores in order")
    if len(answers) != screener.items:
        raise ScreenerError(f"{screener.name} needs {screener.items} answers, "
                            f"got {len(answers)}")
    return dict(check_item(screener, i, a) for i, a in enumerate(answers, start=1))


def _integer(value: object, what: str) -> int:
    number = whole_number(value)
    if number is None:
        raise ScreenerError(f"{what} must be a whole number")
    return number
