"""Idioms of public NumPy code (a NumPy CNN, an n-body and a lattice-Boltzmann simulation) that broke: splits
into lists, joining one ndarray along its first axis, a boolean-mask assignment of an array, rolls by a
shift read from a small global array."""

import numpy as np
import pytest

from tests.conftest import check

DTYPES = [np.float64, np.float32, np.int16, np.bool_, np.complex64]


def splits(x, k):
    a = np.hsplit(x, k)
    b = np.vsplit(x, [1]) if x.ndim > 1 else [x]
    c = np.dsplit(x, 1) if x.ndim > 2 else [x]
    return a, b, c, type(a), len(a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,k", [((4,), 2), ((4, 6), 3), ((2, 4, 2), [1, 3]), ((0, 4), 2), ((3, 0), 1),
                                     ((2, 2, 0), 2), ((3,), 2), ((), 1)])
def test_hsplit_vsplit_dsplit_are_lists_of_views(dtype, shape, k):
    x = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape).astype(dtype)
    r = check(splits, x, k, expect_graph=False)         # 3 into (3,) or a 0-d array: NumPy's ValueError, raised eagerly
    if x.ndim and (isinstance(k, list) or x.shape[1 if x.ndim > 1 else 0] % k == 0):
        assert not r.reasons and len(r.graphs) == 1
    else:                                               # found at capture: a break where the program raises
        assert [b.category.value for b in r.reasons] == ["exception"] and not r.reasons[0].fallback

    def writes_through(x):
        left, right = np.hsplit(x, 2)
        left += 1                   # a view of x: x changes too
        return x, right
    if x.ndim and x.dtype != np.bool_ and x.shape[-1 if x.ndim == 1 else 1] % 2 == 0:
        check(writes_through, x)


def joins(a):
    return np.concatenate(a, axis=-1), np.concatenate(a), np.concatenate(a, axis=None), np.stack(a, axis=1), \
        np.vstack(a), np.hstack(a)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(2, 3, 4), (3, 2), (1, 1, 1), (0, 2, 2), (2, 0, 3), (4,), ()])
def test_joining_one_ndarray_iterates_its_first_axis(dtype, shape):
    a = np.arange(int(np.prod(shape))).reshape(shape).astype(dtype)
    r = check(joins, a,
              expect_graph=False)            # a 0-d array, (4,) or an empty first axis: NumPy's errors, as eagerly
    if len(shape) > 1 and shape[0]:
        assert not r.reasons and len(r.graphs) == 1
    else:                                       # found at capture: a break where the program raises
        assert [b.category.value for b in r.reasons] == ["exception"] and not r.reasons[0].fallback


def bounce(F, cylinder, bndry):
    F[cylinder, :] = bndry                          # lattice-Boltzmann's reflective boundary
    F[cylinder] = bndry[:, ::-1]
    return F.sum()


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_a_mask_assignment_of_an_array_is_one_op_checked_when_it_runs(dtype):
    F = np.arange(24).reshape(8, 3).astype(dtype)
    cylinder = np.array([True, False, True, False, False, False, True, False])
    bndry = np.arange(9).reshape(3, 3).astype(dtype)
    r = check(bounce, F, cylinder, bndry, calls=[
        (F, cylinder[::-1], bndry),                           # another mask of the same count
        (F, ~cylinder, np.ones((5, 3), dtype)),
        (F, cylinder, np.ones((1, 3), dtype)),                # a row broadcasts over every selected row
        (F, cylinder, np.ones((2, 3), dtype)),                # 2 rows for 3 selected: NumPy's ValueError
        (F, np.zeros(8, bool), np.ones((0, 3), dtype))])      # none selected
    assert not r.reasons                                      # (a new shape of bndry recompiles)

    def shrink(x):
        x[x > 0] = np.sqrt(x[x > 0])                # the getitem breaks (its length is data); the write not
        return x
    r = check(shrink, np.linspace(-1, 1, 7).astype(dtype), calls=[(np.zeros(3, dtype),)])
    assert all("setitem" not in b.message for b in r.reasons)


IDXS, CXS, CYS = np.arange(9), np.array([0, 0, 1, 1, 1, 0, -1, -1, -1]), np.array([0, 1, 1, 0, -1, -1, -1, 0, 1])


def stream(F):
    for i, cx, cy in zip(IDXS, CXS, CYS):           # lattice-Boltzmann's streaming step
        F[:, :, i] = np.roll(F[:, :, i], cx, axis=1)
        F[:, :, i] = np.roll(F[:, :, i], cy, axis=0)
    return F


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("shape", [(4, 5), (1, 3), (0, 2)])
def test_rolls_by_shifts_read_from_a_global_int_array(dtype, shape):
    F = np.arange(int(np.prod(shape)) * 9).reshape(*shape, 9).astype(dtype)
    r = check(stream, F, calls=[(F[::-1].copy(),)])
    assert not r.reasons and len(r.graphs) == 1 and r.graphs[0].ops()["roll"] == 18


@pytest.mark.parametrize("shift", [np.int8(-3), np.uint8(7), np.array([1, 2]), np.array(2), np.bool_(True),
                                   np.float64(1.0), np.array([[1]])])
def test_a_shift_the_graph_holds_rolls_as_numpy_does(shift):
    def roll(x, s):
        return np.roll(x, s), np.roll(x, s, axis=0), np.roll(x, s, axis=(0, 1)), np.roll(x[0], s)
    r = check(roll, np.arange(12.0).reshape(3, 4), shift, expect_graph=False)
    reasons = [rec.reason for rec in r.all_records if rec.reason is not None]
    assert not any(b.fallback for b in reasons), reasons
    if np.asarray(shift).dtype.kind == "f":     # not held by the graph: each roll runs as plain Python
        assert len(reasons) == 4 and all("a shift of dtype float64" in b.message for b in reasons), reasons
    elif np.ndim(shift) > 1:                    # NumPy's ValueError, found at capture
        assert [b.category.value for b in reasons] == ["exception"], reasons
    else:
        r.assert_no_breaks().assert_graph_ran()
