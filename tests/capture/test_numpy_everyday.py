"""Everyday NumPy that broke: sliding_window_view, np.pad's edge/wrap/reflect/symmetric modes,
np.digitize, np.bincount(minlength=) (checked when it runs: a longer count re-runs eagerly), einsum's `...`."""

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

from tests.conftest import check

DTYPES = [np.float64, np.float32, np.int64, np.uint8, np.bool_, np.complex128]
SHAPES = [(), (0,), (5,), (3, 4), (2, 0)]


def _array(shape, dtype):
    return (np.arange(int(np.prod(shape))).reshape(shape) % 7).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("mode", ["edge", "wrap", "reflect", "symmetric"])
def test_pad_modes(mode, shape, dtype):
    def pad(x):
        return np.pad(x, 2, mode=mode), np.pad(x, ((1, 0),) * x.ndim, mode=mode), np.pad(x, 0, mode=mode)
    r = check(pad, _array(shape, dtype),
              expect_graph=False)        # an empty axis padded by values: NumPy's ValueError; a 0-d
    raises = 0 in shape or shape == ()     # array's width () is not integral: its TypeError, found at capture
    assert [b.category.value for b in r.reasons] == (["exception"] if raises else [])
    assert not raises or not r.reasons[0].fallback      # a break where the program raises, not a fallback
    if not raises:
        r.assert_graph_ran()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_sliding_window_view(dtype, shape):
    def windows(x):
        v = sliding_window_view(x, 2, axis=-1)
        w = sliding_window_view(x, (1,) * x.ndim)
        return v.sum(axis=-1), w, v.shape
    r = check(windows, _array(shape, dtype),
              expect_graph=False)    # a 0-d x or a window longer than the axis: NumPy's errors, at capture
    raises = shape in ((), (0,), (2, 0))
    assert [b.category.value for b in r.reasons] == (["exception"] if raises else [])
    assert not raises or not r.reasons[0].fallback
    if not raises:
        r.assert_graph_ran()
        x = _array(shape, dtype)
        view = r.compiled(x)[1]
        assert not view.flags.writeable and np.shares_memory(view, x)      # NumPy's read-only view of x

    def write(x):
        sliding_window_view(x, 2)[0] = 1           # a read-only view: NumPy's ValueError, as eagerly
        return x
    if len(shape) == 1 and shape[0] >= 2:
        check(write, _array(shape, dtype))


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.bool_])
@pytest.mark.parametrize("shape", [(), (0,), (6,), (2, 3)])
def test_digitize(dtype, shape):
    def bins(x, edges):
        return np.digitize(x, edges), np.digitize(x, edges, right=True)
    x = _array(shape, dtype)
    r = check(bins, x, np.array([1, 3, 5.0]), calls=[(x, np.array([5, 3, 1.0])), (x, np.array([1, 5, 3.0]))])
    assert not r.reasons                            # (non-monotonic edges: NumPy's ValueError when it runs)


@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.uint16, np.bool_])
def test_bincount_with_minlength_is_checked_when_it_runs(dtype):
    def counts(labels, w):
        return np.bincount(labels, minlength=4), np.bincount(labels, weights=w, minlength=4)
    labels = np.array([0, 1, 1, 3]).astype(dtype)
    r = check(counts, labels, np.ones(4), calls=[
        (np.array([0, 1, 3, 6]).astype(dtype), np.ones(4)),        # 6 >= minlength: a longer result, eager's
        (np.array([], dtype), np.ones(0)), (labels, np.ones(3))])  # empty; weights of another length
    # (weights of another length: NumPy's ValueError, the program's exception at capture of that call)
    assert [b.category.value for b in r.reasons] == ["exception"] and r.graphs[0].ops().get("bincount") == 2

    def unbounded(labels):
        return np.bincount(labels)                  # its length is data: a break
    reasons = check(unbounded, labels, expect_graph=False).reasons
    assert [b.category.value for b in reasons] == ["data_dependent"] and not reasons[0].fallback, reasons


def test_einsum_ellipsis():
    def batched(a, b):
        return np.einsum("...ij,...jk->...ik", a, b), np.einsum("i...->...", a[0]), np.einsum("...", a)
    for sa, sb in (((2, 3, 4), (2, 4, 5)), ((3, 4), (4, 5)), ((1, 0, 2), (1, 2, 3))):
        assert not check(batched, np.ones(sa), np.ones(sb)).reasons
