"""``codeact policy probe --html FILE``: one self-contained page (no network).

What the page says first is what a reader needs to trust the rest: the version that
probed, when, and for each layer configuration the policy's name and digest and the
state of every confinement mechanism on the machine that ran it (active, off by the
policy, or degraded, and why). Then a legend, a heat map of attack categories ×
configurations — each cell the counts of rejected / contained / escaped cases, coloured
by the share that escaped — and every category expandable to its cases, with each
case's outcome and detail per configuration.
"""

from __future__ import annotations

from collections import Counter
from html import escape

from pydantic import BaseModel, Field

from sandbox.probe.results import OUTCOMES, CaseResult

_STYLE = (
    "body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d232a;max-width:1280px}"
    "h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px}"
    "table{border-collapse:collapse}td,th{padding:4px 10px;border:1px solid #dde2e6}"
    "th{background:#eef1f4;text-align:left}td.cell{text-align:center;min-width:130px}"
    ".rejected{color:#11713a}.contained{color:#a05a00}.escaped{color:#b3261e;font-weight:600}"
    "details{margin:4px 0}pre{white-space:pre-wrap;margin:0}.meta{color:#5b6570}"
    ".active{background:#cfead8}.off{background:#eceff1;color:#5b6570}"
    ".degraded{background:#fbe7c6}.swatch{display:inline-block;width:14px;height:14px;"
    "vertical-align:-2px;margin-right:4px;border:1px solid #c9ced3}dl{margin:0}"
    "dt{font-weight:600;margin-top:4px}dd{margin:0 0 0 18px}"
)

#: What each outcome means, for the legend.
MEANINGS = {
    "rejected": "refused before it could act: at compile or import time, or by a policy check",
    "contained": "ran, or was stopped by a limit, and its effect was not seen on the host",
    "escaped": "its effect was seen on the host (a secret read, a file written, a process "
    "killed, a listener reached, a limit not enforced)",
}


class ProbedConfiguration(BaseModel):
    """One layer configuration of a probe and what the machine enforced under it."""

    label: str = Field(description="The configuration's name on the page, e.g. 'layers on: os'.")
    policy: str = Field(description="The policy's name.")
    digest: str
    confinement: dict[str, str] = Field(
        default_factory=dict,
        description="Each mechanism's state: 'active', 'off' or 'degraded: <why>'.",
    )


class ProbeReportInfo(BaseModel):
    """Who probed what, when and where: the head of the page."""

    title: str
    version: str
    generated_at: str = Field(description="When the probe ran (ISO 8601, UTC).")
    configurations: list[ProbedConfiguration]


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


def _state_class(state: str) -> str:
    return "active" if state.startswith("active") else "off" if state == "off" else "degraded"


def _machine(info: ProbeReportInfo) -> str:
    configurations = info.configurations
    mechanisms = list(dict.fromkeys(m for c in configurations for m in c.confinement))
    head = "".join(
        f"<th>{escape(c.label)}<br><span class=meta>{escape(c.policy)} · "
        f"<code>{escape(c.digest[:16])}</code></span></th>"
        for c in configurations
    )
    rows = []
    for mechanism in mechanisms:
        cells = []
        for c in configurations:
            state = c.confinement.get(mechanism, "")
            cells.append(f'<td class="{_state_class(state)}">{escape(state) or "—"}</td>')
        rows.append(f"<tr><th>{escape(mechanism)}</th>{''.join(cells)}</tr>")
    return f'<table id="machine"><tr><th>mechanism</th>{head}</tr>{"".join(rows)}</table>'


def _legend() -> str:
    outcomes = "".join(f'<dt class="{o}">{o}</dt><dd>{escape(MEANINGS[o])}</dd>' for o in OUTCOMES)
    swatches = (
        '<span class="swatch" style="background:#cfead8"></span>all rejected · '
        '<span class="swatch" style="background:#fbe7c6"></span>some contained, none escaped · '
        '<span class="swatch" style="background:rgba(179,38,30,0.6)"></span>some escaped '
        "(darker: a larger share)"
    )
    states = (
        '<span class="swatch active"></span>active · <span class="swatch off"></span>off '
        '(switched off by the policy) · <span class="swatch degraded"></span>degraded '
        "(not possible on this machine; the reason is given)"
    )
    return (
        f'<div id="legend"><dl>{outcomes}</dl><p>Heat map: {swatches}.<br>'
        f"Confinement: {states}.</p></div>"
    )


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


def render_probe_report(info: ProbeReportInfo, runs: dict[str, list[CaseResult]]) -> str:
    """The page for one suite run under each labelled layer configuration."""
    categories = list(dict.fromkeys(r.category for rs in runs.values() for r in rs))
    escaped = sum(r.outcome == "escaped" for rs in runs.values() for r in rs)
    cases = sum(len(rs) for rs in runs.values())
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>{escape(info.title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{escape(info.title)}</h1><p class=meta id=about>codeact {escape(info.version)}"
        f" · probed {escape(info.generated_at)} · {cases} case runs over {len(runs)} "
        f"configuration(s) · {escaped} escaped</p>"
        f"<h2>What this machine enforced</h2>{_machine(info)}"
        f"<h2>Legend</h2>{_legend()}"
        f"<h2>Categories × configurations</h2>{_heat_map(runs, categories)}<h2>Cases</h2>"
        f"{''.join(_cases(runs, c) for c in categories)}</body></html>"
    )
