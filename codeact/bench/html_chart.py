"""The report's chart: inline SVG bars of success rate per domain, one bar per action
mode (like the paper's comparison figure), with a min–max whisker over epochs."""

from __future__ import annotations

from html import escape

from codeact.bench.records import GroupStats, Summary

COLORS = {"code": "#2f6fb3", "json": "#e08a1e", "text": "#6a9f3a"}
_W, _BAR, _GAP, _H, _TOP, _LEFT = 12, 22, 26, 180, 16, 44


def _bar(x: float, group: GroupStats) -> str:
    height = group.success_rate * _H
    y = _TOP + _H - height
    label = (
        f"{group.action_mode} · {group.domain}: {group.success_rate:.1%} "
        f"({group.passed}/{group.samples})"
    )
    parts = [
        f'<rect class="bar" x="{x:.1f}" y="{y:.1f}" width="{_BAR}" height="{height:.1f}" '
        f'fill="{COLORS[group.action_mode]}" data-mode="{group.action_mode}" '
        f'data-domain="{escape(group.domain)}"><title>{escape(label)}</title></rect>'
    ]
    if len(group.epoch_rates) > 1:
        low, high = min(group.epoch_rates), max(group.epoch_rates)
        cx = x + _BAR / 2
        y1, y2 = _TOP + _H - high * _H, _TOP + _H - low * _H
        parts.append(
            f'<path class="spread" d="M{cx:.1f} {y1:.1f}V{y2:.1f}M{cx - 4:.1f} {y1:.1f}'
            f'h8M{cx - 4:.1f} {y2:.1f}h8" stroke="#222" fill="none"/>'
        )
    return "".join(parts)


def chart_svg(summary: Summary) -> str:
    """The chart as an ``<svg>`` element."""
    modes = [m.action_mode for m in summary.modes]
    domains = [*dict.fromkeys(g.domain for g in summary.groups), "all"]
    by_key = {(g.action_mode, g.domain): g for g in [*summary.groups, *summary.modes]}
    group_w = len(modes) * _BAR + _GAP
    width = _LEFT + len(domains) * group_w + 120
    height = _TOP + _H + 30
    out = [
        f'<svg id="chart" xmlns="http://www.w3.org/2000/svg" width="{width}" '
        f'height="{height}" font-size="11">'
    ]
    for tick in range(0, 101, 25):
        y = _TOP + _H - tick / 100 * _H
        out.append(
            f'<line x1="{_LEFT}" x2="{width - 120}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e3e6ea"/>'
            f'<text x="{_LEFT - 6}" y="{y + 4:.1f}" text-anchor="end">{tick}%</text>'
        )
    for index, domain in enumerate(domains):
        x0 = _LEFT + index * group_w + _GAP / 2
        for offset, mode in enumerate(modes):
            group = by_key.get((mode, domain))
            if group is not None:
                out.append(_bar(x0 + offset * _BAR, group))
        label = domain if len(domain) <= 12 else domain[:11] + "…"
        cx = x0 + len(modes) * _BAR / 2
        out.append(
            f'<text x="{cx:.1f}" y="{_TOP + _H + 16}" text-anchor="middle">'
            f"<title>{escape(domain)}</title>{escape(label)}</text>"
        )
    for index, mode in enumerate(modes):
        y = _TOP + 10 + index * 16
        out.append(
            f'<rect x="{width - 100}" y="{y - 9}" width="10" height="10" fill="{COLORS[mode]}"/>'
            f'<text x="{width - 84}" y="{y}">{escape(mode)}</text>'
        )
    out.append("</svg>")
    return "".join(out)
