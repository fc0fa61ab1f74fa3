"""Shape and dtype rules: broadcasting, NumPy 2 (NEP 50) promotion, reductions, shape ops.

Imports numpy only. Every rule works on ArraySpecs and Python values, never on data, so its cost does not
grow with array size. A rule raises MetaError with a message close to NumPy's where NumPy would raise.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .ir import ArraySpec


class MetaError(ValueError):
    """The op would fail in NumPy for these argument specs."""


def broadcast(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError as e:
        raise MetaError(f"shapes {' '.join(map(str, shapes))} do not broadcast: {e}") from None


def _dtype_arg(value: Any) -> Any:
    """What ufunc.resolve_dtypes takes for one operand: a dtype, or the Python type for a weak scalar."""
    if isinstance(value, ArraySpec):
        return value.dtype
    if isinstance(value, bool):
        return bool
    if isinstance(value, (int, float, complex)):
        return type(value)
    raise MetaError(f"unsupported operand {value!r} of type {type(value).__name__}")


def ufunc_meta(uf: np.ufunc) -> Callable[..., ArraySpec]:
    """Meta rule of a ufunc called as uf(*operands): broadcast shapes, NumPy's own dtype resolution."""

    def rule(*args: Any, **kwargs: Any) -> ArraySpec:
        if len(args) != uf.nin or kwargs:
            raise MetaError(f"{uf.__name__}: expected {uf.nin} operands and no keywords here")
        shapes = [a.shape for a in args if isinstance(a, ArraySpec)]
        shape = broadcast(*shapes) if shapes else ()
        try:
            dtypes = uf.resolve_dtypes(tuple(_dtype_arg(a) for a in args) + (None,) * uf.nout)
        except (TypeError, np._core._exceptions._UFuncNoLoopError) as e:  # type: ignore[attr-defined]
            raise MetaError(f"{uf.__name__}: {e}") from None
        # A ufunc returns a NumPy scalar, not a 0-d array, whenever its result is 0-d.
        return ArraySpec(shape, dtypes[uf.nin], scalar=shape == ())

    rule.__name__ = f"{uf.__name__}_meta"
    return rule


def matmul_meta(a: ArraySpec, b: ArraySpec) -> ArraySpec:
    if not (isinstance(a, ArraySpec) and isinstance(b, ArraySpec)):
        raise MetaError("matmul: both operands must be arrays (scalars are not allowed)")
    if a.ndim == 0 or b.ndim == 0:
        raise MetaError("matmul: Input operand does not have enough dimensions")
    sa = (1,) + a.shape if a.ndim == 1 else a.shape
    sb = b.shape + (1,) if b.ndim == 1 else b.shape
    if sa[-1] != sb[-2]:
        raise MetaError(f"matmul: mismatch in core dimension: {a.shape} @ {b.shape} ({sa[-1]} != {sb[-2]})")
    batch = broadcast(sa[:-2], sb[:-2])
    shape = batch + ((sa[-2],) if a.ndim > 1 else ()) + ((sb[-1],) if b.ndim > 1 else ())
    dtype = np.matmul.resolve_dtypes((a.dtype, b.dtype, None))[2]
    return ArraySpec(shape, dtype, scalar=shape == ())
