"""Plain-Python forms of instructions (capture/handlers, PLAIN): a break at each runs it in the entry and
resumes after it, with the eager result (slices with array-valued bounds, as in CSR SpMV; attribute writes
on arrays; `del` with a data-dependent key)."""

from __future__ import annotations

import numpy as np

from minidynamo.capture.handlers import PLAIN
from tests.conftest import assert_uses, check


def csr_row(vals, ptr, i):
    return vals[ptr[i]:ptr[i + 1]] * 2.0          # bounds are array elements: BINARY_SLICE breaks


def csr_fill(vals, ptr, i):
    vals[ptr[i]:ptr[i + 1]] = -1.0
    return vals.sum()


def reshape_in_place(z):
    z = z * 2
    z.shape = (z.size,)                           # STORE_ATTR on an array: a break, run in plain Python
    return z + 1


def delete_by_array_index(lst, idx):
    del lst[idx[0]]
    return len(lst)


def test_slices_with_array_bounds():
    vals, ptr = np.arange(10.0), np.array([0, 3, 7, 10])
    res = check(csr_row, vals, ptr, 1, calls=[(vals, ptr, 2)])
    assert res.reasons and not res.reasons[0].fallback
    check(csr_fill, vals, ptr, 0, calls=[(vals, ptr, 2)])
    if "BINARY_SLICE" in PLAIN:
        assert_uses(csr_row, "BINARY_SLICE")


def test_attribute_write_and_delete_resume_after_the_break():
    res = check(reshape_in_place, np.ones((2, 3)))
    assert res.reasons and not res.reasons[0].fallback
    check(delete_by_array_index, [1, 2, 3], np.array([1]), calls=[([4, 5], np.array([5]))])
