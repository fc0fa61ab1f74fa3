"""Meta rules for any np.ufunc, the ones NumPy's namespace does not hold (scipy.special's expit and gammaln,
numba's @vectorize ufuncs, np._core.umath's clip): NumPy's own dtype resolution, `ufunc.resolve_dtypes`,
and broadcasting, so no loop of the ufunc runs at capture. Imports graph.meta and graph.meta_ufunc only.

`call_meta(uf)` is the rule of `uf(*operands)`; `outer_meta(uf)` of `uf.outer(a, b)`. Keywords (out=,
where=, dtype=, ...) are not modelled: such a call breaks. `is_generic(uf)`: whether a ufunc can be such an
op at all: no core dimensions and some loop without object dtypes (np.frompyfunc's ufuncs run Python code
on objects: they stay plain calls). ops.py makes one op per ufunc object on first lookup.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .ir import ArraySpec
from .meta import MetaError, MetaUnsupported, broadcast, is_spec, spec_like


def is_generic(uf: Any) -> bool:
    """An np.ufunc with outputs, without core dimensions, whose loops are not all on Python objects (a
    ufunc without outputs writes into an operand: NumPy's test ufunc `inplace_add`, nout 0)."""
    return isinstance(uf, np.ufunc) and uf.nout >= 1 and uf.signature is None and not (
        uf.types and all("O" in t for t in uf.types))


def _dtype(name: str, value: Any) -> Any:
    """What resolve_dtypes takes for an operand: an array's dtype; a Python int, float or complex as its
    type (a weak scalar, NEP 50); a bool or a NumPy scalar constant as its dtype."""
    if is_spec(value):
        return value.dtype
    if type(value) in (int, float, complex):
        if type(value) is int and not -2**63 <= value < 2**64:      # NumPy falls back to object arrays
            raise MetaUnsupported(f"{name}: unsupported operand: a Python int beyond 64 bits")
        return type(value)
    if type(value) is bool or isinstance(value, np.generic):
        return np.asarray(value).dtype
    raise MetaUnsupported(f"{name}: unsupported operand of type {type(value).__name__}")


def _resolved(uf: np.ufunc, name: str, operands: tuple) -> tuple[np.dtype, ...]:
    """The output dtypes NumPy's dispatch picks for these operands (its TypeError: the program's error)."""
    dtypes = tuple(_dtype(name, v) for v in operands)
    try:
        resolved = uf.resolve_dtypes(dtypes + (None,) * uf.nout)
    except (TypeError, ValueError) as e:     # no loop for these dtypes, a cast refused: eager raises it
        raise MetaError(f"{name}: {e}") from None
    if any(d.hasobject for d in resolved):
        raise MetaUnsupported(f"{name}: a loop over Python objects")
    return resolved[uf.nin:]


def _no_keywords(name: str, kwargs: dict) -> None:
    if kwargs:
        raise MetaUnsupported(f"{name}: unsupported keyword {sorted(kwargs)[0]!r}")


def call_meta(uf: np.ufunc, name: str) -> Callable[..., Any]:
    """`uf(*operands)`: the operands broadcast; a NumPy scalar result where that shape is ()."""
    def rule(*args: Any, **kwargs: Any) -> Any:
        _no_keywords(name, kwargs)
        if len(args) != uf.nin:      # (outputs given positionally: not modelled)
            raise MetaUnsupported(f"{name}: {len(args)} positional arguments for {uf.nin} operands")
        outs = _resolved(uf, name, args)
        shape = broadcast(*(v.shape for v in args if is_spec(v)))
        specs = tuple(spec_like(shape, d, True) for d in outs)
        return specs if uf.nout > 1 else specs[0]
    rule.__name__ = f"{name}_meta"
    return rule


def outer_meta(uf: np.ufunc, name: str) -> Callable[..., ArraySpec]:
    """`uf.outer(a, b)`: shape a.shape + b.shape, the dtype of the call (a NumPy scalar for two 0-d operands)."""
    def rule(a: Any, b: Any, **kwargs: Any) -> ArraySpec:
        _no_keywords(name, kwargs)
        (dtype,) = _resolved(uf, name, (a, b))
        shape = tuple(a.shape if is_spec(a) else ()) + tuple(b.shape if is_spec(b) else ())
        return spec_like(shape, dtype, True)
    rule.__name__ = f"{name}_meta"
    return rule
