"""Helpers shared by the dask backend tests: the documented tolerance, and the lowering plans of a
compiled function's graphs."""

from __future__ import annotations

from typing import Any

import numpy as np

# Chunked reductions add partial results in another order than NumPy's pairwise sums: equal within this.
RTOL = {np.dtype(np.float64): 1e-9, np.dtype(np.float32): 1e-4}
ATOL = {np.dtype(np.float64): 1e-12, np.dtype(np.float32): 1e-5}


def computed(value: Any) -> Any:
    """`value` with every dask array in it computed (containers rebuilt)."""
    if type(value).__module__.startswith("dask.array"):
        return value.compute()
    if isinstance(value, (tuple, list)):
        return type(value)(computed(v) for v in value)
    if isinstance(value, dict):
        return {k: computed(v) for k, v in value.items()}
    return value


def assert_close(expected: Any, got: Any, where: str = "result") -> None:
    """Same types, shapes and dtypes; floating values within RTOL/ATOL, everything else equal."""
    if isinstance(expected, (tuple, list)):
        assert type(got) is type(expected) and len(got) == len(expected), where
        for i, (e, g) in enumerate(zip(expected, got)):
            assert_close(e, g, f"{where}[{i}]")
    elif isinstance(expected, dict):
        assert got.keys() == expected.keys(), where
        for k in expected:
            assert_close(expected[k], got[k], f"{where}[{k!r}]")
    elif isinstance(expected, (np.ndarray, np.generic)):
        assert type(got) is type(expected), f"{where}: {type(got).__name__} != {type(expected).__name__}"
        assert got.dtype == expected.dtype and np.shape(got) == np.shape(expected), where
        if expected.dtype.kind in "fc":
            np.testing.assert_allclose(got, expected, rtol=RTOL.get(expected.dtype, 1e-9),
                                       atol=ATOL.get(expected.dtype, 1e-12), equal_nan=True, err_msg=where)
        else:
            np.testing.assert_array_equal(got, expected, err_msg=where)
    else:
        assert got == expected or (got != got and expected != expected), where


def lowering_plans(compiled: Any) -> list[Any]:
    """The lowering plan of every graph a compiled function (and its resume functions) compiled."""
    state = compiled._minidynamo
    states = [state] + [getattr(c, "_minidynamo", None) for c in state.children.values()]
    return [getattr(v, "__minidynamo_lowering__") for s in states if s is not None for r in s.records
            for v in r.entry.namespace.values() if hasattr(v, "__minidynamo_lowering__")]
