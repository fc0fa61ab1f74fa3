"""np.mgrid / np.ogrid with slices of numbers known at capture are recorded as NumPy's own operations
(capture/variables/grids.py): bit-identical results, dtypes and layouts, no break; an index NumPy refuses
breaks and raises as eagerly. And `x.shape = ...` keeps its break, with its own reason. Differential."""

from __future__ import annotations

import numpy as np
import pytest

import minidynamo as md
from minidynamo.capture.breaks import BreakCategory
from tests.conftest import check

DTYPES = [np.float32, np.float64, np.int64, np.complex128]
SHAPES = [(0, 3), (1, 1), (3, 4), (5, 0), (2, 7)]


def grid_weighted(x):
    rows, cols = np.mgrid[0:x.shape[0], 0:x.shape[1]]       # sizes from the argument: specialized, guarded
    return x * rows + cols, rows.dtype


def dense(n, m):
    return np.mgrid[0:n, 0:m]


def dense_steps():
    return (np.mgrid[-1:1:0.25, 3:0:-1], np.mgrid[0:1:5j, -2:2:4j], np.mgrid[0:-2:-0.5, 0:3],
            np.mgrid[1:2:1j, 0:0], np.mgrid[0.5:3, 2:5:2], np.mgrid[0:2, 0:2, 0:3:2j])


def one_axis():
    return np.mgrid[-1:1:0.25], np.mgrid[0:5], np.mgrid[2:0:-1], np.mgrid[0:1:7j], np.mgrid[0:1:1j], np.ogrid[3:9:2]


def open_grid(n):
    a, b = np.ogrid[0:n, 0:1:5j]
    return a + b, a, b, a.shape, b.shape


def written_into(n):
    g = np.mgrid[0:n, 0:3]
    g[0, 0] = 7                                           # a fresh array per call: a write never leaks
    return g


def refused(k):
    return np.mgrid[0:3:k, 0:2]                          # k == 0: ZeroDivisionError, as eagerly


def mandelbrot_style(xmin, xmax, ymin, ymax, xn, yn):
    X = np.linspace(xmin, xmax, xn, dtype=np.float64)
    Y = np.linspace(ymin, ymax, yn, dtype=np.float64)
    C = X + Y[:, None] * 1j
    Xi, Yi = np.mgrid[0:xn, 0:yn]
    return C[Xi, Yi]


def set_shape(n):
    x = np.arange(n * 2) * 1.5
    x.shape = (2, n)
    return x


def _bits(value):
    if isinstance(value, np.ndarray):
        return value.dtype, value.shape, value.strides, value.tobytes()
    if isinstance(value, (tuple, list)):
        return [_bits(v) for v in value]
    return value


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_a_grid_from_an_argument_shape_is_one_graph(dtype, shape):
    x = (np.arange(int(np.prod(shape))).reshape(shape) % 5 - 2).astype(dtype)
    check(grid_weighted, x, calls=[(x * 2,), (np.ones((2, 2), dtype),)]).assert_no_breaks()


@pytest.mark.parametrize("fn, args", [(dense, (3, 4)), (dense, (0, 2)), (dense_steps, ()), (one_axis, ()),
                                      (open_grid, (4,)), (open_grid, (0,)), (written_into, (2,))])
def test_grids_are_bit_identical_to_numpy(fn, args):
    check(fn, *args).assert_no_breaks()
    compiled = md.compile(fn)
    for _ in range(2):
        assert _bits(compiled(*args)) == _bits(fn(*args))     # -0.0 from a negative step included


def test_a_guarded_size_recompiles_for_another_size():
    check(dense, 2, 3, calls=[(2, 3), (4, 1), (0, 0)]).assert_no_breaks()


def test_an_index_numpy_refuses_breaks_and_raises_as_eagerly():
    res = check(refused, 1, calls=[(0,), (0.5,)])
    assert res.reasons and all(r.category is BreakCategory.EXCEPTION for r in res.reasons)


def test_a_mandelbrot_style_gather_over_a_grid():
    check(mandelbrot_style, -2.0, 0.5, -1.25, 1.25, 6, 4, calls=[(-1.0, 1.0, -1.0, 1.0, 3, 5)]).assert_no_breaks()


@pytest.mark.filterwarnings("ignore:Setting the shape:DeprecationWarning")    # eager and compiled alike
def test_setting_shape_keeps_its_break_with_its_own_reason():
    res = check(set_shape, 3, calls=[(0,)])
    assert res.reasons and all(r.category is BreakCategory.SIDE_EFFECT for r in res.reasons)
    assert all("in-place reshape of that very array object" in str(r) for r in res.reasons)
