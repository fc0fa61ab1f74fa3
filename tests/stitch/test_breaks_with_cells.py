"""Breaks in functions with cell variables (locals that closures or, on 3.11, comprehensions read): the
resume function receives the cells' values and its MAKE_CELL makes fresh cells. Sound because a closure
made before the break cannot outlive it in compiled code (capture cannot rebuild it, so such a frame runs
eagerly with the reason): closures made after the break see every update, as eagerly."""

from __future__ import annotations

import numpy as np

import minidynamo as md

from tests.conftest import check


def closure_after_the_break(x, w):
    print("start", x.shape)
    ys = [a * w for a in x]              # 3.11: a nested function closing over w
    scale = x.sum()
    g = lambda v: v * scale              # noqa: E731
    scale = scale + 1                    # the closure sees the updated cell
    return g(x), ys


def test_closures_made_after_a_break_see_updated_cells():
    res = check(closure_after_the_break, np.arange(3.0), 2.0, calls=[(np.ones(2), -1.0)])
    assert res.reasons and not any(r.fallback for r in res.reasons)


def comprehension_in_a_driven_loop(x, n):
    acc = x * 0
    m = x.mean()
    for i in range(n):
        acc = acc + x * i
        if acc.sum() > 5:
            acc = acc * 0.5
        rows = [acc * m for _ in range(2)]
    return acc, rows


def test_cells_in_a_driven_loop():
    with md.config.patch(auto_cond=False):      # the break inside the loop body is the scenario here
        res = check(comprehension_in_a_driven_loop, np.ones(2), 4, calls=[(np.ones(2), 70), (np.arange(2.0), 3)])
    assert not any(r.fallback for r in res.reasons)


def closure_alive_across_the_break(x):
    k = 2.0

    def add(v):
        return v + k
    r = add(x)
    print("break")
    k = 5.0                              # add must see this: the resume function shares add's cell
    return add(r)


def nonlocal_counter(x):
    total = x.sum()

    def bump():
        nonlocal total
        total = total + 1
    print("a")
    bump()
    return total


def test_closures_alive_across_a_break_stay_correct():
    for fn in (closure_alive_across_the_break, nonlocal_counter):
        res = check(fn, np.ones(2), calls=[(np.arange(3.0),)])
        assert res.reasons and not any(r.fallback for r in res.reasons)


def unbound_cell_after_the_break(x, flag):
    if flag:
        c = x * 2
    print("mid")
    f = lambda: c                        # noqa: E731
    return f()


def test_an_unbound_cell_raises_the_eager_error():
    check(unbound_cell_after_the_break, np.ones(2), True, calls=[(np.ones(2), False)])
