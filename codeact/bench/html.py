"""``codeact bench report DIR --html FILE``: one self-contained page (no network).

What the CLI prints and more: the summary table (action mode × domain), the modes side
by side with each rate's standard error and, over several epochs, pass@k (overall and
per task), the failures by code, an inline-SVG chart of success per mode × domain (with
the spread over epochs), and every sample as a row — status, task, domain, mode, epoch,
turns, tokens, duration, tool calls, failure code, answer and expected — that opens to
its transcript. The samples sort by any column, filter by status, domain and mode, and
search by text, from the page's controls or the URL fragment
(``report.html#status=failed&domain=web_browsing&q=flight``).
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path

from codeact.bench.html_assets import page, search_box, select
from codeact.bench.html_chart import chart_svg
from codeact.bench.html_tables import failure_table, side_by_side, summary_table, task_table
from codeact.bench.logdir import write_atomic
from codeact.bench.records import RunInfo, SampleRecord, Summary
from codeact.messages import ImageDataPart, Message

#: The sample table's sortable columns: (data key, heading).
COLUMNS = (
    ("status", "status"),
    ("task", "task"),
    ("domain", "domain"),
    ("mode", "mode"),
    ("epoch", "epoch"),
    ("turns", "turns"),
    ("tokens", "tokens"),
    ("duration", "duration s"),
    ("tools", "tool calls"),
    ("failure", "failure code"),
)


def _message(message: Message) -> str:
    text = message.text()
    calls = message.tool_calls()
    if calls:
        text += "\n" + "\n".join(f"→ {c.name}({c.arguments_json()})" for c in calls)
    role = escape(str(getattr(message, "role", "?")))
    content = getattr(message, "content", "")
    images = "".join(
        f'<img class="shown" alt="an image the script showed" '
        f'src="data:{escape(p.media_type)};base64,{escape(p.data)}">'
        for p in (content if isinstance(content, list) else [])
        if isinstance(p, ImageDataPart)
    )
    return (
        f'<div class="msg"><span class="role">{role}</span><pre>{escape(text)}</pre>'
        f"{images}</div>"
    )


def value_html(value: object) -> str:
    """A JSON value, escaped for the page."""
    return escape(json.dumps(value, ensure_ascii=False))


def _details(record: SampleRecord) -> str:
    body = []
    if record.failure_message:
        body.append(f"<p class=error>{escape(record.failure_message)}</p>")
    if record.retries:
        body.append(f"<p class=meta>{len(record.retries)} model call retries</p>")
    for attempt in record.attempts:
        where = f" on node {escape(attempt.node)}" if attempt.node else ""
        body.append(f"<p class=meta>an earlier attempt{where}: {escape(attempt.failure_code)}</p>")
    if record.node:
        body.append(f"<p class=meta>ran on Ray node {escape(record.node)}</p>")
    body.append(
        f"<p class=meta>{escape(record.usage.one_line())} · seed {record.seed} · "
        f"id {escape(record.id[:16])}</p>"
    )
    transcript = record.transcript
    messages = transcript.messages if transcript else []
    body.extend(_message(m) for m in messages if getattr(m, "role", "") != "system")
    return "".join(body)


def sample_body(record: SampleRecord) -> str:
    """One sample: its row, then its details (hidden until the row is clicked)."""
    usage = record.usage
    data = {
        "status": record.status,
        "task": record.task,
        "domain": record.domain,
        "mode": record.action_mode,
        "epoch": str(record.epoch),
        "turns": str(record.turns),
        "tokens": str(usage.total_tokens),
        "duration": f"{record.duration_s:.3f}",
        "tools": str(usage.tool_calls),
        "failure": record.failure_code or "",
    }
    attrs = " ".join(f'data-{k}="{escape(v)}"' for k, v in data.items())
    cells = (
        f'<td class=l><span class="tag {record.status}">{record.status}</span></td>'
        f"<td class=l>{escape(record.task)}</td><td class=l>{escape(record.domain)}</td>"
        f"<td class=l>{record.action_mode}</td><td>{record.epoch}</td><td>{record.turns}</td>"
        f"<td>{usage.total_tokens:,}</td><td>{record.duration_s:.2f}</td>"
        f"<td>{usage.tool_calls}</td><td class=l>{escape(record.failure_code or '')}</td>"
        f"<td class=l><code>{value_html(record.answer)}</code></td>"
        f"<td class=l><code>{value_html(record.expected)}</code></td>"
    )
    span = len(COLUMNS) + 2
    return (
        f'<tbody class="sample" {attrs}><tr class="row">{cells}</tr>'
        f'<tr class="details" hidden><td colspan="{span}">{_details(record)}</td></tr></tbody>'
    )


def sample_table(records: list[SampleRecord]) -> str:
    """The controls and the table of every sample."""
    domains = sorted({r.domain for r in records})
    modes = [m for m in ("code", "json", "text") if any(r.action_mode == m for r in records)]
    controls = "".join(
        [
            select("status", ["passed", "failed", "error"]),
            select("domain", domains),
            select("mode", modes),
            search_box(),
        ]
    )
    head = "".join(
        f'<th class=l data-sort="{key}">{label}</th>'
        if key in ("status", "task", "domain", "mode", "failure")
        else f'<th data-sort="{key}">{label}</th>'
        for key, label in COLUMNS
    )
    return (
        f'<div class="controls">{controls}</div><table id="samples"><thead><tr>{head}'
        f"<th class=l>answer</th><th class=l>expected</th></tr></thead>"
        f"{''.join(sample_body(r) for r in records)}</table>"
    )


def render_report(info: RunInfo, summary: Summary, records: list[SampleRecord]) -> str:
    """The whole page as one string."""
    records = sorted(records, key=lambda r: (r.action_mode, r.domain, r.task, r.epoch))
    title = f"{summary.suite} · {summary.model} · {summary.protocol}"
    tasks = task_table(summary)
    body = (
        f"<h1>{escape(title)}</h1><p class=meta>{summary.passed}/{summary.samples} passed, "
        f"{summary.failed} failed, {summary.errors} errors · {escape(summary.usage.one_line())}"
        f" · {summary.duration_s:,.1f} s of samples · {summary.epochs} epoch(s) · policy "
        f"{escape(info.config.policy)} ({info.config.policy_digest[:12]}) · started "
        f"{escape(', '.join(info.started_at))}</p>"
        f"<h2>Summary</h2>{summary_table(summary)}"
        f'<div class="grid"><div><h2>Action modes side by side</h2>{side_by_side(summary)}'
        f"</div><div><h2>Failures by code</h2>{failure_table(records)}</div></div>"
        f"<h2>Success per action mode × domain</h2>{chart_svg(summary)}"
        + (f"<h2>Tasks over {summary.epochs} epochs</h2>{tasks}" if tasks else "")
        + f'<h2>Samples (<span id="shown">{len(records)}</span>)</h2>{sample_table(records)}'
    )
    return page(title, body)


def write_report(path: Path, info: RunInfo, summary: Summary, records: list[SampleRecord]) -> None:
    """Write the page to `path` (atomically)."""
    write_atomic(path, render_report(info, summary, records))
