"""Jumps on Python values (and/or/not, ternaries, while loops, early returns) and loops: GET_ITER/FOR_ITER
(with 3.12's END_FOR and 3.13's END_FOR + POP_TOP) over range, lists, tuples, dicts, zip, enumerate,
reversed, and an array's first axis (all unrolled at capture)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import assert_uses, check


def x23():
    return np.linspace(-1.0, 1.0, 6).reshape(2, 3)


@pytest.mark.parametrize("a, b", [(0, 0), (0, 1), (2, 0), (2, 3)])
def test_and_or_not(a, b):
    def f(x, a, b):
        out = x
        if a and b:
            out = out + 1.0
        if a or b:
            out = out * 2.0
        if not a:
            out = out - 3.0
        c = a and b          # the value of `and` (JUMP_IF_FALSE_OR_POP on 3.11, COPY + jumps later)
        d = a or b
        return out, c, d
    assert_uses(f, "POP_JUMP_IF_FALSE", "POP_JUMP_FORWARD_IF_FALSE", any_of=True)
    check(f, x23(), a, b, calls=[(x23(), b, a)]).assert_no_breaks()


def test_ternary():
    def f(x, flag, scale=None):
        s = 2.0 if scale is None else scale
        return x * s if flag else x - s
    check(f, x23(), True, calls=[(x23(), False), (x23(), True, 0.5)]).assert_no_breaks()


def test_early_return_inside_loop():
    def f(x, limit):
        for i in range(10):
            if i >= limit:
                return x * i
            x = x + 1.0
        return x
    assert_uses(f, "FOR_ITER")
    check(f, x23(), 3, calls=[(x23(), 20), (x23(), 0)]).assert_no_breaks()


def test_for_range():
    def f(x, n):
        acc = x
        for i in range(n):
            acc = acc * 0.5 + i
        return acc
    assert_uses(f, "GET_ITER", "FOR_ITER")
    check(f, x23(), 3, calls=[(x23(), 0), (x23(), 5)]).assert_no_breaks()


def test_code_after_loop_runs_once():
    def f(x, xs):
        for v in xs:
            x = x + v
        x = x * 2.0                   # the FOR_ITER exit must land exactly here
        y = x - 1.0
        return x, y
    check(f, x23(), [1.0, 2.0], calls=[(x23(), []), (x23(), (3.0,))]).assert_no_breaks()


def test_nested_loops():
    def f(x):
        for i in range(2):
            for j in range(3):
                x = x + i * j
            x = x * 0.5
        return x
    check(f, x23()).assert_no_breaks()


def test_for_over_list_and_tuple_of_arrays():
    def f(ws, bs, x):
        for w in ws:
            x = np.tanh(x @ w)
        for b in bs:
            x = x + b
        return x
    ws = [np.ones((3, 3)) * 0.1, np.eye(3)]
    check(f, ws, (1.0, np.ones(3)), x23()).assert_no_breaks()


def test_for_over_dict_keys_values_items():
    def f(p, x):
        names = []
        for k in p:
            names.append(k)
        for v in p.values():
            x = x + v
        for k, v in p.items():
            x = x * v
        return x, names, list(p.keys())
    check(f, {"a": 1.0, "b": np.ones(3)}, x23()).assert_no_breaks()


def test_for_zip_enumerate_reversed():
    def f(ws, scales, x):
        for w, s in zip(ws, scales):
            x = (x @ w) * s
        for i, w in enumerate(ws):
            x = x + i
        for i, w in enumerate(ws, 1):
            x = x - i
        for s in reversed(scales):
            x = x * s
        return x
    check(f, [np.eye(3), np.ones((3, 3))], [0.5, 2.0], x23()).assert_no_breaks()


def test_for_over_array_first_axis():
    def f(x):
        acc = x[0] * 0.0
        for row in x:
            acc = acc + np.exp(row)
        return acc
    check(f, np.arange(12.0).reshape(4, 3) / 10, calls=[(np.ones((2, 3)),)]).assert_no_breaks()


def test_while_on_python_value():
    def f(x, n):
        i = 0
        while i < n:
            x = x * 1.5
            i += 1
        return x, i
    assert_uses(f, "JUMP_BACKWARD", "POP_JUMP_BACKWARD_IF_TRUE", "POP_JUMP_IF_TRUE", any_of=True)
    check(f, x23(), 3, calls=[(x23(), 0)]).assert_no_breaks()


def test_while_with_break_and_continue():
    def f(x):
        i = 0
        while True:
            i += 1
            if i % 2:
                continue
            x = x + i
            if i > 5:
                break
        return x
    check(f, x23()).assert_no_breaks()


def test_for_else():
    def f(x, xs):
        for v in xs:
            if v < 0:
                break
            x = x + v
        else:
            x = x * 10.0
        return x
    check(f, x23(), [1, 2], calls=[(x23(), [1, -1, 2])]).assert_no_breaks()


def test_break_out_of_loop_over_array_rows():
    def f(x):
        out = x[0]
        for i, row in enumerate(x):
            if i == 2:
                break
            out = out + row
        return out
    check(f, np.arange(12.0).reshape(4, 3)).assert_no_breaks()


def test_iter_and_next():
    def f(xs, x):
        it = iter(xs)
        a = next(it)
        b = next(it, None)
        c = next(it, 5)
        return x * a, b, c
    check(f, [2, 3], x23()).assert_no_breaks()
