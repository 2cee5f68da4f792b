"""``codeact bench report A B --html FILE``: two runs on one page, sample by sample.

The success rate of each action mode × domain in A and in B with the difference, the
counts of samples fixed, broken and unchanged, and a row per task × epoch × mode with
both runs' status, tokens, duration, tool calls and failure code, opening to both
answers and failure messages; the rows sort, filter (change, domain, mode) and search
like the report's (``compare.html#change=broke``).
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from codeact.bench.compare import CHANGES, Comparison, SamplePair
from codeact.bench.html import value_html
from codeact.bench.html_assets import page, search_box, select
from codeact.bench.logdir import write_atomic
from codeact.bench.records import RunInfo, SampleRecord

_COLUMNS = (
    ("change", "change", True),
    ("task", "task", True),
    ("domain", "domain", True),
    ("mode", "mode", True),
    ("epoch", "epoch", False),
    ("sa", "A", True),
    ("sb", "B", True),
    ("ta", "tokens A", False),
    ("tb", "tokens B", False),
    ("da", "s A", False),
    ("db", "s B", False),
    ("ca", "tools A", False),
    ("cb", "tools B", False),
    ("fa", "failure A", True),
    ("fb", "failure B", True),
)


def _rate(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def _groups(comparison: Comparison) -> str:
    rows = []
    for g in comparison.groups:
        delta, kind = "", ""
        if g.a_rate is not None and g.b_rate is not None:
            points = (g.b_rate - g.a_rate) * 100
            delta = f"{points:+.1f} pts"
            kind = "better" if points > 0 else "worse" if points < 0 else ""
        total = ' class="total"' if g.domain == "all" else ""
        rows.append(
            f"<tr{total}><td class=l>{g.action_mode}</td><td class=l>{escape(g.domain)}</td>"
            f"<td>{_rate(g.a_rate)}</td><td>{_rate(g.b_rate)}</td>"
            f'<td class="{kind}">{delta}</td></tr>'
        )
    return (
        '<table id="groups"><tr><th class=l>mode</th><th class=l>domain</th><th>A</th>'
        f"<th>B</th><th>B − A</th></tr>{''.join(rows)}</table>"
    )


def _side(record: SampleRecord | None) -> dict[str, str]:
    if record is None:
        return {"s": "", "t": "", "d": "", "c": "", "f": ""}
    return {
        "s": record.status,
        "t": str(record.usage.total_tokens),
        "d": f"{record.duration_s:.3f}",
        "c": str(record.usage.tool_calls),
        "f": record.failure_code or "",
    }


def _details(label: str, record: SampleRecord | None) -> str:
    if record is None:
        return f"<div><b>{label}</b>: not in this run</div>"
    failure = f"<pre>{escape(record.failure_message)}</pre>" if record.failure_message else ""
    return (
        f"<div><b>{label}</b>: <span class={record.status}>{record.status}</span> · answer "
        f"<code>{value_html(record.answer)}</code> · expected "
        f"<code>{value_html(record.expected)}</code> · {record.turns} turns{failure}</div>"
    )


def _tone(key: str, value: str) -> str:
    """The colour class of a cell: a status as itself, a change as better or worse."""
    if key in ("sa", "sb"):
        return value
    if key == "change":
        return {"fixed": "better", "broke": "worse"}.get(value, "")
    return ""


def _pair(pair: SamplePair) -> str:
    a, b = _side(pair.a), _side(pair.b)
    data = {
        "change": pair.change,
        "task": pair.task,
        "domain": pair.domain,
        "mode": pair.action_mode,
        "epoch": str(pair.epoch),
        **{f"{k}a": v for k, v in a.items()},
        **{f"{k}b": v for k, v in b.items()},
    }
    attrs = " ".join(f'data-{k}="{escape(v)}"' for k, v in data.items())
    cells = "".join(
        f'<td class="l {_tone(key, data[key])}">{escape(data[key])}</td>'
        if left
        else f"<td>{escape(data[key])}</td>"
        for key, _, left in _COLUMNS
    )
    return (
        f'<tbody class="sample" {attrs}><tr class="row">{cells}</tr><tr class="details" hidden>'
        f'<td colspan="{len(_COLUMNS)}">{_details("A", pair.a)}{_details("B", pair.b)}</td>'
        "</tr></tbody>"
    )


def _run_line(label: str, name: str, info: RunInfo) -> str:
    return (
        f"<p class=meta><b>{label}</b>: {escape(name)} · policy {escape(info.config.policy)} "
        f"({info.config.policy_digest[:12]}) · started {escape(', '.join(info.started_at))}</p>"
    )


def render_comparison(infos: tuple[RunInfo, RunInfo], comparison: Comparison) -> str:
    """The whole comparison page as one string."""
    pairs = comparison.pairs
    counts = comparison.counts
    summary_line = " · ".join(
        f'<span class="{_tone("change", c)}">{counts[c]} {c}</span>' for c in CHANGES
    )
    controls = "".join(
        [
            select("change", list(CHANGES)),
            select("domain", sorted({p.domain for p in pairs})),
            select(
                "mode", sorted({p.action_mode for p in pairs}, key=("code", "json", "text").index)
            ),
            search_box(),
        ]
    )
    head = "".join(
        f'<th class="{"l" if left else ""}" data-sort="{key}">{label}</th>'
        for key, label, left in _COLUMNS
    )
    title = f"{comparison.a}  vs  {comparison.b}"
    body = (
        f"<h1>A: {escape(comparison.a)}<br>B: {escape(comparison.b)}</h1>"
        f"{_run_line('A', comparison.a, infos[0])}{_run_line('B', comparison.b, infos[1])}"
        f'<p id="changes">{summary_line}</p><h2>Success per action mode × domain</h2>'
        f"{_groups(comparison)}"
        f'<h2>Samples (<span id="shown">{len(pairs)}</span>)</h2>'
        f'<div class="controls">{controls}</div><div class="wide"><table id="samples" '
        f'class="compact"><thead><tr>{head}</tr></thead>'
        f"{''.join(_pair(p) for p in pairs)}</table></div>"
    )
    return page(title, body)


def write_comparison(path: Path, infos: tuple[RunInfo, RunInfo], comparison: Comparison) -> None:
    """Write the comparison page to `path` (atomically)."""
    write_atomic(path, render_comparison(infos, comparison))
