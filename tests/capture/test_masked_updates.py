"""capture/masked_updates.py: `x[mask] op= number` is one op writing into x, whatever the True count; other
forms keep their break. Differential throughout (tests.conftest.check)."""

from __future__ import annotations

import numpy as np
import pytest

import minidynamo as md
from tests.conftest import assert_uses, captured, check


def lrelu_backward(dout, X, a):
    # hipsternet's leaky-ReLU backward, then the other in-place operators
    dX = dout.copy()
    dX[X < 0] *= a
    dX[X > 1] += 2
    dX[X > 1.5] -= 0.25
    dX[X > 0.5] /= a
    return dX


def int_updates(k, m):
    k[m] //= 2
    k[m] %= 5
    k[m] **= 2
    k[m] |= 1
    return k


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_masked_updates_are_one_graph_whatever_the_count(seed):
    rng = np.random.default_rng(seed)
    X, d = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    calls = [(d, X * 0 - 1.0, 0.5), (d, X * 0 + 2.0, 0.5), (d[:2].copy(), X[:2].copy(), 1e-3)]
    r = check(lrelu_backward, d, X, 1e-3, calls=calls)
    assert not r.reasons, r.reasons
    assert {"masked_imul", "masked_iadd", "masked_isub", "masked_itruediv"} <= set(r.graphs[0].ops())
    k = np.arange(12).reshape(3, 4)
    r = check(int_updates, k, k % 3 == 0, calls=[(k, k > 100)])
    assert not r.reasons, r.reasons
    assert_uses(lrelu_backward, "BINARY_SUBSCR", "BINARY_OP_SUBSCR", any_of=True)


def bad_casts(k, m, x):
    k[m] *= 0.5                 # float into an int array: UFuncTypeError as eagerly
    return k


def test_errors_are_eagers():
    k = np.arange(6)
    check(bad_casts, k, k > 2, None, expect_graph=False).assert_broke("Cannot cast ufunc 'multiply' output")


def update_in_place(x, m):
    x[m] *= 2.0
    return x


def test_a_read_only_array_raises_as_eagerly():
    def message(fn):
        x = np.ones(4)
        x.flags.writeable = False
        with pytest.raises(ValueError) as e:
            fn(x, x > 0)
        return str(e.value)
    compiled = md.compile(update_in_place, options={"suppress_errors": False})
    assert message(compiled) == message(update_in_place)
    x = np.ones(4)
    compiled(x, x > 0)                  # the capture that raised is reused for a writeable array
    captured(compiled).assert_no_breaks().assert_graph_ran()
    assert (md.stats(compiled).captures, md.stats(compiled).hits) == (1, 1)
    assert md.explain(update_in_place)(x, x > 0).graph_break_count == 0


def other_forms(x, m, v):
    x[m] *= v * 2               # a value expression: not the one-load form, the break stays
    y = x.copy()
    y[m[0]] += 1.0              # a mask of another shape: the ordinary path
    x[x > 0] += v               # v an array: a number only
    return x, y


def test_other_forms_keep_their_break_and_agree():
    x = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    r = check(other_forms, x, x > 0, np.float64(0.5), calls=[(x, x < 0, np.ones(3))])
    assert r.reasons
