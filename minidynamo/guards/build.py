"""Builders of the right guards for a value: guard_constant (pinned by type and value, or identity),
array_guards (type, shape, dtype), chunked_array_guards (a dask array's chunks too).

Imports guards.guard, guards.kind, guards.exact and errors.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InternalError
from .exact import has_special_float
from .guard import Guard
from .kind import DTYPE, EQUALS, ID, IS_NONE, LEN, SHAPE, TYPE

# Constants compared by value (after an exact type guard); everything else by identity.
_VALUE_TYPES = (int, float, complex, str, bytes, np.generic, np.dtype, frozenset, range, slice)


def guard_constant(expr: str, value: Any, description: str = "") -> list[Guard]:
    """Guards that pin `expr` to the constant `value`, type included (so True differs from 1).

    Tuples are pinned element by element, since (1, 2) == (1.0, 2) == (True, 2) and NumPy's
    promotion (NEP 50) gives different dtypes for a Python int and float.
    """
    if value is None:
        return [Guard(expr, IS_NONE, None, description)]
    if isinstance(value, (list, dict, set, bytearray, np.ndarray)):
        raise InternalError(f"guard_constant({expr}): {type(value).__name__} is mutable, not a constant")
    if type(value) is tuple:
        out = [Guard(expr, TYPE, tuple, description), Guard(expr, LEN, len(value), description)]
        for i, item in enumerate(value):
            out += guard_constant(f"{expr}[{i}]", item, description and f"{description}[{i}]")
        return out
    if type(value) is bool or not isinstance(value, _VALUE_TYPES):
        # Functions, modules, classes, enum members, singletons: identity is the exact test.
        return [Guard(expr, ID, value, description)]
    out = [Guard(expr, TYPE, type(value), description)]
    if isinstance(value, (complex, np.complexfloating)) and has_special_float(value):
        # NaN or a signed zero inside a complex: compare the parts as floats, exactly.
        return out + [Guard(f"{expr}.real", EQUALS, value.real, description and f"{description}.real"),
                      Guard(f"{expr}.imag", EQUALS, value.imag, description and f"{description}.imag")]
    return out + [Guard(expr, EQUALS, value, description)]


def array_guards(expr: str, value: Any, description: str = "") -> list[Guard]:
    """[exact type, shape, dtype] for an ndarray; [exact type] (+ dtype if flexible) for a NumPy scalar."""
    if isinstance(value, np.ndarray):
        return [Guard(expr, TYPE, type(value), description), Guard(expr, SHAPE, value.shape, description),
                Guard(expr, DTYPE, value.dtype, description)]
    if isinstance(value, np.generic):
        out = [Guard(expr, TYPE, type(value), description)]
        # The scalar type fixes the dtype except for sized (S, U, V) and unit-carrying (M, m) kinds.
        if value.dtype.kind in "SUVMm":
            out.append(Guard(expr, DTYPE, value.dtype, description))
        return out
    raise TypeError(f"array_guards({expr}): expected an ndarray or NumPy scalar, got {type(value).__name__}")


def chunked_array_guards(expr: str, value: Any, description: str = "") -> list[Guard]:
    """[exact type, shape, dtype, chunks] for a chunked array (a dask array): a new chunking is a new
    capture, since the lowered graph (and how a break splits it) was built for these chunks."""
    chunks = tuple(tuple(int(c) for c in dim) for dim in value.chunks)
    return [Guard(expr, TYPE, type(value), description), Guard(expr, SHAPE, value.shape, description),
            Guard(expr, DTYPE, value.dtype, description),
            Guard(f"{expr}.chunks", EQUALS, chunks, description and f"{description}.chunks")]
