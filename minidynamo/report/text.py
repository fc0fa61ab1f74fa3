"""The text of explain(): a summary line, graph breaks grouped by cause, then one section per captured
piece (the function, each resume function, each loop body) with its graph, guards in words and entry code,
where every generated name is glossed."""

from __future__ import annotations

from typing import Any

from .pieces import Piece, category_name, make_pieces, readable_function

RULE = "─" * 78


def group_breaks(reasons: list) -> dict[str, list]:
    """Break reasons by category, categories in first-seen order."""
    groups: dict[str, list] = {}
    for r in reasons:
        groups.setdefault(category_name(r.category), []).append(r)
    return groups


def break_headline(r: Any) -> str:
    """`file.py:12 in f: [MD0009] message` (no category: the group says it; the code names its docs page)."""
    message = f"[{r.code}] {r.message}" if getattr(r, "code", None) is not None else r.message
    return f"{r.where()} in {readable_function(r.function)}: {message}" if getattr(r, "function", "") \
        else message


def break_details(r: Any) -> list[str]:
    """The lines under a break's headline: its source text, inlining stack and any eager fallback."""
    return [readable_function(line.strip()) for line in str(r).splitlines()[1:]]


def plural(n: int, noun: str, many: str = "") -> str:
    """`1 graph`, `2 graphs`, `0 graphs` (`many` for an irregular plural: plural(2, "entry", "entries"))."""
    return f"{n} {noun if n == 1 else many or noun + 's'}"


def summary(out: Any) -> str:
    return (f"explain({out.function}): {plural(out.graph_count, 'graph')}, "
            f"{plural(out.graph_break_count, 'graph break')}, {plural(out.op_count, 'op')}, "
            f"captured in {out.capture_time * 1e3:.2f} ms")


def render_text(out: Any) -> str:
    lines = [summary(out)]
    groups = group_breaks(out.break_reasons)
    if groups:
        lines += ["", "graph breaks, by cause:"]
        for category, reasons in groups.items():
            lines.append(f"  {category} ({len(reasons)}):")
            for r in reasons:
                lines.append(f"    {break_headline(r)}")
                lines += [f"      {d}" for d in break_details(r)]
    folded = getattr(out, "folded_branches", [])
    if folded:          # ifs, whiles and for loops kept inside a graph as cond / while_loop / fori_loop nodes
        lines += ["", "branches and loops captured without a break:"] + [f"  {i}. {b}" for i, b in enumerate(folded, 1)]
    pieces = make_pieces(out.fn, out.records)
    by_fn = pieces_by_function(pieces)
    for i, p in enumerate(pieces, 1):
        lines += ["", f"── {i}. {p.title} " + RULE[: max(3, 74 - len(p.title))]]
        lines += piece_text(p, by_fn, pieces)
    if not pieces:
        lines += ["", "guards: none", "", "nothing was captured"]
    return "\n".join(lines)


def pieces_by_function(pieces: list[Piece]) -> dict:
    by_fn: dict = {}
    for p in pieces:
        by_fn.setdefault(p.fn, p)
    return by_fn


def piece_text(p: Piece, by_fn: dict, pieces: list[Piece] = ()) -> list[str]:
    r = p.record
    why = p.why_captured(list(pieces))
    lines = [f"captured in {r.seconds * 1e3:.2f} ms" + (f"; {why}" if why else "")]
    if p.generated_function():
        lines.append(p.generated_function())
    if r.graph is not None and r.graph.count() > 0:
        lines += str(r.graph).splitlines()
    elif r.reason is not None and getattr(r.reason, "fallback", ""):
        lines.append(f"no graph: runs eagerly ({r.reason.fallback})")
    else:
        lines.append("no graph: no array operations before the end or the break")
    env = getattr(r, "shape_env", None)
    if env is not None and env.symbols:       # symbolic sizes: their sources and the relations guarded
        lines += ["shape environment:"] + [f"  {line}" for line in str(env).splitlines()]
    lowering = p.lowering()
    if lowering:
        lines += ["lowering:"] + [f"  {line}" for text in lowering for line in text.splitlines()]
    guards = p.guard_lines()
    lines += ["guards (all must hold to reuse this code):"] + [f"  {w}" for w, _ in guards] if guards \
        else ["guards: none"]
    lines += ["compiled entry (runs after the guards pass):"] + [f"  {c}" for c in r.entry.code]
    glossary = p.code_glossary(by_fn)
    if glossary:
        lines += ["  where:"] + [f"    {name}: {what}" for name, what in glossary]
    return lines
