"""For-loops whose header is inside a try region, driven (drivers.for_driver with a raiser): 3.12's inlined
comprehensions (their loop is inside the region that restores the loop variable), loops in `try` bodies,
and iterators that raise. The same on 3.11, 3.12 and 3.13."""

from __future__ import annotations

import numpy as np

from minidynamo.api import _state_of
from tests.conftest import check


def all_reasons(res) -> list:
    """Break reasons of the function and of every resume function and callee it compiled."""
    states = [_state_of(res.compiled)]
    states += [_state_of(c) for c in _state_of(res.compiled).children.values() if _state_of(c) is not None]
    return [r.reason for s in states for r in s.records if r.reason is not None]


def assert_driven(res) -> None:
    """No frame ran eagerly (a generator called at a break runs as plain Python: not counted). On 3.11 a
    comprehension is a function of its own, outside any try."""
    reasons = all_reasons(res)
    assert reasons, "the function breaks"
    fallbacks = [str(r) for r in reasons if r.fallback and r.opname != "RETURN_GENERATOR"]
    assert not fallbacks, fallbacks


def distance(a, b):
    return (((a - b) ** 2).sum()).item() ** 0.5       # .item() of an array value: a break


def nearest(X_test, X_train, k):
    # k-nearest-neighbours as real code writes it: a comprehension over samples calling a breaking helper
    out = []
    for t in X_test:
        out.append(np.argsort([distance(t, x) for x in X_train])[:k])
    return out


def test_a_break_inside_a_comprehension_body_is_driven():
    rng = np.random.default_rng(0)
    res = check(nearest, rng.random((3, 2)), rng.random((6, 2)), 2,
                calls=[(rng.random((2, 2)), rng.random((6, 2)), 3)])
    assert_driven(res)


def shadowing(xs, x):
    ys = [v.sum().item() + 1 for v in xs]           # .item() of an array: a break in the comprehension
    zs = [x * 2 for x in xs]                        # x: the argument, restored after the comprehension
    return ys, zs, x


def test_the_loop_variable_is_restored_after_a_driven_comprehension():
    xs = [np.ones(2), np.arange(2.0)]
    assert_driven(check(shadowing, xs, np.full(2, 7.0), calls=[([np.ones(2)] * 3, np.zeros(2))]))


def items(n):
    for i in range(n):
        if i == 2:
            raise ValueError(f"bad item {i}")
        yield np.full(2, float(i))


def raising_iterator(n, y):
    try:
        sums = [v.sum().item() for v in items(n)]   # the iterator raises on its third item
    except ValueError as e:
        print("caught", e, y)
        sums = None
    return sums, y


def raising_iterator_in_a_loop(n, x):
    total = x
    try:
        for v in items(n):
            print("step", float(v[0]))
            total = total + v
    except ValueError as e:
        return total, str(e)
    finally:
        print("finally", total.sum())
    return total, "done"


def test_an_exception_of_the_iterator_reaches_the_regions_handler():
    assert_driven(check(raising_iterator, 5, 1.5, calls=[(2, 2.5), (3, 0.5)],
                        expect_fallback='cannot continue after RETURN_GENERATOR in plain Python'))
    assert_driven(check(raising_iterator_in_a_loop, 5, np.zeros(2), calls=[(2, np.ones(2)), (3, np.ones(2))],
                        expect_fallback='cannot continue after RETURN_GENERATOR in plain Python'))


def uncaught(n):
    return [v.sum().item() for v in items(n)]       # the ValueError leaves the function, as eagerly


def test_an_uncaught_exception_of_the_iterator_leaves_as_eagerly():
    check(uncaught, 5, calls=[(2,), (4,)], expect_fallback='cannot continue after RETURN_GENERATOR in plain Python')
