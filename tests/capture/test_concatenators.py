"""np.r_ / np.c_ of arrays, Python numbers and slices of Python numbers are recorded as the calls NumPy's
AxisConcatenator makes (capture/variables/concatenators.py): bit-identical results and dtypes (a Python
number is weak in the result dtype), the same casts, warnings and exceptions, no break; string directives
and lists break and run eagerly. Differential (tests.conftest.check compares results bit for bit)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minidynamo as md
from tests.conftest import captured, check

DTYPES = [np.bool_, np.int8, np.uint8, np.int64, np.float32, np.float64, np.complex64]
SHAPES = [(), (0,), (1,), (5,)]


def _array(dtype, shape, salt=0):
    n = int(np.prod(shape))
    return ((np.arange(n) * 7 + salt) % 11 - 4).astype(dtype).reshape(shape)


def r_pair(x, y):
    return np.r_[x, y]


def r_numbers(x):
    return np.r_[0, x, 2.5], np.r_[x, True], np.r_[3, x], np.r_[1j, x]


def r_slices(x):
    return np.r_[0:3, x], np.r_[x, 5:0:-2], np.r_[0:1:5j, x], np.r_[2.5:4, x], np.r_[-1:1:0.5]


def c_pair(x, y):
    return np.c_[x, y]


def c_mixed(x, m):
    return np.c_[x, m, x], np.c_[m, 0:len(x)], np.c_[2, 1.5], (np.c_[x[:1], 1.5] if len(x) else None)


def one_item(x):
    return np.r_[x], np.c_[x]


@pytest.mark.parametrize("dx", DTYPES)
@pytest.mark.parametrize("dy", [np.int8, np.float32, np.float64])
@pytest.mark.parametrize("shape", SHAPES)
def test_r_of_two_arrays_is_one_graph(dx, dy, shape):
    check(r_pair, _array(dx, shape), _array(dy, (3,), 1),
          calls=[(_array(dx, shape, 2), _array(dy, (4,), 3))]).assert_no_breaks()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_r_with_python_numbers_keeps_them_weak(dtype, shape):
    check(r_numbers, _array(dtype, shape)).assert_no_breaks()


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.float32, np.complex64])
def test_r_with_slices_is_arange_and_linspace(dtype):
    check(r_slices, _array(dtype, (4,))).assert_no_breaks()


@pytest.mark.parametrize("dtype", [np.bool_, np.int64, np.float32, np.float64])
@pytest.mark.parametrize("n", [0, 1, 6])
def test_c_makes_columns(dtype, n):
    check(c_pair, _array(dtype, (n,)), _array(np.float64, (n,), 1)).assert_no_breaks()
    check(c_mixed, _array(dtype, (n,)), _array(np.int64, (n, 2), 2)).assert_no_breaks()


def test_a_single_item_and_a_zero_d_one():
    for x in (_array(np.float32, ()), _array(np.int64, (3,)), _array(np.float64, (2, 3))):
        check(one_item, x).assert_no_breaks()


def test_mismatched_parts_raise_as_eagerly():
    check(c_pair, _array(np.float64, (3,)), _array(np.float64, (4,)), expect_graph=False).assert_broke(
        "concatenate: all the input array dimensions except for the concatenation axis must match exactly")
    check(r_pair, _array(np.float64, (2, 2)), _array(np.float64, (3,)), expect_graph=False).assert_broke(
        "concatenate: all the input arrays must have same number of dimensions")


def test_a_python_int_out_of_range_for_the_result_dtype_raises_as_eagerly():
    def f(x):
        return np.r_[x, 300]

    def g(x):
        return np.r_[-3, x]
    check(f, _array(np.uint8, (3,)), expect_graph=False)
    check(g, _array(np.uint8, (3,)), expect_graph=False)
    check(g, _array(np.int8, (3,))).assert_no_breaks()


def test_a_cast_that_warns_warns_as_eagerly():
    def f(x, y):
        return np.r_[x, y]
    x, y = np.array([np.nan, 1.0, np.inf]), np.array([1, 2], np.int8)
    records = []
    compiled = md.compile(f, options={"suppress_errors": False})
    for fn in (f, compiled):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = fn(y, x.astype(np.float16))
        records.append((value.dtype, value.tobytes(), [(w.category, str(w.message)) for w in caught]))
    assert records[0] == records[1]
    captured(compiled).assert_no_breaks().assert_graph_ran()       # the cast is in the graph, and warns there


def test_directives_and_lists_break_and_run_eagerly():
    def directive(x, y):
        return np.r_["0,2", x, y]

    def listed(x):
        return np.r_[[1, 2], x]
    x, y = _array(np.float64, (3,)), _array(np.float64, (3,), 1)
    for fn, args in ((directive, (x, y)), (listed, (x,))):
        check(fn, *args, expect_graph=False)
        report = md.explain(fn)(*args)
        assert report.graph_break_count == 1 and "np.r_" in str(report.break_reasons[0]), report.break_reasons
