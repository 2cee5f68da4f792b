"""The summary of a run: success per action mode × domain, and per task over epochs.

Standard errors are over tasks (each task's mean over its epochs is one observation),
as a benchmark's tasks are the sample that varies. ``pass@k`` uses the unbiased
estimator of Chen et al. (2021): 1 − C(n−c, k) / C(n, k) with n epochs, c passed.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable

from codeact.bench.records import GroupStats, SampleRecord, Summary, TaskStats
from codeact.summary import UsageSummary

MODE_ORDER = {"code": 0, "json": 1, "text": 2}


def pass_at_k(n: int, c: int, k: int) -> float:
    """The chance that at least one of k draws (of n samples, c correct) is correct."""
    if n - c < k:
        return 1.0
    return 1.0 - math.comb(n - c, k) / math.comb(n, k)


def _stderr(values: list[float]) -> float:
    if len(values) < 2:
        return 0.0
    mean = sum(values) / len(values)
    variance = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return math.sqrt(variance / len(values))


def _group(mode: str, domain: str, records: list[SampleRecord]) -> GroupStats:
    per_task: dict[str, list[float]] = defaultdict(list)
    per_epoch: dict[int, list[float]] = defaultdict(list)
    for r in records:
        per_task[r.task].append(1.0 if r.status == "passed" else 0.0)
        per_epoch[r.epoch].append(1.0 if r.status == "passed" else 0.0)
    n = len(records)
    passed = sum(r.status == "passed" for r in records)
    return GroupStats(
        action_mode=mode,
        domain=domain,
        samples=n,
        passed=passed,
        failed=sum(r.status == "failed" for r in records),
        errors=sum(r.status == "error" for r in records),
        success_rate=passed / n if n else 0.0,
        stderr=_stderr([sum(v) / len(v) for v in per_task.values()]),
        mean_turns=sum(r.turns for r in records) / n if n else 0.0,
        tokens_per_sample=sum(r.usage.total_tokens for r in records) / n if n else 0.0,
        epoch_rates=[sum(v) / len(v) for _, v in sorted(per_epoch.items())],
    )


def _tasks(records: Iterable[SampleRecord]) -> list[TaskStats]:
    by_task: dict[tuple[str, str], list[SampleRecord]] = defaultdict(list)
    for r in records:
        by_task[(r.action_mode, r.task)].append(r)
    stats = []
    for (mode, task), rs in sorted(by_task.items(), key=lambda kv: (MODE_ORDER[kv[0][0]], kv[0])):
        values = [1.0 if r.status == "passed" else 0.0 for r in rs]
        n, c = len(values), int(sum(values))
        stats.append(
            TaskStats(
                task=task,
                domain=rs[0].domain,
                action_mode=mode,
                epochs=n,
                passed=c,
                mean=c / n,
                stderr=_stderr(values),
                pass_at_k=pass_at_k(n, c, n),
            )
        )
    return stats


def summarize(suite: str, model: str, protocol: str, records: list[SampleRecord]) -> Summary:
    """The summary of `records` (every sample logged so far)."""
    by_group: dict[tuple[str, str], list[SampleRecord]] = defaultdict(list)
    by_mode: dict[str, list[SampleRecord]] = defaultdict(list)
    for r in records:
        by_group[(r.action_mode, r.domain)].append(r)
        by_mode[r.action_mode].append(r)
    usage = UsageSummary()
    for r in records:
        usage = usage + r.usage
    return Summary(
        suite=suite,
        model=model,
        protocol=protocol,
        samples=len(records),
        passed=sum(r.status == "passed" for r in records),
        failed=sum(r.status == "failed" for r in records),
        errors=sum(r.status == "error" for r in records),
        usage=usage,
        duration_s=round(sum(r.duration_s for r in records), 3),
        epochs=max((r.epoch for r in records), default=0),
        groups=[
            _group(mode, domain, rs)
            for (mode, domain), rs in sorted(
                by_group.items(), key=lambda kv: (MODE_ORDER[kv[0][0]], kv[0][1])
            )
        ],
        modes=[
            _group(mode, "all", rs)
            for mode, rs in sorted(by_mode.items(), key=lambda kv: MODE_ORDER[kv[0]])
        ],
        tasks=_tasks(records),
    )


def summary_table(summary: Summary) -> str:
    """The summary as a plain-text table: one row per action mode × domain, then totals."""
    header = ("mode", "domain", "samples", "passed", "success", "± se", "turns", "tokens/sample")
    rows = [
        (g.action_mode, g.domain, str(g.samples), str(g.passed), f"{g.success_rate:.1%}",
         f"{g.stderr:.1%}", f"{g.mean_turns:.1f}", f"{g.tokens_per_sample:,.0f}")
        for g in [*summary.groups, *summary.modes]
    ]  # fmt: skip
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)
    ]

    def line(cells: tuple[str, ...]) -> str:
        return "  ".join(
            c.ljust(w) if i < 2 else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    out = [line(header), line(tuple("-" * w for w in widths))]
    out += [line(r) for r in rows]
    out.append(
        f"{summary.suite} · {summary.model} · {summary.protocol}: "
        f"{summary.passed}/{summary.samples} passed, {summary.failed} failed, "
        f"{summary.errors} errors · {summary.usage.one_line()}"
    )
    if len(summary.modes) > 1:
        out += ["", side_by_side(summary)]
    return "\n".join(out)


def side_by_side(summary: Summary) -> str:
    """Success rate per domain with the action modes as columns, like the paper's table."""
    modes = [m.action_mode for m in summary.modes]
    rates = {(g.action_mode, g.domain): g for g in [*summary.groups, *summary.modes]}
    domains = [*dict.fromkeys(g.domain for g in summary.groups), "all"]
    width = max(len(d) for d in domains)
    lines = ["domain".ljust(width) + "".join(f"  {m:>8}" for m in modes)]
    for domain in domains:
        cells = []
        for mode in modes:
            group = rates.get((mode, domain))
            cells.append(f"  {group.success_rate:>8.1%}" if group else f"  {'-':>8}")
        lines.append(domain.ljust(width) + "".join(cells))
    return "\n".join(lines)
