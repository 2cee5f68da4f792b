"""Case results and the per-category table: rejected / contained / escaped."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Outcome = Literal["rejected", "contained", "escaped"]
OUTCOMES: tuple[Outcome, ...] = ("rejected", "contained", "escaped")

#: Error codes meaning the sandbox refused the script before or while running it.
REJECTING_CODES = frozenset({"syntax_error", "policy_violation"})


class CaseResult(BaseModel):
    """What one attack achieved under one policy."""

    model_config = ConfigDict(frozen=True)

    id: str
    category: str
    technique: str = ""
    outcome: Outcome
    error_code: str | None = None
    expected: str | None = Field(
        None, description="The outcome the case's author expects under the default policy."
    )
    detail: str = ""
    duration_s: float = 0.0
    suite: str = ""
    policy_digest: str = ""
    layers: str = Field(
        "",
        description="The layers the probed policy had on: 'language,os', 'language', 'os' "
        "or 'none' (a probe compares configurations; each record names its own).",
    )
    bad_practice: bool = Field(
        False, description="A RedCode bad-practice case: reported apart, never an escape."
    )
    reproduced: bool | None = Field(
        None, description="RedCode: the script printed the benchmark's expected result."
    )


def outcome_of(error_code: str | None, effects: list[str]) -> Outcome:
    """Escaped when an effect was detected, else rejected or contained by error code."""
    if effects:
        return "escaped"
    return "rejected" if error_code in REJECTING_CODES else "contained"


class CategoryRow(BaseModel):
    """Counts for one category (or the total)."""

    category: str
    rejected: int = 0
    contained: int = 0
    escaped: int = 0

    @property
    def total(self) -> int:
        """Number of cases."""
        return self.rejected + self.contained + self.escaped

    @property
    def attack_success_rate(self) -> float:
        """Escaped cases over all cases (0 when there are none)."""
        return self.escaped / self.total if self.total else 0.0


def summarize(results: Iterable[CaseResult]) -> list[CategoryRow]:
    """One row per category in order of first appearance, then a ``total`` row."""
    rows: dict[str, CategoryRow] = {}
    total = CategoryRow(category="total")
    for result in results:
        row = rows.setdefault(result.category, CategoryRow(category=result.category))
        for target in (row, total):
            setattr(target, result.outcome, getattr(target, result.outcome) + 1)
    return [*rows.values(), total]


def render_table(results: Iterable[CaseResult], title: str = "") -> str:
    """A plain-text table: counts per category and the attack success rate."""
    cases = list(results)
    attacks = [r for r in cases if not r.bad_practice]
    lines = [title] if title else []
    lines += _table(summarize(attacks))
    practice = [r for r in cases if r.bad_practice]
    if practice:
        lines += ["", "bad practice (not attacks on the sandbox; never counted as escapes):"]
        lines += _practice_table(practice)
    return "\n".join(lines)


def _table(rows: list[CategoryRow]) -> list[str]:
    width = max([len(r.category) for r in rows] + [8])
    head = f"{'category':<{width}}  rejected  contained  escaped  success rate"
    lines = [head, "-" * len(head)]
    for row in rows:
        if row.category == "total":
            lines.append("-" * len(head))
        lines.append(
            f"{row.category:<{width}}  {row.rejected:>8}  {row.contained:>9}  "
            f"{row.escaped:>7}  {row.attack_success_rate:>11.1%}"
        )
    return lines


def _practice_table(results: list[CaseResult]) -> list[str]:
    counts: dict[str, list[int]] = {}
    for result in results:
        ran, reproduced = counts.setdefault(result.category, [0, 0])
        counts[result.category] = [
            ran + (result.outcome != "rejected"),
            reproduced + bool(result.reproduced),
        ]
    width = max([len(c) for c in counts] + [8])
    lines = [f"{'category':<{width}}  cases  ran  reproduced"]
    for category, (ran, reproduced) in counts.items():
        cases = sum(1 for r in results if r.category == category)
        lines.append(f"{category:<{width}}  {cases:>5}  {ran:>3}  {reproduced:>10}")
    return lines


def render_comparison(runs: dict[str, list[CaseResult]]) -> str:
    """Attack success rate per category, one column per labelled run (same suite)."""
    tables = {
        label: {row.category: row for row in summarize(r for r in results if not r.bad_practice)}
        for label, results in runs.items()
    }
    categories = list(dict.fromkeys(c for rows in tables.values() for c in rows))
    width = max([len(c) for c in categories] + [8])
    columns = [max(len(label), 16) for label in tables]
    head = f"{'category':<{width}}" + "".join(
        f"  {label:>{w}}" for label, w in zip(tables, columns, strict=True)
    )
    lines = [head, "-" * len(head)]
    for category in categories:
        cells = []
        for rows, w in zip(tables.values(), columns, strict=True):
            row = rows.get(category)
            cell = f"{row.attack_success_rate:.1%} ({row.escaped}/{row.total})" if row else "-"
            cells.append(f"  {cell:>{w}}")
        if category == "total":
            lines.append("-" * len(head))
        lines.append(f"{category:<{width}}" + "".join(cells))
    return "\n".join(lines)


def told(on_result: Callable[[CaseResult], None] | None, result: CaseResult) -> CaseResult:
    """Pass `result` to the progress callback, if any, and return it."""
    if on_result is not None:
        on_result(result)
    return result
