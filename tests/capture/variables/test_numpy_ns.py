"""capture/variables/numpy_ns.py: attributes of NumPy functions and ufuncs."""

from __future__ import annotations

import math

import numpy as np

from tests.conftest import check


def test_a_missing_attribute_of_a_numpy_function_raises_attribute_error():
    def ufunc_attr(x):
        return x + np.add.nin, np.add.no_such_attribute

    def function_attr(x):
        return np.sum.no_such_attribute

    check(ufunc_attr, np.ones(3))
    check(function_attr, np.ones(3))


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
