"""Calls that read the running frame see eager's frame (issue 28 item 7, capture/frame_readers.py): eval and
exec without namespaces, locals(), globals(), vars() and dir() without an argument, sys._getframe(),
inspect.currentframe(), a helper reading its caller's frame; also when the call comes after another graph
break (the function may not be cut into resume functions). Differential (`check`), cold and warm; each
failed before (NameError for eval, generated names in locals(), the dispatcher's frame)."""

from __future__ import annotations

import inspect
import sys

import numpy as np

import minidynamo as md
from tests.conftest import check

X = np.arange(3.0)
SCALE = 5.0


def evaluates(x):
    y = x + 1.0
    return eval("np.sum(y) * SCALE")


def executes(x):
    y = x + 1.0
    exec("y[0] = np.sum(y)")
    return y


def reads_locals(x):
    y = x + 1.0
    return sorted(locals()), len(locals())


def reads_globals(x):
    return globals() is reads_globals.__globals__, globals()["SCALE"] * x


def reads_vars_and_dir(x):
    y = x * 2.0
    return sorted(vars()), dir()


def reads_its_frame(x):
    frame = sys._getframe()
    here = inspect.currentframe()
    return frame is here, frame.f_code is reads_its_frame.__code__, sorted(frame.f_locals), frame.f_lineno


def _caller_locals():
    return sorted(sys._getframe(1).f_locals)


def helper_reads_callers_frame(x):
    y = x + 1.0
    return _caller_locals(), y


def eval_after_a_break(x):
    y = x * 2.0
    print("a break before the eval")
    return eval("y + x")


def locals_after_a_break(x):
    y = x * 2.0
    z = y.sum()
    print("a break before locals()")
    return sorted(locals())


def test_eval_and_exec_without_namespaces():
    r = check(evaluates, X, calls=[(X + 1,)], expect_fallback="eval() reads the function's own frame")
    assert any("eval() reads the function's own frame" in (x.fallback or "") for x in r.reasons)
    check(executes, X, calls=[(X + 1,)], expect_fallback="exec() reads the function's own frame")


def test_locals_globals_vars_dir():
    for fn in (reads_locals, reads_globals, reads_vars_and_dir):
        check(fn, X, calls=[(X + 1,)], expect_fallback="reads the function's own frame")


def test_the_frame_itself():
    check(reads_its_frame, X, calls=[(X + 1,)], expect_fallback="sys._getframe() reads the function's own frame")


def test_a_helper_reading_its_callers_frame():
    check(helper_reads_callers_frame, X, calls=[(X + 1,)],
          expect_fallback="sys._getframe() reads the function's own frame")


def test_after_another_break(capsys):
    check(eval_after_a_break, X, calls=[(X + 1,)], expect_fallback="eval() reads the function's own frame")
    check(locals_after_a_break, X, calls=[(X + 1,)],
          expect_fallback="locals() reads the function's own frame")


def test_with_an_argument_vars_and_dir_read_no_frame():
    def explicit(x):
        y = x + 1.0
        print("a break")
        return sorted(vars(np.random))[:2], dir(y)[:3], np.tanh(y)
    r = check(explicit, X)
    assert r.reasons and not any(x.fallback for x in r.reasons)
    check(lambda x: eval("a * 2", {"a": x}), X,
          expect_fallback="eval() reads the function's own frame")          # (eval with namespaces: runs as it is, at a break)
