"""capture/loops.py: a `while` on an array's value with a pure body is one while_loop node, no break; it runs
0, 1 or many times exactly as eager does. Anything else keeps today's break (differential throughout)."""

from __future__ import annotations

import numpy as np
import pytest

import minidynamo as md
from minidynamo import config
from tests.conftest import check


def halve_until_small(v):
    while v.max() > 1.0:
        v = v / 2
    return v


def newton_sqrt(x):
    y = x
    while np.abs(y * y - x).max() > 1e-12:
        y = 0.5 * (y + x / y)
    return y


def power_iteration(a, v, tol):
    err = np.inf                          # a Python float: the first test is decided at capture time
    while err > tol:
        w = a @ v
        vn = w / np.linalg.norm(w)
        err = np.abs(vn - v).max()
        v = vn
    return v, err


def fixed_point(x):
    while np.abs(x - np.cos(x)).max() > 1e-10:
        x = np.cos(x)
    return x


A = np.array([[2.0, 1.0], [1.0, 3.0]])


def loops_of(fn, *args):
    out = md.explain(fn)(*args)
    return [b for b in out.folded_branches if b.kind == "while"], out.break_reasons


@pytest.mark.parametrize("start, runs", [(np.array([0.5, 0.25]), 0), (np.array([1.5, 0.25]), 1),
                                         (np.array([100.0, 3.0]), 7)])
def test_zero_one_and_many_iterations_one_graph(start, runs):
    expected = start / 2 ** runs
    assert np.array_equal(halve_until_small(start), expected)
    res = check(halve_until_small, start, calls=[(np.array([0.5, 0.25]),), (np.array([1.5, 0.25]),),
                                                 (np.array([1e6, 2.0]),)])
    assert res.reasons == [] and res.counter.frame_count == 1
    assert res.graphs[0].count("while_loop") == 1


@pytest.mark.parametrize("fn, calls", [
    (newton_sqrt, [(np.array([2.0, 9.0]),), (np.array([1.0, 1.0]),), (np.array([1e-4, 1e4]),)]),
    (power_iteration, [(A, np.ones(2), 1e-10), (A, np.array([1.0, -1.0]), 1e-10), (A * 3, np.ones(2), 1e-10)]),
    (fixed_point, [(np.zeros(3),), (np.array([0.7390851332151607] * 3),), (np.linspace(-1, 1, 3),)]),
])
def test_convergence_loops_fold(fn, calls):
    res = check(fn, *calls[0], calls=calls[1:])
    assert res.reasons == [] and res.counter.frame_count == 1
    folded, breaks = loops_of(fn, *calls[0])
    assert len(folded) == 1 and breaks == []
    assert folded[0].source_line.startswith("while ")


def counts_in_python(v):
    i = 0
    while v.max() > 1.0:
        v = v / 2
        i += 1
    return v, i


def prints_in_body(v):
    while v.max() > 1.0:
        print("step")
        v = v / 2
    return v


def breaks_out(v):
    while v.max() > 1.0:
        v = v / 2
        if v.min() < 0.1:
            break
    return v


def changes_dtype(v):
    while v.max() > 1.0:
        v = (v / 2).astype(np.float32)
    return v


def writes_input(v, out):
    while v.max() > 1.0:
        v = v / 2
        out[0] += 1.0
    return v


@pytest.mark.parametrize("fn, calls", [
    (counts_in_python, [(np.array([9.0]),), (np.array([0.5]),)]),
    (prints_in_body, [(np.array([9.0]),), (np.array([0.5]),)]),
    (breaks_out, [(np.array([9.0, 0.3]),), (np.array([9.0, 9.0]),)]),
    (changes_dtype, [(np.array([9.0]),), (np.array([0.5]),)]),
    (writes_input, [(np.array([9.0]), np.zeros(1)), (np.array([0.5]), np.zeros(1))]),
])
def test_impure_or_changing_bodies_keep_the_break(fn, calls):
    res = check(fn, *calls[0], calls=calls[1:])
    assert res.reasons
    folded, breaks = loops_of(fn, *calls[0])
    # (a loop whose dtype settles after one iteration may fold in the resume function that runs the rest)
    assert [b for b in folded if b.function == fn.__qualname__] == [] and breaks


def test_auto_cond_off_keeps_the_loop_break():
    with config.patch(auto_cond=False):
        res = check(newton_sqrt, np.array([2.0, 9.0]), calls=[(np.array([1.0, 1.0]),)])
        folded, breaks = loops_of(newton_sqrt, np.array([2.0, 9.0]))
    assert res.reasons and folded == [] and breaks


def cond_in_while(v):
    while v.max() > 1.0:
        if v.sum() > 10:
            v = v / 4
        else:
            v = v / 2
    return v


def test_cond_nested_in_a_folded_while():
    res = check(cond_in_while, np.array([50.0, 1.0]), calls=[(np.array([3.0, 1.0]),), (np.array([0.1]) * 0 + 0.5,)])
    assert res.reasons == []
    kinds = [b.kind for b in md.explain(cond_in_while)(np.array([50.0, 1.0])).folded_branches]
    assert kinds == ["while", "if"]
