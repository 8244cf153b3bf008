"""The report as one self-contained HTML file: no external assets, readable on a phone."""

from __future__ import annotations

from html import escape

from bot.analysis.model import FlagKind, ItemReport, OptionStats, QuestionStats
from bot.analysis.render_text import fmt, seconds, summary_lines

_CSS = """
body{font:15px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;padding:12px;
color:#1d1d1f;background:#fafafa;max-width:960px;margin-inline:auto}
h1{font-size:1.3em;margin:.2em 0}h2{font-size:1.1em;margin:1.2em 0 .4em}
#summary{background:#fff;border:1px solid #ddd;border-radius:8px;padding:8px 12px}
.figs{display:flex;flex-wrap:wrap;gap:8px;margin:.4em 0}
.fig{background:#eef3fb;border-radius:6px;padding:4px 10px}.fig b{font-size:1.2em}
.scroll{overflow-x:auto}table{border-collapse:collapse;width:100%;background:#fff}
th,td{border-bottom:1px solid #e3e3e3;padding:4px 6px;text-align:left;white-space:nowrap}
td.fl{white-space:normal;min-width:8em}
th{cursor:pointer;background:#f0f0f0;position:sticky;top:0}td.num{text-align:right}
.sev6,.sev5{color:#b00020;font-weight:600}.sev4,.sev3{color:#a05a00}.sev2,.sev1{color:#555}
.q{background:#fff;border:1px solid #ddd;border-radius:8px;padding:8px 12px;margin:10px 0}
.q h3{font-size:1em;margin:0 0 .3em;word-break:break-all}.stem{white-space:pre-wrap}
.meta{color:#555;font-size:.9em}ul.flags{margin:.3em 0;padding-left:1.2em}
.opt{margin:6px 0}.opt .t{word-break:break-word}.key{color:#0a7d32;font-weight:600}
.bar{height:10px;background:#e6e6e6;border-radius:3px;margin:2px 0;position:relative}
.bar span{display:block;height:100%;border-radius:3px}
.all span{background:#4a78c2}.up span{background:#2f9e58}.lo span{background:#d9822b}
.lbl{font-size:.85em;color:#444}.legend dt{font-weight:600}.legend dd{margin:0 0 .3em 1em}
"""

# The table comes sorted worst first; a click on a header sorts by that column (numbers
# from data-v, so sorting is numeric).
_JS = """
document.querySelectorAll('#questions th').forEach(function(th,col){
 th.addEventListener('click',function(){
  var body=th.closest('table').tBodies[0],rows=Array.from(body.rows),asc=th.dataset.asc!=='1';
  th.dataset.asc=asc?'1':'0';
  rows.sort(function(a,b){var x=a.cells[col].dataset.v,y=b.cells[col].dataset.v;
   var nx=parseFloat(x),ny=parseFloat(y);
   var c=(isNaN(nx)||isNaN(ny))?String(x).localeCompare(String(y)):nx-ny;return asc?c:-c;});
  rows.forEach(function(r){body.appendChild(r);});});});
"""


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def _bar(css: str, label: str, value: float | None) -> str:
    width = 0.0 if value is None else max(0.0, min(1.0, value)) * 100
    return (
        f'<div class="lbl">{escape(label)} {_pct(value)}</div>'
        f'<div class="bar {css}"><span style="width:{width:.1f}%"></span></div>'
    )


def _option(o: OptionStats) -> str:
    key = ' <span class="key">✓ key</span>' if o.correct else ""
    tag = f' <span class="meta">[{escape(o.misconception)}]</span>' if o.misconception else ""
    bars = _bar("all", f"picked by {o.picked},", o.share)
    if o.upper_share is not None:
        bars += _bar("up", "upper 27%", o.upper_share) + _bar("lo", "lower 27%", o.lower_share)
    return (
        f'<div class="opt"><div class="t"><b>{o.letter}</b> {escape(o.text)}{key}{tag}</div>'
        f"{bars}</div>"
    )


def _card(q: QuestionStats) -> str:
    flags = "".join(
        f'<li class="sev{f.kind.severity}"><b>{escape(f.kind.value)}</b>: {escape(f.message)}</li>'
        for f in q.flags
    )
    return (
        f'<section class="q" id="q-{escape(q.question_id)}">'
        f"<h3>{escape(q.question_id)}</h3>"
        f'<div class="meta">{escape(q.topic)} · n={q.n} ({escape(q.status.value)}) · '
        f"p={fmt(q.p)} · r={fmt(q.r)} · D={fmt(q.d)} · {seconds(q.mean_time_ms)}"
        f"{' · select several' if q.multiple else ''}</div>"
        + (f'<ul class="flags">{flags}</ul>' if flags else "")
        + f'<p class="stem">{escape(q.stem)}</p>'
        + "".join(_option(o) for o in q.options)
        + "</section>"
    )


def _row(q: QuestionStats) -> str:
    def num(value: float | None, text: str) -> str:
        v = "" if value is None else f"{value:.4f}"
        return f'<td class="num" data-v="{v}">{text}</td>'

    words = ", ".join(dict.fromkeys(f.kind.value for f in q.flags)) or "ok"
    qid = escape(q.question_id)
    return (
        f'<tr><td data-v="{qid}"><a href="#q-{qid}">{qid}</a></td>'
        f'<td data-v="{q.severity}" class="fl sev{q.severity}">{escape(words)}</td>'
        f"{num(q.n, str(q.n))}{num(q.p, fmt(q.p))}{num(q.r, fmt(q.r))}{num(q.d, fmt(q.d))}"
        f"{num(q.mean_time_ms, seconds(q.mean_time_ms))}"
        f'<td data-v="{q.status.rank}">{escape(q.status.value)}</td>'
        f'<td data-v="{escape(q.topic)}">{escape(q.topic)}</td></tr>'
    )


def _legend() -> str:
    items = "".join(
        f"<dt>{escape(k.value)}</dt><dd>{escape(k.rule)}</dd>"
        for k in sorted(FlagKind, key=lambda k: -k.severity)
    )
    return (
        f'<details><summary>What the flags mean</summary><dl class="legend">{items}</dl></details>'
    )


def render_html(report: ItemReport) -> str:
    """The whole report as one HTML document (every text escaped)."""
    title = f"Item analysis: {report.bank_title}"
    summary = "".join(f"<p>{escape(line)}</p>" for line in summary_lines(report)[1:])
    figs = "".join(
        f'<span class="fig"><b>{value}</b> {escape(label)}</span>'
        for label, value in (
            ("learners", report.learners),
            ("first attempts", report.first_attempts),
            ("questions", len(report.questions)),
            ("flagged", len(report.flagged)),
        )
    )
    head = "".join(
        f"<th>{h}</th>"
        for h in ("question", "flags", "n", "p", "r", "D", "time", "status", "topic")
    )
    topics = "".join(
        f"<tr><td>{escape(t.name)}</td><td class='num'>{t.questions}</td>"
        f"<td class='num'>{t.analysed}</td><td class='num'>{fmt(t.mean_p)}</td>"
        f"<td class='num'>{fmt(t.mean_r)}</td><td class='num'>{t.flagged}</td></tr>"
        for t in report.topics
    )
    miscs = "".join(
        f"<tr><td>{escape(m.name)}</td><td class='num'>{m.picked}/{m.exposed}</td>"
        f"<td class='num'>{_pct(m.share)}</td><td class='num'>{_pct(m.upper_share)}</td>"
        f"<td class='num'>{_pct(m.lower_share)}</td></tr>"
        for m in report.misconceptions
    )
    misc_table = (
        "<h2>Misconceptions</h2><div class='scroll'><table><thead><tr><th>misconception</th>"
        "<th>picked</th><th>share</th><th>upper</th><th>lower</th></tr></thead>"
        f"<tbody>{miscs}</tbody></table></div>"
        if miscs
        else ""
    )
    reported = "".join(
        f"<tr><td><code>{escape(q.question_id)}</code></td><td class='num'>{q.learners}</td>"
        f"<td>{escape(q.reason_words())}</td><td>{escape(q.review or '')}</td>"
        f"<td>{'<br>'.join(escape(c) for c in q.comments)}</td></tr>"
        for q in report.reported
    )
    reported_table = (
        "<h2>Learners' reports</h2><div class='scroll'><table id='reports'><thead><tr>"
        "<th>question</th><th>learners</th><th>why</th><th>for review</th><th>comments</th>"
        f"</tr></thead><tbody>{reported}</tbody></table></div>"
        if reported
        else ""
    )
    return (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width,initial-scale=1">'
        f"<title>{escape(title)}</title><style>{_CSS}</style></head><body>"
        f"<h1>{escape(title)}</h1>"
        f'<section id="summary"><div class="figs">{figs}</div>{summary}{_legend()}</section>'
        "<h2>Questions, worst first</h2>"
        f'<div class="scroll"><table id="questions"><thead><tr>{head}</tr></thead><tbody>'
        + "".join(_row(q) for q in report.questions)
        + "</tbody></table></div>"
        + reported_table
        + "<h2>Topics</h2><div class='scroll'><table><thead><tr><th>topic</th><th>questions</th>"
        "<th>analysed</th><th>mean p</th><th>mean r</th><th>flagged</th></tr></thead>"
        f"<tbody>{topics}</tbody></table></div>{misc_table}"
        "<h2>Questions in detail</h2>"
        + "".join(_card(q) for q in report.questions)
        + f"<script>{_JS}</script></body></html>\n"
    )
