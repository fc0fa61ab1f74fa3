"""Command line: `python -m minidynamo tour` (capture a bundled example and show what happened),
`python -m minidynamo report script.py [args] -o report.html` (run a script with every compiled function
recorded and write one HTML page for the run), `python -m minidynamo lint file.py[:function]` (list the graph
breaks of a file's functions without running them; exit 1 when there are any) and `python -m minidynamo
--lines` (per-file line counts, printed in CI logs as STYLE.md asks)."""

from __future__ import annotations

import argparse
import pathlib
import sys

import numpy as np


def _section(title: str) -> None:
    rule = "=" * 78
    print(f"\n{rule}\n{title}\n{rule}")


def tour() -> int:
    from . import api
    from .backends import get_backend
    from .examples.tour_programs import fit_logistic, loud_switch, make_inputs, make_regression, mlp_block, \
        sign_switch
    from .report.run import outputs_of_run
    from .tracing import LazyRunner, TraceError, run, trace

    x, params = make_inputs()
    _section("1. A block that captures whole: explain(mlp_block)(x, params)")
    print(api.explain(mlp_block)(x, params))
    fast = api.compile(mlp_block)
    same = np.array_equal(fast(x, params), mlp_block(x, params))
    fast(x, params)
    fast(np.ones((6, 8)), params)            # a new shape: a guard fails, the function is captured again
    st = api.stats(fast)
    print(f"\ncompiled result bit-identical to eager: {same}")
    print(f"captures={st.captures} hits={st.hits} recompiles={st.recompiles}; why: {st.guard_failures[-1]}")

    _section("2. A data-dependent branch with pure arms: explain(sign_switch)(x)\n"
             "   both arms are array code, so the `if` is folded into the one graph as a cond node: no break")
    print(api.explain(sign_switch)(x))
    cs = api.compile(sign_switch)
    ok = all(np.array_equal(cs(v), sign_switch(v)) for v in (np.abs(x), -np.abs(x), np.abs(x)))
    print(f"\ncompiled sign_switch matches eager on positive and negative inputs: {ok}")

    _section("3. A branch that breaks the graph: loud_switch, called on a positive, then a negative input\n"
             "   one arm prints, which a cond node cannot hold: the graph stops before the `if`; its stitched\n"
             "   entry runs the graph, takes the branch in plain Python and calls the resume function of the\n"
             "   path taken, captured when first taken (the True path breaks again at its print)")
    with api.record_run() as records:
        cl = api.compile(loud_switch)
        same = [np.array_equal(cl(v), loud_switch(v)) for v in (np.abs(x), -np.abs(x))]
    print(outputs_of_run(records)[0])
    print(f"\ncompiled loud_switch matches eager on both paths: {all(same)}")

    _section("4. The lecture's branch under the simpler front ends")
    pos, neg = np.abs(x[:3, :4]), -np.abs(x[:3, :4])
    try:
        trace(sign_switch, {"x": (3, 4)}, mode="error")
    except TraceError as e:
        print(f"trace(mode='error'):      TraceError: {str(e).splitlines()[0]}")
    g = trace(sign_switch, {"x": (3, 4)}, mode="specialize", example={"x": pos})
    wrong = np.abs(run(g, {"x": neg})[0] - sign_switch(neg)).max()
    print(f"trace(mode='specialize'): {g.count()} op, silently wrong on negative input (max error {wrong:.2f})")
    lr = LazyRunner()
    t = lr.tensor(neg)
    s = t.sum(axis=-1).sum(axis=-1)
    out = lr.materialize(t * 2.0 if s > 0 else t * -1.0)
    print(f"LazyRunner:               {len(lr.graphs)} graphs {lr.graphs}, "
          f"correct: {np.array_equal(out, sign_switch(neg))}")

    _section("5. A loop that runs until a Python float is small: fit_logistic(w, X, y, tol=0.05)")
    w, X, y = make_regression()
    counter = _GraphCounter(get_backend("numpy"))
    cf = api.compile(fit_logistic, backend=counter)
    (w1, n1), (w2, n2) = cf(w, X, y, 0.05), fit_logistic(w, X, y, 0.05)
    print(f"{n1} iterations; bit-identical to eager: {np.array_equal(w1, w2) and n1 == n2}; graphs captured: "
          f"{counter.graphs} (the loop body is captured once and called by a loop driver each iteration)")
    out = api.explain(fit_logistic)(w, X, y, 0.05)
    print("\n".join(f"break: {r}" for r in out.break_reasons))
    return 0


class _GraphCounter:
    """A backend that counts the graphs it compiles and hands them to another backend."""

    def __init__(self, inner):
        self.inner, self.graphs = inner, 0

    def __call__(self, graph, example_inputs):
        self.graphs += 1
        return self.inner(graph, example_inputs)


def lines() -> int:
    root = pathlib.Path(__file__).parent
    total = 0
    for path in sorted(root.rglob("*.py")):
        n = sum(1 for _ in path.open(encoding="utf-8"))
        total += n
        print(f"{n:6d}  {path.relative_to(root.parent)}")
    print(f"{total:6d}  total")
    return 0


def report(argv: list[str]) -> int:
    """Run a script (as `__main__`, with its own argv) recording every capture, then write the page."""
    import runpy
    import traceback

    from . import api
    from .report.run import write_run_page

    parser = argparse.ArgumentParser(prog="minidynamo report", description=report.__doc__)
    parser.add_argument("-o", "--output", default="minidynamo_report.html", help="the HTML page to write")
    parser.add_argument("--screenshot", metavar="PNG", help="also save a screenshot (needs chromium, selenium)")
    parser.add_argument("script", help="the Python script to run")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the script")
    opts = parser.parse_args(_options_last(argv))
    if opts.screenshot:      # before the script runs: what is missing, and how to install it
        from .report.browser import BrowserUnavailable, find_tools
        try:
            find_tools()
        except BrowserUnavailable as e:
            print(f"minidynamo report: --screenshot needs headless Chromium: {e}", file=sys.stderr)
            return 2
    status, saved_argv = 0, sys.argv
    sys.argv = [opts.script, *opts.args]
    try:
        with api.record_run() as records:
            try:
                runpy.run_path(opts.script, run_name="__main__")
            except SystemExit as e:
                status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            except Exception:       # the script's own error: report it, and still write the page
                traceback.print_exc()
                status = 1
    finally:
        sys.argv = saved_argv
    note = "" if status == 0 else f"the script exited with status {status}"
    page = write_run_page(opts.output, opts.script, records, note)
    print(f"minidynamo: wrote {page} ({page.stat().st_size / 1024:.0f} KB)", file=sys.stderr)
    if opts.screenshot:
        from .report.browser import screenshot
        print(f"minidynamo: wrote {screenshot(page, pathlib.Path(opts.screenshot))}", file=sys.stderr)
    return status


_REPORT_OPTIONS = ("-o", "--output", "--screenshot")


def _options_last(argv: list[str]) -> list[str]:
    """`report script.py a b -o out.html` as the issue spells it: trailing report options (after the
    script's arguments) move in front of the script, so argparse does not hand them to the script."""
    argv, tail = list(argv), []
    while len(argv) >= 3 and argv[-2] in _REPORT_OPTIONS:
        tail = argv[-2:] + tail
        del argv[-2:]
    return tail + argv


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["report"]:
        return report(argv[1:])
    if argv[:1] == ["lint"]:
        from .lint import command
        return command(argv[1:])
    parser = argparse.ArgumentParser(prog="minidynamo", description=__doc__)
    parser.add_argument("command", nargs="?", choices=["tour", "report", "lint"],
                        help="tour: capture a bundled example; report: see `python -m minidynamo report -h`; "
                             "lint: see `python -m minidynamo lint -h`")
    parser.add_argument("--lines", action="store_true", help="print per-file line counts of the package")
    args = parser.parse_args(argv)
    if args.lines:
        return lines()
    if args.command == "tour":
        return tour()
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
