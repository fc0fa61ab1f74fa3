"""CALL with positional and keyword arguments (KW_NAMES on 3.11/3.12, CALL_KW on 3.13), CALL_FUNCTION_EX
for *args/**kwargs, method calls (LOAD_METHOD / LOAD_ATTR method form), PRECALL, RETURN_VALUE/RETURN_CONST."""

from __future__ import annotations

import numpy as np

from tests.conftest import assert_uses, check


def x23():
    return np.linspace(-1.0, 1.0, 6).reshape(2, 3)


def helper(x, scale=2.0, *, shift=0.0):
    return x * scale + shift


def varargs_helper(*xs, **opts):
    total = xs[0]
    for x in xs[1:]:
        total = total + x
    return total * opts.get("scale", 1.0)


def test_call_positional():
    def f(x, w):
        return np.tanh(np.matmul(x, w))
    assert_uses(f, "CALL")
    check(f, x23(), np.ones((3, 2))).assert_no_breaks()


def test_call_keywords():
    def f(x):
        a = helper(x, scale=3.0)
        b = helper(x, shift=1.0)
        c = helper(scale=0.5, x=x, shift=-1.0)
        return a + b + c
    assert_uses(f, "KW_NAMES", "CALL_KW", any_of=True)
    check(f, x23()).assert_no_breaks()


def test_two_keyword_calls_in_a_row_do_not_leak_names():
    def f(x):
        a = helper(x, shift=1.0)
        b = helper(x)                 # a KW_NAMES left over from the call above would bind x as shift
        return helper(a, 1.0) + np.add(b, a)
    check(f, x23()).assert_no_breaks()


def test_keyword_call_to_numpy():
    def f(x, y):
        return np.add(x, y, dtype=np.float64) * 2.0
    check(f, x23(), np.ones(3))


def test_call_function_ex_star_args():
    def f(x, y):
        args = (x, y, x)
        return varargs_helper(*args)
    assert_uses(f, "CALL_FUNCTION_EX")
    check(f, x23(), np.ones(3)).assert_no_breaks()


def test_call_function_ex_star_kwargs():
    def f(x):
        opts = {"scale": 3.0}
        return varargs_helper(x, x, **opts) + helper(x, **{"shift": 0.5})
    assert_uses(f, "CALL_FUNCTION_EX", "DICT_MERGE", any_of=True)
    check(f, x23()).assert_no_breaks()


def test_call_function_ex_mixed():
    def f(x, *rest, **kw):
        return helper(x, *rest, **kw)
    assert_uses(f, "CALL_FUNCTION_EX")
    check(f, x23(), 2.0, shift=1.0, calls=[(x23(), 3.0)]).assert_no_breaks()


def test_star_unpack_list_in_call():
    def f(x, xs):
        return varargs_helper(x, *xs, x)
    assert_uses(f, "CALL_FUNCTION_EX")
    check(f, x23(), [np.ones(3), np.zeros(3)]).assert_no_breaks()


def test_method_call_on_object():
    class Model:
        def __init__(self):
            self.w = np.ones((3, 4)) * 0.5

        def forward(self, x, bias=0.0):
            return np.tanh(x @ self.w) + bias
    m = Model()

    def f(x):
        return m.forward(x) + m.forward(x, bias=1.0)
    assert_uses(f, "LOAD_METHOD", "LOAD_ATTR", any_of=True)
    check(f, x23()).assert_no_breaks()


def test_method_call_on_list_and_str():
    def f(x, xs):
        xs.append(x * 2.0)
        label = "-".join(["a", "b"]).upper()
        return xs, label
    check(f, x23(), [1]).assert_no_breaks()


def test_nested_inlined_calls():
    def inner(a):
        return np.exp(a) - 1.0

    def middle(a, b):
        return inner(a) * inner(b)

    def f(x, y):
        return middle(x, y) + middle(y, x)
    check(f, x23(), x23() * 0.5).assert_no_breaks()


def test_return_const_and_value():
    def f(x, n):
        if n > 0:
            return 1
        return x * 2.0
    assert_uses(f, "RETURN_VALUE", "RETURN_CONST", any_of=True)
    check(f, x23(), 1, calls=[(x23(), 0)]).assert_no_breaks()


def test_return_none_implicitly():
    def f(x, out):
        out.append(x + 1.0)
    check(f, x23(), []).assert_no_breaks()


def test_call_with_wrong_arguments_raises_like_eager():
    def f(x):
        return helper(x, 1.0, 2.0)
    check(f, x23(), expect_graph=False).assert_broke("too many positional arguments")     # raised at capture


def test_builtin_calls():
    def f(x, xs):
        n = len(xs)
        m = max(3, n)
        return x * n + m + abs(-2) + sum([1, 2]), isinstance(n, int)
    check(f, x23(), [1, 2, 3]).assert_no_breaks()


def test_array_methods_with_keywords():
    def f(x):
        a = x.sum(axis=0)
        b = x.reshape(3, 2)
        c = x.T
        return a, b @ c.T, x.mean(), np.sum(x, axis=1, keepdims=True)
    assert_uses(f, "KW_NAMES", "CALL_KW", any_of=True)
    check(f, x23(), calls=[(np.arange(6.0).reshape(2, 3),)]).assert_no_breaks()


def test_reduction_result_feeds_arithmetic():
    def f(x, w):
        h = np.tanh(x @ w)
        return h - h.mean(axis=-1, keepdims=True), h.sum()
    check(f, x23(), np.ones((3, 4)) * 0.3).assert_no_breaks()
