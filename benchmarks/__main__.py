"""`python -m benchmarks [--quick] [--only table1,overhead,capture,torch]`: run the tables, write
benchmarks/results/*.md (+ PNG plots) and a summary with the issue's targets as a pass/fail column."""

from __future__ import annotations

import argparse
import platform
import sys
import time

from . import capture_scaling, capture_time, overhead, past_limit, real_code, scripting_table, table1, torch_side
from .report import table, write

PARTS = ("table1", "overhead", "capture", "captime", "torch", "past_limit", "scripting", "real_code")


def targets(results: dict, quick: bool) -> list[list[str]]:
    """(target, measured, pass/fail) rows; a target that was not measured says why."""
    rows = []
    py311 = platform.python_version().startswith("3.11")
    if "overhead" in results:
        t = results["overhead"]["target"]
        ok = t["overhead_ns"].median <= 1500 and t["ratio"].median <= 1.5
        rows.append(["warm overhead of `np.tanh(x @ w) + x` (f32[4,8]) ≤ 1.5 µs and ≤ 1.5× eager, Python 3.11",
                     f"+{t['overhead_ns'].median / 1e3:.2f} µs, {t['ratio'].median:.2f}× eager "
                     f"(Python {platform.python_version()})", ("pass" if ok else "FAIL") + ("" if py311 else " (not 3.11)")])
        c = results["overhead"]["corpus_compile"]
        realistic = results["overhead"]["corpus_size"] == "large"
        rows.append(["median overhead on the corpus at realistic sizes < 2% of eager",
                     f"{c.get('median', float('nan')):+.2f}% over {c['n']} models "
                     f"({'realistic sizes' if realistic else 'small sizes: --quick'})",
                     ("pass" if c.get("median", 1e9) < 2 else "FAIL") + ("" if realistic else " (indicative only)")])
    if "torch" in results:
        tr = results["torch"]
        rows.append(["warm overhead < 1/10 of TorchDynamo's",
                     "torch not installed" if tr is None else f"{tr['ratio'].median:.3f} of torch's",
                     "not measured" if tr is None else ("pass" if tr["ratio"].median < 0.1 else "FAIL")])
    if "capture" in results:
        worst = max(r[n]["first_call"].median / 1e3 / n for r in results["capture"].values()
                    for n in capture_scaling.SIZES)
        slopes = {k: r["slope"] for k, r in results["capture"].items()}
        rows.append(["capture < 0.5 ms per op", f"worst {worst:.0f} µs/op", "pass" if worst < 500 else "FAIL"])
        rows.append(["capture time grows linearly (log-log slope ≤ 1.15 from 100 ops)",
                     ", ".join(f"{k} {s:.2f}" for k, s in slopes.items()),
                     "pass" if all(s <= 1.15 for s in slopes.values()) else "FAIL"])
    if "captime" in results:
        rows += capture_time.targets(results["captime"]["results"], results["captime"]["npbench"])
    if "past_limit" in results:
        r = results["past_limit"]["all misses"]["ratio"]
        rows.append(["past the cache limit a call costs ≤ 1.2× eager (issue 9)", f"{r.median:.3f}× (median)",
                     "pass" if r.median <= 1.2 else "FAIL"])
    if "real_code" in results:
        rows += _real_code_targets(results["real_code"])
    if "table1" in results:
        c = results["table1"]["compile"]
        rows.append(["compile correct on 100% of the corpus", f"{c['equal']}/{c['models']}",
                     "pass" if c["equal"] == c["models"] else "FAIL"])
    return rows


def _real_code_targets(groups: dict) -> list[list[str]]:
    """Issue 29's targets on the real-code table (benchmarks/real_code.py)."""
    rows = []
    for group, g in groups.items():
        if group.startswith("npbench/"):
            ok = g["geomean"] <= 1.00 and g["above_1_10"] == 0
            rows.append([f"NPBench preset {group[8:]}: compiled/eager geomean ≤ 1.00, no kernel above 1.10 (issue 29)",
                         f"geomean {g['geomean']:.3f}, {g['above_1_10']} above 1.10 (max {g['max']:.2f}, "
                         f"{g['worst']})", "pass" if ok else "FAIL"])
        else:
            ok = g["median"] <= 1.02 and g["max"] <= 1.5
            rows.append(["model code in public styles: median ≤ 1.02, none above 1.5 (issue 29)",
                         f"median {g['median']:.3f}, max {g['max']:.2f} ({g['worst']})", "pass" if ok else "FAIL"])
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("--quick", action="store_true", help="every table at small sizes, few repeats (< 3 min)")
    parser.add_argument("--only", default=",".join(PARTS), help=f"comma-separated subset of {', '.join(PARTS)}")
    args = parser.parse_args(argv)
    parts = [p.strip() for p in args.only.split(",") if p.strip()]
    unknown = sorted(set(parts) - set(PARTS))
    if unknown:
        parser.error(f"unknown part(s) {unknown}; choose from {PARTS}")
    start = time.perf_counter()
    results: dict = {}
    runners = {"table1": table1.main, "overhead": overhead.main, "capture": capture_scaling.main,
               "captime": capture_time.main, "torch": torch_side.main, "past_limit": past_limit.main,
               "scripting": scripting_table.main, "real_code": real_code.main}
    for part in parts:
        print(f"== {part} ==", file=sys.stderr, flush=True)
        results[part] = runners[part](args.quick)
    rows = targets(results, args.quick)
    body = table(["target (issue 5)", "measured", "result"], rows)
    body += (f"\n\nTables: [table1](table1.md), [overhead](overhead.md), [capture scaling](capture_scaling.md), "
             f"[capture time](capture_time.md), [TorchDynamo](torch.md), [tracing vs scripting](scripting.md), "
             f"[real code](real_code.md). "
             f"Total wall time {time.perf_counter() - start:.0f} s.\n")
    write("summary", "Benchmark summary: targets", body, args.quick)
    print(body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
