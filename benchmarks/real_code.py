"""Real code, eager against compiled (issue 29, "compiling must never cost"): NPBench's 54 NumPy kernels at
presets S and M and model code in the styles of public code bases (benchmarks/corpus/model_styles.py),
each timed side by side in one run: rounds interleave eager and compiled batches (the order flips each
round), every call gets fresh copies of its inputs outside the timed region, and the ratio is the median
of the per-round ratios. Calls are timed in CPU time of the process (all its threads): the machines these
tables run on are shared, and wall time counts the time other programs hold the cores; BLAS runs on one
thread (timing.one_blas_thread: its idle workers' spin was counted at random). Each row also says what the
compiled call does beyond eager's work, measured on one steady-state call (benchmarks/causes.py). Compiled
functions run with `threads=1`: the table measures CPU time, and a fast-path region's second thread costs
1.1-1.5x CPU time for its wall-time gain, so a threaded run would measure the thread pool, not compiling.

NPBench is run from a checkout outside the repository (`--npbench DIR`, default /tmp/npbench; see
benchmarks/npbench.py); without one its rows are skipped. `--save-before` stores the ratios as the "before"
column (benchmarks/results/real_code_before.json) that later runs print beside their own.

    python -m benchmarks.real_code [--quick] [--npbench DIR] [--presets S,M] [--only adi,crc16]

A full run can be split across processes (the M preset alone takes an hour on a loaded 2-core machine):
each part saves its rows with `--rows-out part.json` (after each row), and `--from a.json,b.json` writes the table of all
their rows without timing anything.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import pathlib
import statistics
import sys
import time
import warnings
from dataclasses import dataclass
from typing import Any, Callable

import minidynamo as md

from . import causes as causes_mod
from . import npbench
from .corpus.model_styles import CASES
from .report import RESULTS, load_items, save_rows, table, write
from .timing import Progress, Spread, TimeLimit, one_blas_thread, time_limit

BEFORE = RESULTS / "real_code_before.json"
_clock = time.process_time_ns
DEFAULT_NPBENCH = pathlib.Path("/tmp/npbench")


@dataclass
class Row:
    key: str                  # "npbench/S/adi", "models/random_walk"
    eager_ns: float
    ratio: Spread | None      # compiled / eager per round; None: failed
    causes: str
    error: str = ""


def _batch(fn: Callable, fresh: Callable[[], tuple], number: int) -> int:
    total = 0
    for _ in range(number):
        args = fresh()
        start = _clock()
        fn(*args)
        total += _clock() - start
        del args
    return total


def side_by_side(eager: Callable, compiled: Callable, fresh: Callable[[], tuple], rounds: int,
                 batch_ns: float) -> tuple[list[float], list[float]]:
    """ns per call of eager and compiled, one sample per round, interleaved (timing.interleaved, with
    fresh inputs made outside the timed region)."""
    one = max(1, _batch(eager, fresh, 1))
    number = max(1, min(1 << 16, int(batch_ns / one)))
    e, c = [], []
    for r in range(rounds):
        pair = ((eager, e), (compiled, c)) if r % 2 == 0 else ((compiled, c), (eager, e))
        for fn, out in pair:
            out.append(_batch(fn, fresh, number) / number)
    return e, c


def measure(key: str, fn: Callable, fresh: Callable[[], tuple], rounds: int, batch_ns: float,
            limit: float) -> Row:
    compiled = md.compile(fn, options={"threads": 1})
    try:
        with time_limit(limit), contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(3):                  # capture, recaptures, settle
                compiled(*fresh())
            e, c = side_by_side(fn, compiled, fresh, rounds, batch_ns)
            args = fresh()                      # after the timed calls: loop choices have settled
            found = causes_mod.measure(compiled, lambda: compiled(*args))
    except (TimeLimit, Exception) as exc:      # a benchmark row, not a crash of the table
        return Row(key, math.nan, None, "", f"{type(exc).__name__}: {exc}"[:120])
    eager = statistics.median(e)
    ratio = Spread.of([x / y for x, y in zip(c, e)])
    return Row(key, eager, ratio, found.text(statistics.median(c) - eager))


def npbench_rows(root: pathlib.Path, presets: list[str], only: set[str] | None, quick: bool,
                 done: Callable[[Row], None] = lambda row: None) -> list[Row]:
    names = [n for n in npbench.names(root) if only is None or n in only]
    rows = []
    progress = Progress("npbench", len(names) * len(presets))
    for preset in presets:
        for name in names:
            key = f"npbench/{preset}/{name}"
            try:
                kernel = npbench.load(root, name, preset)
            except ImportError as exc:      # spmv's initialize imports scipy: a row saying so
                row = Row(key, math.nan, None, "", f"inputs not built: {type(exc).__name__}: {exc}"[:120])
            else:
                rounds = 3 if quick else (7 if preset == "S" else 5)
                row = measure(key, kernel.fn, kernel.fresh, rounds, 2e6 if quick else 2e7,
                              120.0 if quick else 900.0)
            rows.append(row)
            done(row)
            progress.step(f"{preset} {name}: {_ratio_text(row)}")
    return rows


def model_rows(only: set[str] | None, quick: bool, done: Callable[[Row], None] = lambda row: None) -> list[Row]:
    cases = [c for c in CASES if only is None or c.name in only]
    progress = Progress("models", len(cases))
    rows = []
    for case in cases:
        fn, fresh = case.build()
        row = measure(f"models/{case.name}", fn, fresh, 5 if quick else 15, 5e6 if quick else 4e7, 300.0)
        rows.append(row)
        done(row)
        progress.step(f"{case.name}: {_ratio_text(row)}")
    return rows


def _ratio_text(row: Row) -> str:
    return row.error or f"{row.ratio.median:.2f}× (IQR {row.ratio.q1:.2f}–{row.ratio.q3:.2f})"


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else math.nan


def summary(rows: list[Row]) -> dict[str, dict]:
    """Per group ("npbench/S", "npbench/M", "models"): geomean, median and max of the ratios."""
    groups: dict[str, list[Row]] = {}
    for r in rows:
        groups.setdefault(r.key.rsplit("/", 1)[0], []).append(r)
    out = {}
    for group, members in groups.items():
        ok = [r for r in members if r.ratio is not None]
        ratios = [r.ratio.median for r in ok]
        worst = max(ok, key=lambda r: r.ratio.median, default=None)
        out[group] = {"n": len(members), "failed": len(members) - len(ok), "geomean": geomean(ratios),
                      "median": statistics.median(ratios) if ratios else math.nan,
                      "max": worst.ratio.median if worst else math.nan,
                      "worst": worst.key.rsplit("/", 1)[1] if worst else "",
                      "above_1_10": sum(v > 1.10 for v in ratios)}
    return out


def render(rows: list[Row], before: dict[str, float], quick: bool) -> str:
    text = [__doc__.split("\n\n")[0].replace("\n", " "), ""]
    stats = summary(rows)
    head = ["group", "cases", "geomean", "median", "max (case)", "above 1.10", "before: geomean / median / max"]
    body = []
    for group, s in stats.items():
        old = [v for k, v in before.items() if k.rsplit("/", 1)[0] == group]
        was = f"{geomean(old):.3f} / {statistics.median(old):.3f} / {max(old):.2f}" if old else "—"
        body.append([group, f"{s['n']}" + (f" ({s['failed']} failed)" if s["failed"] else ""), f"{s['geomean']:.3f}",
                     f"{s['median']:.3f}", f"{s['max']:.2f} ({s['worst']})", s["above_1_10"], was])
    text += [table(head, body), ""]
    for group in stats:
        text += [f"## {group}", ""]
        grid = []
        for r in rows:
            if r.key.rsplit("/", 1)[0] != group:
                continue
            was = before.get(r.key)
            grid.append([r.key.rsplit("/", 1)[1], "—" if math.isnan(r.eager_ns) else f"{r.eager_ns / 1e6:.3f} ms",
                         "—" if was is None else f"{was:.2f}×", _ratio_text(r), r.causes])
        text += [table(["case", "eager", "before", "compiled / eager (IQR)", "what the compiled call adds"],
                       grid), ""]
    text.append("Causes are counted on one steady-state call: piece calls are compiled resume functions and "
                "loop bodies called (a loop driver calls one per iteration; the µs are the call's extra time "
                "per piece), captures made during the call, pieces past the cache limit, graph calls preceded "
                "by a snapshot of written arrays or a save of the random state, operator temporaries of "
                "256 KiB and more the graph allocates where eager NumPy reuses the operand's buffer, and "
                "fast-path region calls that handed back None (their arrays too small, a layout refused).")
    return "\n".join(text)


def load_rows(paths: list[str]) -> list[Row]:
    rows = []
    for item in load_items(paths):
        ratio = Spread(**item.pop("ratio")) if item["ratio"] is not None else item.pop("ratio")
        rows.append(Row(**{**item, "ratio": ratio}))
    return rows


def main(quick: bool = False, argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.real_code")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--npbench", default=str(DEFAULT_NPBENCH))
    parser.add_argument("--presets", default=None, help="comma-separated NPBench presets (default S,M; quick S)")
    parser.add_argument("--only", default=None, help="comma-separated case names")
    parser.add_argument("--no-models", action="store_true")
    parser.add_argument("--save-before", action="store_true", help="store these ratios as the before column")
    parser.add_argument("--rows-out", default=None, help="also save the rows as JSON (one part of a split run)")
    parser.add_argument("--from", dest="parts", default=None, help="comma-separated --rows-out files: write "
                        "the table of their rows, timing nothing")
    args = parser.parse_args(argv if argv is not None else [])
    quick = quick or args.quick
    one_blas_thread()
    only = set(args.only.split(",")) if args.only else None
    presets = (args.presets or ("S" if quick else "S,M")).split(",")
    root = pathlib.Path(args.npbench)
    if args.parts:
        rows = load_rows(args.parts.split(","))
    else:
        so_far: list[Row] = []

        def done(row: Row) -> None:         # a part saves each row as it comes (a stopped part keeps them)
            so_far.append(row)
            if args.rows_out:
                save_rows(so_far, args.rows_out)
        rows = npbench_rows(root, presets, only, quick, done) if (root / "bench_info").is_dir() else []
        if not args.no_models:
            rows += model_rows(only, quick, done)
    before = json.loads(BEFORE.read_text()) if BEFORE.exists() else {}
    if args.save_before:
        before = {**before, **{r.key: r.ratio.median for r in rows if r.ratio is not None}}
        BEFORE.write_text(json.dumps(before, indent=1, sort_keys=True) + "\n")
    body = render(rows, before, quick)
    if args.parts:
        body += f"\n\nRows gathered from {len(args.parts.split(','))} part(s) of a split run (--from)."
    elif not (root / "bench_info").is_dir():
        body += f"\n\nNPBench rows skipped: no checkout at {root} (see benchmarks/npbench.py)."
    if only is None and (args.parts or not args.rows_out):      # a part of a split run writes no table
        write("real_code", "Real code: compiled against eager", body, quick)
    print(body)
    return summary(rows)


if __name__ == "__main__":
    main(argv=sys.argv[1:])
