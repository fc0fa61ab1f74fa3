"""Side by side with TorchDynamo, where torch is installed (optional; nothing else needs torch).

`torch.compile(fn, backend="eager")` on the same NumPy functions (TorchDynamo traces NumPy calls too), timed in
the same run as minidynamo: warm overhead of the target function, and first-call time for straight-line
functions. Returns None, and the tables say so, when torch cannot be imported.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import minidynamo as md

from .capture_scaling import build, straight_source
from .overhead import target_fn
from .timing import Progress, Spread, interleaved, perf_ns, ratios

SIZES = (10, 100, 1000)


def available() -> Any:
    try:
        import torch
    except ImportError:
        return None
    return torch


def measure(quick: bool) -> dict | None:
    torch = available()
    if torch is None:
        return None
    progress = Progress("torch", 1 + len(SIZES))
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((4, 8)).astype(np.float32), rng.standard_normal((8, 8)).astype(np.float32)
    ours, theirs = md.compile(target_fn), torch.compile(target_fn, backend="eager")
    for _ in range(3):
        ours(x, w), theirs(x, w)
    rounds = 7 if quick else 21
    s = interleaved({"eager": lambda: target_fn(x, w), "minidynamo": lambda: ours(x, w),
                     "torch": lambda: theirs(x, w)}, rounds, 2e6 if quick else 10e6)
    ours_over = [a - b for a, b in zip(s["minidynamo"], s["eager"])]
    torch_over = [a - b for a, b in zip(s["torch"], s["eager"])]
    out = {"version": torch.__version__, "ours_ns": Spread.of(ours_over), "torch_ns": Spread.of(torch_over),
           "ratio": Spread.of(ratios(ours_over, torch_over)), "capture": {}}
    progress.step(f"warm overhead: minidynamo {out['ours_ns'].median / 1e3:.2f} µs, "
                  f"torch {out['torch_ns'].median / 1e3:.2f} µs")
    xs = rng.standard_normal((4, 8))
    for n in SIZES:
        source = straight_source(n)
        mine, torch_t = [], []
        for _ in range(1 if quick else 3):            # interleaved: one of each per repeat
            torch._dynamo.reset()
            for which, compiler in (("m", md.compile), ("t", lambda f: torch.compile(f, backend="eager"))):
                fn = compiler(build(source, "straight"))
                start = perf_ns()
                fn(xs)
                (mine if which == "m" else torch_t).append(perf_ns() - start)
        out["capture"][n] = {"ours": Spread.of(mine), "torch": Spread.of(torch_t),
                             "ratio": Spread.of(ratios(mine, torch_t))}
        progress.step(f"capture {n} ops: minidynamo/torch = {out['capture'][n]['ratio'].median:.2f}")
    return out


def main(quick: bool) -> dict | None:
    from .report import table, write
    try:
        out = measure(quick)
    except Exception as e:   # torch present but failing on these functions: say so, do not stop the run
        write("torch", "Side by side with TorchDynamo", f"torch.compile failed: {type(e).__name__}: {e}", quick)
        return None
    if out is None:
        write("torch", "Side by side with TorchDynamo",
              "_Skipped: torch is not installed in this environment; the minidynamo columns are in "
              "[overhead](overhead.md) and [capture scaling](capture_scaling.md)._", quick)
        return None
    rows = [["warm overhead, `np.tanh(x @ w) + x`", out["ours_ns"].fmt(1e-3, unit=" µs"),
             out["torch_ns"].fmt(1e-3, unit=" µs"), out["ratio"].fmt(digits=3)]]
    rows += [[f"first call, {n} straight-line ops", c["ours"].fmt(1e-6, unit=" ms"), c["torch"].fmt(1e-6, unit=" ms"),
              c["ratio"].fmt(digits=3)] for n, c in out["capture"].items()]
    write("torch", "Side by side with TorchDynamo",
          f"torch {out['version']}, `torch.compile(fn, backend=\"eager\")`, timed interleaved with minidynamo.\n\n"
          + table(["measure", "minidynamo", "TorchDynamo", "minidynamo / TorchDynamo"], rows), quick)
    return out
