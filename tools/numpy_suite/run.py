"""Run a subset of NumPy's tests eagerly and with every test function compiled; report what still passes.

    python -m tools.numpy_suite.run [--quick] [--modules numpy.lib.tests.test_twodim_base ...] [--jobs 2]

Each module runs twice, in its own subprocess (`python -m pytest --pyargs MODULE`): once plain, once with
`-p tools.numpy_suite.plugin --minidynamo`. Both write a result file (plugin.py's --minidynamo-results); the
report gives, per module and in total: tests run, passed eagerly, passed compiled among those (the share),
how the test functions were captured, and every test that fails only compiled with its first error line.
`--fast-path` forces the default backend's fast path on every region of the compiled run, small arrays too
(issue 26 item 1's proof of exactness), and reports the region calls by outcome.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# The subset: broad array code (numeric, function_base), ufunc machinery, linear algebra. About a minute
# eagerly on one core; --quick runs the first two small ones.
DEFAULT_MODULES = [
    "numpy.lib.tests.test_twodim_base",
    "numpy.lib.tests.test_shape_base",
    "numpy._core.tests.test_numeric",
    "numpy.lib.tests.test_function_base",
    "numpy._core.tests.test_ufunc",
    "numpy.linalg.tests.test_linalg",
    "numpy._core.tests.test_shape_base",
    "numpy._core.tests.test_indexing",
    "numpy._core.tests.test_item_selection",
]
QUICK_MODULES = DEFAULT_MODULES[:2]
RAN = ("passed", "failed", "error", "xfailed", "xpassed")


def run_module(python: str, module: str, compiled: bool, out: Path, timeout: float, module_timeout: float,
               extra: list[str], fast_path: bool = False) -> dict:
    """One pytest subprocess; returns its result file's content (or a stub naming the crash)."""
    kind = "compiled" if compiled else "eager"
    results = out / f"{module}.{kind}.json"
    cmd = [python, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tools.numpy_suite.plugin",
           f"--minidynamo-results={results}", f"--minidynamo-timeout={timeout:g}", *extra, "--pyargs", module]
    if compiled:
        cmd[-2:-2] = ["--minidynamo"] + (["--minidynamo-fast-path"] if fast_path else [])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    start = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=out, env=env, capture_output=True, text=True, timeout=module_timeout)
        tail = (proc.stdout + proc.stderr).strip().splitlines()[-1:] or [""]
        status = f"exit {proc.returncode}: {tail[0]}"
    except subprocess.TimeoutExpired:
        status = f"killed after {module_timeout:g} s"
    seconds = time.perf_counter() - start
    (out / f"{module}.{kind}.log").write_text(f"{seconds:.1f}\n{status}\n", encoding="utf-8")
    return load(out, module, compiled)


def load(out: Path, module: str, compiled: bool) -> dict:
    """A run's result file, with the status and wall time run_module logged beside it."""
    kind = "compiled" if compiled else "eager"
    results, log = out / f"{module}.{kind}.json", out / f"{module}.{kind}.log"
    data = json.loads(results.read_text(encoding="utf-8")) if results.exists() else {"meta": {}, "tests": {}}
    seconds, status = log.read_text(encoding="utf-8").split("\n")[:2] if log.exists() else ("0", "not run")
    data["status"], data["seconds"] = status, float(seconds)
    return data


def compare(eager: dict, compiled: dict) -> dict:
    """Counts for one module (or the merged total) and the compiled-only failures."""
    e, c = eager["tests"], compiled["tests"]
    ran = [k for k, r in e.items() if r["outcome"] in RAN]
    passed = [k for k in ran if e[k]["outcome"] == "passed"]
    still = [k for k in passed if c.get(k, {}).get("outcome") == "passed"]
    broken = {k: c.get(k, {}).get("outcome", "missing") + ": " + c.get(k, {}).get("error", "")
              for k in passed if k not in still}
    changed = {k: f"{e[k]['outcome']} -> {c.get(k, {}).get('outcome', 'missing')}: {c.get(k, {}).get('error', '')}"
               for k in ran if k not in passed and c.get(k, {}).get("outcome") != e[k]["outcome"]}
    kinds = Counter(r.get("compiled") or "not-run" for k, r in c.items() if k in passed)
    return {"ran": len(ran), "passed": len(passed), "still": len(still), "broken": broken, "changed": changed,
            "kinds": kinds, "breaks": sum(r.get("breaks", 0) for r in c.values()),
            "graphs": sum(r.get("graphs", 0) for r in c.values()),
            "internal": sum(r.get("internal_errors", 0) for r in c.values()),
            "notes": {k: c[k].get("note", "") for k in broken if k in c},
            "fast_path": sum((Counter(r.get("fast_path") or {}) for r in c.values()), Counter()),
            "fast_path_broken": {k: c[k]["fast_path"] for k in broken if c.get(k, {}).get("fast_path")},
            "eager_notes": Counter(_reason(r.get("note", "")) for k, r in c.items()
                                   if k in passed and r.get("compiled") == "eager"),
            "break_reasons": Counter(compiled.get("break_reasons", {}))}


def _reason(note: str) -> str:
    """A frame-fallback note without the object it names, so equal causes are counted together."""
    head = note.split(" (at ")[0]
    for word in (" outside the graph", " is not a valid parameter name"):
        if word in head:
            head = head.split(word)[0].rsplit(" ", 1)[0] + " ..." + word
    return head[:110]


def share(still: int, passed: int) -> str:
    return f"{100.0 * still / passed:.1f}%" if passed else "-"


def report(rows: list[tuple[str, dict, dict, dict]]) -> str:
    meta = next((c["meta"] for _, _, c, _ in rows if c["meta"]), {})
    lines = [f"minidynamo on NumPy's tests: Python {meta.get('python', '?')}, NumPy {meta.get('numpy', '?')}, "
             f"{meta.get('date', time.strftime('%Y-%m-%d'))}", "",
             f"{'module':40} {'ran':>5} {'eager ok':>8} {'compiled ok':>11} {'share':>7}  "
             f"{'graph/no-ops/eager/not-compiled':>32}  {'eager s':>7} {'compiled s':>10}"]
    total = Counter()
    for module, e, c, cmp in rows:
        k = cmp["kinds"]
        lines.append(f"{module:40} {cmp['ran']:5} {cmp['passed']:8} {cmp['still']:11} "
                     f"{share(cmp['still'], cmp['passed']):>7}  "
                     f"{k['graph']:>9}/{k['no-ops']}/{k['eager']}/{k['not-compiled']:<10}  "
                     f"{e['seconds']:7.1f} {c['seconds']:10.1f}")
        total.update({"ran": cmp["ran"], "passed": cmp["passed"], "still": cmp["still"], **k,
                      "breaks": cmp["breaks"], "graphs": cmp["graphs"], "internal": cmp["internal"]})
    lines.append(f"{'total':40} {total['ran']:5} {total['passed']:8} {total['still']:11} "
                 f"{share(total['still'], total['passed']):>7}  "
                 f"{total['graph']:>9}/{total['no-ops']}/{total['eager']}/{total['not-compiled']}")
    lines += ["", f"graphs with ops {total['graphs']}, graph breaks {total['breaks']}, "
                  f"internal capture errors {total['internal']}"]
    regions = sum((cmp["fast_path"] for *_, cmp in rows), Counter())
    if any(c["meta"].get("fast_path") is not None for _, _, c, _ in rows):
        lines.append("fast path forced on every region (--fast-path), region calls by outcome: "
                     + (", ".join(f"{k} {n}" for k, n in regions.most_common()) or "none"))
    for module, e, c, cmp in rows:
        if not (e["status"].startswith("exit 0") or e["status"].startswith("exit 1")) or \
                not (c["status"].startswith("exit 0") or c["status"].startswith("exit 1")):
            lines.append(f"{module}: eager {e['status']}; compiled {c['status']}")
    broken = {k: v for *_, cmp in rows for k, v in cmp["broken"].items()}
    notes = {k: v for *_, cmp in rows for k, v in cmp["notes"].items()}
    regions_of = {k: v for *_, cmp in rows for k, v in cmp["fast_path_broken"].items()}
    lines += ["", f"failures only compiled ({len(broken)}):"]
    for k, v in sorted(broken.items()):
        lines.append(f"  {k}\n      {v}" + (f"\n      [{notes[k]}]" if notes.get(k) else "")
                     + (f"\n      [fast-path region calls: {regions_of[k]}]" if k in regions_of else ""))
    excluded = sorted(k for *_, c, _ in rows for k, r in c["tests"].items()
                      if r.get("note", "").startswith("excluded: "))
    if excluded:
        lines += ["", f"excluded (run unwrapped, reasons in plugin.py EXCLUDED) ({len(excluded)}):"]
        lines += [f"  {k}" for k in excluded]
    changed = {k: v for *_, cmp in rows for k, v in cmp["changed"].items()}
    if changed:
        lines += ["", f"other outcome changes among tests that did not pass eagerly ({len(changed)}):"]
        lines += [f"  {k}\n      {v}" for k, v in sorted(changed.items())]
    eager_notes = sum((cmp["eager_notes"] for *_, cmp in rows), Counter())
    lines += ["", "why a test's own frame ran eagerly (top 10, among tests passing eagerly):"]
    lines += [f"  {n:6}  {why}" for why, n in eager_notes.most_common(10)]
    reasons = sum((cmp["break_reasons"] for *_, cmp in rows), Counter())
    lines += ["", "graph break reasons (top 10):"] + [f"  {n:6}  {why}" for why, n in reasons.most_common(10)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help=f"only {', '.join(QUICK_MODULES)}")
    ap.add_argument("--modules", nargs="+", help="dotted test modules (default: the subset in run.py)")
    ap.add_argument("--python", default=sys.executable, help="interpreter with numpy, pytest and minidynamo")
    ap.add_argument("--jobs", type=int, default=2, help="pytest subprocesses at once")
    ap.add_argument("--timeout", type=float, default=120, help="seconds per test call")
    ap.add_argument("--module-timeout", type=float, default=3600, help="seconds per pytest subprocess")
    ap.add_argument("--pytest-args", default="", help="extra pytest arguments for both runs (one string)")
    ap.add_argument("--report-only", action="store_true", help="rebuild the report from the result files in --out")
    ap.add_argument("--fast-path", action="store_true",
                    help="compiled run with the fast path forced on every region, small ones too")
    ap.add_argument("--out", type=Path, help="keep result files and report.txt here (default: a temp dir)")
    args = ap.parse_args(argv)
    modules = args.modules or (QUICK_MODULES if args.quick else DEFAULT_MODULES)
    out = args.out or Path(tempfile.mkdtemp(prefix="numpy_suite_"))
    out.mkdir(parents=True, exist_ok=True)
    jobs = [(m, compiled) for m in modules for compiled in (False, True)]
    if args.report_only:
        done = [load(out, m, compiled) for m, compiled in jobs]
    else:
        with ThreadPoolExecutor(max(1, args.jobs)) as pool:
            done = list(pool.map(lambda j: run_module(args.python, j[0], j[1], out, args.timeout,
                                                      args.module_timeout, shlex.split(args.pytest_args),
                                                      args.fast_path), jobs))
    rows = []
    for i, m in enumerate(modules):
        e, c = done[2 * i], done[2 * i + 1]
        rows.append((m, e, c, compare(e, c)))
    text = report(rows)
    (out / "report.txt").write_text(text + "\n", encoding="utf-8")
    print(text)
    print(f"\nresult files: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
