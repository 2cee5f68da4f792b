"""``codeact bench report A B``: two runs compared, sample by sample.

Samples are matched by task, epoch and action mode (their ids differ when the model,
the protocol or the policy did). Each pair is ``fixed`` (failed in A, passed in B),
``broke`` (the reverse), ``same`` (the same status), or only in one run. The summary
compares each action mode × domain's success rate, A against B; ``--html`` writes a
page with both (``html_compare.py``), ``--json`` prints a :class:`Comparison`.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from codeact.bench.records import SampleRecord, Summary
from codeact.bench.summarize import MODE_ORDER

Change = Literal["fixed", "broke", "same", "only in A", "only in B"]
CHANGES: tuple[Change, ...] = ("fixed", "broke", "same", "only in A", "only in B")


class SamplePair(BaseModel):
    """One task × epoch × action mode, in either run or both."""

    task: str
    domain: str
    action_mode: str
    epoch: int
    change: Change
    a: SampleRecord | None = Field(None, description="The sample in run A.")
    b: SampleRecord | None = Field(None, description="The sample in run B.")


class GroupDelta(BaseModel):
    """One action mode × domain (``all`` for the mode's total) in both runs."""

    action_mode: str
    domain: str
    a_rate: float | None
    b_rate: float | None
    a_samples: int = 0
    b_samples: int = 0


class Comparison(BaseModel):
    """What ``codeact bench report A B --json`` prints."""

    a: str = Field(description="Run A: suite · model · protocol.")
    b: str = Field(description="Run B: suite · model · protocol.")
    counts: dict[Change, int]
    groups: list[GroupDelta]
    pairs: list[SamplePair]


def _label(summary: Summary) -> str:
    return f"{summary.suite} · {summary.model} · {summary.protocol}"


def _change(a: SampleRecord | None, b: SampleRecord | None) -> Change:
    if a is None:
        return "only in B"
    if b is None:
        return "only in A"
    if a.status == b.status:
        return "same"
    return "fixed" if b.status == "passed" else "broke" if a.status == "passed" else "same"


def pair_samples(a: list[SampleRecord], b: list[SampleRecord]) -> list[SamplePair]:
    """Every task × epoch × mode of either run, with its sample in each."""
    keyed_a = {(r.task, r.epoch, r.action_mode): r for r in a}
    keyed_b = {(r.task, r.epoch, r.action_mode): r for r in b}
    pairs = []
    for key in sorted({*keyed_a, *keyed_b}, key=lambda k: (MODE_ORDER[k[2]], k[0], k[1])):
        ra, rb = keyed_a.get(key), keyed_b.get(key)
        either = ra or rb
        assert either is not None
        pairs.append(
            SamplePair(
                task=key[0],
                epoch=key[1],
                action_mode=key[2],
                domain=either.domain,
                change=_change(ra, rb),
                a=ra,
                b=rb,
            )
        )
    return pairs


def group_deltas(a: Summary, b: Summary) -> list[GroupDelta]:
    """Each mode × domain of either run (then each mode's total), rate in A and in B."""
    rows_a = {(g.action_mode, g.domain): g for g in [*a.groups, *a.modes]}
    rows_b = {(g.action_mode, g.domain): g for g in [*b.groups, *b.modes]}
    keys = sorted({*rows_a, *rows_b}, key=lambda k: (k[1] == "all", MODE_ORDER.get(k[0], 9), k[1]))
    deltas = []
    for key in keys:
        ga, gb = rows_a.get(key), rows_b.get(key)
        deltas.append(
            GroupDelta(
                action_mode=key[0],
                domain=key[1],
                a_rate=ga.success_rate if ga else None,
                b_rate=gb.success_rate if gb else None,
                a_samples=ga.samples if ga else 0,
                b_samples=gb.samples if gb else 0,
            )
        )
    return deltas


def compare(
    a: Summary, a_records: list[SampleRecord], b: Summary, b_records: list[SampleRecord]
) -> Comparison:
    """The comparison of run A with run B."""
    pairs = pair_samples(a_records, b_records)
    return Comparison(
        a=_label(a),
        b=_label(b),
        counts={c: sum(p.change == c for p in pairs) for c in CHANGES},
        groups=group_deltas(a, b),
        pairs=pairs,
    )


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def comparison_text(comparison: Comparison) -> str:
    """The comparison as plain text: rates per group, A → B, then what changed."""
    header = ("mode", "domain", "A", "B", "change")
    rows = []
    for g in comparison.groups:
        delta = (
            f"{(g.b_rate - g.a_rate) * 100:+.1f} pts"
            if g.a_rate is not None and g.b_rate is not None
            else ""
        )
        rows.append((g.action_mode, g.domain, _rate(g.a_rate), _rate(g.b_rate), delta))
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    lines = [
        "  ".join(
            c.ljust(w) if i < 2 else c.rjust(w)
            for i, (c, w) in enumerate(zip(r, widths, strict=True))
        )
        for r in [header, tuple("-" * w for w in widths), *rows]
    ]
    counts = comparison.counts
    lines += [
        f"A: {comparison.a}",
        f"B: {comparison.b}",
        ", ".join(f"{counts[c]} {c}" for c in CHANGES if counts[c] or c in ("fixed", "broke")),
    ]
    for pair in comparison.pairs:
        if pair.change in ("fixed", "broke"):
            lines.append(f"  {pair.change}: {pair.task} [{pair.action_mode} · epoch {pair.epoch}]")
    return "\n".join(lines)
