"""Shared test helpers: `check(fn, *args)`, the differential test, and `CompileCounter`, a counting backend.

`check` runs `fn` eagerly and through `minidynamo.compile` on deep copies of the same inputs, call after
call, and asserts both runs agree on everything a caller can observe: the return value (bit-identical,
type included), the exception (type and message), what was printed, the arguments after the call (in-place
writes), chosen module globals, and which returned objects are the caller's own arguments. It returns a
`CheckResult` with the compiled function's capture records, stats and counter, so tests can assert graph
counts and break reasons on top. By default it also asserts that a graph with an op was captured and that
no frame fell back to eager (`expect_fallback="words"`: a frame fell back, for a reason saying them;
`expect_graph=False`: the function was captured, and the test asserts the rest itself). `captured(cfn)`
gives the same assertions to a test that compiles and calls a function itself.

`pytest --eager-stand-in` replaces `minidynamo.compile` by `eager_stand_in`, which returns a wrapper running the
function as it is: a test that still passes then cannot tell capture from no capture (issue 24). Measure with
`tools/eager_stand_in.sh` (the items of tests/capture and tests/stitch that pass so, of all of them).
`pytest --fallback-stand-in` keeps `compile` and makes every capture `fallback_stand_in`'s: the whole frame runs
eagerly, for a reason no test names (`tools/eager_stand_in.sh PY --fallback-stand-in` measures that instead):
a test still passing then cannot tell capture from a compiled function that never captures a graph.
"""

from __future__ import annotations

import contextlib
import copy
import dis
import functools
import io
import os
import types
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

import numpy as np
import pytest
from hypothesis import settings

# Property tests draw the same examples on every run unless asked otherwise: CI stays reproducible, and a
# failure seen once is seen again. `HYPOTHESIS_PROFILE=explore` draws fresh random examples.
settings.register_profile("repeatable", derandomize=True, deadline=None)
settings.register_profile("explore", derandomize=False, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

import minidynamo as md
from minidynamo.api import _state_of
from minidynamo.backends import get_backend

_MISSING = object()


def pytest_addoption(parser: Any) -> None:
    parser.addoption("--verify-every", type=int, default=0, metavar="N",
                     help="run the suite with shadow verification on: config verify_every=N for every "
                          "function compiled (minidynamo/verify.py); a difference raises VerificationError")
    parser.addoption("--eager-stand-in", action="store_true", default=False,
                     help="replace minidynamo.compile by a stand-in that runs the function eagerly: the tests "
                          "that still pass cannot tell capture from no capture")
    parser.addoption("--fallback-stand-in", action="store_true", default=False,
                     help="make every capture an eager fallback of the whole frame: the tests that still pass "
                          "cannot tell capture from a compiled function that captures nothing")


def eager_stand_in(fn: Callable | None = None, **options: Any) -> Any:
    """What `--eager-stand-in` puts in place of `minidynamo.compile`: the function, called as it is."""
    if fn is None:
        return lambda f: eager_stand_in(f, **options)

    @functools.wraps(fn)
    def run_eagerly(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)
    return run_eagerly


def fallback_stand_in(fn: Callable, args: tuple, kwargs: dict, backend: Any, cfg: Any, tag: str, *rest: Any,
                      **options: Any) -> Any:
    """What `--fallback-stand-in` puts in place of `api.capture_once`: an entry that runs the whole frame
    eagerly (guarded on the code object only), for a reason no test expects."""
    from minidynamo import api
    from minidynamo.dispatch.cache import Entry
    from minidynamo.capture.breaks import BreakCategory, BreakReason
    from minidynamo.guards import GuardSet
    from minidynamo.report import CaptureRecord
    reason = BreakReason(BreakCategory.UNSUPPORTED, "--fallback-stand-in captures nothing")
    reason.fallback = "--fallback-stand-in"
    entry = Entry(GuardSet([api.code_guard(fn)]), [f"return ___eager({api._forward(fn)})"], {}, tag)
    return api._recorded(CaptureRecord(fn, entry, None, reason, 0.0))


# Tests that, by design, differ under --verify-every (verification runs the function once more, eagerly, on
# copies it holds): each marker with the reason its tests are skipped there.
NOT_UNDER_VERIFY = {
    "counts_calls": "counts calls, computes or log lines: verification runs the function once more, eagerly",
    "counts_references": "checks reference counts (ndarray.resize): verification holds the copies it compares",
    "measures_memory": "measures peak allocation: verification's copies and eager run allocate too",
    "measures_work": "picks a mode from the work its calls save: verification's eager runs add work",
    "passes_live_state": "passes the warnings log itself: the eager run's deep copy of it is not the log",
}


def pytest_configure(config: Any) -> None:
    for name, why in NOT_UNDER_VERIFY.items():
        config.addinivalue_line("markers", f"{name}: skipped under --verify-every ({why})")
    if config.getoption("--eager-stand-in"):
        md.compile = eager_stand_in     # before collection: `from minidynamo import compile` gets it too
    if config.getoption("--fallback-stand-in"):
        from minidynamo import api
        api.capture_once = fallback_stand_in
    n = config.getoption("--verify-every")
    if n:
        md.config.set_config(verify_every=n)


def pytest_collection_modifyitems(config: Any, items: list) -> None:
    if not config.getoption("--verify-every"):
        return
    for item in items:
        for name, why in NOT_UNDER_VERIFY.items():
            if item.get_closest_marker(name) is not None:
                item.add_marker(pytest.mark.skip(reason=f"--verify-every: {why}"))


class CompileCounter:
    """A backend that counts what it compiles and delegates to another backend ("numpy" by default).

    `frame_count` is the number of graphs compiled, `op_count` their call nodes in total, and `graphs` the
    Graph objects themselves (Dynamo's CompileCounter, as a plain callable)."""

    def __init__(self, inner: str = "numpy") -> None:
        self.inner = get_backend(inner)
        self.frame_count = 0
        self.op_count = 0
        self.graphs: list[Any] = []

    def __call__(self, graph: Any, example_inputs: Sequence[Any]) -> Callable[..., tuple]:
        self.frame_count += 1
        self.op_count += graph.count()
        self.graphs.append(graph)
        return self.inner(graph, example_inputs)

    def __repr__(self) -> str:
        return f"CompileCounter(frame_count={self.frame_count}, op_count={self.op_count})"


@dataclass
class CheckResult:
    """What `check` hands back: the compiled function and how it was captured."""

    compiled: Any
    counter: CompileCounter
    records: list = field(default_factory=list)

    @property
    def stats(self) -> Any:
        return md.stats(self.compiled)

    @property
    def reasons(self) -> list:
        """Break reasons of all captures (empty: every capture was one whole graph)."""
        return [r.reason for r in self.records if r.reason is not None]

    @property
    def graphs(self) -> list:
        return [r.graph for r in self.records if r.graph is not None]

    @property
    def all_records(self) -> list:
        """The captures of the function and of all its pieces (resume functions, loop bodies, helpers)."""
        state = _state_of(self.compiled)
        if state is None:
            return []
        pieces = [_state_of(c) for c in state.children.values()]
        return list(state.records) + [r for s in pieces if s is not None and s is not state for r in s.records]

    def assert_graph_ran(self) -> "CheckResult":
        """A capture (of the function or of a piece of it) made a graph with at least one op, and no frame
        fell back to running eagerly."""
        assert _state_of(self.compiled) is not None, f"{self.compiled!r} is not a compiled function"
        records = self.all_records
        assert any(r.graph is not None and r.graph.count() for r in records), \
            f"no graph with an op was captured: {[str(r.reason) for r in records]}"
        fallbacks = [str(r.reason) for r in records if r.reason is not None and r.reason.fallback]
        assert not fallbacks, "a frame ran eagerly:\n" + "\n".join(fallbacks)
        return self

    def assert_fallback(self, words: str) -> "CheckResult":
        """A capture fell back to running a frame eagerly, for a reason whose text contains `words`."""
        assert _state_of(self.compiled) is not None, f"{self.compiled!r} is not a compiled function"
        reasons = [str(r.reason) for r in self.all_records if r.reason is not None and r.reason.fallback]
        assert any(words in r for r in reasons), f"no eager fallback saying {words!r}: {reasons}"
        return self

    def assert_resumed_after(self, opname: str) -> "CheckResult":
        """Capture broke at an `opname` instruction, every break was stitched around (no frame ran eagerly),
        and a resume function captured a graph with operations after the break."""
        children = _state_of(self.compiled).children.values()
        records = [r for c in children if _state_of(c) is not None for r in _state_of(c).records]
        reasons = self.reasons + [r.reason for r in records if r.reason is not None]
        assert any(r.opname == opname for r in reasons), f"no break at {opname}: {reasons}"
        assert not any(r.fallback for r in reasons), "a frame ran eagerly:\n" + "\n".join(map(str, reasons))
        resumed = [r for r in records if "__resume" in r.fn.__name__ and r.graph is not None and r.graph.count()]
        assert resumed, f"no graph captured after the break: {[r.fn.__name__ for r in records]}"
        return self

    def assert_broke(self, *words: str) -> "CheckResult":
        """Capture broke (in the function or a piece of it), every break was stitched around (no frame ran
        eagerly), and each of `words` is in some break's reason: a program that raises at capture, a value
        capture cannot follow."""
        assert _state_of(self.compiled) is not None, f"{self.compiled!r} is not a compiled function"
        reasons = [str(r.reason) for r in self.all_records if r.reason is not None]
        assert reasons, "no graph break"
        assert not any(r.reason.fallback for r in self.all_records if r.reason is not None), \
            "a frame ran eagerly:\n" + "\n".join(reasons)
        for w in words:
            assert any(w in r for r in reasons), f"no break saying {w!r}: {reasons}"
        return self

    def assert_no_breaks(self) -> "CheckResult":
        assert self.records, "nothing was captured"
        assert self.reasons == [], "unexpected graph break:\n" + "\n".join(str(r) for r in self.reasons)
        return self


def captured(compiled: Any) -> CheckResult:
    """The capture records of a function compiled by the test itself (not through `check`), to assert on:
    `captured(cfn).assert_graph_ran()`."""
    state = _state_of(compiled)
    return CheckResult(compiled, CompileCounter(), list(state.records) if state is not None else [])


# ---- comparing two runs ----------------------------------------------------------------------------------

def assert_same(eager: Any, compiled: Any, where: str = "result") -> None:
    """Bit-identical comparison: same type, arrays with equal dtype/shape/values (NaN equal to NaN)."""
    assert type(eager) is type(compiled), f"{where}: type {type(compiled).__name__}, eager {type(eager).__name__}"
    if isinstance(eager, np.ndarray):
        assert eager.dtype == compiled.dtype, f"{where}: dtype {compiled.dtype}, eager {eager.dtype}"
        assert eager.shape == compiled.shape, f"{where}: shape {compiled.shape}, eager {eager.shape}"
        assert np.array_equal(eager, compiled, equal_nan=eager.dtype.kind in "fc"), f"{where}: values differ"
    elif isinstance(eager, np.generic):
        assert eager.dtype == compiled.dtype, f"{where}: dtype {compiled.dtype}, eager {eager.dtype}"
        same = np.array_equal(np.asarray(eager), np.asarray(compiled), equal_nan=eager.dtype.kind in "fc")
        assert same, f"{where}: {compiled!r}, eager {eager!r}"
    elif isinstance(eager, (tuple, list)):
        assert len(eager) == len(compiled), f"{where}: length {len(compiled)}, eager {len(eager)}"
        for i, (a, b) in enumerate(zip(eager, compiled)):
            assert_same(a, b, f"{where}[{i}]")
    elif isinstance(eager, dict):
        assert list(eager) == list(compiled), f"{where}: keys {list(compiled)}, eager {list(eager)}"
        for k in eager:
            assert_same(eager[k], compiled[k], f"{where}[{k!r}]")
    elif isinstance(eager, (np.random.Generator, np.random.RandomState)):
        assert_same(rng_state(eager), rng_state(compiled), f"{where}: random stream state")
    elif isinstance(eager, float) and eager != eager:
        assert compiled != compiled, f"{where}: {compiled!r}, eager nan"
    elif isinstance(eager, types.SimpleNamespace) or (type(eager).__eq__ is object.__eq__
                                                      and not isinstance(eager, _CODE_OBJECTS)):
        assert_same(_state(eager), _state(compiled), f"{where}.__dict__")   # {} for sentinels
    else:
        assert eager == compiled, f"{where}: {compiled!r}, eager {eager!r}"


def rng_state(rng: Any) -> dict:
    """Everything that decides a generator's next draws (a RandomState's cached Gaussian included)."""
    if isinstance(rng, np.random.Generator):
        return rng.bit_generator.state
    return rng.get_state(legacy=False)


# Callables compared by identity, not by their state (a layer object with __call__ is compared by state).
_CODE_OBJECTS = (types.FunctionType, types.BuiltinFunctionType, types.MethodType, type, types.ModuleType)


def _state(obj: Any) -> dict[str, Any]:
    """An object's attributes: its __dict__ and its __slots__ (unset slots left out)."""
    state = dict(getattr(obj, "__dict__", {}))
    for cls in type(obj).__mro__:
        slots = getattr(cls, "__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__") and hasattr(obj, name):
                state[name] = getattr(obj, name)
    return state


def _leaves(value: Any, path: str = "") -> Iterable[tuple[str, Any]]:
    """(path, object) for a value and the items of its tuples/lists/dicts: identity checks walk these."""
    yield path, value
    if isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            yield from _leaves(v, f"{path}[{i}]")
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _leaves(v, f"{path}[{k!r}]")


def _aliases(result: Any, inputs: Any) -> list[tuple[str, str]]:
    """Which parts of the result are (by identity) which mutable inputs: (result path, input path)."""
    where = {id(v): p for p, v in _leaves(inputs) if isinstance(v, (np.ndarray, list, dict))}
    return [(p, where[id(v)]) for p, v in _leaves(result) if id(v) in where]


def _run(fn: Callable, args: tuple, kwargs: dict) -> tuple[Any, BaseException | None, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            return fn(*args, **kwargs), None, out.getvalue()
        except Exception as e:   # the differential test compares exceptions too
            return None, e, out.getvalue()


def _snapshot(namespace: dict, names: Sequence[str]) -> dict[str, Any]:
    return {n: copy.deepcopy(namespace.get(n, _MISSING)) if n in namespace else _MISSING for n in names}


def _restore(namespace: dict, snapshot: dict[str, Any]) -> None:
    for name, value in snapshot.items():
        if value is _MISSING:
            namespace.pop(name, None)
        else:
            namespace[name] = copy.deepcopy(value)


def _copy_inputs(namespace: dict, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
    """Deep copies of the arguments; objects that are also module globals of fn (sentinels, functions,
    config objects) stay themselves, so `arg is GLOBAL` means the same in both runs."""
    memo = {id(v): v for v in namespace.values() if not isinstance(v, (np.ndarray, list, dict))}
    return copy.deepcopy((args, kwargs), memo)


def check(fn: Callable, *args: Any, calls: Sequence[tuple] | None = None, globals_to_check: Sequence[str] = (),
          backend: Any = None, compiled: Any = None, expect_graph: bool = True, expect_fallback: str | None = None,
          **kwargs: Any) -> CheckResult:
    """Run `fn(*args, **kwargs)` and then `fn(*c)` for each tuple `c` in `calls`, eagerly and compiled, and
    assert the two agree on results, exceptions, stdout, mutated arguments and the named globals.

    Then assert what capture did: by default that a graph with an op was captured and no frame fell back to
    eager (`assert_graph_ran`); `expect_fallback="words"`: a frame fell back for a reason saying them;
    `expect_graph=False`: only that the function was captured (the test asserts the rest itself).

    `compiled` reuses an existing compiled function (its backend is then whatever it was compiled with)."""
    counter = CompileCounter()
    cfn = compiled if compiled is not None else md.compile(fn, backend=backend or counter,
                                                          options={"suppress_errors": False})
    namespace = getattr(fn, "__globals__", {})
    all_calls = [(args, kwargs)] + [(tuple(c), {}) if not isinstance(c, dict) else ((), c) for c in (calls or ())]
    for n, (a, kw) in enumerate(all_calls):
        start = _snapshot(namespace, globals_to_check)
        eager_in, compiled_in = _copy_inputs(namespace, a, kw), _copy_inputs(namespace, a, kw)
        e_value, e_exc, e_out = _run(fn, *eager_in)
        e_globals = _snapshot(namespace, globals_to_check)
        _restore(namespace, start)
        c_value, c_exc, c_out = _run(cfn, *compiled_in)
        c_globals = _snapshot(namespace, globals_to_check)
        tag = f"call {n}"
        if e_exc is not None or c_exc is not None:
            assert type(c_exc) is type(e_exc), f"{tag}: compiled raised {c_exc!r}, eager raised {e_exc!r}"
            assert str(c_exc) == str(e_exc), f"{tag}: message {c_exc}, eager {e_exc}"
        else:
            assert_same(e_value, c_value, f"{tag}: result")
            assert _aliases(c_value, compiled_in) == _aliases(e_value, eager_in), f"{tag}: result aliasing"
        assert c_out == e_out, f"{tag}: printed {c_out!r}, eager printed {e_out!r}"
        assert_same(eager_in, compiled_in, f"{tag}: arguments after the call")
        for name in globals_to_check:
            g_e, g_c = e_globals[name], c_globals[name]
            assert (g_e is _MISSING) == (g_c is _MISSING), f"{tag}: global {name} bound differently"
            if g_e is not _MISSING:
                assert_same(g_e, g_c, f"{tag}: global {name}")
    state = _state_of(cfn)
    result = CheckResult(cfn, counter, list(state.records) if state is not None else [])
    if expect_fallback is not None:
        result.assert_fallback(expect_fallback)
    elif expect_graph:
        result.assert_graph_ran()
    else:
        assert state is not None and result.all_records, f"{cfn!r} captured nothing"
    return result


# ---- asserting through dis that a test exercises the opcode it is about (STYLE §7) -----------------------

def opnames(fn: Any) -> set[str]:
    """Opcode names in fn's code and in every code object nested in it (lambdas, 3.11 comprehensions): as
    dis shows them, as capture reads them (capture/instructions.py: 3.14's LOAD_FAST_BORROW is a LOAD_FAST
    there), and 3.14's subscript BINARY_OP (what BINARY_SUBSCR was) also as "BINARY_OP_SUBSCR"."""
    from minidynamo.capture.instructions import decode
    code = fn.__code__ if hasattr(fn, "__code__") else fn
    names = {i.opname for i in dis.get_instructions(code)} | {i.name for i in decode(code).instrs}
    if any(i.opname == "BINARY_OP" and i.argrepr == "[]" for i in dis.get_instructions(code)):
        names.add("BINARY_OP_SUBSCR")
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            names |= opnames(const)
    return names


def assert_uses(fn: Any, *wanted: str, any_of: bool = False) -> None:
    """Assert fn's bytecode on this Python contains the opcodes (all of them, or any with any_of=True)."""
    have = opnames(fn)
    missing = [w for w in wanted if w not in have]
    if any_of:
        assert len(missing) < len(wanted), f"none of {wanted} in {getattr(fn, '__name__', fn)}: {sorted(have)}"
    else:
        assert not missing, f"{missing} not in {getattr(fn, '__name__', fn)}'s bytecode: {sorted(have)}"


@pytest.fixture(autouse=True)
def _fresh_minidynamo():
    """Captured variants never leak from one test into the next."""
    yield
    md.reset()
