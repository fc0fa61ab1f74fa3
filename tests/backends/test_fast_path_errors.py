"""Floating-point errors, exceptions and writes around fast-path regions: NaN, inf, overflow, division by
zero under every np.errstate mode give eager's warnings (same text, same count), callbacks, printed text
and exceptions, because a region whose blocks raise any flag the caller does not ignore re-runs as plain
code; writes into inputs and views before and after a region see eager's order."""

from __future__ import annotations

import gc
import types

import numpy as np
import pytest

from minidynamo.backends.fast_path import runner

from .fast_path_support import check_fast, compile_fast, run, tricky

MODES = ["ignore", "warn", "raise", "call", "print", "log"]


def overflowing(x, y):
    z = np.exp(x) * y            # overflow (and inf * 0 -> invalid)
    return z / (y - y) + x       # divide by zero, invalid


class Log:
    def __init__(self) -> None:
        self.calls: list = []

    def write(self, text: str) -> None:
        self.calls.append(text)

    def __call__(self, kind: str, flag: int) -> None:
        self.calls.append((kind, flag))


@pytest.mark.parametrize("mode", MODES)
def test_every_errstate_mode_behaves_as_eager(mode, capfd):
    x = np.linspace(-5, 100, 300 * 64, dtype=np.float32).reshape(300, 64)
    y = tricky("float32", (300, 64), 1)
    logs = []
    outcome = []
    for fn in (overflowing, compile_fast(overflowing)[0]):
        log = Log()
        extra = {"call": log} if mode in ("call", "log") else {}
        outcome.append(run(fn, (x, y), {"all": mode, **extra}))
        logs.append(log.calls)
        outcome[-1] += (capfd.readouterr(),)
    (e_val, e_exc, e_warn, e_out), (c_val, c_exc, c_warn, c_out) = outcome
    assert type(c_exc) is type(e_exc) and str(c_exc) == str(e_exc)
    assert c_warn == e_warn and logs[0] == logs[1] and c_out == e_out
    if mode == "ignore":
        assert np.array_equal(e_val[0], c_val[0], equal_nan=True)
    assert (mode == "ignore") == (not e_warn and not logs[0] and e_exc is None and not e_out.out + e_out.err)


@pytest.mark.parametrize("setting", [{"over": "raise"}, {"divide": "warn", "over": "ignore"},
                                     {"invalid": "raise", "divide": "ignore"}, {"under": "warn"}])
def test_mixed_settings(setting):
    x = np.linspace(-5, 100, 300 * 64).reshape(300, 64)
    rec = check_fast(overflowing, x, tricky("float64", (300, 64), 1), errstate=setting, expect=None)
    assert rec.stats().get("error: FloatingPointError"), "the blocks saw the flag and handed back"


def test_clean_data_under_warn_runs_fast_and_a_flag_falls_back():
    def f(x):
        return np.log(x) * 2 + 1

    x = np.linspace(1, 2, 300 * 64).reshape(300, 64)
    check_fast(f, x, errstate=None)                         # default errstate, no flag: the fast path
    x[200, 5] = -1.0                                        # one invalid value in a late block
    rec = check_fast(f, x, errstate=None, expect="error: FloatingPointError")
    assert rec.stats().get("fast") is None


def test_underflow_ignored_by_default_stays_fast():
    x = np.full((300, 64), 1e-300)
    check_fast(lambda x: x * 1e-300 + 1.0, x, errstate=None)


def test_integer_division_by_zero_warns_as_eager():
    x = np.arange(300 * 64).reshape(300, 64) % 7
    check_fast(lambda a: (a + 1) // a + a % (a - 3), x, errstate=None, expect="error: FloatingPointError")


def test_errstate_block_in_the_program():
    def f(x):
        with np.errstate(over="raise"):
            y = np.exp(x) + 1
        return y * 2

    check_fast(f, np.linspace(0, 10, 300 * 64).reshape(300, 64), errstate=None, expect=None)
    check_fast(f, np.linspace(0, 1000, 300 * 64).reshape(300, 64), errstate=None, expect=None)


def test_python_int_out_of_range_raises_as_eager():
    check_fast(lambda x: (x + 1) + 300, np.zeros((300, 64), np.uint8), expect=None)


def test_writes_into_inputs_and_views_keep_eager_order():
    def f(x, y):
        a = x * 2 + y                  # region reads x before the write
        x += 1
        v = y[::2]
        v *= 3                         # a write through a view of y
        b = np.sqrt(y) * x - a         # region after the writes
        y[:, 0] = b[:, 1]
        return a, b

    check_fast(f, np.linspace(0, 1, 300 * 64).reshape(300, 64), np.linspace(1, 2, 300 * 64).reshape(300, 64))


def test_write_into_a_region_result():
    def f(x):
        y = np.tanh(x) * 2
        y[3] = 0.0
        y += x
        return y, np.exp(y) - 1

    check_fast(f, np.linspace(0, 1, 300 * 64).reshape(300, 64))


def test_a_region_that_keeps_failing_is_tried_only_now_and_then():
    def f(x):
        return np.log(x) * 2 + 1

    cfn, rec = compile_fast(f)
    bad = np.linspace(1, 2, 300 * 64).reshape(300, 64)
    bad[100, 3] = -1.0
    good = bad.copy()
    good[100, 3] = 1.0
    for x, calls in ((bad, 10), (good, 40)):
        for _ in range(calls):
            (e_val, _), e_exc, e_warn = run(f, (x,))
            (c_val, _), c_exc, c_warn = run(cfn, (x,))
            assert e_exc is c_exc is None and c_warn == e_warn and len(e_warn) == (x is bad)
            assert e_val.tobytes() == c_val.tobytes()
    # 3 tries, then skipped until the 32nd call of the failing run, which runs fast
    assert rec.stats() == {"error: FloatingPointError": 3, "skip": 28, "fast": 19}, rec.stats()


def logged(x, rows):
    return (np.log(x) * 2 + 1)[rows]    # (an index read from data may raise: warnings are issued from here)


def bad_input() -> tuple:
    x = np.linspace(1, 2, 300 * 64).reshape(300, 64)
    x[100, 3] = -1.0                # log(-1): a warning on every call
    return x, np.arange(0, 300, 7)


@pytest.mark.parametrize("mode", ["warn", "raise"])
def test_a_region_that_never_stops_failing_tries_ever_less_often(mode):
    """Each try costs the blocks up to the failing one and then the plain lines: the tries come at calls
    32, 96, 224 (each wait twice the last), so their share of the calls tends to nothing. Before, every
    32nd call tried (10 errors in 230 calls). Every call warns (or raises) as eagerly, from eager's line."""
    cfn, rec = compile_fast(logged)
    x = bad_input()
    for _ in range(230):
        (e_val, _), e_exc, e_warn = run(logged, x, {"invalid": mode}, where=True)
        (c_val, _), c_exc, c_warn = run(cfn, x, {"invalid": mode}, where=True)
        assert type(c_exc) is type(e_exc) and str(c_exc) == str(e_exc) and c_warn == e_warn
        assert (len(e_warn), type(e_exc)) == ((1, type(None)) if mode == "warn" else (0, FloatingPointError))
        if e_exc is None:
            assert e_val.tobytes() == c_val.tobytes()
    assert rec.stats() == {"error: FloatingPointError": 6, "skip": 224}, rec.stats()


@pytest.mark.measures_memory
def test_a_failed_call_keeps_none_of_its_arrays():
    """A call whose blocks raised frees its outputs before the plain lines run (they get that memory back)
    and keeps no exception, whose traceback held the blocks' frames and their views of the outputs in a
    cycle until the collector ran (before: the region kept the outputs, and each failing call left the
    FloatingPointError and the blocks' frames for the collector). An elementwise graph: it does not hold its
    warnings, which makes garbage of its own."""
    def f(x):
        return np.log(x) * 2 + 1

    cfn, rec = compile_fast(f)
    x, _ = bad_input()
    (e_val, _), _, e_warn = run(f, (x,))
    run(cfn, (x,))                  # the capture's own garbage
    for _ in range(2):
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)      # (what the collector finds is kept in gc.garbage)
        try:
            (c_val, _), c_exc, c_warn = run(cfn, (x,))
            gc.collect()
            held = [o for o in gc.garbage if isinstance(o, (FloatingPointError, np.ndarray)) or
                    isinstance(o, types.FrameType) and o.f_code.co_filename == runner.__file__]
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
        assert held == []                   # (other threads' garbage is not the region's)
        assert c_exc is None and c_warn == e_warn and c_val.tobytes() == e_val.tobytes()
    (region,) = rec.regions
    assert region.stats == {"error: FloatingPointError": 3} and region.kept == [None]
