"""Tracing versus scripting, measured: the seed's examples (simple_op, conditional_op, a data-dependent loop)
and the whole corpus through every front end: `trace` in its three modes, `LazyRunner`, `script`, and
`compile` with and without auto_cond.

Per front end: captured, correct on fresh inputs (a new seed, and inputs taking the other path), graphs,
breaks (for compile also branches folded into cond/while_loop nodes), capture time (the first call or the
trace, median ms) and warm overhead (median per-call time over eager's, timed side by side per round).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

import minidynamo as md
from minidynamo import config

from .corpus import MODELS, Model, TraceSpec
from .frontends import (Outcome, _agree, call_eager, fresh_inputs, lazy_call, run_compile, run_lazy, run_trace,
                        traced_call)
from .report import table, write
from .timing import Progress, interleaved, quiet, ratios, time_limit, Spread

FRONT_ENDS = ("trace:error", "trace:specialize", "trace:guard", "LazyRunner", "script", "compile",
              "compile:no-auto_cond")


# ---- the seed's examples ---------------------------------------------------------------------------------

def simple_op(a, b):
    c = a + b
    d = c * 2
    return d


def conditional_op(x, threshold):
    if x.sum() > threshold:
        return x * 2
    else:
        return x + 1


def newton_sqrt(x):
    y = x
    while np.abs(y * y / x - 1.0).max() > 1e-12:
        y = 0.5 * (y + x / y)
    return y


def _vec(seed: int, sign: float = 1.0) -> np.ndarray:
    return sign * (np.abs(np.random.default_rng(seed).standard_normal(16)) + 0.1)


SEED_EXAMPLES = [
    Model("seed:simple_op", simple_op, lambda size, seed: (_vec(seed), _vec(seed + 7)), "seed example",
          TraceSpec(("a", "b"))),
    Model("seed:conditional_op", conditional_op, lambda size, seed: (_vec(seed), 0.0), "seed example",
          TraceSpec(("x",)), other=lambda size, seed: (_vec(seed, -1.0), 0.0)),
    Model("seed:newton_loop", newton_sqrt, lambda size, seed: (_vec(seed) * 9,), "data-dependent loop",
          TraceSpec(("x",)), other=lambda size, seed: (_vec(seed) * 1e4,)),
]


@dataclass
class Row:
    outcome: Outcome
    folded: int = 0
    kept: list[str] = field(default_factory=list)     # data-dependent breaks compile kept (line: reason)
    capture_ms: float | None = None
    overhead: Spread | None = None
    notes: list[str] = field(default_factory=list)


# ---- front ends not in frontends.py ------------------------------------------------------------------------

def run_script(model: Model, limit: float) -> Outcome:
    out = Outcome()
    fn = model.function("small")
    try:
        with time_limit(limit), quiet():
            scripted = md.script(fn)
            scripted(*model.build("small", 0))        # a ScriptError here is "not captured", with its line
    except Exception as e:
        out.error = f"{type(e).__name__}: {str(e).splitlines()[0][:160] if str(e) else ''}"
        return out
    out.captured = True
    for label, build in [("the example", lambda: model.build("small", 0))] + fresh_inputs(model):
        if not _agree(call_eager(scripted, build()), call_eager(fn, build())):
            out.error = out.error or f"differs from eager on {label}"
    out.graphs = len(scripted.graphs)
    out.equal = not out.error
    return out


def run(name: str, model: Model, limit: float) -> Row:
    if name.startswith("trace:"):
        return Row(run_trace(model, name.split(":")[1], limit))
    if name == "LazyRunner":
        return Row(run_lazy(model, limit))
    if name == "script":
        return Row(run_script(model, limit))
    with config.patch(auto_cond=name == "compile"):
        outcome = run_compile(model, limit)
        folded, kept = 0, []
        if outcome.captured:
            with quiet():
                out = md.explain(model.function("small"))(*model.build("small", 0))
            folded = len(out.folded_branches)
            kept = [f"line {b.lineno} `{b.source_line}`: {b.message}" for b in out.break_reasons
                    if b.category == "data_dependent"]
    return Row(outcome, folded, kept)


# ---- timing -------------------------------------------------------------------------------------------------

def prepared(name: str, model: Model) -> tuple[Callable[[], Any], float] | None:
    """A no-argument call of the captured program and the capture time in ms, or None."""
    fn = model.function("small")
    args = model.build("small", 0)
    start = time.perf_counter()
    if name.startswith("trace:"):
        adapted, shapes, params, positions = traced_call(model, args)
        example = {n: args[p] for n, p in zip(shapes, positions)}
        graph = md.trace(adapted, shapes, params, mode=name.split(":")[1], example=example)
        inputs = {n: args[p] for n, p in zip(shapes, positions)}
        return (lambda: md.run(graph, inputs)), (time.perf_counter() - start) * 1e3
    if name == "LazyRunner":
        lazy_call(fn, args)
        return (lambda: lazy_call(fn, args)), (time.perf_counter() - start) * 1e3
    if name == "script":
        scripted = md.script(fn)
        scripted(*args)
        return (lambda: scripted(*args)), (time.perf_counter() - start) * 1e3
    with config.patch(auto_cond=name == "compile"):
        compiled = md.compile(fn)
        compiled(*args)
    return (lambda: compiled(*args)), (time.perf_counter() - start) * 1e3


def time_row(name: str, model: Model, row: Row, rounds: int, limit: float) -> None:
    if not (row.outcome.captured and row.outcome.equal):
        return
    try:
        with time_limit(limit), quiet():
            call, row.capture_ms = prepared(name, model)
            args = model.build("small", 0)
            fn = model.function("small")
            times = interleaved({"eager": lambda: fn(*args), "fe": call}, rounds, 2e6)
        row.overhead = Spread.of(ratios(times["fe"], times["eager"]))
    except Exception as e:     # a benchmark, not the package: a model that fails to time is noted
        row.notes.append(f"not timed: {type(e).__name__}")


# ---- the table ----------------------------------------------------------------------------------------------

def measure(models: list[Model], limit: float, rounds: int) -> dict[str, dict[str, Row]]:
    progress = Progress("scripting", len(models))
    results: dict[str, dict[str, Row]] = {}
    for m in models:
        rows = {}
        for fe in FRONT_ENDS:
            rows[fe] = run(fe, m, limit)
            time_row(fe, m, rows[fe], rounds, limit)
        results[m.name] = rows
        progress.step(m.name + ": " + " ".join(f"{fe}={_mark(r)}" for fe, r in rows.items()))
    return results


def _mark(row: Row) -> str:
    o = row.outcome
    return "✓" if o.captured and o.equal else ("≠" if o.captured else "✗")


def _cell(row: Row) -> str:
    o = row.outcome
    if not o.captured:
        return "✗"
    text = _mark(row) + f" {o.graphs}g" + (f"/{o.breaks}b" if o.breaks else "") + \
        (f"/{row.folded}f" if row.folded else "")
    if row.overhead is not None:
        text += f" {row.capture_ms:.1f}ms {row.overhead.median:.2f}×"
    return text


def summarize(results: dict[str, dict[str, Row]]) -> dict[str, dict]:
    out = {}
    for fe in FRONT_ENDS:
        rows = [r[fe] for r in results.values()]
        timed = [r for r in rows if r.overhead is not None]
        out[fe] = {"models": len(rows), "captured": sum(r.outcome.captured for r in rows),
                   "equal": sum(r.outcome.captured and r.outcome.equal for r in rows),
                   "wrong": sum(r.outcome.captured and not r.outcome.equal for r in rows),
                   "one_graph": sum(r.outcome.captured and r.outcome.equal and r.outcome.graphs <= 1
                                    and r.outcome.breaks == 0 for r in rows),
                   "breaks": sum(r.outcome.breaks for r in rows if r.outcome.captured),
                   "folded": sum(r.folded for r in rows),
                   "capture_ms": Spread.of([r.capture_ms for r in timed]) if timed else None,
                   "overhead": Spread.of([r.overhead.median for r in timed]) if timed else None}
    return out


def render(models: list[Model], results: dict[str, dict[str, Row]], quick: bool) -> str:
    s = summarize(results)
    n = len(models)
    head = ["front end", "captured", "correct on fresh / other-path inputs", "wrong results",
            "one graph, no break", "breaks (total)", "branches folded", "capture ms (median)",
            "warm time / eager (median)"]
    body = [[f"`{fe}`", f"{r['captured']}/{n}", f"{r['equal']}/{n}", r["wrong"], f"{r['one_graph']}/{n}",
             r["breaks"], r["folded"] if fe.startswith("compile") else "—",
             r["capture_ms"].fmt(digits=1) if r["capture_ms"] else "—",
             r["overhead"].fmt(digits=2, unit="×") if r["overhead"] else "—"] for fe, r in s.items()]
    text = [table(head, body), "",
            "Seed examples first (simple_op, conditional_op, a Newton loop), then the corpus. `trace` records one "
            "path: in mode `error` it refuses a data-dependent branch, `specialize` follows the example (wrong on "
            "the other path), `guard` records the branch as a guard (refuses the other path). `LazyRunner` "
            "flushes a graph at every branch. `script` compiles the source with cond/while_loop nodes (a "
            "ScriptError for constructs outside its subset); `compile` captures bytecode, with auto_cond "
            "folding pure-arm branches into cond/while_loop nodes, or breaking at them when off. Capture time is "
            "the first call (or the trace); warm time is timed side by side with eager in each round "
            "(median of per-round ratios; median over models).", "", "## Per program", ""]
    grid = [[m.name, m.style] + [_cell(results[m.name][fe]) for fe in FRONT_ENDS] for m in models]
    text.append(table(["program", "style"] + [f"`{fe}`" for fe in FRONT_ENDS], grid))
    text += ["", "✓ captured and correct, ≠ captured but differs from eager, ✗ not captured; `Ng/Mb/Kf`: N graphs, "
             "M breaks, K branches folded; then capture ms and warm time over eager.", "",
             "## Why not captured or not correct (first line)", ""]
    why = [[m.name, f"`{fe}`", results[m.name][fe].outcome.error.replace("|", "\\|")]
           for m in models for fe in FRONT_ENDS if results[m.name][fe].outcome.error]
    text.append(table(["program", "front end", "error or mismatch"], why) if why else "none")
    text += ["", "## Data-dependent breaks `compile` keeps (auto_cond on)", "",
             "Each is a branch or conversion whose arms are not pure graph code (a `break` or `raise` in an "
             "arm, a Python number taken from an array's value), so it keeps its break by design.", ""]
    kept = [[m.name, k.replace("|", "\\|")] for m in models for k in results[m.name]["compile"].kept]
    text.append(table(["program", "break"], kept) if kept else "none")
    write("scripting", "Tracing versus scripting: every front end on the seed's examples and the corpus",
          "\n".join(text), quick)
    return text[0]


def main(quick: bool, models: list[Model] | None = None) -> dict[str, dict]:
    models = SEED_EXAMPLES + MODELS if models is None else models
    results = measure(models, limit=20.0 if quick else 60.0, rounds=3 if quick else 7)
    render(models, results, quick)
    return summarize(results)
