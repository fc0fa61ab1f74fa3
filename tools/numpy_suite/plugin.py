"""pytest plugin: run each test function through minidynamo.compile() and record what capture did.

    python -m pytest -p tools.numpy_suite.plugin --minidynamo --pyargs numpy.lib.tests.test_function_base

Options:
  --minidynamo               replace each test function (plain functions and methods of test classes, and the
                             inner test of a Hypothesis `@given` test) by `minidynamo.compile(fn)` while it runs
  --minidynamo-results=PATH  write every test's outcome (and, with --minidynamo, its capture summary) as JSON;
                             useful without --minidynamo too, for the eager baseline run
  --minidynamo-timeout=S     fail a test call that runs longer than S seconds (SIGALRM, main thread only)
  --minidynamo-fast-path     with --minidynamo: the default backend's fast path forced on every region, small
                             ones too, in blocks of 64 rows (tools/fast_path_forced.py); each test records the
                             outcomes of its region calls ('fast', 'layout', 'error: FloatingPointError', ...)

What a test function is counted as:
  graph         compiled; at least one captured graph (of the test, a resume function or a helper) has an op
  no-ops        compiled and captured, but no graph had an op (everything it did was calls capture broke on)
  eager         compiled, but the test's own frame ran as plain Python (a break that cannot be stitched
                around, or an internal capture error; `note` says which)
  not-compiled  left unchanged: a generator or coroutine, not a Python function, or compile() refused it

Test functions are called once by pytest, so each call is a capture followed by the captured entry.
`minidynamo.reset()` runs after every test, so tests do not share captured variants.
"""

from __future__ import annotations

import inspect
import json
import logging
import platform
import signal
import threading
import time
import types
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

import pytest

_NOT_PLAIN = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR | inspect.CO_ITERABLE_COROUTINE


@dataclass
class TestRecord:
    """One test: how it ended, and (when wrapped) what capture did with it."""

    outcome: str = "unknown"        # passed / failed / error / skipped / xfailed / xpassed
    error: str = ""                 # first line of the failure, for a failed or errored test
    compiled: str = ""              # graph / no-ops / eager / not-compiled ("" when --minidynamo is off)
    note: str = ""                  # why not compiled, or why the frame ran eagerly
    captures: int = 0               # captures made while the test ran (test frame, resume functions, helpers)
    graphs: int = 0                 # of those, graphs with at least one op
    ops: int = 0
    breaks: int = 0
    fallbacks: int = 0              # frames that ran eagerly at a break they could not be stitched around
    internal_errors: int = 0        # captures that hit an internal error (the logged fallback)
    break_reasons: list[str] = field(default_factory=list)
    fast_path: dict[str, int] = field(default_factory=dict)   # region calls by outcome (--minidynamo-fast-path)
    seconds: float = 0.0


# Tests that are never wrapped, each with the reason. Only tests that count references to objects a capture
# legitimately keeps belong here: a cache entry holds the constants it guards on and bakes into its graph
# (small ints, dtypes) for as long as the compiled function lives, so a refcount taken inside the compiled
# test differs from eager's. Keys are node ids without the parametrization.
EXCLUDED = {
    "numpy/_core/tests/test_numeric.py::TestCreationFuncs::test_for_reference_leak":
        "counts references to the int 1, which the capture keeps as a guarded shape constant ([dim] * 10)",
    "numpy/lib/tests/test_function_base.py::TestBincount::test_dtype_reference_leaks":
        "counts references to np.dtype(np.intp) and np.dtype(np.double), which guards and specs keep",
    "numpy/_core/tests/test_indexing.py::TestIndexing::test_small_regressions":
        "counts references to np.dtype(np.intp), which the index arrays' guards and specs keep",
    "numpy/_core/tests/test_ufunc.py::test_reduce_casterrors":
        "counts references to the int 123, which the resume function after `count = ...` keeps as a "
        "guarded constant (a local live at the break)",
    "numpy/_core/tests/test_ufunc.py::test_ufunc_out_casterrors":
        "counts references to the int 123, kept as a guarded constant by the resume functions after the break "
        "at `count = sys.getrefcount(value)`",
    "numpy/_core/tests/test_ufunc.py::test_reduction_no_reference_leak":
        "counts references to `arr`, which the capture records of the resume functions after each "
        "`sys.getrefcount(arr)` break hold as example inputs while the test runs",
    "numpy/_core/tests/test_ufunc.py::test_ufunc_no_reference_leak":
        "compares sys.getrefcount(arr) before and after graph breaks: the code after a break runs in a resume "
        "function called with the live locals as arguments, so the calling entry's argument tuple (and, on "
        "the capturing call, the capture's records) also hold `arr` (2 references eagerly, 7 compiled)",
    "numpy/lib/tests/test_function_base.py::TestLeaks::test_frompyfunc_leaks":
        "counts references to the function behind A.bound / A.unbound across a driven loop; capture guards it "
        "by identity and binds it into its entries, and the resume functions' arguments hold it (eagerly +20 "
        "over the loop, compiled +28 on the capturing call and +22 warm)",
    "numpy/_core/tests/test_indexing.py::TestMultiIndexingAutomated::test_multidim":
        "the refcount asserts of _compare_index_result, as for test_1d (fails so on 3.11; passes compiled with "
        "HAS_REFCOUNT off)",
    "numpy/_core/tests/test_indexing.py::TestMultiIndexingAutomated::test_1d":
        "_compare_index_result compares sys.getrefcount(arr) before and after graph breaks; as for "
        "test_ufunc_no_reference_leak, the resume functions' arguments hold `arr` (3 references eagerly, 17 "
        "compiled); every other check of the test passes compiled",
}


def excluded_reason(key: str) -> str | None:
    return EXCLUDED.get(key.split("[", 1)[0])


class _EagerLog(logging.Handler):
    """Collects minidynamo's one logged fallback ("X runs eagerly: internal error ...")."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


class SuitePlugin:
    def __init__(self, config: pytest.Config) -> None:
        self.wrap = bool(config.getoption("minidynamo"))
        self.results_path = config.getoption("minidynamo_results")
        self.timeout = float(config.getoption("minidynamo_timeout") or 0)
        self.records: dict[str, TestRecord] = {}
        self.reasons: Counter[str] = Counter()
        self.eager_log = _EagerLog()
        if self.wrap:
            import minidynamo
            self.md = minidynamo
            from minidynamo import api
            self.api = api
            logging.getLogger("minidynamo.recompiles").addHandler(self.eager_log)
        self.regions: Counter[str] | None = None
        if self.wrap and config.getoption("minidynamo_fast_path"):
            from tools import fast_path_forced
            self.regions = fast_path_forced.force()

    def record(self, nodeid: str) -> TestRecord:
        return self.records.setdefault(nodeid, TestRecord())

    # ---- wrapping -------------------------------------------------------------------------------------
    def _wrap(self, item: pytest.Function) -> tuple[str, Any]:
        """Install the compiled function on the item; return (note if not compiled, undo callable)."""
        original = item.obj
        func = getattr(original, "__func__", original)
        hyp = getattr(func, "hypothesis", None)
        if getattr(func, "is_hypothesis_test", False) and hyp is not None and hasattr(hyp, "inner_test"):
            inner = hyp.inner_test           # Hypothesis calls this once per example; it may be replaced
            why = self._refusal(inner)
            if why:
                return why, None
            try:
                hyp.inner_test = self.md.compile(inner)
            except TypeError as e:
                return f"compile() refused: {e}", None
            return "", lambda: setattr(hyp, "inner_test", inner)
        why = self._refusal(func)
        if why:
            return why, None
        try:
            item.obj = self.md.compile(original)
        except TypeError as e:
            return f"compile() refused: {e}", None
        return "", lambda: setattr(item, "obj", original)

    @staticmethod
    def _refusal(func: Any) -> str:
        if not isinstance(func, types.FunctionType):
            return f"not a Python function: {type(func).__name__}"
        if func.__code__.co_flags & _NOT_PLAIN:
            return "generator or coroutine"
        return ""

    def _summarize(self, rec: TestRecord, target: Any, captured: list[Any], internal: int) -> None:
        state = self.api._state_of(target)
        rec.captures = len(captured)
        rec.internal_errors = internal
        for r in captured:
            if r.graph is not None and r.graph.count() > 0:
                rec.graphs += 1
                rec.ops += r.graph.count()
            if r.reason is not None:
                rec.breaks += 1
                text = f"[{r.reason.category}] {r.reason.message}".splitlines()[0][:120]
                rec.break_reasons.append(text)
                self.reasons[text] += 1
                if r.reason.fallback:
                    rec.fallbacks += 1
        own = state.records if state is not None else []
        if state is not None and state.skip_reason is not None:
            rec.compiled, rec.note = "eager", state.skip_reason.splitlines()[0][:300]
        elif own and all(r.graph is None for r in own):
            rec.compiled = "eager"
            reason = own[0].reason
            rec.note = f"{reason.fallback} (at [{reason.category}] {reason.message})".splitlines()[0][:300] \
                if reason is not None else "no graph"
        elif rec.graphs:
            rec.compiled = "graph"
        else:
            rec.compiled = "no-ops"
        if internal and not rec.note:   # keep the error, not the (long) resume function names before it
            rec.note = "; ".join(m.split(" runs eagerly: ", 1)[-1] for m in self.eager_log.messages)[:300]

    # ---- hooks ----------------------------------------------------------------------------------------
    @pytest.hookimpl(wrapper=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function) -> Any:
        rec = self.record(_key(pyfuncitem.nodeid, pyfuncitem.location[0]))
        start = time.perf_counter()
        undo = None
        with _alarm(self.timeout):
            if not self.wrap:
                try:
                    return (yield)
                finally:
                    rec.seconds = time.perf_counter() - start
            excluded = excluded_reason(_key(pyfuncitem.nodeid, pyfuncitem.location[0]))
            why, undo = (f"excluded: {excluded}", None) if excluded else self._wrap(pyfuncitem)
            if undo is None:
                rec.compiled, rec.note = "not-compiled", why
                try:
                    return (yield)
                finally:
                    rec.seconds = time.perf_counter() - start
            target = pyfuncitem.obj if not getattr(pyfuncitem.obj, "is_hypothesis_test", False) \
                else getattr(pyfuncitem.obj, "__func__", pyfuncitem.obj).hypothesis.inner_test
            saved = getattr(self.api._recording, "records", None)
            self.api._recording.records = captured = []
            self.eager_log.messages.clear()
            internal_before = self.api.GLOBAL_STATS["fallbacks"]
            regions_before = Counter(self.regions or ())
            try:
                return (yield)
            finally:
                if self.regions is not None:
                    rec.fast_path = dict(self.regions - regions_before)
                self.api._recording.records = saved
                undo()
                rec.seconds = time.perf_counter() - start
                self._summarize(rec, target, captured, self.api.GLOBAL_STATS["fallbacks"] - internal_before)
                self.md.reset()

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        rec = self.record(_key(report.nodeid, report.location[0]))
        wasxfail = hasattr(report, "wasxfail")
        if report.when == "call":
            if report.passed:
                rec.outcome = "xpassed" if wasxfail else "passed"
            elif report.skipped:
                rec.outcome = "xfailed" if wasxfail else "skipped"
            else:
                rec.outcome = "failed"
        elif report.failed:          # setup or teardown failed: an error (keeps a failed call as failed)
            if rec.outcome != "failed":
                rec.outcome = "error"
        elif report.skipped and report.when == "setup":
            rec.outcome = "xfailed" if wasxfail else "skipped"
        if report.failed and not rec.error:
            rec.error = _first_line(report)

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.wrap:
            return
        for line in summary_lines(self.records, self.reasons):
            terminalreporter.write_line(line)
        if self.regions is not None:
            terminalreporter.write_line("minidynamo: fast-path region calls by outcome: "
                                        + ", ".join(f"{k} {n}" for k, n in self.regions.most_common()))

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if not self.results_path:
            return
        import numpy
        meta = {"python": platform.python_version(), "numpy": numpy.__version__, "compiled": self.wrap,
                "date": time.strftime("%Y-%m-%d"), "exitstatus": int(session.exitstatus),
                "fast_path": dict(self.regions) if self.regions is not None else None}
        with open(self.results_path, "w", encoding="utf-8") as f:
            json.dump({"meta": meta, "tests": {k: asdict(v) for k, v in self.records.items()},
                       "break_reasons": dict(self.reasons.most_common(50))}, f, indent=1)


def summary_lines(records: dict[str, TestRecord], reasons: Counter) -> list[str]:
    """The terminal report of a --minidynamo run (also what tests/test_numpy_suite_plugin.py reads)."""
    kinds = Counter(r.compiled for r in records.values() if r.compiled)
    wrapped = kinds["graph"] + kinds["no-ops"] + kinds["eager"]
    ran = sum(kinds.values())
    not_compiled = Counter(r.note.split(":")[0] for r in records.values() if r.compiled == "not-compiled")
    lines = [f"minidynamo: wrapped {wrapped} of {ran} test functions with compile() "
             f"(graph {kinds['graph']}, no-ops {kinds['no-ops']}, eager {kinds['eager']}; "
             f"not compiled {kinds['not-compiled']})",
             f"minidynamo: captures {sum(r.captures for r in records.values())}, "
             f"graphs {sum(r.graphs for r in records.values())}, ops {sum(r.ops for r in records.values())}, "
             f"breaks {sum(r.breaks for r in records.values())}, "
             f"frame fallbacks {sum(r.fallbacks for r in records.values())}, "
             f"internal errors {sum(r.internal_errors for r in records.values())}"]
    if not_compiled:
        lines.append("minidynamo: not compiled: " + ", ".join(f"{k} {n}" for k, n in not_compiled.most_common()))
    passed = Counter(r.outcome for r in records.values() if r.compiled)
    lines.append("minidynamo: outcomes of run test functions: "
                 + ", ".join(f"{k} {n}" for k, n in sorted(passed.items())))
    for text, n in reasons.most_common(5):
        lines.append(f"minidynamo: break x{n}: {text}")
    return lines


def _key(nodeid: str, path: str) -> str:
    """The node id, with its file when pytest left it out: `--pyargs` tests outside the rootdir get
    `::TestX::test_y`, so two modules could share an id."""
    if not nodeid.startswith("::"):
        return nodeid
    path = path.replace("\\", "/")
    return (path.split("site-packages/", 1)[1] if "site-packages/" in path else path.lstrip("./")) + nodeid


def _first_line(report: pytest.TestReport) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    text = crash.message if crash is not None else str(report.longrepr)
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:300]
    return ""


class SuiteTimeout(BaseException):
    """A test call ran past --minidynamo-timeout (a BaseException, so no `except Exception` swallows it)."""


class _alarm:
    """SIGALRM after `seconds` (0: off; only on the main thread of a POSIX process)."""

    def __init__(self, seconds: float) -> None:
        self.on = seconds > 0 and hasattr(signal, "SIGALRM") and threading.current_thread() is threading.main_thread()
        self.seconds = seconds

    def __enter__(self) -> None:
        if self.on:
            def fire(signum: int, frame: Any) -> None:
                raise SuiteTimeout(f"test call ran longer than {self.seconds:g} s")
            self.previous = signal.signal(signal.SIGALRM, fire)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def __exit__(self, *exc: Any) -> None:
        if self.on:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("minidynamo", "run each test function through minidynamo.compile()")
    group.addoption("--minidynamo", action="store_true", default=False,
                    help="wrap each test function with minidynamo.compile() while it runs")
    group.addoption("--minidynamo-results", default=None, metavar="PATH",
                    help="write each test's outcome and capture summary to PATH as JSON")
    group.addoption("--minidynamo-timeout", default=0, type=float, metavar="SECONDS",
                    help="fail a test call that runs longer than SECONDS (0: no limit)")
    group.addoption("--minidynamo-fast-path", action="store_true", default=False,
                    help="with --minidynamo: force the fast path on every region, small ones too")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("minidynamo") or config.getoption("minidynamo_results"):
        config.pluginmanager.register(SuitePlugin(config), "minidynamo-suite")

