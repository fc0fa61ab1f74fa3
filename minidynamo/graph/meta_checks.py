"""Comparisons that answer with one Python bool (np.allclose, np.array_equal, np.array_equiv), np.isclose,
NumPy's testing assertions (np.testing.assert_allclose & co), and `check`, the runtime test of a branch whose
other way only raises (capture/fold/speculation.py). Imports numpy and graph.meta/ir only.

The assertions and `check` are *checking* ops (OpDef.checks): they return None or raise, and their exception
makes the compiled function run again eagerly (with every array the graph wrote restored), so the program
raises its own exception, message and traceback. `OPS` lists them for the registry (graph/ops.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .ir import ArraySpec, PyScalarSpec
from .meta import PYTHON_SCALARS, MetaUnsupported, as_spec, broadcast, is_array_like, is_spec, probe, run_probe


class CheckFailed(Exception):
    """A branch went the way capture assumed it would not (an `assert` failed, an `if bad: raise` fired):
    the graph stops, and the function runs again eagerly to raise the program's own exception."""


def check(value: Any, expected: bool) -> None:
    """The truth value eager Python takes at that branch, as eagerly (`bool()`; a multi-element array raises
    its own ValueError), compared with the one capture followed."""
    if bool(value) is not expected:
        raise CheckFailed(f"the condition was {not expected}")


def check_meta(value: Any, expected: Any) -> None:
    if not isinstance(expected, bool) or not (is_spec(value) or isinstance(value, (PyScalarSpec, bool))):
        raise MetaUnsupported("check: a truth value of an array or a Python bool")
    return None


def _numeric(name: str, *values: Any) -> list[ArraySpec]:
    specs = []
    for v in values:
        if not (is_spec(v) or isinstance(v, PYTHON_SCALARS) or is_array_like(v)):
            raise MetaUnsupported(f"{name}: unsupported operand of type {type(v).__name__}")
        spec = as_spec(v)
        if spec.dtype.kind not in "biufc":
            raise MetaUnsupported(f"{name}: unsupported dtype {spec.dtype}")
        specs.append(spec)
    return specs


def _tolerances(name: str, **values: Any) -> None:
    for key, v in values.items():
        if not isinstance(v, (*PYTHON_SCALARS, np.generic)):
            raise MetaUnsupported(f"{name}: unsupported {key} of type {type(v).__name__}")


def isclose_meta(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: Any = False) -> ArraySpec:
    """A bool array of the broadcast shape; a NumPy bool when that shape is ()."""
    _tolerances("isclose", rtol=rtol, atol=atol, equal_nan=equal_nan)
    x, y = _numeric("isclose", a, b)
    shape = broadcast(x.shape, y.shape)
    run_probe("isclose", np.isclose, probe(x), probe(y), rtol=rtol, atol=atol, equal_nan=equal_nan)
    return ArraySpec(shape, np.dtype(bool), scalar=shape == ())


def allclose_meta(a: Any, b: Any, rtol: Any = 1e-05, atol: Any = 1e-08, equal_nan: Any = False) -> PyScalarSpec:
    """bool(np.all(np.isclose(...))): a Python bool, known when the graph runs."""
    isclose_meta(a, b, rtol, atol, equal_nan)
    return PyScalarSpec(bool)


def array_equal_meta(a1: Any, a2: Any, equal_nan: Any = False) -> PyScalarSpec:
    """A Python bool; arrays of other shapes are simply not equal."""
    _tolerances("array_equal", equal_nan=equal_nan)
    x, y = _numeric("array_equal", a1, a2)
    run_probe("array_equal", np.array_equal, probe(x), probe(y), equal_nan=equal_nan)
    return PyScalarSpec(bool)


def array_equiv_meta(a1: Any, a2: Any) -> PyScalarSpec:
    _numeric("array_equiv", a1, a2)
    return PyScalarSpec(bool)


def assertion_meta(name: str, n_values: int, numbers: tuple[str, ...]) -> Any:
    """Meta rule of np.testing.<name>: its arrays compared (shapes and values decided when it runs), its
    number arguments constants, err_msg a string, verbose/strict bools. It returns None or raises."""
    def rule(*args: Any, err_msg: Any = "", verbose: Any = True, strict: Any = False, **kwargs: Any) -> None:
        if len(args) < n_values or len(args) > n_values + len(numbers):
            raise MetaUnsupported(f"{name}: unsupported positional arguments")
        _numeric(name, *args[:n_values])
        extra = set(kwargs) - set(numbers)
        if extra:
            raise MetaUnsupported(f"{name}: unsupported keyword {sorted(extra)[0]!r}")
        _tolerances(name, **dict(zip(numbers, args[n_values:])), **kwargs, verbose=verbose, strict=strict)
        if not isinstance(err_msg, str):
            raise MetaUnsupported(f"{name}: unsupported err_msg of type {type(err_msg).__name__}")
        return None
    rule.__name__ = f"{name}_meta"
    return rule


_ASSERTIONS = (("assert_allclose", ("rtol", "atol", "equal_nan")), ("assert_array_equal", ()),
               ("assert_array_almost_equal", ("decimal",)), ("assert_almost_equal", ("decimal",)),
               ("assert_array_less", ()), ("assert_equal", ()))

# (op name, implementation, meta rule, public callables, checks)
OPS = [
    ("check", check, check_meta, (), True),
    ("isclose", np.isclose, isclose_meta, (np.isclose,), False),
    ("allclose", np.allclose, allclose_meta, (np.allclose,), False),
    ("array_equal", np.array_equal, array_equal_meta, (np.array_equal,), False),
    ("array_equiv", np.array_equiv, array_equiv_meta, (np.array_equiv,), False),
    *((f"testing.{n}", getattr(np.testing, n), assertion_meta(n, 2, numbers), (getattr(np.testing, n),), True)
      for n, numbers in _ASSERTIONS),
]
