"""What the bench's HTML pages share: their style sheet and the sample table's script.

The sample table (``<table id="samples">``) holds one ``<tbody class="sample">`` per
sample: a row of cells, then a hidden row with its details, shown by a click on the
first. The script filters the samples by the ``<select id="f-KEY">`` controls (each
matched against the body's ``data-KEY``) and by the search box (``#q``, against the
row's text), sorts them by a click on a ``<th data-sort="KEY">`` (numbers as numbers),
counts what is shown in ``#shown``, and keeps the filters, the search and the order in
the URL's fragment (``report.html#status=failed&q=flight&sort=-tokens``), from which a
page opens.
"""

from __future__ import annotations

from html import escape

STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d232a;max-width:1280px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:26px 0 8px}
.meta{color:#5b6570}table{border-collapse:collapse}
td,th{padding:3px 10px;text-align:right;border-bottom:1px solid #eef1f4}
th{background:#eef1f4;white-space:nowrap}td.l,th.l{text-align:left}
tr.total td{font-weight:600;border-top:1px solid #999}
.passed{color:#11713a}.failed{color:#b3261e}.error{color:#a05a00}
.better{color:#11713a;font-weight:600}.worse{color:#b3261e;font-weight:600}
.tag{display:inline-block;min-width:52px;font-weight:600;text-align:left}
th[data-sort]{cursor:pointer}th[data-sort]:after{content:" ⇅";color:#9aa4ad}
th.asc:after{content:" ▲";color:#1d232a}th.desc:after{content:" ▼";color:#1d232a}
tbody.sample tr.row{cursor:pointer}tbody.sample tr.row:hover{background:#f6f8fa}
tr.details td{text-align:left;background:#fbfcfd}
pre{white-space:pre-wrap;background:#f6f8fa;padding:6px;border-radius:4px;margin:2px 0 8px}
.role{font-weight:600;color:#5b6570}.controls{margin:6px 0 10px}
.controls select,.controls input{margin-right:12px}code{font-size:12px}
.grid{display:flex;flex-wrap:wrap;gap:28px;align-items:flex-start}
.legend span{margin-right:14px}.wide{overflow-x:auto}
table.compact td,table.compact th{padding:3px 6px;font-size:13px}
img.shown{max-width:480px;display:block;margin:2px 0 8px;border:1px solid #dde2e6}
"""

SCRIPT = """
(function(){
  var table=document.getElementById('samples'); if(!table){return;}
  var keys=Array.prototype.map.call(document.querySelectorAll('select[id^="f-"]'),
    function(el){return el.id.slice(2);});
  var q=document.getElementById('q');
  function bodies(){return Array.prototype.slice.call(table.querySelectorAll('tbody.sample'));}
  function apply(){
    var f={};keys.forEach(function(k){f[k]=document.getElementById('f-'+k).value;});
    var words=(q&&q.value||'').toLowerCase().split(/\\s+/).filter(Boolean);
    var shown=0;
    bodies().forEach(function(b){
      var text=b.querySelector('tr.row').textContent.toLowerCase();
      var ok=keys.every(function(k){return !f[k]||b.dataset[k]===f[k];})&&
        words.every(function(w){return text.indexOf(w)>=0;});
      b.hidden=!ok; if(ok){shown++;}
    });
    document.getElementById('shown').textContent=shown;
  }
  var order='';
  function save(){
    var p=new URLSearchParams();
    keys.forEach(function(k){var v=document.getElementById('f-'+k).value;if(v){p.set(k,v);}});
    if(q&&q.value){p.set('q',q.value);}
    if(order){p.set('sort',order);}
    history.replaceState(null,'','#'+p.toString()); apply();
  }
  function load(){
    var p=new URLSearchParams(location.hash.replace(/^#/,''));
    keys.forEach(function(k){var v=p.get(k);
      if(v!==null){document.getElementById('f-'+k).value=v;}});
    if(q&&p.get('q')!==null){q.value=p.get('q');}
    var s=p.get('sort');
    if(s){var th=table.querySelector('th[data-sort="'+s.replace(/^-/,'')+'"]');
      if(th){sortBy(th,s.charAt(0)!=='-');}}
    apply();
  }
  function sortBy(th,asc){
    var key=th.dataset.sort;
    order=(asc?'':'-')+key;
    table.querySelectorAll('th[data-sort]').forEach(function(h){h.classList.remove('asc','desc');});
    th.classList.add(asc?'asc':'desc');
    var items=bodies(), numeric=items.every(function(b){
      var v=b.dataset[key]; return v===''||!isNaN(parseFloat(v));});
    items.sort(function(a,b){
      var x=a.dataset[key]||'', y=b.dataset[key]||'', c;
      if(numeric){c=(parseFloat(x)||0)-(parseFloat(y)||0);}else{c=x.localeCompare(y);}
      return asc?c:-c;});
    items.forEach(function(b){table.appendChild(b);});
  }
  keys.forEach(function(k){document.getElementById('f-'+k).addEventListener('change',save);});
  if(q){q.addEventListener('input',save);}
  table.querySelectorAll('th[data-sort]').forEach(function(th){
    th.addEventListener('click',function(){sortBy(th,!th.classList.contains('asc'));save();});});
  table.addEventListener('click',function(e){
    var row=e.target.closest('tr.row'); if(!row){return;}
    var details=row.nextElementSibling; if(details){details.hidden=!details.hidden;}});
  window.addEventListener('hashchange',load);
  load();
})();
"""


def select(name: str, values: list[str]) -> str:
    """A filter control over the samples' ``data-NAME``."""
    items = "".join(f'<option value="{escape(v)}">{escape(v)}</option>' for v in values)
    return (
        f'<label>{name} <select id="f-{name}"><option value="">all</option>{items}</select></label>'
    )


def search_box() -> str:
    """The free-text search over the sample rows."""
    return '<label>search <input id="q" type="search" placeholder="task, answer, failure…"></label>'


def page(title: str, body: str) -> str:
    """A whole self-contained page: style, body, script; nothing fetched."""
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>"
        f"{body}<script>{SCRIPT}</script></body></html>"
    )
