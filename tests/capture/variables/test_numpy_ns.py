"""capture/variables/numpy_ns.py: attributes of NumPy functions and ufuncs."""

from __future__ import annotations

import math

import numpy as np

import minidynamo as md

from tests.conftest import check


def test_a_missing_attribute_of_a_numpy_function_raises_attribute_error():
    def ufunc_attr(x):
        return x + np.add.nin, np.add.no_such_attribute

    def function_attr(x):
        return np.sum.no_such_attribute

    check(ufunc_attr, np.ones(3))
    check(function_attr, np.ones(3), expect_graph=False)


def gaussian_likelihood(x, mean, var):
    # naive Bayes' likelihood over NumPy scalars, through the math module
    coeff = 1.0 / math.sqrt(2.0 * math.pi * var + 1e-4)
    exponent = math.exp(-(math.pow(x - mean, 2) / (2 * var + 1e-4)))
    return coeff * exponent


def nearest_by_math(X, t):
    dists = [math.sqrt(((t - x) ** 2).sum()) for x in X]
    return np.argsort(dists)[:2], dists, math.log(dists[0] + 1.0), math.hypot(X[0, 0], X[0, 1])


def test_math_of_a_graph_scalar_is_a_node_returning_a_python_float():
    x = np.arange(6.0).reshape(3, 2)
    r = check(gaussian_likelihood, x.sum(), x.mean(), x.var(), calls=[(np.float64(1.5), np.float64(2.0), np.float64(0.5))])
    r.assert_no_breaks()
    assert {"math.sqrt", "math.exp", "math.pow"} <= set(r.graphs[0].ops())
    r = check(nearest_by_math, x, np.ones(2), calls=[(x[::-1].copy(), np.zeros(2))]).assert_no_breaks()
    assert r.graphs[0].ops().get("stack") == 1        # np.argsort of the list of floats


def math_domain(x, fallback):
    y = x * 2.0
    x[0] = 7.0                              # a write before the op that raises: done once
    try:
        s = math.sqrt(y.sum() - 10.0)       # ValueError (math domain error) when the sum is small
    except ValueError as e:
        s = fallback
        print("caught", e)
    return s, y, math.log(abs(y[1]) + 1.0) > 0.5


def test_math_raising_on_a_graph_scalar_reaches_the_handler_and_branches_break():
    r = check(math_domain, np.ones(3) * 4, 0.25, calls=[(np.ones(3), 0.5), (np.ones(3) * 9, 1.0)])
    assert all(reason.category == "data_dependent" for reason in r.reasons)    # `> 0.5` needs the value
    check(lambda z: math.sqrt(z.sum()), np.ones(2, complex))                      # complex: TypeError eagerly
    check(lambda z: math.exp(z.max()), np.array([1.0, 1000.0]))                  # OverflowError eagerly


def accuracy_and_loss(outs, labels, x):
    # Nielsen's Network.evaluate: sum(int(x == y) for ...) over argmaxes; float()/int() of graph scalars
    hits = sum(int(np.argmax(o) == y) for o, y in zip(outs, labels))
    loss = float(np.sum(x ** 2))
    return hits, loss / 2, x * loss, int(x.max()) + 1, float(int(x.min())), int(np.float32(2.5) * x[0])


def test_int_and_float_of_a_graph_scalar_are_python_numbers_the_graph_returns():
    outs = [np.eye(3)[i % 3] for i in range(4)]
    x = np.arange(1.0, 4.0)
    r = check(accuracy_and_loss, outs, [0, 1, 0, 0], x, calls=[(outs[::-1], [0, 1, 0, 0], -x)]).assert_no_breaks()
    assert r.graphs[0].ops().get("int") == 7 and r.graphs[0].ops().get("float") == 2
    res = md.compile(accuracy_and_loss)(outs, [0, 1, 0, 0], x)
    assert [type(v) for v in (res[0], res[1], res[3], res[4], res[5])] == [int, float, int, float, int]


def int_then_branch(x):
    k = int(x.sum())
    if k > 3:               # needs the value: the break is here, not at int()
        return x + k
    return x - k


def test_a_branch_on_an_int_of_a_graph_scalar_breaks_there():
    r = check(int_then_branch, np.ones(5), calls=[(np.ones(2),), (np.full(5, 0.5),)])
    assert r.reasons and all("int(" not in reason.source_line or "if" in reason.source_line for reason in r.reasons)


def int_of_nan(x, fallback):
    x[0] = 1.0                  # a write before the conversion that raises: done once
    try:
        return int(x.sum() / x[1])          # ValueError for 0/0 (nan), OverflowError for 1/0 (inf)
    except (ValueError, OverflowError) as e:
        return fallback, type(e).__name__


def test_int_of_nan_or_inf_raises_as_eagerly():
    with np.errstate(all="ignore"):
        check(int_of_nan, np.array([0.0, 2.0]), -1, calls=[(np.array([0.0, 0.0]), -1), (np.array([5.0, 0.0, 1.0]), 7)])
        check(lambda x: int(x.sum() / x[1]), np.array([0.0, 0.0]))
