"""Arithmetic on Python numbers (py_int / py_float graph values) lowered to int64 / float64, Python's results
kept.

Imports jax. Python ints are unbounded and Python raises where XLA does not, so each lowered op registers a
data check (`cx.check`) and the call runs on NumPy's code generator (which runs the Python operators) when
it fails: int64 overflow of + - * and unary -, a zero divisor (ZeroDivisionError in Python), an int beyond
2**53 compared with or divided as a float (Python compares and divides exactly). Float + - * / are IEEE
double operations in both. A computed Python number that meets an array is checked against the array's
dtype (NEP 50: NumPy raises OverflowError for an int out of range, warns for a float beyond float32), as the
host checks do for Python-number inputs (runner.py). Powers, float floor division and modulo, and bools
stay in Python.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import jax.numpy as jnp
from jax import lax

from ...graph.ir import Node, PyScalarSpec

ARITHMETIC = {"add", "subtract", "multiply", "divide", "floor_divide", "remainder", "negative"}
COMPARISONS = {"less", "less_equal", "greater", "greater_equal", "equal", "not_equal"}
_EXACT_FLOAT_INT = 2 ** 53
_I64 = np.iinfo(np.int64)


def _kind(arg: Any) -> type | None:
    """int or float for a Python-number operand (graph value or literal), None for anything else."""
    if isinstance(arg, Node):
        spec = arg.spec
        return spec.type if isinstance(spec, PyScalarSpec) and spec.type in (int, float) else None
    return type(arg) if type(arg) in (int, float) else None


def refuse_python_number(node: Node, name: str) -> str | None:
    """Why this Python-number op stays in Python, or None."""
    kinds = [_kind(a) for a in node.args]
    if node.kwargs or None in kinds or name not in ARITHMETIC | COMPARISONS or \
            len(node.args) != (1 if name == "negative" else 2):
        return "Python number arithmetic stays in Python (this op or operand type is not lowered)"
    if name in ("floor_divide", "remainder") and float in kinds:
        return "Python float floor division and modulo stay in Python"
    if any(type(a) is int and not _I64.min <= a <= _I64.max for a in node.args):
        return "a Python int literal beyond 64 bits"
    return None


def lower_python_number(cx: Any, node: Node, name: str) -> Any:
    kinds = [_kind(a) for a in node.args]
    floats = float in kinds
    dtype = np.dtype(np.float64 if floats or name == "divide" else np.int64)
    raw = [cx.val(a) for a in node.args]
    if floats or name == "divide":      # an int meeting a float: Python converts exactly only below 2**53
        for a, k in zip(raw, kinds):
            if k is int and (name in COMPARISONS or name == "divide"):
                cx.check(jnp.abs(jnp.asarray(a, jnp.int64)) <= _EXACT_FLOAT_INT)
    ins = [jnp.asarray(a, dtype) for a in raw]
    if name in ("divide", "floor_divide", "remainder"):
        cx.check(ins[1] != 0)                                       # Python raises ZeroDivisionError
    out = getattr(jnp, name)(*ins)
    if dtype.kind == "i":
        _overflow_checks(cx, name, ins, out)
    cx.py_values.add(id(out))
    return out


def _overflow_checks(cx: Any, name: str, ins: list, out: Any) -> None:
    if name == "add":
        a, b = ins
        cx.check(((a ^ out) & (b ^ out)) >= 0)
    elif name == "subtract":
        a, b = ins
        cx.check(((a ^ b) & (a ^ out)) >= 0)
    elif name == "multiply":
        a, b = ins
        safe = jnp.where(a == 0, 1, a)
        cx.check((a == 0) | ((lax.div(out, safe) == b) & ~((a == -1) & (b == _I64.min))))
    elif name == "negative":
        cx.check(ins[0] != _I64.min)
    elif name == "floor_divide":
        cx.check(~((ins[0] == _I64.min) & (ins[1] == -1)))


def check_cast(cx: Any, value: Any, dtype: np.dtype) -> None:
    """A computed Python number cast to an array's dtype: NumPy raises (ints) or warns (floats) out of range."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        if value.dtype.kind == "f":
            return      # a Python float meeting an int array makes the loop float (no cast into ints)
        cx.check((value >= max(info.min, _I64.min)) & (value <= min(info.max, _I64.max)))
    elif dtype.kind == "f" and dtype.itemsize < 8:
        cx.check(jnp.abs(value.astype(np.float64)) <= float(np.finfo(dtype).max))
