"""``codeact bench report DIR --html FILE``: one self-contained page (no network).

The summary table, an inline-SVG chart of success per action mode × domain (with the
spread over epochs when there are several), and every sample with its status, answer
versus expected and its transcript, collapsible. The sample list filters by status,
domain and mode, from the page's controls or from the URL fragment
(``report.html#status=failed&domain=web_browsing&mode=code``).
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path

from codeact.bench.html_chart import chart_svg
from codeact.bench.logdir import write_atomic
from codeact.bench.records import RunInfo, SampleRecord, Summary
from codeact.messages import ImageDataPart, Message

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d232a;max-width:1200px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px}
.meta{color:#5b6570}table{border-collapse:collapse}td,th{padding:3px 10px;text-align:right}
th{background:#eef1f4}td.l,th.l{text-align:left}
tr.total td{font-weight:600;border-top:1px solid #999}
.passed{color:#11713a}.failed{color:#b3261e}.error{color:#a05a00}
details.sample{border:1px solid #dde2e6;border-radius:6px;margin:4px 0;padding:4px 10px}
details.sample>summary{cursor:pointer}.tag{display:inline-block;min-width:52px;font-weight:600}
pre{white-space:pre-wrap;background:#f6f8fa;padding:6px;border-radius:4px;margin:2px 0 8px}
.role{font-weight:600;color:#5b6570}.filters select{margin-right:12px}
img.shown{max-width:480px;display:block;margin:2px 0 8px;border:1px solid #dde2e6}
"""

_SCRIPT = """
(function(){
  var ids=['status','domain','mode'];
  function apply(){
    var f={};ids.forEach(function(k){f[k]=document.getElementById('f-'+k).value;});
    var shown=0;
    document.querySelectorAll('details.sample').forEach(function(el){
      var ok=ids.every(function(k){return !f[k]||el.dataset[k]===f[k];});
      el.hidden=!ok; if(ok){shown++;}
    });
    document.getElementById('shown').textContent=shown;
  }
  function fromHash(){
    var params=new URLSearchParams(location.hash.replace(/^#/,''));
    ids.forEach(function(k){var v=params.get(k);
      if(v!==null){document.getElementById('f-'+k).value=v;}});
    apply();
  }
  ids.forEach(function(k){document.getElementById('f-'+k).addEventListener('change',function(){
    var params=new URLSearchParams();
    ids.forEach(function(j){var v=document.getElementById('f-'+j).value;if(v){params.set(j,v);}});
    history.replaceState(null,'','#'+params.toString()); apply();});});
  window.addEventListener('hashchange',fromHash);
  fromHash();
})();
"""


def _summary_table(summary: Summary) -> str:
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


def _options(name: str, values: list[str]) -> str:
    items = "".join(f'<option value="{escape(v)}">{escape(v)}</option>' for v in values)
    return (
        f'<label>{name} <select id="f-{name}"><option value="">all</option>{items}</select></label>'
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


def _value(value: object) -> str:
    return escape(json.dumps(value, ensure_ascii=False))


def _sample(record: SampleRecord) -> str:
    code = f" · {escape(record.failure_code)}" if record.failure_code else ""
    head = (
        f'<span class="tag {record.status}">{record.status}</span> {escape(record.task)} '
        f"<span class=meta>[{record.action_mode} · epoch {record.epoch} · {record.turns} turns"
        f"{code}]</span> answer <code>{_value(record.answer)}</code> expected "
        f"<code>{_value(record.expected)}</code>"
    )
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
    transcript = record.transcript
    messages = transcript.messages if transcript else []
    body.extend(_message(m) for m in messages if getattr(m, "role", "") != "system")
    return (
        f'<details class="sample" data-status="{record.status}" '
        f'data-domain="{escape(record.domain)}" data-mode="{record.action_mode}" '
        f'data-task="{escape(record.task)}"><summary>{head}</summary>{"".join(body)}</details>'
    )


def render_report(info: RunInfo, summary: Summary, records: list[SampleRecord]) -> str:
    """The whole page as one string."""
    records = sorted(records, key=lambda r: (r.action_mode, r.domain, r.task, r.epoch))
    domains = sorted({r.domain for r in records})
    modes = [m for m in ("code", "json", "text") if any(r.action_mode == m for r in records)]
    filters = "".join(
        [
            _options("status", ["passed", "failed", "error"]),
            _options("domain", domains),
            _options("mode", modes),
        ]
    )
    title = f"{summary.suite} · {summary.model} · {summary.protocol}"
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head><body>"
        f"<h1>{escape(title)}</h1><p class=meta>{summary.passed}/{summary.samples} passed, "
        f"{summary.failed} failed, {summary.errors} errors · {escape(summary.usage.one_line())}"
        f" · policy {escape(info.config.policy)} ({info.config.policy_digest[:12]}) · "
        f"started {escape(', '.join(info.started_at))}</p>"
        f"<h2>Summary</h2>{_summary_table(summary)}"
        f"<h2>Success per action mode × domain</h2>{chart_svg(summary)}"
        f'<h2>Samples (<span id="shown">{len(records)}</span>)</h2>'
        f'<div class="filters">{filters}</div>'
        f'<div id="samples">{"".join(_sample(r) for r in records)}</div>'
        f"<script>{_SCRIPT}</script></body></html>"
    )


def write_report(path: Path, info: RunInfo, summary: Summary, records: list[SampleRecord]) -> None:
    """Write the page to `path` (atomically)."""
    write_atomic(path, render_report(info, summary, records))
