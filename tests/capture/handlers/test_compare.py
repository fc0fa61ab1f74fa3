"""COMPARE_OP, IS_OP, CONTAINS_OP (and 3.13's TO_BOOL) on Python values; comparisons that decide a branch."""

from __future__ import annotations

import numpy as np
import pytest

from minidynamo.capture.breaks import BreakCategory
from minidynamo import config
from tests.conftest import assert_uses, check


def x23():
    return np.linspace(-1.0, 1.0, 6).reshape(2, 3)


@pytest.mark.parametrize("n", [-1, 0, 3, 10])
def test_compare_op_chooses_branch(n):
    def f(x, n):
        if n < 0:
            return x * -1.0
        elif n == 0:
            return x
        elif 0 < n <= 5:
            return x * n
        return x - n
    assert_uses(f, "COMPARE_OP")
    check(f, x23(), n, calls=[(x23(), n + 1)]).assert_no_breaks()


def test_compare_results_as_values():
    def f(x, a, b):
        return x * 2.0, a < b, a >= b, a != b, a == b
    check(f, x23(), 1, 2.5, calls=[(x23(), 3, 3)]).assert_no_breaks()


def test_compare_shapes():
    def f(x, y):
        if x.shape == y.shape:
            return x + y
        return x * 2.0
    check(f, x23(), x23(), calls=[(x23(), np.ones(3))]).assert_no_breaks()


def test_is_and_is_not_none():
    def f(x, bias=None):
        if bias is None:
            return x * 2.0
        if bias is not None:
            return x + bias
    assert_uses(f, "IS_OP", "POP_JUMP_IF_NOT_NONE", "POP_JUMP_IF_NONE", "POP_JUMP_FORWARD_IF_NOT_NONE",
                "POP_JUMP_FORWARD_IF_NONE", any_of=True)
    check(f, x23(), calls=[(x23(), np.ones(3)), (x23(), None)]).assert_no_breaks()


def test_is_op_value():
    def f(x, flag, other):
        a = flag is True
        b = other is not None
        c = x is x
        return x * 2.0, a, b, c
    assert_uses(f, "IS_OP")
    check(f, x23(), True, None, calls=[(x23(), 1, 5)]).assert_no_breaks()


def test_same_array_passed_twice_is():
    def f(a, b):
        if a is b:
            return a * 2.0
        return a + b
    x = x23()
    check(f, x, x, calls=[(x23(), x23())])


@pytest.mark.parametrize("key", ["a", "z"])
def test_contains_op(key):
    def f(x, d, key, xs):
        out = x
        if key in d:
            out = out + d[key]
        if 3 not in xs:
            out = out * 2.0
        return out, "b" in d, key in "abc"
    assert_uses(f, "CONTAINS_OP")
    check(f, x23(), {"a": 1.0, "b": 2.0}, key, (1, 2), calls=[(x23(), {"a": 1.0}, key, [3])]).assert_no_breaks()


def test_truthiness_of_python_values():
    def f(x, xs, s, n):
        out = x
        if xs:
            out = out + 1.0
        if not s:
            out = out * 2.0
        if n:
            out = out - n
        return out
    check(f, x23(), [1], "", 0, calls=[(x23(), [], "s", 2)]).assert_no_breaks()


def test_branch_on_array_value_breaks_but_stays_correct():
    def f(x):
        if x.sum() > 0:
            return x * 2.0
        return x - 1.0
    with config.patch(auto_cond=False):
        r = check(f, x23() + 1.0, calls=[(x23() - 1.0,)])
    allowed = (BreakCategory.DATA_DEPENDENT, BreakCategory.UNSUPPORTED)
    assert r.reasons and all(getattr(b, "category", "") in allowed for b in r.reasons)
    check(f, x23() + 1.0, calls=[(x23() - 1.0,)]).assert_no_breaks()     # auto_cond (default): one cond node


SENTINEL = object()


def test_is_sentinel_object_guarded_by_relation():
    def f(x, marker=SENTINEL):
        if marker is SENTINEL:
            return x * 2.0
        return x - 1.0
    r = check(f, x23(), calls=[(x23(), object()), (x23(), SENTINEL)])
    assert r.reasons == []
    assert r.counter.frame_count == 2


def test_is_between_two_input_arrays():
    def f(a, b):
        if a is b:
            return a * 2.0
        return a + b
    x = x23()
    r = check(f, x, x, calls=[(x23(), x23()), (x, x)])
    assert r.reasons == []
