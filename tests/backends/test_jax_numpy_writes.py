"""lowering._keep_views_of_numpy_writes: an op the engine leaves on NumPy writes into real memory, so every
view of that memory runs on NumPy too. Before, the view ran on XLA as a copy, the NumPy write went into the
copy and the caller's array was left unchanged (both tests gave wrong results). Compared with eager NumPy
exactly (integer arrays), results and arguments after the call."""

from __future__ import annotations

import numpy as np

from tests.backends.jax_support import Recorder
from tests.conftest import check


def scatter_into_a_column(A, idx):
    col = A[:, 0]
    col[idx] = 5            # an integer-array write: NumPy's (duplicates apply in its order)
    return A * 2


def test_a_write_left_on_numpy_goes_through_the_callers_view():
    rec = Recorder()
    A = np.arange(12, dtype=np.int64).reshape(4, 3)
    check(scatter_into_a_column, A, np.array([0, 2]), calls=[(A + 1, np.array([3, 3, 1]))], backend=rec)
    reasons = rec.not_lowered()
    assert "memory, which an op left on NumPy writes into" in reasons["getitem"]
    assert "multiply" not in reasons        # what follows the write still runs on XLA


def running_sum_in_a_column(A):
    col = A[:, 0]
    for i in range(1, A.shape[0]):
        col[i] = A[i - 1, 1] + col[i - 1]      # NumPy integer scalars: the loop stays on NumPy
    return A


def test_a_loop_left_on_numpy_writes_through_the_callers_view():
    rec = Recorder()
    A = np.arange(90 * 3, dtype=np.int64).reshape(90, 3)
    check(running_sum_in_a_column, A, calls=[(A * 2,)], backend=rec)
    assert "memory, which an op left on NumPy writes into" in rec.not_lowered()["getitem"]
