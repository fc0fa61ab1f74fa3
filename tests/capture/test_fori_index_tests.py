"""A test on the index of a for loop being folded (capture/fold/fori.py) against a constant or a size, `if j == 68:
break` in `for j in range(66)`, is decided for the whole range when it has one answer there (the shape env's
loop-index rule: graph/symbolic.py), instead of refusing the fold: the loop is one fori_loop node, not 64
unrolled iterations and a driver (issue 28: fuzz seeds 8 and 203, 1.4 s and 0.7 s of capture, were such
loops). A test that changes across the range still refuses the fold. Differential throughout."""

from __future__ import annotations

import numpy as np
import pytest

from tests.capture.test_fori import fori_nodes
from tests.conftest import check


def never_breaks(x):
    acc = x * 1.0
    for j in range(70):
        acc = acc * 0.5 + x[j % x.shape[0]]
        if j == 90:
            break
    return acc


def always_true(x):
    acc = x * 1.0
    for j in range(1, 70):
        if j >= 1:
            acc = acc * 0.5 + j
        if j < 0:
            acc = -acc
        if j != 100:
            acc = acc + 0.25
    return acc


def breaks_inside(x):
    acc = x * 1.0
    for j in range(70):
        acc = acc * 0.5 + x[0]
        if j == 5:               # true for one index: the fold is refused, the loop runs as before
            break
    return acc, j


def bounded_by_an_argument(x, n):
    acc = x * 1.0
    for j in range(n):
        acc = acc * 0.5 + x[j % x.shape[0]]
        if j >= n:               # never: j < n on the whole range
            break
    return acc


def seed_8_like(x, y):
    acc = y * 1.0
    for i in range(3):
        for j in range(66):
            acc = acc * 0.5 + y[j % y.shape[0]] * i
            acc[j % acc.shape[0]] += j
            if acc.sum() > 0:
                acc = acc - 1.0
            if j == 68:
                break
        acc = acc / (i + 1.0)
    x[x >= x.mean()] += 1.0
    return acc, x


def loops_folded(res):
    return [len(fori_nodes(g)) for g in res.graphs]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_a_test_with_one_answer_over_the_range_folds(dtype):
    x = np.arange(4).astype(dtype)
    res = check(never_breaks, x, calls=[(x + 1,), (np.arange(7).astype(dtype),)])
    assert res.reasons == [] and loops_folded(res)[0] == 1, res.reasons
    res = check(always_true, x, calls=[(x * 2,)])
    assert res.reasons == [] and loops_folded(res)[0] == 1, res.reasons


def test_a_test_true_for_some_indices_still_refuses_the_fold():
    res = check(breaks_inside, np.arange(3.0), calls=[(np.ones(3),)])
    assert all(n == 0 for n in loops_folded(res))


def test_a_bound_given_as_an_argument():
    x = np.arange(5.0)
    res = check(bounded_by_an_argument, x, 80, calls=[(x, 90), (x * 2, 75), (np.arange(3.0), 100)])
    assert loops_folded(res) and loops_folded(res)[0] == 1, res.reasons


def test_nested_loops_of_the_fuzz_seed():
    y = np.linspace(-1.0, 1.0, 4)
    calls = [(np.arange(4.0), y * 2), (np.arange(6.0), np.linspace(-2.0, 1.0, 6)), (np.arange(4.0), -y)]
    res = check(seed_8_like, np.arange(4.0), y, calls=calls)
    assert any(loops_folded(res)), res.reasons
    assert not any("loop ran 64 iterations" in r.message for r in res.reasons)
