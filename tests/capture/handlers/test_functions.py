"""MAKE_FUNCTION (+ 3.13's SET_FUNCTION_ATTRIBUTE) for closures, lambdas, nested functions with defaults,
and comprehensions: nested code objects on 3.11, inlined (LOAD_FAST_AND_CLEAR) on 3.12+."""

from __future__ import annotations

import numpy as np

from tests.conftest import assert_uses, check


def x23():
    return np.linspace(-1.0, 1.0, 6).reshape(2, 3)


def test_lambda():
    def f(x):
        act = lambda v: np.tanh(v) * 2.0   # noqa: E731
        return act(x) + act(x + 1.0)
    assert_uses(f, "MAKE_FUNCTION")
    check(f, x23()).assert_no_breaks()


def test_nested_function_with_defaults_and_kwonly():
    def f(x):
        def g(a, b=2.0, *, c=1.0):
            return a * b + c
        return g(x), g(x, 3.0), g(x, c=0.0), g(b=0.5, a=x)
    assert_uses(f, "MAKE_FUNCTION")
    check(f, x23()).assert_no_breaks()


def test_nested_function_defaults_from_arrays():
    def f(x, w):
        def g(a, w=w * 2.0):
            return a @ w
        return g(x)
    check(f, x23(), np.ones((3, 2))).assert_no_breaks()


def test_closure_over_local_and_argument():
    def f(x, k):
        bias = x * 0.5

        def g(v):
            return v * k + bias
        return g(x) + g(bias)
    assert_uses(f, "MAKE_CELL", "MAKE_FUNCTION")
    assert_uses(f, "LOAD_CLOSURE", "LOAD_FAST", "LOAD_FAST_BORROW", any_of=True)
    check(f, x23(), 3.0, calls=[(x23(), 4.0)]).assert_no_breaks()


def test_closure_sees_later_writes_to_the_cell():
    def f(x):
        s = 1.0
        g = lambda v: v * s                 # noqa: E731
        s = 4.0
        a = g(x)
        s = 5.0
        return a, g(x)
    check(f, x23()).assert_no_breaks()


def test_inner_function_writes_nonlocal():
    def f(x):
        total = x

        def add(v):
            nonlocal total
            total = total + v
        add(1.0)
        add(x)
        return total
    check(f, x23()).assert_no_breaks()


def test_list_comprehension():
    def f(xs, x):
        return [np.tanh(v) * x for v in xs]
    assert_uses(f, "LIST_APPEND")
    check(f, [x23(), x23() * 2], x23()).assert_no_breaks()


def test_dict_comprehension():
    def f(p, x):
        return {k: v * x for k, v in p.items()}
    assert_uses(f, "MAP_ADD")
    check(f, {"a": 1.0, "b": np.ones(3)}, x23()).assert_no_breaks()


def test_comprehension_with_condition_and_range():
    def f(x, n):
        return [x * i for i in range(n) if i % 2 == 0]
    check(f, x23(), 5, calls=[(x23(), 0)]).assert_no_breaks()


def test_comprehension_variable_shadows_outer():
    def f(x):
        v = x + 100.0
        ys = [v * 2.0 for v in (x, x * 3.0)]
        return ys, v                        # the outer v is restored after the comprehension
    assert_uses(f, "LOAD_FAST_AND_CLEAR", "MAKE_FUNCTION", any_of=True)
    check(f, x23()).assert_no_breaks()


def test_comprehension_variable_unbound_outside():
    def f(x):
        ys = [x * v for v in range(3)]
        return sum(ys)
    check(f, x23()).assert_no_breaks()


def test_comprehension_closing_over_locals():
    def f(x, ws):
        s = 0.5
        return [np.tanh(x @ w) * s for w in ws]
    check(f, x23(), [np.eye(3), np.ones((3, 2))]).assert_no_breaks()


def test_nested_comprehension():
    def f(x):
        return [[x * i + j for j in range(2)] for i in range(3)]
    check(f, x23()).assert_no_breaks()


def test_comprehension_over_array_rows():
    def f(x):
        return [np.exp(row) for row in x]
    check(f, x23()).assert_no_breaks()


def test_function_with_star_args_and_kwargs_signature():
    def f(x, *args, scale=1.0, **kw):
        out = x * scale
        for a in args:
            out = out + a
        for k, v in kw.items():
            out = out * v
        return out, len(args), list(kw)
    check(f, x23(), 1.0, 2.0, scale=3.0, b=0.5, calls=[(x23(),), {"x": x23(), "scale": 2.0}]).assert_no_breaks()


def test_defaults_of_compiled_function():
    def f(x, scale=2.0, bias=None, *, shift=0.0):
        out = x * scale + shift
        if bias is not None:
            out = out + bias
        return out
    check(f, x23(), calls=[(x23(), 3.0), (x23(), 2.0, np.ones(3)), {"x": x23(), "shift": 1.0}]).assert_no_breaks()


def test_generator_expression_over_a_list_is_captured_whole():
    def f(xs):
        return sum(v * 2 for v in xs)
    check(f, [1, 2, 3], expect_graph=False).assert_no_breaks()        # no array op: nothing to graph


def test_generator_expression_unpacked():
    def f(x, ws):
        a, b = (np.tanh(x @ w) for w in ws)
        return a + b, sum(v * 2.0 for v in (a, b))
    assert_uses(f, "YIELD_VALUE", "RETURN_GENERATOR")
    check(f, x23(), (np.eye(3), np.ones((3, 3)))).assert_no_breaks()


def test_generator_with_side_effects_breaks_and_stays_correct():
    def f(x, log):
        g = (log.append(i) for i in range(3))
        first = len(log)
        for _ in g:
            pass
        return x * 2.0, first, len(log)
    r = check(f, x23(), [])
    assert r.reasons


def test_compiled_generator_function_runs_eagerly():
    def f(x):
        yield x * 2.0
        yield x + 1.0
    cfn_result = check(lambda x: list(__import__("builtins").iter(f(x))), x23())
    assert cfn_result is not None
