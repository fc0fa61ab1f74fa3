"""Liveness: a resume function receives only the locals the rest of the code may read."""

from __future__ import annotations

import numpy as np

import minidynamo as md
from minidynamo.capture.instructions import decode
from minidynamo.capture.liveness import is_live, live_in
from tests.conftest import check


def dead_after_print(x):
    scratch = x * 3.0          # read only before the break
    total = scratch.sum()
    print("between")
    return x + total


def test_a_dead_local_is_not_passed_to_the_resume_function():
    check(dead_after_print, np.ones(4), calls=[(np.zeros(3),)])
    out = md.explain(dead_after_print)(np.ones(4))
    resumed = [g for g in out.graphs if "resume" in g.name]
    assert resumed and {n.name for n in resumed[0].inputs} == {"total", "x"}


def read_in_one_branch(x, flag):
    y = x + 1.0
    if flag:
        return y
    return x


def test_liveness_sees_reads_on_every_path():
    code = read_in_one_branch.__code__
    ins = decode(code)
    test = next(i for i, instr in enumerate(ins.instrs) if instr.name.startswith("POP_JUMP"))
    assert is_live(code, test, "y") and is_live(code, test, "x")
    last_return = max(i for i, instr in enumerate(ins.instrs) if instr.name == "RETURN_VALUE")
    assert not is_live(code, last_return, "y")


def with_try(x):
    try:
        y = x * 2
    except ValueError:
        return x
    return y


def test_code_with_an_exception_table_is_left_conservative():
    assert live_in(with_try.__code__) is None
    assert is_live(with_try.__code__, 0, "anything")
