"""``codeact policy probe --html FILE``: one self-contained page (no network).

A heat map of attack categories × layer configurations — each cell the counts of
rejected / contained / escaped cases, coloured by the share that escaped — then every
category expandable to its cases, with each case's outcome and detail per configuration.
"""

from __future__ import annotations

from collections import Counter
from html import escape

from sandbox.probe.results import OUTCOMES, CaseResult

_STYLE = (
    "body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d232a}"
    "table{border-collapse:collapse}td,th{padding:4px 10px;border:1px solid #dde2e6}"
    "th{background:#eef1f4}td.cell{text-align:center;min-width:130px}"
    ".rejected{color:#11713a}.contained{color:#a05a00}.escaped{color:#b3261e;font-weight:600}"
    "details{margin:4px 0}pre{white-space:pre-wrap;margin:0}.meta{color:#5b6570}"
)


def _colour(counts: Counter[str]) -> str:
    total = sum(counts.values())
    if not total:
        return "#f4f5f7"
    if counts["escaped"]:
        share = counts["escaped"] / total
        return f"rgba(179,38,30,{0.25 + 0.75 * share:.2f})"
    if counts["contained"]:
        return "#fbe7c6"
    return "#cfead8"


def _heat_map(runs: dict[str, list[CaseResult]], categories: list[str]) -> str:
    head = "".join(f"<th>{escape(label)}</th>" for label in runs)
    rows = []
    for category in categories:
        cells = []
        for label, results in runs.items():
            counts: Counter[str] = Counter(r.outcome for r in results if r.category == category)
            text = " / ".join(str(counts[o]) for o in OUTCOMES)
            cells.append(
                f'<td class="cell" style="background:{_colour(counts)}" '
                f'data-config="{escape(label)}" data-escaped="{counts["escaped"]}">{text}</td>'
            )
        rows.append(f"<tr><th>{escape(category)}</th>{''.join(cells)}</tr>")
    return (
        '<table id="heatmap"><tr><th>category (rejected / contained / escaped)</th>'
        f"{head}</tr>{''.join(rows)}</table>"
    )


def _cases(runs: dict[str, list[CaseResult]], category: str) -> str:
    by_id: dict[str, dict[str, CaseResult]] = {}
    for label, results in runs.items():
        for result in results:
            if result.category == category:
                by_id.setdefault(result.id, {})[label] = result
    rows = []
    for case_id, per_label in by_id.items():
        cells = []
        for label in runs:
            found = per_label.get(label)
            if found is None:
                cells.append("<td>—</td>")
                continue
            cells.append(
                f'<td><span class="{found.outcome}">{found.outcome}</span>'
                f"<pre class=meta>{escape(found.detail[:400])}</pre></td>"
            )
        rows.append(f"<tr><th>{escape(case_id)}</th>{''.join(cells)}</tr>")
    head = "".join(f"<th>{escape(label)}</th>" for label in runs)
    return (
        f'<details class="category" data-category="{escape(category)}">'
        f"<summary>{escape(category)} ({len(by_id)} cases)</summary>"
        f"<table><tr><th>case</th>{head}</tr>{''.join(rows)}</table></details>"
    )


def render_probe_report(title: str, runs: dict[str, list[CaseResult]]) -> str:
    """The page for one suite run under each labelled layer configuration."""
    categories = list(dict.fromkeys(r.category for rs in runs.values() for r in rs))
    escaped = sum(r.outcome == "escaped" for rs in runs.values() for r in rs)
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{escape(title)}</h1><p class=meta>{escaped} escapes over "
        f"{len(runs)} configuration(s)</p>{_heat_map(runs, categories)}<h2>Cases</h2>"
        f"{''.join(_cases(runs, c) for c in categories)}</body></html>"
    )
