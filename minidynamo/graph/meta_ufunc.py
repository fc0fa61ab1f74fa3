"""Meta rules of ufunc methods: uf.outer, uf.reduce, uf.accumulate, uf.reduceat, uf.at.

Imports numpy, graph.meta, graph.meta_index and graph.meta_stats only. Each rule is built for one ufunc.
Shapes are written out; dtypes and NumPy's errors (a non-reorderable reduction over several axes, an empty
reduction without identity, a cast the ufunc refuses) come from the real method run on unit probes (every
dimension cut to 1, or 0 where it is 0), which hit exactly the same checks as the real operands.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .ir import ArraySpec
from .meta import (NOVALUE, PYTHON_SCALARS, DataDependentShape, MetaError, MetaUnsupported, as_spec, broadcast,
                   is_spec, normalize_axes, normalize_axis, probe, reject_keywords, run_probe, spec_like)
from .meta_index import has_bool_mask, index_shape
from .meta_stats import unit_probe

METHODS = ("outer", "reduce", "accumulate", "reduceat", "at")


def _operand(name: str, value: Any) -> Any:
    if not (is_spec(value) or isinstance(value, PYTHON_SCALARS)):
        raise MetaUnsupported(f"{name}: unsupported operand {value!r}")
    if type(value) is int and not -2**63 <= value < 2**64:   # NumPy falls back to object arrays
        raise MetaUnsupported(f"{name}: unsupported operand: a Python int beyond 64 bits")
    return value


def _no_out(name: str, out: Any) -> None:
    if out is not None and not (isinstance(out, tuple) and all(o is None for o in out)):
        raise MetaUnsupported(f"{name}: unsupported keyword 'out'")


def outer_meta(uf: np.ufunc) -> Callable[..., ArraySpec]:
    name = f"{uf.__name__}.outer"

    def rule(a: Any, b: Any, **kwargs: Any) -> ArraySpec:
        reject_keywords(name, kwargs, ("dtype", "casting", "out"))
        _no_out(name, kwargs.pop("out", None))
        a, b = _operand(name, a), _operand(name, b)
        res = run_probe(name, uf.outer, unit_probe(a), unit_probe(b), **kwargs)
        shape = as_spec(a).shape + as_spec(b).shape
        return spec_like(shape, np.asarray(res).dtype, isinstance(res, np.generic))

    rule.__name__ = f"{uf.__name__}_outer_meta"
    return rule


def reduce_meta(uf: np.ufunc) -> Callable[..., ArraySpec]:
    name = f"{uf.__name__}.reduce"

    def rule(array: Any, axis: Any = 0, dtype: Any = None, out: Any = None, keepdims: bool = False,
             initial: Any = NOVALUE, where: Any = True) -> ArraySpec:
        _no_out(name, out)
        if where is not True:
            raise MetaUnsupported(f"{name}: unsupported keyword 'where'")
        x = as_spec(_operand(name, array))
        kw = {} if initial is NOVALUE else {"initial": initial}
        res = run_probe(name, uf.reduce, unit_probe(x) if is_spec(array) else array, axis, dtype, None,
                        keepdims, **kw)
        if x.ndim == 0:
            shape: tuple[int, ...] = ()
        else:
            axes = normalize_axes(axis, x.ndim)
            shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape) if keepdims or i not in axes)
        return spec_like(shape, np.asarray(res).dtype, isinstance(res, np.generic))

    rule.__name__ = f"{uf.__name__}_reduce_meta"
    return rule


def accumulate_meta(uf: np.ufunc) -> Callable[..., ArraySpec]:
    name = f"{uf.__name__}.accumulate"

    def rule(array: Any, axis: Any = 0, dtype: Any = None, out: Any = None) -> ArraySpec:
        _no_out(name, out)
        x = as_spec(_operand(name, array))
        res = run_probe(name, uf.accumulate, unit_probe(x) if is_spec(array) else array, axis, dtype)
        return ArraySpec(x.shape, np.asarray(res).dtype)

    rule.__name__ = f"{uf.__name__}_accumulate_meta"
    return rule


def reduceat_meta(uf: np.ufunc) -> Callable[..., ArraySpec]:
    """The axis becomes len(indices) long; literal indices are bounds-checked here, array ones when the
    graph runs."""
    name = f"{uf.__name__}.reduceat"

    def rule(array: Any, indices: Any, axis: Any = 0, dtype: Any = None, out: Any = None) -> ArraySpec:
        _no_out(name, out)
        x = as_spec(_operand(name, array))
        idx = as_spec(indices)
        if idx.ndim != 1:
            raise MetaError(f"{name}: index array must be 1-d")
        if idx.dtype.kind not in "iu" and idx.size:
            raise MetaError(f"{name}: Cannot cast array data from {idx.dtype} to int64")
        if x.ndim == 0:
            raise MetaError(f"{name}: reduceat does not allow 0-d arrays")
        ax = normalize_axis(axis, x.ndim)
        if not is_spec(indices):
            values = np.asarray(indices, dtype=np.intp).ravel()
            if values.size and (values.min() < 0 or values.max() >= x.shape[ax]):
                raise MetaError(f"{name}: index out-of-bounds (0 <= index < {x.shape[ax]})")
        elif idx.size and x.shape[ax] == 0:
            raise MetaError(f"{name}: index out-of-bounds (0 <= index < 0)")
        p = np.ones(tuple(min(d, 1) if i != ax else 1 for i, d in enumerate(x.shape)), x.dtype)
        res = run_probe(name, uf.reduceat, p, np.zeros(1, np.intp), ax, dtype)
        shape = x.shape[:ax] + (idx.shape[0],) + x.shape[ax + 1:]
        return ArraySpec(shape, np.asarray(res).dtype)

    rule.__name__ = f"{uf.__name__}_reduceat_meta"
    return rule


def at_meta(uf: np.ufunc) -> Callable[..., None]:
    """uf.at(a, indices, b): writes into a in place (unbuffered); b must broadcast to a[indices]."""
    name = f"{uf.__name__}.at"

    def rule(a: Any, indices: Any, b: Any = NOVALUE) -> None:
        if not is_spec(a) or a.scalar:
            raise MetaError(f"{name}: first operand must be an array")
        if (b is NOVALUE) != (uf.nin == 1):
            raise MetaError(f"{name}: second operand needed for ufunc" if uf.nin == 2
                            else f"{name}: second operand provided when ufunc is unary")
        if has_bool_mask(indices):
            raise DataDependentShape(f"{name}: a boolean mask index (data-dependent count)")
        target, _ = index_shape(a, indices)
        if b is not NOVALUE:
            _operand(name, b)
            vshape = as_spec(b).shape
            if broadcast(vshape, target) != tuple(target):
                raise MetaError(f"{name}: shape mismatch: value array of shape {vshape} could not be broadcast "
                                f"to indexing result of shape {tuple(target)}")
        # An empty selection computes nothing, so value errors (int ** -1) cannot happen then.
        where = 0 if int(np.prod(target)) else np.zeros(0, np.intp)
        if b is not NOVALUE:
            run_probe(name, uf.at, np.ones(1, a.dtype), where, probe(b, ()) if is_spec(b) else b)
        else:
            run_probe(name, uf.at, np.ones(1, a.dtype), where)
        return None

    rule.__name__ = f"{uf.__name__}_at_meta"
    return rule


RULES = {"outer": outer_meta, "reduce": reduce_meta, "accumulate": accumulate_meta, "reduceat": reduceat_meta,
         "at": at_meta}


def supports(uf: np.ufunc, method: str) -> bool:
    """NumPy offers outer/reduce/accumulate/reduceat on binary one-output ufuncs, at on all but gufuncs."""
    if uf.signature is not None:
        return False
    if method == "at":
        return uf.nout == 1
    return uf.nin == 2 and uf.nout == 1


