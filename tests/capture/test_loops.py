"""capture/fold/loops.py: a `while` on an array's value with a pure body is one while_loop node, no break; it runs
0, 1 or many times exactly as eager does. Anything else keeps today's break (differential throughout)."""

from __future__ import annotations

import numpy as np
import pytest

import minidynamo as md
from minidynamo import config
from tests.conftest import captured, check


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
        if v.min() < 0.1:
            break
        v = v / 2
    return v


def breaks_at_the_end(v):
    while v.max() > 1.0:
        v = v / 2
        if v.min() < 0.1:   # on 3.11 this and the while test leave to one place: part of the loop's test
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


# ---- loops that carry Python numbers, short-circuit tests ------------------------------------------------------

def halve_counted(x, tol, max_iter):
    it = 0
    err = np.abs(x).max()
    while err > tol and it < max_iter:
        x = x * 0.5
        err = np.abs(x).max()
        it += 1
    return x, it, err


def halve_counted_counter_first(x, tol, max_iter):
    it, err = 0, np.abs(x).max()
    while it < max_iter and err > tol:
        x, err, it = x * 0.5, np.abs(x * 0.5).max(), it + 1
    return it, x


def at_least_steps(x, min_steps):
    n, t = 0, 0.0
    while np.abs(x).max() > 1.0 or n < min_steps:     # `or`: the second test runs only when the first fails
        x = x / 3
        n += 1
        t = t + 0.25
    return x, n, t


def until_small(x):
    steps = 0
    while not np.abs(x).max() < 1.0:
        x = x - np.sign(x)
        steps = steps + 1
    return steps, x


def do_while(x, tol):
    k = 0
    while True:
        x = np.sqrt(x)
        k += 1
        if np.abs(x - 1.0).max() < tol:
            break
    return x, k


def raises_in_second_test(x, tol, n):
    it = 0
    while np.abs(x).max() > tol and 10 // (n - it) > 0:   # ZeroDivisionError only if it gets to n
        x = x * 0.5
        it += 1
    return x, it


COUNTED = [
    (halve_counted, [(np.ones(3), 0.1, 100), (np.ones(3), 0.1, 2), (np.ones(3), 10.0, 100),
                     (np.ones(3) * 1e6, 1e-3, 5), (np.ones(3) * 0.5, 0.25, 0), (np.array([-4.0, 2.0, 0.0]), 0.1, 1)]),
    (halve_counted_counter_first, [(np.ones(3), 0.1, 100), (np.ones(3), 0.1, 3), (np.ones(3), 0.1, 0),
                                   (np.ones(3) * 0.01, 0.1, 100)]),
    (at_least_steps, [(np.array([100.0]), 0), (np.array([0.5]), 0), (np.array([0.5]), 3), (np.array([50.0]), 10)]),
    (until_small, [(np.array([3.5, 0.0]),), (np.array([0.5]),), (np.array([1.0]),)]),
    (do_while, [(np.array([16.0, 4.0]), 1e-3), (np.array([1.0]), 1e-3), (np.array([1e8]), 1e-9)]),
    (raises_in_second_test, [(np.ones(2), 0.1, 100), (np.ones(2), 1e-9, 3), (np.ones(2), 2.0, 0)]),
]


@pytest.mark.parametrize("fn, calls", COUNTED, ids=[f.__name__ for f, _ in COUNTED])
def test_loops_carrying_python_numbers_fold(fn, calls):
    """Results, exceptions and the type of every returned value (an int stays an int) as eager, on inputs
    that run the loop 0, 1 and many times and stop at max_iter or on convergence: one graph, no break."""
    res = check(fn, *calls[0], calls=calls[1:])
    # (a new tol or max_iter is a new specialization: each capture is one graph with the loop folded, or
    # none when a constant test, `0 < max_iter` with max_iter 0, skips it)
    assert res.reasons == [] and res.graphs[0].count("while_loop") == 1
    assert all(g.count("while_loop") <= 1 for g in res.graphs)
    folded, breaks = loops_of(fn, *calls[0])
    assert [b.kind for b in folded] == ["while"] and breaks == []


def test_counter_comes_back_as_a_python_int():
    compiled = md.compile(halve_counted)
    for args in COUNTED[0][1]:
        x, it, err = compiled(*args)
        assert type(it) is int and it == halve_counted(*args)[1]
    graphs = captured(compiled).assert_no_breaks().graphs        # the loop is a node, its counter an output
    assert graphs and all(g.count("while_loop") == 1 and str(g.outputs[1].spec) == "py_int" for g in graphs)


def test_short_circuit_rest_runs_in_a_cond_arm():
    """`a and b` at the bottom of the body: b is computed inside a cond taken only when a is true."""
    graph = str(md.explain(halve_counted)(np.ones(3), 0.1, 100).graphs[0])
    body = graph[graph.index("body("):]
    assert "cond(" in body and body.index("less(") > body.index("cond(")


def counter_indexes_after_the_loop(x, tol):
    it = 0
    while np.abs(x).max() > tol:
        x = x * 0.5
        it += 1
    return x[:it]          # the counter's value is needed in Python only after the loop: a break there


def counter_scales_array(x, tol):
    it = 0
    while np.abs(x).max() > tol:
        x = x * 0.5 - it * 0.001
        it += 1
    return x, it


def counter_decides_in_body(x, tol):
    it = 0
    while np.abs(x).max() > tol:
        if it % 2 == 0:            # a Python decision on the carried number: the loop keeps its break
            x = x * 0.5
        else:
            x = x * 0.25
        it += 1
    return x, it


def counter_power(x, tol):
    it = 1
    while np.abs(x).max() > tol:
        x = x * 0.5
        it = it * 2 ** -1 if it > 1000 else it + 1
    return x, it


@pytest.mark.parametrize("fn, calls", [
    (counter_indexes_after_the_loop, [(np.arange(8.0), 0.5), (np.arange(8.0), 100.0), (np.arange(3.0), 1e-3)]),
    (counter_scales_array, [(np.ones(3), 0.1), (np.ones(3), 5.0), (np.ones(3) * 1e3, 1e-2)]),
    (counter_decides_in_body, [(np.ones(3), 0.1), (np.ones(3), 5.0)]),
    (counter_power, [(np.ones(3), 0.1), (np.ones(3), 5.0)]),
    (breaks_at_the_end, [(np.array([9.0, 0.3]),), (np.array([9.0, 9.0]),), (np.array([0.5]),)]),
])
def test_counters_used_in_python_stay_correct(fn, calls):
    check(fn, *calls[0], calls=calls[1:])


def counted_inside_a_for(x, n):
    counts = []
    for _ in range(n):
        k = 0
        while np.abs(x).max() > 0.1 and k < 5:
            x = x * 0.5
            k += 1
        counts.append(k)        # the counter, an int, in a list made by the function
        x = x + 1.0
    return x, counts


def test_counted_loop_inside_an_unrolled_for():
    res = check(counted_inside_a_for, np.ones(3), 3, calls=[(np.ones(3) * 8, 4), (np.ones(3) * 0.01, 2)])
    assert res.reasons == []
    assert [b.kind for b in md.explain(counted_inside_a_for)(np.ones(3), 3).folded_branches] == ["while"] * 3
