"""Capture time and how it grows: the first call of a compiled function (capture + guards + codegen + one
run), for straight-line functions of N ops and for a `for` loop unrolled to N ops, N in 10 ... 5,000.

Sources are generated and exec'd; every repeat builds a new function object, so every first call captures.
Linear growth is checked by the log-log slope of first-call time against N from N = 100 up (1.0 is linear).
"""

from __future__ import annotations

import math
import statistics

import numpy as np

import minidynamo as md

from .report import NO_PLOTS, RESULTS, pyplot, table, write
from .timing import Progress, Spread, perf_ns

SIZES = (10, 100, 1000, 5000)
# The op cycle (5 ops, which divides every size): multiply and add constants, a ufunc, use the input again.
CYCLE = ("{t} * 1.0001", "{t} + 0.001", "np.tanh({t})", "{t} * x", "{t} - 0.0005")


def straight_source(n: int) -> str:
    lines = ["def straight(x):", "    t0 = x"]
    for i in range(n):
        lines.append(f"    t{i + 1} = " + CYCLE[i % len(CYCLE)].format(t=f"t{i}"))
    lines.append(f"    return t{n}")
    return "\n".join(lines) + "\n"


def loop_source(n: int) -> str:
    body = [f"        h = {op.format(t='h')}" for op in CYCLE]
    return "\n".join(["def looped(x):", "    h = x", f"    for _ in range({n // len(CYCLE)}):"] + body
                     + ["    return h"]) + "\n"


def build(source: str, name: str):
    namespace = {"np": np}
    exec(compile(source, f"<{name}_{len(source)}>", "exec"), namespace)
    return namespace[name]


def first_call_ns(source: str, name: str, n: int, x: np.ndarray) -> tuple[float, int]:
    fn = build(source, name)
    cfn = md.compile(fn, options={"unroll_limit": max(64, n), "max_instructions": 50 * n + 10_000})
    start = perf_ns()
    cfn(x)
    elapsed = perf_ns() - start
    return elapsed, md.stats(cfn).captures


def slope(sizes: list[int], times: list[float]) -> float:
    """Least-squares slope of log(time) on log(size)."""
    lx, ly = [math.log(s) for s in sizes], [math.log(t) for t in times]
    mx, my = statistics.fmean(lx), statistics.fmean(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def measure(quick: bool) -> dict:
    x = np.random.default_rng(0).standard_normal((4, 8))
    kinds = {"straight-line": (straight_source, "straight"), "unrolled loop": (loop_source, "looped")}
    progress = Progress("capture", len(SIZES) * len(kinds))
    result = {}
    for kind, (make, name) in kinds.items():
        rows = {}
        for n in SIZES:
            repeats = (5 if n <= 1000 else 2) if quick else (9 if n <= 1000 else 3)
            source = make(n)
            samples = []
            for _ in range(repeats):
                t, _captures = first_call_ns(source, name, n, x)
                samples.append(t)
            report = md.explain(build(source, name))(x)
            rows[n] = {"first_call": Spread.of(samples), "ops": report.op_count if report else None,
                       "graphs": report.graph_count if report else None,
                       "breaks": report.graph_break_count if report else None}
            progress.step(f"{kind}, {n} ops: {rows[n]['first_call'].median / 1e6:.1f} ms "
                          f"({rows[n]['first_call'].median / 1e3 / n:.1f} µs/op)")
        big = [n for n in SIZES if n >= 100]
        rows["slope"] = slope(big, [rows[n]["first_call"].median for n in big])
        result[kind] = rows
    return result


def plot(result: dict) -> str:
    plt = pyplot()
    if plt is None:
        return NO_PLOTS
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for kind, rows in result.items():
        med = [rows[n]["first_call"].median / 1e6 for n in SIZES]
        err = [[m - rows[n]["first_call"].q1 / 1e6 for m, n in zip(med, SIZES)],
               [rows[n]["first_call"].q3 / 1e6 - m for m, n in zip(med, SIZES)]]
        axes[0].errorbar(SIZES, med, yerr=err, marker="o", capsize=3, label=f"{kind} (slope {rows['slope']:.2f})")
        axes[1].plot(SIZES, [m * 1e3 / n for m, n in zip(med, SIZES)], marker="o", label=kind)
    ref = [0.5 * n for n in SIZES]
    axes[0].plot(SIZES, ref, "k--", lw=0.8, label="0.5 ms/op target")
    axes[0].set(xscale="log", yscale="log", xlabel="ops", ylabel="first call (ms)", title="Capture time")
    axes[1].axhline(500, color="k", ls="--", lw=0.8, label="0.5 ms/op target")
    axes[1].set(xscale="log", yscale="log", xlabel="ops", ylabel="µs per op", title="Capture time per op")
    for ax in axes:
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(RESULTS / "capture_scaling.png", dpi=130)
    plt.close(fig)
    return "![capture scaling](capture_scaling.png)"


def main(quick: bool) -> dict:
    result = measure(quick)
    rows = []
    for kind, r in result.items():
        for n in SIZES:
            fc = r[n]["first_call"]
            rows.append([kind, n, r[n]["ops"] if r[n]["ops"] is not None else "—",
                         r[n]["graphs"] if r[n]["graphs"] is not None else "—", fc.fmt(1e-6, 2, " ms"),
                         f"{fc.median / 1e3 / n:.1f} µs", fc.n])
    text = [table(["function", "ops (source)", "ops (graph)", "graphs", "first call", "per op", "repeats"], rows), "",
            "Log-log slope of first-call time against ops, from 100 ops up (1.00 = linear): "
            + ", ".join(f"{k} {r['slope']:.2f}" for k, r in result.items()) + ".", "",
            "The first call includes capture, guard and code generation, and one run of the graph on a "
            "f64[4,8] input. The unrolled loop runs with `options={\"unroll_limit\": N}`.", "", plot(result)]
    write("capture_scaling", "Capture time against function size", "\n".join(text), quick)
    return result
