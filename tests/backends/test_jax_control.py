"""jax_lowering/control.py: cond and while_loop nodes lowered to lax.cond / lax.while_loop. Per node, both
arms and loops running 0, 1 and many times, compared with eager NumPy (results, warnings, exceptions,
result identity); checks inside arms and bodies; what stays on NumPy and why."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from tests.backends.jax_support import Recorder, assert_close, md, run_both
from tests.conftest import check


def branchy(x, w):
    h = x @ w
    if h.sum() > 0:
        y = h * 3 + 1
    else:
        y = h - 7
    return y * 2


def counting(v, limit):
    while v.sum() < limit:
        v = v * 2 + 1
    return v + 0


def ops_of(rec: Recorder) -> list[str]:
    return [n.op for p in rec.plans for n in p.graph.nodes if n.is_call]


@pytest.mark.parametrize("sign", [1, -1])
def test_cond_both_arms_lowered(sign):
    rec = Recorder()
    x, w = sign * np.arange(6).reshape(2, 3), np.ones((3, 2), np.int64)
    check(branchy, x, w, calls=[(-x, w)], backend=rec)
    assert "cond" in ops_of(rec) and rec.fully_lowered and rec.fallbacks == 0


@pytest.mark.parametrize("start", [100, 20, 1])      # 0, 1 and many iterations
def test_while_loop_runs_zero_one_and_many_times(start):
    rec = Recorder()
    check(counting, np.full(3, start), 50, calls=[(np.full(3, 1), 50), (np.full(3, 100), 50)], backend=rec)
    assert "while_loop" in ops_of(rec) and rec.fully_lowered and rec.fallbacks == 0


def float_branch(x):
    if x.mean() > 0:
        y = np.exp(x * 100.0)      # overflows for large x: NumPy warns inside the arm
    else:
        y = np.tanh(x)
    return y + 1.0


@pytest.mark.parametrize("x", [np.array([0.5, 1.0]), np.array([-0.5, -1.0]), np.array([1.0, 9.0])])
def test_a_warning_inside_the_taken_arm_is_numpys(x):
    rec = Recorder()
    compiled = md.compile(float_branch, backend=rec, options={"suppress_errors": False})
    compiled(np.array([0.1, 0.2]))
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        result = compiled(x.copy())
    with warnings.catch_warnings(record=True) as expected:
        warnings.simplefilter("always")
        eager = float_branch(x.copy())
    assert_close(result, eager)
    assert [str(w.message) for w in got] == [str(w.message) for w in expected]
    assert rec.fully_lowered and rec.fallbacks == (1 if expected else 0)


def indexed_loop(v, idx):
    while v.sum() < 100:
        v = v + v[idx]
    return v * 1


def test_an_index_out_of_bounds_inside_a_loop_raises_like_numpy():
    rec = Recorder()
    check(indexed_loop, np.arange(1, 5), np.array([0, 1, 2, 3]),
          calls=[(np.arange(1, 5), np.array([0, 1, 2, 9])), (np.arange(200, 204), np.array([0, 1, 2, 9]))],
          backend=rec)
    assert rec.fully_lowered and rec.fallbacks == 1     # the loop that never runs never reads v[9]


def test_integer_division_by_zero_in_an_arm_warns_like_numpy():
    def divide(x, d):
        if x.sum() > 0:
            y = x // d
        else:
            y = x
        return y + 1
    rec = Recorder()
    check(divide, np.arange(1, 4), np.array([1, 2, 3]),
          calls=[(np.arange(1, 4), np.array([1, 0, 3])), (-np.arange(1, 4), np.array([1, 0, 3]))], backend=rec)
    assert rec.fully_lowered and rec.fallbacks == 1     # the other arm never divides


def passthrough(x):
    if x.sum() > 0:
        y = x * 2
    else:
        y = x
    return y


def test_an_arm_returning_its_operand_gives_the_caller_that_very_array():
    rec = Recorder()
    check(passthrough, np.arange(3), calls=[(-np.arange(3),), (np.arange(3),)], backend=rec)
    assert rec.fully_lowered and rec.fallbacks == 1      # the aliasing arm ran on NumPy


def test_a_loop_that_does_not_run_returns_its_input_array():
    def loop(v):
        while v.sum() < 10:
            v = v + 3
        return v
    rec = Recorder()
    check(loop, np.arange(3), calls=[(np.full(3, 20),)], backend=rec)
    assert rec.fully_lowered and rec.fallbacks == 1


def test_passing_through_unobserved_is_lowered_without_checks():
    rec = Recorder()
    check(lambda x: passthrough(x) + 0, np.arange(3), calls=[(-np.arange(3),)], backend=rec)
    assert rec.fallbacks == 0


def test_nested_cond_inside_a_loop():
    def nested(v):
        while v.sum() < 200:
            if v[0] > 5:
                v = v * 2
            else:
                v = v + 4
        return v - 1
    rec = Recorder()
    check(nested, np.arange(3), calls=[(np.arange(3) + 3,), (np.full(3, 300),)], backend=rec)
    assert rec.fully_lowered and rec.fallbacks == 0


def test_float_loop_agrees_within_tolerance():
    def newton(x, a):
        while np.abs(x * x - a).max() > 1e-6:
            x = 0.5 * (x + a / x)
        return x * 1.0
    got, expected, rec = run_both(newton, np.ones(4), np.array([2.0, 3.0, 5.0, 7.0]))
    assert_close(got, expected)
    assert rec.fully_lowered and rec.fallbacks == 0


def test_an_arm_with_an_op_not_lowered_stays_on_numpy_and_explain_says_why():
    def inverse_or_not(m):
        if m.sum() > 0:
            r = np.linalg.inv(m)
        else:
            r = m * 2.0
        return r + 1.0
    rec = Recorder()
    check(inverse_or_not, np.eye(2) * 2.0, calls=[(-np.eye(2),)], backend=rec)
    reasons = rec.not_lowered()
    assert "cond" in reasons and "inv" in reasons["cond"] and "not lowered" in reasons["cond"]
    text = str(md.explain(md.compile(inverse_or_not, backend="jax"))(np.eye(2)))
    assert "inv" in text


def test_an_arm_returning_another_operand_which_is_written_later():
    def swap_then_write(x, y):
        if x.sum() > 0:
            z = x * 2
        else:
            z = y
        y[0] = 100
        return z.sum()
    rec = Recorder()
    check(swap_then_write, np.arange(3), np.arange(3), calls=[(-np.arange(3), np.arange(3))], backend=rec)
    assert "cond(%1, x, y)" in str(rec.plans[0].graph)
    assert rec.fallbacks == 1          # z is y itself in the second call: its sum sees the write
