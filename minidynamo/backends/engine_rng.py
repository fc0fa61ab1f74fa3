"""The program's global random streams kept as they were across an engine's import and first use.

Imports numpy and random only. Importing jax draws from NumPy's global RandomState (jax 0.10/0.12:
`np.random.rand(5)` in a default argument of jax/_src/clusters/k8s_cluster.py), and the jax and dask backends
import their engine on the first graph they compile, in the middle of the user's program: every later
`np.random.*` draw of the program would be shifted. So each backend compiles (imports, traces,
compiles with XLA) inside `kept_global_rng()`, and an engine piece's first call runs inside it as well (the
runner swaps that call's wrapper out afterwards, so warm calls pay nothing). Engine pieces never draw from
the global streams themselves (random ops are never lowered: lowering.numpy_surface_not_lowered), so
putting the states back cannot undo a draw the graph made.

The states are put back only when they changed. Another thread drawing from the same global stream while an
engine is imported would see its draws undone; the global streams are not thread-safe in that sense anyway.
"""

from __future__ import annotations

import contextlib
import functools
import random
from typing import Any, Callable, Iterator

import numpy as np


def _numpy_state() -> tuple:
    return np.random.get_state()


def _same(a: tuple, b: tuple) -> bool:
    # ("MT19937", key, pos, has_gauss, cached_gaussian)
    return a[2:] == b[2:] and a[0] == b[0] and np.array_equal(a[1], b[1])


@contextlib.contextmanager
def kept_global_rng() -> Iterator[None]:
    """Run the block, then put NumPy's legacy global RandomState and Python's `random` back as they were
    before it, if the block changed them (also when it raises)."""
    numpy_before, python_before = _numpy_state(), random.getstate()
    try:
        yield
    finally:
        if not _same(_numpy_state(), numpy_before):
            np.random.set_state(numpy_before)
        if random.getstate() != python_before:
            random.setstate(python_before)


def keeping_global_rng(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn` whose every call runs inside kept_global_rng() (a backend's compile step)."""
    @functools.wraps(fn)
    def kept(*args: Any, **kwargs: Any) -> Any:
        with kept_global_rng():
            return fn(*args, **kwargs)
    return kept
