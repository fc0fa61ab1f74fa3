"""Table 1, NumPy edition: each capture front end over the whole corpus.

Per front end: models captured without error, models whose results equal eager on fresh inputs (a new seed,
and the other branch where the model has one), mean graphs per model, models with no graph break; for
compile, break reasons by category. A per-model grid follows, with each failure's first line.
"""

from __future__ import annotations

from collections import Counter

from .corpus import MODELS, Model
from .frontends import FRONT_ENDS, Outcome, run_front_end
from .report import table, write
from .timing import Progress


def measure(models: list[Model], limit: float) -> dict[str, dict[str, Outcome]]:
    progress = Progress("table1", len(models))
    results: dict[str, dict[str, Outcome]] = {}
    for m in models:
        results[m.name] = {fe: run_front_end(fe, m, limit) for fe in FRONT_ENDS}
        marks = " ".join(f"{fe}={'ok' if o.captured and o.equal else ('cap' if o.captured else 'x')}"
                         for fe, o in results[m.name].items())
        progress.step(f"{m.name}: {marks}")
    return results


def summarize(results: dict[str, dict[str, Outcome]]) -> dict[str, dict]:
    n = len(results)
    rows = {}
    for fe in FRONT_ENDS:
        outs = [r[fe] for r in results.values()]
        captured = [o for o in outs if o.captured]
        rows[fe] = {"models": n, "captured": len(captured), "equal": sum(o.captured and o.equal for o in outs),
                    "mean_graphs": sum(o.graphs for o in captured) / max(1, len(captured)),
                    "no_break": sum(o.captured and o.breaks == 0 and o.graphs <= 1 for o in outs),
                    "categories": Counter(c for o in outs for c in o.categories)}
    return rows


def render(models: list[Model], results: dict[str, dict[str, Outcome]], quick: bool) -> str:
    rows = summarize(results)
    n = len(models)
    head = ["front end", "captured without error", "equal to eager on fresh / other-branch inputs",
            "mean graphs per captured model", "no graph break", "break reasons by category"]
    body = []
    for fe, r in rows.items():
        cats = ", ".join(f"{k} {v}" for k, v in r["categories"].most_common()) if fe == "compile" else "—"
        body.append([f"`{fe}`", f"{r['captured']}/{n}", f"{r['equal']}/{n}", f"{r['mean_graphs']:.2f}",
                     f"{r['no_break']}/{n}", cats or "none"])
    text = [table(head, body), "",
            "Notes: a model that raises under a front end, or declares no `trace_spec`, counts as not captured. "
            "\"Equal\" means the return value and the arguments after the call (in-place updates) match eager "
            f"NumPy (same shapes and dtypes, values within rtol 1e-6); {sum(m.other is not None for m in models)} "
            "branchy models are also checked on inputs that take the other branch. For `trace`, a model counts "
            "as one graph; for `LazyRunner`, graphs are the flushes it ran; for `compile`, graphs and breaks "
            "are what `explain()` reports for the first call.", "", *real_code_section(models, results),
            "## Per model", ""]
    grid = []
    for m in models:
        cells = []
        for fe in FRONT_ENDS:
            o = results[m.name][fe]
            mark = "✓" if o.captured and o.equal else ("≠" if o.captured else "✗")
            extra = f" {o.graphs}g" + (f"/{o.breaks}b" if o.breaks else "") if o.captured else ""
            cells.append(mark + extra)
        grid.append([m.name, m.style] + cells)
    text.append(table(["model", "style"] + [f"`{fe}`" for fe in FRONT_ENDS], grid))
    text += ["", "✓ captured and equal, ≠ captured but differs from eager, ✗ not captured; "
             "`Ng/Mb`: N graphs, M breaks.", "", "## Why (first line of each failure)", ""]
    why = [[m.name, f"`{fe}`", results[m.name][fe].error.replace("|", "\\|")]
           for m in models for fe in FRONT_ENDS if results[m.name][fe].error]
    text.append(table(["model", "front end", "error or mismatch"], why) if why else "none")
    write("table1", "Table 1: capture front ends on the corpus", "\n".join(text), quick)
    return text[0]


def real_code_section(models: list[Model], results: dict[str, dict[str, Outcome]]) -> list[str]:
    """`compile` on the real-code models (benchmarks/corpus/real_code.py, issue 9; idioms.py, issue 27):
    correct, graphs per model, and the shares of models with no break and with no graph at all."""
    real = [m for m in models if m.name.startswith("rc_")]
    if not real:
        return []
    outs = [results[m.name]["compile"] for m in real]
    n = len(outs)
    correct = sum(o.captured and o.equal for o in outs)
    zero_break = sum(o.captured and o.breaks == 0 and o.graphs <= 1 for o in outs)
    no_graph = [m.name for m, o in zip(real, outs) if o.graphs == 0]
    row = [f"{correct}/{n}", f"{sum(o.graphs for o in outs) / n:.2f}", f"{zero_break}/{n} ({100 * zero_break / n:.0f}%)",
           f"{len(no_graph)}/{n}" + (f" ({', '.join(no_graph)})" if no_graph else "")]
    return ["## Real-code section (`compile`)", "",
            table(["models correct", "graphs per model", "no graph break", "no graph at all"], [row]), ""]


def main(quick: bool) -> dict[str, dict]:
    results = measure(MODELS, limit=20.0 if quick else 60.0)
    render(MODELS, results, quick)
    return summarize(results)
