"""Helpers of the backend="jax" tests: skip without JAX, run a function both ways, compare with tolerance.

Tolerance (issue 12): integer and bool results exact; float64 `rtol=1e-12`; float32 `rtol=1e-5`, both with
an absolute floor of rtol times the largest magnitude of the expected array (XLA's and libm's transcendental
functions differ in the last bits, which is relative to the values' scale, not to a result near zero).
Dtype, shape and type (ndarray, NumPy scalar, list, tuple) must be exactly NumPy's. A Python float read
off an array (`float(loss)`) gets rtol=1e-5, since the test cannot tell which precision it came from.
"""

from __future__ import annotations

import copy
from typing import Any, Callable

import numpy as np
import pytest

from minidynamo.backends.jax_lowering import INSTALL_HINT

jax = pytest.importorskip("jax", reason=INSTALL_HINT)

import minidynamo as md                                          # noqa: E402
from minidynamo.backends.jax_lowering import jax_backend         # noqa: E402

RTOL = {np.dtype(np.float64): 1e-12, np.dtype(np.float32): 1e-5, np.dtype(np.complex128): 1e-12,
        np.dtype(np.complex64): 1e-5}


class Recorder:
    """A backend that compiles with "jax" and keeps each lowering plan and the runners' fallback counters."""

    def __init__(self) -> None:
        self.plans: list[Any] = []
        self.runs: list[Any] = []

    def __call__(self, graph: Any, example_inputs: Any) -> Callable[..., tuple]:
        run = jax_backend(graph, example_inputs)
        self.plans.append(run.__minidynamo_lowering__)
        self.runs.append(run)
        return run

    @property
    def fully_lowered(self) -> bool:
        return bool(self.plans) and all(p.fully_lowered for p in self.plans)

    @property
    def fallbacks(self) -> int:
        return sum(getattr(r, "fallbacks", [0])[0] for r in self.runs)

    def not_lowered(self) -> dict[str, str]:
        return {d.node.op: d.reason for p in self.plans for d in p.not_lowered}


def assert_close(got: Any, expected: Any, where: str = "result") -> None:
    """Same type/dtype/shape; exact for ints and bools, the documented tolerance for floats."""
    assert type(got) is type(expected), f"{where}: {type(got).__name__} != {type(expected).__name__}"
    if isinstance(expected, dict):
        assert list(got) == list(expected), f"{where}: keys {list(got)} != {list(expected)}"
        for k in expected:
            assert_close(got[k], expected[k], f"{where}[{k!r}]")
        return
    if isinstance(expected, float):          # a Python float read off an array (float32 or float64)
        assert got == expected or abs(got - expected) <= 1e-5 * max(abs(expected), 1e-30) or \
            (got != got and expected != expected), f"{where}: {got!r} != {expected!r}"
        return
    if isinstance(expected, (tuple, list)):
        assert len(got) == len(expected), where
        for i, (g, e) in enumerate(zip(got, expected)):
            assert_close(g, e, f"{where}[{i}]")
        return
    if hasattr(expected, "__dict__") and not isinstance(expected, type) and not callable(expected):
        assert type(got) is type(expected), where
        assert_close(vars(got), vars(expected), f"{where}.__dict__")
        return
    if not isinstance(expected, (np.ndarray, np.generic)):
        assert got == expected or (got != got and expected != expected), f"{where}: {got!r} != {expected!r}"
        return
    assert got.dtype == expected.dtype, f"{where}: dtype {got.dtype} != {expected.dtype}"
    assert np.shape(got) == np.shape(expected), f"{where}: shape {np.shape(got)} != {np.shape(expected)}"
    if isinstance(got, np.ndarray):
        assert got.flags.writeable, f"{where}: result is read-only"
    if expected.dtype.kind in "fc":
        rtol = RTOL[expected.dtype]
        scale = float(np.max(np.abs(expected))) if np.size(expected) and np.all(np.isfinite(expected)) else 0.0
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol * scale, err_msg=where)
    else:
        assert np.array_equal(got, expected), f"{where}: {got!r} != {expected!r}"


def run_both(fn: Callable, *args: Any, calls: int = 1) -> tuple[Any, Any, Recorder]:
    """fn eagerly and compiled with backend "jax" on copies of args (`calls` times); the last results."""
    rec = Recorder()
    compiled = md.compile(fn, backend=rec, options={"suppress_errors": False})
    for _ in range(calls):
        expected = fn(*copy.deepcopy(args))
        got = compiled(*copy.deepcopy(args))
    return got, expected, rec
