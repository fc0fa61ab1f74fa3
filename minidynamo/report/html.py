"""The HTML report: one self-contained page (inline CSS, JS and SVG) for one or more compiled functions.

`write_page(path, title, outputs)` takes ExplainOutputs (one per compiled function) and writes the page:
an index when there are several, then per function its source with each break's line marked (a marker
shows category, reason and inlining stack), breaks grouped by cause, recompiles with the guard that failed,
and one panel per captured piece: its graph as an SVG DAG, its guards in words, its entry code with every
generated name glossed, and a resume function's bytecode, folded away.
"""

from __future__ import annotations

import dis
import inspect
import linecache
import os
import re
import time
from html import escape
from pathlib import Path
from typing import Any

from .assets import CSS, JS
from .pieces import Piece, PieceKind, Recapture, category_name, make_pieces, readable_function
from .svg import draw_graph
from .text import break_details, group_breaks, pieces_by_function, plural


def write_page(path: Any, title: str, outputs: list, note: str = "") -> Path:
    """Write the page for `outputs` (ExplainOutputs) to `path`; returns the path."""
    path = Path(path)
    path.write_text(render_page(title, outputs, note), encoding="utf-8")
    return path


def render_page(title: str, outputs: list, note: str = "") -> str:
    # One section per function, folded (a <details>) except the first: a run of five functions is an
    # index and five headings, not a page 16,000 px tall; the index links and break markers open theirs.
    sections = [_function_section(out, f"fn{i}", i == 0) for i, out in enumerate(outputs)]
    index = _index(outputs) if len(outputs) > 1 or note else ""
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>"
        f'<header class="top"><h1>minidynamo capture report</h1><div class="sub">{escape(title)}'
        f"{' · ' + escape(note) if note else ''} · {stamp}</div></header><main>{index}{''.join(sections)}</main>"
        '<div id="brk-detail" hidden><span class="cat"></span><code class="where"></code>'
        '<p class="reason"></p><p class="hint"></p><pre hidden></pre></div>'
        f"<script>{JS}</script></body></html>")


# ---- the index of a run -------------------------------------------------------------------------------

def function_counts(out: Any) -> dict[str, Any]:
    """Captures, graphs, ops, breaks and cache hits over all pieces, recompiles once per cause, calls of
    the function itself (its captures and hits), and capture time."""
    pieces = make_pieces(out.fn, out.records)
    own = [p for p in pieces if p.kind is PieceKind.FUNCTION]
    return {"captures": len(out.records), "graphs": out.graph_count, "ops": out.op_count,
            "breaks": out.graph_break_count, "recompiles": len(_causes(pieces)),
            "calls": len(own) + sum(p.hits for p in own), "hits": sum(p.hits for p in pieces),
            "ms": out.capture_time * 1e3}


_COUNTED = {"captures": ("capture", "captures"), "graphs": ("graph", "graphs"), "ops": ("op", "ops"),
            "breaks": ("break", "breaks"), "recompiles": ("recompile", "recompiles"), "calls": ("call", "calls"),
            "hits": ("cache hit (all pieces)", "cache hits (all pieces)")}


def _causes(pieces: list[Piece]) -> list[Piece]:
    """Recompiles, once per cause: not the pieces that captured again in the same call because of one."""
    return [p for p in pieces if p.recapture is Recapture.RECOMPILE and getattr(p.record, "cause", None) is None]


def _index(outputs: list) -> str:
    rows = []
    for i, out in enumerate(outputs):
        c = function_counts(out)
        where = _where(out.fn)
        rows.append(f'<tr><td><a href="#fn{i}">{escape(out.function)}</a> <span class="meta">{escape(where)}'
                    f'</span></td>' + "".join(f'<td class="n">{c[k]}</td>' for k in
                                              ("captures", "graphs", "ops", "breaks", "recompiles", "calls",
                                               "hits"))
                    + f'<td class="n">{c["ms"]:.1f}</td></tr>')
    head = "".join(f"<th>{h}</th>" for h in ("compiled function", "captures", "graphs", "ops", "breaks",
                                             "recompiles", "calls", "cache hits", "capture ms"))
    return (f'<h2 id="index">Compiled functions ({len(outputs)})</h2>'
            f'<table class="index"><thead><tr>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table>')


def _rich(text: str) -> str:
    """Escaped text with `code spans` set in code type, as the words of titles and guards use them."""
    parts = escape(text).split("`")
    return "".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts)) if len(parts) % 2 \
        else escape(text)


def _where(fn: Any) -> str:
    code = getattr(fn, "__code__", None)
    return f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}" if code is not None else ""


# ---- one compiled function ----------------------------------------------------------------------------

def _function_section(out: Any, sid: str, open_: bool = True) -> str:
    pieces = make_pieces(out.fn, out.records)
    for p in pieces:
        p.anchor = f"{sid}-{p.anchor}"
    by_fn = pieces_by_function(pieces)
    c = function_counts(out)
    stats = "".join(
        f'<span class="stat{" bad" if k in ("breaks", "recompiles") and c[k] else ""}" data-count="{k}"><b>{v}</b> '
        f'{escape(_COUNTED[k][v != 1])}</span>' for k, v in c.items() if k != "ms") + \
        f'<span class="stat"><b>{c["ms"]:.2f}</b> ms capture</span>'
    parts = [f'<section class="function" id="{sid}"><details class="fn"{" open" if open_ else ""}><summary>'
             f'<h2>{escape(out.function)} <span class="meta">{escape(_where(out.fn))}</span></h2>'
             f'<div class="stats">{stats}</div></summary>']
    markers = _Markers(sid)
    parts.append(_source(out, markers, pieces))
    parts.append(_breaks(out, markers))
    parts.append(_recompiles(pieces))
    parts.append(f"<h3>Captured pieces ({len(pieces)})</h3>")
    parts += [_piece(p, by_fn, pieces) for p in pieces]
    parts.append("</details></section>")
    return "".join(parts)


class _Markers:
    """Break marker buttons: each carries its break's category, location, reason and inlining stack."""

    def __init__(self, sid: str) -> None:
        self.sid, self.count = sid, 0

    def button(self, r: Any) -> str:
        self.count += 1
        category = category_name(r.category)
        stack = "\n".join(readable_function(s) for s in reversed(getattr(r, "stack", []) or []))
        fallback = getattr(r, "fallback", "")
        reason = r.message + (f" (the whole frame runs eagerly: {fallback})" if fallback else "")
        code = getattr(r, "code", None)
        hint = f'data-code="{escape(code.code)}" data-hint="{escape(code.hint)}" ' if code is not None else ""
        where = f"{r.where()} in {readable_function(getattr(r, 'function', ''))}"
        return (f'<button class="brk" id="{self.sid}-brk{self.count}" data-category="{escape(category)}" '
                f'data-where="{escape(where)}" data-reason="{escape(reason)}" data-stack="{escape(stack)}" {hint}'
                f'title="{escape(category)}: {escape(reason)}">break</button>')


_CALL_SITE = re.compile(r"\(([^()]+):(\d+)\)")


def _break_lines(out: Any) -> dict[tuple[str, int], list]:
    """(file, line) -> the breaks to mark there: where each break happened, and the call sites of the
    functions it was inlined from (its stack), so a break in a helper shows on the caller's line too."""
    at: dict[tuple[str, int], list] = {}
    for r in out.break_reasons:
        places = [(r.filename, r.lineno)] if r.filename and r.lineno is not None else []
        places += [(m.group(1), int(m.group(2))) for s in getattr(r, "stack", []) or []
                   for m in [_CALL_SITE.search(s)] if m]
        for filename, line in places:
            at.setdefault((os.path.realpath(filename), line), []).append(r)
    return at


def _source(out: Any, markers: _Markers, pieces: list[Piece]) -> str:
    """The compiled function's source, and that of each helper that broke, with break markers."""
    at = _break_lines(out)
    fns = [out.fn] + [p.fn for p in pieces if p.kind is PieceKind.HELPER]
    parts = []
    for fn in dict.fromkeys(fns):
        try:
            lines, start = inspect.getsourcelines(fn)
            filename = os.path.realpath(inspect.getsourcefile(fn) or "")
        except (OSError, TypeError):
            continue
        rows = []
        for k, text in enumerate(lines, start):
            here = at.get((filename, k), [])
            mark = "".join(markers.button(r) for r in here) or '<span class="brk off">break</span>'
            cls = "ln hasbrk" if here else "ln"
            rows.append(f'<span class="{cls}"><span class="no">{k}</span>{mark}{escape(text.rstrip())}</span>')
        head = "" if fn is out.fn else f"<h4>helper {escape(fn.__qualname__)}</h4>"
        parts.append(f'{head}<pre class="source">{"".join(rows)}</pre>')
    return "<h3>Source</h3>" + ("".join(parts) or '<p class="meta">(source not available)</p>')


def _code_link(r: Any) -> str:
    """The break's code, linked to its page (docs/breaks/<code>.md) when the docs are beside the package."""
    code = getattr(r, "code", None)
    if code is None:
        return ""
    text = f'<span class="code" title="{escape(code.title)}">{escape(code.code)}</span>'
    return (f'<a href="{escape(code.url)}">{text}</a> ' if code.url else text + " ")


def _breaks(out: Any, markers: _Markers) -> str:
    groups = group_breaks(out.break_reasons)
    if not groups:
        return "<h3>Graph breaks</h3><p>None: every call was captured without a break.</p>"
    items = []
    for category, reasons in groups.items():
        items.append(f'<h4><span class="cat">{escape(category)}</span>{plural(len(reasons), "break")}</h4><ul class="breaks">')
        for r in reasons:
            details = "".join(f"<div>{_rich(d)}</div>" for d in break_details(r))
            context = _context(r)
            items.append(f"<li>{markers.button(r)}<b>{escape(r.where())}</b> in "
                         f"{escape(readable_function(r.function))}: {_code_link(r)}"
                         f"{escape(r.message)}{details}{context}</li>")
        items.append("</ul>")
    return f"<h3>Graph breaks by cause ({len(out.break_reasons)})</h3>{''.join(items)}"


def _context(r: Any) -> str:
    if not r.filename or r.lineno is None:
        return ""
    lines = [(k, linecache.getline(r.filename, k).rstrip()) for k in range(max(1, r.lineno - 2), r.lineno + 3)]
    body = "".join(f'<span class="ln{" hasbrk" if k == r.lineno else ""}"><span class="no">{k}</span>'
                   f"{escape(t)}</span>" for k, t in lines if t or k <= r.lineno)
    return f'<details><summary>context</summary><pre class="source">{body}</pre></details>'


def _recompiles(pieces: list[Piece]) -> str:
    """Recompiles, once per cause, each with the pieces that captured again in the same call because of it.
    A branch at a break going another way is a new path, not a recompile: its piece says so."""
    causes = _causes(pieces)
    if not causes:
        return ""
    return f"<h3>Recompiles ({len(causes)})</h3><ul>{''.join(_recompile(p, pieces) for p in causes)}</ul>"


def _recompile(p: Piece, pieces: list[Piece]) -> str:
    """Why the newest cached entry missed (the one a reader compares with), the older ones folded away."""
    *older, newest = p.failed_guards or ["(no reason recorded)"]
    rest = "" if not older else (f"<details><summary>and {plural(len(older), 'older entry', 'older entries')}"
                                 f"</summary>" + "<br>".join(f"<code>{escape(f)}</code>" for f in older)
                                 + "</details>")
    then = [q for q in pieces if q.record is not p.record and getattr(q.record, "cause", None) is p.record
            and q.recapture is Recapture.RECOMPILE]
    also = "" if not then else ("<div class=\"meta\">in the same call, so also captured again: " + ", ".join(
        f'<a href="#{q.anchor}">{_rich(q.title)}</a>' for q in then) + "</div>")
    return (f'<li class="recompile"><a href="#{p.anchor}">{_rich(p.title)}</a>: captured again because '
            f"<code>{escape(newest)}</code>{rest}{also}</li>")


def _piece(p: Piece, by_fn: dict, pieces: list[Piece]) -> str:
    r = p.record
    why = p.why_captured(pieces)
    meta = (f"{escape(os.path.basename(p.filename))}:{p.lineno} · captured in {r.seconds * 1e3:.2f} ms · "
            f"{plural(p.hits, 'cache hit')}" + (f"<br>{_rich(why)}" if why else "")
            + (f"<br>{escape(p.generated_function())}" if p.generated_function() else ""))
    parts = [f'<article class="piece" id="{p.anchor}"><div class="kind">{p.kind.value}</div>'
             f"<h3>{_rich(p.title)}</h3><div class=\"meta\">{meta}</div>"]
    parts.append('<div class="piece-body"><div class="piece-graph">')
    if r.graph is not None and r.graph.count() > 0:
        g = r.graph
        parts.append(f'<div class="legend"><span><i style="background:#ddf4ff;border-color:#54aeff"></i>input'
                     f'</span><span><i style="background:#fff;border-color:#8c959f"></i>op</span><span><i style='
                     f'"background:#dafbe1;border-color:#4ac26b"></i>outputs</span><span>{len(g.nodes)} nodes, '
                     f"{g.count()} ops</span></div>")
        parts.append(f'<div class="graph-wrap">{_GRAPH_TOOLS}{draw_graph(g, p.anchor)}</div>')
        parts.append(f"<details><summary>Graph as text</summary><pre>{escape(str(g))}</pre></details>")
    elif r.reason is not None and getattr(r.reason, "fallback", ""):
        parts.append(f"<p>No graph: this code runs eagerly ({escape(r.reason.fallback)}).</p>")
    else:
        parts.append("<p>No graph: no array operations before the end or the break.</p>")
    parts.append('</div><div class="piece-info">')
    lowering = p.lowering()
    if lowering:
        parts.append(f"<details open><summary>Lowering</summary><pre>{escape(chr(10).join(lowering))}</pre></details>")
    guards = p.guard_lines()
    items = "".join(f"<li>{_rich(w)}<br><code>{escape(exact)}</code></li>" for w, exact in guards)
    parts.append(f"<details open><summary>Guards ({len(guards)}): all must hold to reuse this code</summary>"
                 f'<ul class="guards">{items or "<li>none</li>"}</ul></details>')
    gloss = "".join(f"<dt>{escape(n)}</dt><dd>{_rich(w)}</dd>" for n, w in p.code_glossary(by_fn))
    parts.append(f"<details><summary>Compiled entry (runs after the guards pass)</summary>"
                 f'<pre>{escape(chr(10).join(r.entry.code))}</pre><dl class="gloss">{gloss}</dl></details>')
    if p.kind in (PieceKind.RESUME, PieceKind.LOOP):
        parts.append(f"<details><summary>Bytecode of the resume function {escape(p.fn.__name__)}</summary>"
                     f"<pre>{escape(_bytecode(p.fn))}</pre></details>")
    parts.append("</div></div></article>")
    return "".join(parts)


# The drawing starts fitted to its box, so wide graphs keep their right side and tall ones their output
# node; these zoom it (the page's script changes the viewBox), and dragging pans.
_GRAPH_TOOLS = ('<div class="graph-tools"><button type="button" data-zoom="in" title="zoom in">+</button>'
                '<button type="button" data-zoom="out" title="zoom out">−</button>'
                '<button type="button" data-zoom="fit" title="show the whole graph">fit</button></div>')


def _bytecode(fn: Any) -> str:
    try:
        return dis.Bytecode(fn).dis()
    except (TypeError, ValueError) as e:
        return f"(not available: {e})"
