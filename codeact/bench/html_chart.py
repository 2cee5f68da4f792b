"""The report's chart: inline SVG bars of success rate per domain, one bar per action
mode (like the paper's comparison figure), with a min–max whisker over epochs.

Each bar carries its rate above it. Domain names are written slanted under their
group, in full up to :data:`_LABEL_CHARS` characters (the whole name in a tooltip), with
the margins sized to the longest: they never overlap, whatever the number of modes.
"""

from __future__ import annotations

import math
from html import escape

from codeact.bench.records import GroupStats, Summary

COLORS = {"code": "#2f6fb3", "json": "#e08a1e", "text": "#6a9f3a"}
_BAR, _GAP, _H, _TOP, _LEFT = 22, 26, 180, 22, 44
#: Longest domain label written out; the angle it is written at; a character's width.
_LABEL_CHARS, _SLANT, _CHAR_W = 28, math.radians(35), 6.2


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
        f'data-domain="{escape(group.domain)}"><title>{escape(label)}</title></rect>',
        f'<text class="rate" x="{x + _BAR / 2:.1f}" y="{y - 3:.1f}" text-anchor="middle" '
        f'font-size="9">{group.success_rate:.0%}</text>',
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


def _label(domain: str) -> str:
    return domain if len(domain) <= _LABEL_CHARS else domain[: _LABEL_CHARS - 1] + "…"


def chart_svg(summary: Summary) -> str:
    """The chart as an ``<svg>`` element."""
    modes = [m.action_mode for m in summary.modes]
    domains = [*dict.fromkeys(g.domain for g in summary.groups), "all"]
    by_key = {(g.action_mode, g.domain): g for g in [*summary.groups, *summary.modes]}
    group_w = max(len(modes), 1) * _BAR + _GAP
    longest = max(len(_label(d)) for d in domains) * _CHAR_W
    # A slanted label reaches left of its group's centre and below the axis.
    left = max(_LEFT, longest * math.cos(_SLANT) - group_w / 2 + 8)
    plot_w = len(domains) * group_w
    width = left + plot_w + 110
    height = _TOP + _H + 14 + longest * math.sin(_SLANT) + 12
    out = [
        f'<svg id="chart" xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" '
        f'height="{height:.0f}" font-size="11">'
    ]
    for tick in range(0, 101, 25):
        y = _TOP + _H - tick / 100 * _H
        out.append(
            f'<line x1="{left:.1f}" x2="{left + plot_w:.1f}" y1="{y:.1f}" y2="{y:.1f}" '
            f'stroke="#e3e6ea"/><text x="{left - 6:.1f}" y="{y + 4:.1f}" '
            f'text-anchor="end">{tick}%</text>'
        )
    for index, domain in enumerate(domains):
        x0 = left + index * group_w + _GAP / 2
        for offset, mode in enumerate(modes):
            group = by_key.get((mode, domain))
            if group is not None:
                out.append(_bar(x0 + offset * _BAR, group))
        cx, cy = x0 + len(modes) * _BAR / 2, _TOP + _H + 14
        out.append(
            f'<text class="domain" x="{cx:.1f}" y="{cy:.1f}" text-anchor="end" '
            f'transform="rotate(-{math.degrees(_SLANT):.0f} {cx:.1f} {cy:.1f})">'
            f"<title>{escape(domain)}</title>{escape(_label(domain))}</text>"
        )
    for index, mode in enumerate(modes):
        y = _TOP + 10 + index * 16
        x = left + plot_w + 20
        out.append(
            f'<rect x="{x:.1f}" y="{y - 9}" width="10" height="10" fill="{COLORS[mode]}"/>'
            f'<text x="{x + 16:.1f}" y="{y}">{escape(mode)}</text>'
        )
    out.append("</svg>")
    return "".join(out)
