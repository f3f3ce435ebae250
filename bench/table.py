"""A benchmark row and the Markdown table they print as."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Row:
    figure: str
    project: float
    baseline_name: str
    baseline: float | None
    unit: str
    goal: str = ""
    met: bool | None = None
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.baseline in (None, 0):
            return None
        return self.project / self.baseline


def _num(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def render(rows: list[Row]) -> str:
    lines = ["| figure | project | baseline | baseline value | ratio | goal | met |",
             "|---|---|---|---|---|---|---|"]
    for row in rows:
        met = "" if row.met is None else ("yes" if row.met else "**no**")
        ratio = "-" if row.ratio is None else f"{row.ratio:.3f}"
        note = f" ({row.note})" if row.note else ""
        lines.append(f"| {row.figure}{note} | {_num(row.project)} {row.unit} | "
                     f"{row.baseline_name} | {_num(row.baseline)} | {ratio} | {row.goal} | "
                     f"{met} |")
    return "\n".join(lines)
