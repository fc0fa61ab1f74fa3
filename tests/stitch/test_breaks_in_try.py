"""Breaks inside try/except/finally and `with` bodies are split and resumed like any other break: the
resume function keeps the original exception table, and an exception the breaking instruction itself
raises is re-raised where that instruction stands (resume.resume_code(raises=True)), so the same except
clause catches it as eagerly, `finally` runs once and `__exit__` runs once."""

from __future__ import annotations

import contextlib

import numpy as np
import pytest

import minidynamo as md
from tests.conftest import captured, check


def no_fallback(res) -> None:
    """Every break was stitched around."""
    assert res.reasons, "the function breaks"
    assert not any(r.fallback for r in res.reasons), [str(r) for r in res.reasons]


def after_the_break(x, n):
    try:
        y = x * 2.0
        print("mid", y.sum())
        z = y[n]                      # IndexError after the break, for n >= 3
        return z + 1
    except IndexError as e:
        print("caught", e)
        return -y
    finally:
        print("finally")


def test_an_exception_after_the_break_reaches_the_same_handler_and_finally_runs_once():
    res = check(after_the_break, np.ones(3), 1, calls=[(np.ones(3), 5), (np.arange(3.0), 2), (np.ones(3), -7)])
    no_fallback(res)


def instruction_raises(x):
    try:
        y = x * 2.0
        s = float(y)                  # the breaking instruction raises TypeError for a size-2 array
        print("s", s)
        return s
    except TypeError as e:
        print("caught", type(e).__name__, e)
        return y
    finally:
        print("finally")


def test_the_breaking_instruction_raising_is_caught_by_its_handler():
    res = check(instruction_raises, np.ones(1), calls=[(np.ones(2),), (np.full(1, 3.0),)])
    no_fallback(res)


def ambiguous_truth(x):
    try:
        if x * 2 > 1:                 # ValueError for more than one element: raised by the jump's bool()
            return "big"
        return "small"
    except ValueError as e:
        return f"caught {e}"


def test_a_data_dependent_branch_that_raises_inside_try():
    res = check(ambiguous_truth, np.ones(1), calls=[(np.zeros(1),), (np.ones(3),)])
    no_fallback(res)


def propagates(x, n):
    try:
        y = x + 1
        print("before", y[0])
        return y[n]
    finally:
        print("cleanup")


def test_an_uncaught_exception_leaves_through_finally_once():
    check(propagates, np.ones(2), 0, calls=[(np.ones(2), 9)])


def reraises(x, n):
    try:
        try:
            y = x * 3
            print("inner", y.sum())
            return y[n]
        except IndexError:
            print("re-raising")
            raise
    except IndexError as outer:
        return ("outer", str(outer))


def test_reraise_from_a_handler_after_the_break():
    res = check(reraises, np.ones(2), 1, calls=[(np.ones(2), 4)])
    no_fallback(res)


def chained(x, n):
    try:
        y = x * 2
        print(y)
        y[n] = 1.0
    except IndexError:
        if n > 10:
            raise KeyError("wrapped") from None
        raise KeyError("context")


def test_exception_context_and_cause_are_eager_ones():
    f = md.compile(chained)
    for n in (5, 50):
        got = []
        for fn in (chained, f):
            try:
                fn(np.ones(2), n)
            except KeyError as e:
                got.append((type(e.__context__).__name__, e.__suppress_context__, str(e)))
        assert got[0] == got[1]
    records = captured(f).assert_graph_ran().all_records     # the IndexError is raised by plain Python,
    assert any("IndexError" in str(r.reason) for r in records if r.reason is not None)  # caught by the handler


@contextlib.contextmanager
def tracked(tag, swallow=False):
    print("enter", tag)
    try:
        yield tag
    except Exception as exc:
        print("exit", tag, type(exc).__name__)
        if not swallow:
            raise
    else:
        print("exit", tag)


def in_with(x, n, swallow):
    with tracked("w", swallow):
        y = x * 2.0
        print("body", y.sum())
        z = y[n]
        print("after", z)
    return y


def test_a_break_inside_a_with_body_exits_once_on_every_path():
    res = check(in_with, np.ones(3), 1, False, calls=[(np.ones(3), 8, True), (np.ones(3), 8, False)])
    no_fallback(res)


class Counting:
    def __init__(self):
        self.entered = self.exited = 0

    def __enter__(self):
        self.entered += 1
        return self

    def __exit__(self, *exc):
        self.exited += 1
        return False


def counted(x, cm, n):
    with cm:
        y = x + 1
        if y.sum() > 2:
            y = y * 2
        y[n] += 1
    return y


def test_exit_runs_once_when_the_body_raises_after_a_break():
    f = md.compile(counted)
    for n in (0, 7):
        eager_cm, compiled_cm = Counting(), Counting()
        outcomes = []
        for fn, cm in ((counted, eager_cm), (f, compiled_cm)):
            try:
                outcomes.append(fn(np.ones(2), cm, n).tolist())
            except IndexError as e:
                outcomes.append(str(e))
        assert outcomes[0] == outcomes[1]
        assert (compiled_cm.entered, compiled_cm.exited) == (eager_cm.entered, eager_cm.exited) == (1, 1)
    assert captured(f).assert_graph_ran().reasons       # a break in the with block, stitched around


def try_in_a_long_loop(x, n):
    total = x * 0
    for i in range(n):
        try:
            v = x * i
            if v.sum() > 30:
                raise ValueError("big")
            total = total + v[i % 3]
        except ValueError:
            print("skip", i)
        finally:
            total = total + 0.5
    return total


def test_try_inside_a_driven_loop():
    res = check(try_in_a_long_loop, np.ones(3), 5, calls=[(np.ones(3), 80), (np.ones(2), 5)])
    no_fallback(res)


def loop_inside_try(x, n):
    try:
        for i in range(n):
            x = x + i
        print(x.sum())
    except ValueError:
        return None
    return x


def test_a_long_for_loop_inside_try_stays_correct():
    check(loop_inside_try, np.ones(2), 100)


_SPECIALIZED_RAISER = """
import gc, sys
import minidynamo as md

def clear_frames(tb):                     # traceback.clear_frames: a break at `.clear()` inside try
    while tb is not None:
        try:
            tb.tb_frame.clear()
        except RuntimeError:              # the frame still running: re-raised by the raiser
            pass
        tb = tb.tb_next

compiled = md.compile(clear_frames)

def inner(n):
    if n == 0:
        raise ValueError("x")
    return inner(n - 1)

def run(k):
    try:
        inner(k)
    except ValueError as e:
        compiled(e.__traceback__)
        return [f.tb_frame.f_locals for f in [e.__traceback__.tb_next]]

for i in range(60):                       # well past the calls after which CPython specializes
    assert run(i % 4) == [{}], "the completed frame's locals were cleared"
    gc.collect()
from minidynamo.api import _state_of
assert any(k[0] == "raise" for k in _state_of(compiled).children), "no raiser was made"
print("ok")
"""


def test_raiser_survives_call_specialization():
    # 3.11 segfaulted here once PRECALL specialized and skipped into a raise block put before CALL
    # (pyversion.CALL_PREFIX_OPS); a subprocess, so a crash fails this test only
    import subprocess
    import sys
    proc = subprocess.run([sys.executable, "-c", _SPECIALIZED_RAISER], capture_output=True, text=True,
                          timeout=120, cwd=str(__import__("pathlib").Path(__file__).resolve().parents[2]))
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", (proc.returncode, proc.stderr[-2000:])
