"""The report's tables: the CLI's summary, the modes side by side, pass@k per task, and
the failures by code."""

from __future__ import annotations

from collections import Counter
from html import escape

from codeact.bench.records import SampleRecord, Summary


def summary_table(summary: Summary) -> str:
    """One row per action mode × domain, then each mode's total (the CLI's table)."""
    head = (
        "<tr><th class=l>mode</th><th class=l>domain</th><th>samples</th><th>passed</th>"
        "<th>failed</th><th>errors</th><th>success</th><th>± se</th><th>turns</th>"
        "<th>tokens/sample</th></tr>"
    )
    rows = []
    for group in [*summary.groups, *summary.modes]:
        total = ' class="total"' if group.domain == "all" else ""
        rows.append(
            f"<tr{total}><td class=l>{escape(group.action_mode)}</td>"
            f"<td class=l>{escape(group.domain)}</td><td>{group.samples}</td>"
            f"<td>{group.passed}</td><td>{group.failed}</td><td>{group.errors}</td>"
            f"<td>{group.success_rate:.1%}</td><td>{group.stderr:.1%}</td>"
            f"<td>{group.mean_turns:.1f}</td><td>{group.tokens_per_sample:,.0f}</td></tr>"
        )
    return f'<table id="summary">{head}{"".join(rows)}</table>'


def mode_pass_at_k(summary: Summary) -> dict[str, float]:
    """Each mode's pass@k (k = the epochs), averaged over its tasks."""
    by_mode: dict[str, list[float]] = {}
    for task in summary.tasks:
        by_mode.setdefault(task.action_mode, []).append(task.pass_at_k)
    return {mode: sum(values) / len(values) for mode, values in by_mode.items()}


def side_by_side(summary: Summary) -> str:
    """Success per domain (rows) and action mode (columns), ± its standard error, like
    the paper's table; with several epochs, a last row of pass@k."""
    modes = [m.action_mode for m in summary.modes]
    groups = {(g.action_mode, g.domain): g for g in [*summary.groups, *summary.modes]}
    domains = [*dict.fromkeys(g.domain for g in summary.groups), "all"]
    head = "".join(f"<th>{escape(m)}</th>" for m in modes)
    rows = []
    for domain in domains:
        cells = []
        for mode in modes:
            g = groups.get((mode, domain))
            cells.append(
                f"<td>{g.success_rate:.1%} <span class=meta>± {g.stderr:.1%}</span></td>"
                if g
                else "<td>—</td>"
            )
        total = ' class="total"' if domain == "all" else ""
        rows.append(f"<tr{total}><td class=l>{escape(domain)}</td>{''.join(cells)}</tr>")
    if summary.epochs > 1:
        k = mode_pass_at_k(summary)
        pass_cells = "".join(f"<td>{k.get(m, 0.0):.1%}</td>" for m in modes)
        rows.append(f"<tr><td class=l>pass@{summary.epochs}</td>{pass_cells}</tr>")
    return f'<table id="side-by-side"><tr><th class=l>domain</th>{head}</tr>{"".join(rows)}</table>'


def task_table(summary: Summary) -> str:
    """Each task's mean over its epochs, ± se, and pass@k ("" with one epoch)."""
    if summary.epochs < 2:
        return ""
    rows = [
        f"<tr><td class=l>{escape(t.task)}</td><td class=l>{escape(t.domain)}</td>"
        f"<td class=l>{t.action_mode}</td><td>{t.passed}/{t.epochs}</td>"
        f"<td>{t.mean:.1%} <span class=meta>± {t.stderr:.1%}</span></td>"
        f"<td>{t.pass_at_k:.1%}</td></tr>"
        for t in summary.tasks
    ]
    return (
        '<table id="tasks"><tr><th class=l>task</th><th class=l>domain</th><th class=l>mode'
        f"</th><th>passed</th><th>mean ± se</th><th>pass@{summary.epochs}</th></tr>"
        f"{''.join(rows)}</table>"
    )


def failure_table(records: list[SampleRecord]) -> str:
    """How many samples ended on each failure code, per action mode."""
    failing = [r for r in records if r.status != "passed"]
    if not failing:
        return '<p id="failures" class=meta>No sample failed.</p>'
    modes = sorted({r.action_mode for r in records}, key=("code", "json", "text").index)
    counts = Counter((r.failure_code or "wrong answer", r.action_mode) for r in failing)
    codes = sorted(
        {code for code, _ in counts},
        key=lambda c: -sum(n for (code, _), n in counts.items() if code == c),
    )
    head = "".join(f"<th>{m}</th>" for m in modes)
    rows = []
    for code in codes:
        cells = "".join(f"<td>{counts.get((code, m), 0) or ''}</td>" for m in modes)
        total = sum(counts.get((code, m), 0) for m in modes)
        rows.append(f"<tr><td class=l>{escape(code)}</td>{cells}<td>{total}</td></tr>")
    return (
        f'<table id="failures"><tr><th class=l>failure code</th>{head}<th>all</th></tr>'
        f"{''.join(rows)}</table>"
    )
