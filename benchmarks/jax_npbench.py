"""NPBench's 54 NumPy kernels compiled with backend="jax", against eager NumPy and against NPBench's own
hand-written JAX kernels (issue 26 item 2: "NPBench preset M geomean at least 2.5x faster than NumPy, no
kernel slower than 1.1x"), side by side in one run.

Per kernel, the NumPy kernel eagerly and the same code compiled with backend="jax" (after warm calls that let
each graph's runner settle on its variant, jax_lowering/choice.py) are timed in interleaved rounds (the order
flips each round), each call on fresh copies of the inputs made outside the timed region; then, in rounds
of their own (its device copies would perturb the allocator under the other two), eager against NPBench's
`<kernel>_jax.py` under jax.jit on device arrays, blocked until ready (NPBench's authors
rewrote some kernels for XLA, trmm as a triangular matmul, so that column is what XLA reaches on this
machine when the code is written for it, not a lowering of the same code). The process runs on one core
(sched_setaffinity, as the issue's anchor, Codon's 2.4x, is single-threaded; `--all-cores` lifts it) and
times are its CPU time (the machines are shared: wall time counts other programs' turns); BLAS runs on one
thread. The compiled results and written arguments are compared with eager's (largest difference relative
to the largest magnitude: the backend's contract is a tolerance, not bits).

    python -m benchmarks.jax_npbench [--quick] [--npbench DIR] [--preset M] [--only adi,crc16] [--rows-out F]
        [--from a.json,b.json]

NPBench is run from a checkout outside the repository (see benchmarks/npbench.py); `--quick` runs preset S
with few rounds and writes results/quick/ only. A run can be split (`--rows-out` per part, `--from` to join).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import json
import math
import os
import pathlib
import statistics
import sys
import time
import warnings
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

import minidynamo as md

from . import npbench
from .report import load_items, save_rows, table, write
from .timing import Progress, Spread, TimeLimit, one_blas_thread, time_limit

DEFAULT_NPBENCH = pathlib.Path("/tmp/npbench")
_clock = time.process_time_ns
TARGET_GEOMEAN, TARGET_MAX = 0.4, 1.1      # compiled / eager: 2.5x faster overall, no kernel 1.1x slower


@dataclass
class Row:
    name: str
    eager_ms: float = math.nan
    compiled: Spread | None = None      # compiled / eager per round
    hand: Spread | None = None          # hand-written jax.jit / eager per round
    first_s: float = math.nan           # the first compiled call (capture, lowering, XLA compile)
    rel_err: float = math.nan
    lowered: str = ""                   # ops lowered of all, over the graphs
    error: str = ""


def hand_written(root: pathlib.Path, name: str) -> Callable | None:
    """NPBench's jax.jit kernel for `name`, or None when it has none."""
    info = json.loads((root / "bench_info" / f"{name}.json").read_text())["benchmark"]
    path = root / "npbench" / "benchmarks" / info["relative_path"] / f"{info['module_name']}_jax.py"
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location(f"_npbench_{info['module_name']}_jax", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, info["func_name"], None)


def _blocked(value: Any) -> Any:
    import jax
    return jax.tree_util.tree_map(lambda v: v.block_until_ready() if hasattr(v, "block_until_ready") else v,
                                  value)


class Recorder:
    """backend="jax" that keeps each graph's lowering plan."""

    def __init__(self) -> None:
        self.plans: list[Any] = []

    def __call__(self, graph: Any, example_inputs: Any) -> Callable[..., tuple]:
        from minidynamo.backends.jax_lowering import jax_backend
        run = jax_backend(graph, example_inputs)
        plan = getattr(run, "__minidynamo_lowering__", None)
        if plan is not None:
            self.plans.append(plan)
        return run

    def lowered(self) -> str:
        total = sum(len(p.decisions) for p in self.plans)
        return f"{total - sum(len(p.not_lowered) for p in self.plans)}/{total}"


def _leaves(value: Any) -> list:
    if isinstance(value, (tuple, list)):
        return [x for v in value for x in _leaves(v)]
    return [value]


def rel_error(expected: list, got: list) -> float:
    """Largest |got - expected| relative to the largest |expected| of each array (0 for equal non-floats)."""
    worst = 0.0
    for e, g in zip(expected, got):
        e, g = np.asarray(e), np.asarray(g)
        if e.shape != g.shape:
            return math.inf
        if e.size == 0:
            continue
        if e.dtype.kind not in "fc":
            if np.any(e != g):          # integers and bools: exact or wrong
                return math.inf
            continue
        scale = float(np.max(np.abs(e[np.isfinite(e)]), initial=0.0)) or 1.0
        both = np.isfinite(e) & np.isfinite(g)
        if not np.array_equal(np.isfinite(e), np.isfinite(g)):
            return math.inf
        worst = max(worst, float(np.max(np.abs(e[both] - g[both]), initial=0.0)) / scale)
    return worst


def _timed(fn: Callable, fresh: Callable[[], tuple]) -> int:
    args = fresh()
    start = _clock()
    fn(*args)
    return _clock() - start


def _pairs(first: Callable, first_args: Callable[[], tuple], second: Callable, second_args: Callable[[], tuple],
           rounds: int) -> tuple[list[int], list[int]]:
    """ns of one call of each, per round, the order flipping each round."""
    a, b = [], []
    for r in range(rounds):
        if r % 2 == 0:
            a.append(_timed(first, first_args))
            b.append(_timed(second, second_args))
        else:
            b.append(_timed(second, second_args))
            a.append(_timed(first, first_args))
    return a, b


def measure(kernel: npbench.Kernel, hand: Callable | None, rounds: int, warm_s: float, limit: float) -> Row:
    row = Row(kernel.name)
    rec = Recorder()
    compiled = md.compile(kernel.fn, backend=rec, options={"threads": 1})
    import jax.numpy as jnp

    def device_args() -> tuple:
        return tuple(jnp.asarray(a) if isinstance(a, np.ndarray) else a for a in kernel.fresh())
    try:
        with time_limit(limit), contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            e_in, c_in = kernel.fresh(), kernel.fresh()
            expected = _leaves(kernel.fn(*e_in)) + list(e_in)
            start = time.perf_counter()
            got = _leaves(compiled(*c_in)) + list(c_in)
            row.first_s = time.perf_counter() - start
            row.rel_err = rel_error(expected, got)
            deadline, calls = time.perf_counter() + warm_s, 0
            while calls < 40 and (calls < 8 or time.perf_counter() < deadline):   # the runners' trials
                compiled(*kernel.fresh())
                calls += 1
            e, c = _pairs(kernel.fn, kernel.fresh, compiled, kernel.fresh, rounds)
            jax_fn = hand
            if jax_fn is not None:      # after, in rounds of their own: its device copies would perturb the others
                with jax_x64():
                    _blocked(jax_fn(*device_args()))        # compiles it, outside the timing
                    e2, h = _pairs(kernel.fn, kernel.fresh, lambda *a: _blocked(jax_fn(*a)), device_args, rounds)
    except (TimeLimit, Exception) as exc:      # a row, not a crash of the table
        row.error = f"{type(exc).__name__}: {exc}"[:120]
        row.lowered = rec.lowered()
        return row
    row.eager_ms = statistics.median(e) / 1e6
    row.compiled = Spread.of([x / y for x, y in zip(c, e)])
    row.hand = Spread.of([x / y for x, y in zip(h, e2)]) if jax_fn is not None else None
    row.lowered = rec.lowered()
    return row


def jax_x64() -> Any:
    """NPBench runs its JAX kernels with 64-bit types on (its inputs are float64)."""
    import jax
    return jax.enable_x64(True)


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else math.nan


def render(rows: list[Row], preset: str) -> str:
    ok = [r for r in rows if r.compiled is not None]
    ratios = [r.compiled.median for r in ok]
    hands = [r.hand.median for r in ok if r.hand is not None]
    g, worst = geomean(ratios), max(ok, key=lambda r: r.compiled.median, default=None)
    above = [r.name for r in ok if r.compiled.median > TARGET_MAX]
    text = [__doc__.split("\n\n")[0].replace("\n", " "), "", "## Targets", ""]
    text.append(table(["target", "measured", "result"], [
        [f"preset {preset}: compiled / eager geomean at most {TARGET_GEOMEAN} (2.5x faster)",
         f"{g:.3f} ({1 / g:.2f}x {'faster' if g < 1 else 'slower'}) over {len(ok)} kernels",
         "pass" if g <= TARGET_GEOMEAN else "FAIL"],
        [f"no kernel above {TARGET_MAX}x eager", f"{len(above)} above" + (f": {', '.join(above)}" if above else "")
         + (f"; worst {worst.compiled.median:.2f} ({worst.name})" if worst else ""),
         "pass" if not above else "FAIL"],
    ]))
    text += ["", f"NPBench's hand-written JAX kernels on the same machine: geomean {geomean(hands):.3f} of "
             f"eager over {len(hands)} kernels ({1 / geomean(hands):.2f}x faster); failed rows: "
             f"{len(rows) - len(ok)}.", "", f"## Preset {preset}", ""]
    grid = []
    for r in rows:
        grid.append([r.name, "—" if math.isnan(r.eager_ms) else f"{r.eager_ms:.3f}",
                     r.error or r.compiled.fmt(), "—" if r.hand is None else f"{r.hand.median:.3f}",
                     "—" if math.isnan(r.first_s) else f"{r.first_s:.2f}",
                     "—" if math.isnan(r.rel_err) else f"{r.rel_err:.1e}", r.lowered])
    text.append(table(["kernel", "eager ms", "compiled / eager (IQR)", "hand jax / eager",
                       "first call s", "max rel err", "ops lowered"], grid))
    return "\n".join(text)


def load_rows(paths: list[str]) -> list[Row]:
    rows = []
    for item in load_items(paths):
        for key in ("compiled", "hand"):
            item[key] = Spread(**item[key]) if item[key] is not None else None
        rows.append(Row(**item))
    return rows


def main(quick: bool = False, argv: list[str] | None = None) -> list[Row]:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.jax_npbench")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--npbench", default=str(DEFAULT_NPBENCH))
    parser.add_argument("--preset", default=None, help="NPBench preset (default M; quick S)")
    parser.add_argument("--only", default=None, help="comma-separated kernel names")
    parser.add_argument("--all-cores", action="store_true", help="let XLA's threads use every core")
    parser.add_argument("--rows-out", default=None, help="save the rows as JSON after each (a part of a run)")
    parser.add_argument("--from", dest="parts", default=None, help="comma-separated --rows-out files: write "
                        "the table of their rows, timing nothing")
    args = parser.parse_args(argv if argv is not None else [])
    quick = quick or args.quick
    preset = args.preset or ("S" if quick else "M")
    root = pathlib.Path(args.npbench)
    if args.parts:
        rows = load_rows(args.parts.split(","))
    else:
        if not (root / "bench_info").is_dir():
            print(f"no NPBench checkout at {root} (see benchmarks/npbench.py)")
            return []
        one_blas_thread()
        if not args.all_cores:      # before JAX starts its threads: they all share this one core
            os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
        only = set(args.only.split(",")) if args.only else None
        names = [n for n in npbench.names(root) if only is None or n in only]
        rows, progress = [], Progress(f"npbench {preset} on jax", len(names))
        for name in names:
            try:
                kernel = npbench.load(root, name, preset)
            except ImportError as exc:
                row = Row(name, error=f"inputs not built: {type(exc).__name__}: {exc}"[:120])
            else:
                row = measure(kernel, hand_written(root, name), 3 if quick else 7, 2.0 if quick else 20.0,
                              120.0 if quick else 600.0)
            rows.append(row)
            if args.rows_out:
                save_rows(rows, args.rows_out)
            progress.step(f"{name}: {row.error or row.compiled.fmt()}")
    body = render(rows, preset)
    if args.only is None and (args.parts or not args.rows_out):     # a part or a selection writes no table
        write("jax_npbench", f"NPBench on backend=\"jax\" (preset {preset})", body, quick)
    print(body)
    return rows


if __name__ == "__main__":
    main(argv=sys.argv[1:])
