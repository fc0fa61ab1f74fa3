"""Engines with immutable arrays (jax, dask) and NumPy's views: a write through a view reaches its base, and
a returned view of an input aliases it, exactly as eagerly. Views made by slicing, transposing, `np.flip`,
`np.real`/`imag`, `np.diag` of a 2-d array and `ndarray.conjugate` of a real array (before the fix the jax
backend lost the writes through flip/real/conjugate views and copied returned flips; the dask backend lost
every write through a view into an input)."""

from __future__ import annotations


import numpy as np
import pytest

import minidynamo as md
from tests.extras import require


def write_through_flip(x):
    y = np.flip(x)
    y[0] = 100.0
    return x


def add_through_flip(x):
    y = np.flip(x, 0)
    y += 1
    return x.sum()


def write_through_rot90(x):
    y = np.rot90(x)
    y[0, 0] = -1.0
    return x


def write_through_real(x):
    y = np.real(x)
    y[1] = 7.0
    return x


def diag_read_after_write(x):
    d = np.diag(x)
    x[0, 0] = 5.0
    return d * 1


def write_through_conjugate(x):
    y = x.conjugate()
    y[0] = 3.0
    return x


def write_through_reversed_slice(x):
    y = x[::-1]
    y[0] = 100.0
    return x


def add_through_transpose(x):
    y = x.T
    y[0] += 1.0
    return x


def return_flip(x):
    return np.flip(x)


CASES = [(write_through_flip, lambda: np.arange(4.0)), (add_through_flip, lambda: np.arange(4.0)),
         (write_through_real, lambda: np.arange(4.0)), (write_through_rot90, lambda: np.arange(6.0).reshape(2, 3)), (diag_read_after_write, lambda: np.arange(9.0).reshape(3, 3)),
         (write_through_conjugate, lambda: np.arange(4.0)), (write_through_reversed_slice, lambda: np.arange(4.0)),
         (add_through_transpose, lambda: np.arange(4.0).reshape(2, 2)), (return_flip, lambda: np.arange(4.0))]


@pytest.mark.parametrize("backend", ["jax", "dask"])
@pytest.mark.parametrize("fn, make", CASES, ids=[c[0].__name__ for c in CASES])
def test_views_behave_as_numpys(backend, fn, make):
    require(backend)
    compiled = md.compile(fn, backend=backend, options={"suppress_errors": False})
    for _ in range(2):
        x_eager, x_compiled = make(), make()
        expected, got = fn(x_eager), compiled(x_compiled)
        assert np.array_equal(got, expected) and np.asarray(got).dtype == np.asarray(expected).dtype
        assert np.array_equal(x_compiled, x_eager)                      # the write reached the input
        assert np.shares_memory(got, x_compiled) == np.shares_memory(expected, x_eager)
