"""BINARY_OP (plain and in-place), UNARY_*, subscripts with slices, f-string formatting opcodes."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import assert_uses, check


def x23():
    return np.linspace(-1.0, 1.0, 6).reshape(2, 3)


@pytest.mark.parametrize("name, fn", [
    ("add", lambda a, b: a + b), ("sub", lambda a, b: a - b), ("mul", lambda a, b: a * b),
    ("div", lambda a, b: a / (b + 3.0)), ("rsub", lambda a, b: 1.0 - a), ("rdiv", lambda a, b: 2.0 / (a + 3.0)),
    ("radd_int", lambda a, b: 1 + a), ("rmul_float", lambda a, b: 0.5 * b),
])
def test_binary_op_on_arrays(name, fn):
    assert_uses(fn, "BINARY_OP")
    check(fn, x23(), x23() * 2, calls=[(np.ones(3), np.zeros(3))]).assert_no_breaks()


def test_matmul_operator():
    def f(a, b):
        return a @ b
    assert_uses(f, "BINARY_OP")
    check(f, x23(), x23().T.copy(), calls=[(np.ones((4, 2)), np.ones((2, 5)))]).assert_no_breaks()


@pytest.mark.parametrize("name, fn", [
    ("floordiv", lambda a: a // 4), ("mod", lambda a: a % 5), ("pow", lambda a: a ** 3), ("and", lambda a: a & 6),
    ("or", lambda a: a | 1), ("xor", lambda a: a ^ 3), ("lshift", lambda a: a << 2), ("rshift", lambda a: a >> 1),
])
def test_binary_op_on_python_ints_folds(name, fn):
    assert_uses(fn, "BINARY_OP")
    check(fn, 37, calls=[(-12,), (0,)]).assert_no_breaks()


def test_mixed_python_and_array_arithmetic():
    def f(x, n, s):
        k = n * 2 + 1          # folded at capture: a constant in the graph
        return x * k - s / 4
    check(f, x23(), 3, 1.5, calls=[(x23(), 4, 1.5), (x23(), 3, 2.0)]).assert_no_breaks()


def test_inplace_ops_on_python_values():
    def f(x, n):
        n += 2
        n *= 3
        n -= 1
        t = (1,)
        t += (2,)
        s = "a"
        s += "b"
        return x * n, t, s
    assert_uses(f, "BINARY_OP")
    check(f, x23(), 4).assert_no_breaks()


def test_inplace_add_on_array_local_is_in_place():
    def f(x):
        y = x * 1.0            # a new array, so the input is untouched
        y += 2.0
        y *= x
        y -= 1.0
        y /= 2.0
        return y
    check(f, x23(), calls=[(np.ones(3),)]).assert_no_breaks()


def test_inplace_on_numpy_scalar_rebinds():
    def f(x):
        s = x[0, 0]            # a NumPy scalar: += makes a new object
        s += 1.0
        return s, x
    check(f, x23()).assert_no_breaks()


def test_unary_ops():
    def f(x, n):
        return -x, -n, ~n, not n, +n
    assert_uses(f, "UNARY_NEGATIVE", "UNARY_INVERT", "UNARY_NOT")
    assert_uses(f, "UNARY_POSITIVE", "CALL_INTRINSIC_1", any_of=True)
    check(f, x23(), 5, calls=[(x23(), 0)]).assert_no_breaks()


def test_unary_positive_on_array():
    def f(x):
        return +x
    check(f, x23())


def test_slices_of_python_sequences():
    def f(xs, x):
        a = xs[1:3]
        b = xs[::-1]
        c = xs[:2]
        return a, b, c, x[1:]
    assert_uses(f, "BINARY_SUBSCR", "BINARY_SLICE", "BINARY_OP_SUBSCR", any_of=True)
    check(f, [1, 2, 3, 4], x23()).assert_no_breaks()


def test_build_slice_with_step():
    def f(x, step):          # a step that is no constant (3.14 folds a constant slice into one constant)
        return x[::step] * 2.0, x[1::step] + 1.0
    assert_uses(f, "BUILD_SLICE")
    check(f, np.arange(10.0), 2, calls=[(np.arange(7.0), 2), (np.arange(7.0), 3)]).assert_no_breaks()


def test_constant_slices():
    def f(x, xs):            # 3.14: LOAD_CONST slice(None, None, 2), LOAD_CONST (slice(1, 2, None), 3)
        return x[::2] * 2.0, x[1:2, 3] + 1.0, xs[1:3], xs[::-1]
    assert_uses(f, "BUILD_SLICE", "BINARY_SLICE", "LOAD_CONST", any_of=True)
    check(f, np.arange(12.0).reshape(3, 4), [1, 2, 3], calls=[(np.arange(8.0).reshape(2, 4), [4])]).assert_no_breaks()


def test_slice_store_into_list():
    def f(xs, x):
        xs[1:3] = [x, x * 2.0]
        return xs
    assert_uses(f, "STORE_SUBSCR", "STORE_SLICE", any_of=True)
    check(f, [0, 1, 2, 3], x23()).assert_no_breaks()


def test_fstrings():
    def f(x, n, name):
        label = f"{name}:{n}"
        wide = f"{n:>5}|{name!r}|{n * 2.5:.2f}"
        return x * n, label, wide
    assert_uses(f, "BUILD_STRING")
    assert_uses(f, "FORMAT_VALUE", "FORMAT_SIMPLE", "FORMAT_WITH_SPEC", any_of=True)
    check(f, x23(), 3, "w", calls=[(x23(), 7, "b")]).assert_no_breaks()


def test_array_shape_in_fstring():
    def f(x):
        return x + 1.0, f"{x.shape}"
    check(f, x23(), calls=[(np.ones(4),)]).assert_no_breaks()


def test_constant_arithmetic_error_matches_eager():
    def f(x, n):
        return x * (1 / n)
    check(f, x23(), 0, calls=[(x23(), 2)])
