"""Meta rules of reductions (sum, mean, max, argmax, std, any, ...), cumulative ops, clip, round, nan_to_num.

Imports numpy and graph.meta only. Each rule takes the NumPy function's own signature (which the ndarray
method shares, self first). The reduced shape is computed here; the dtype comes from running the real
function on a one-element probe with the same dtype= argument. A 0-d result is a NumPy scalar, as NumPy
returns it (even with keepdims=True on a 0-d input).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .ir import ArraySpec
from .meta import (NOVALUE, MetaError, MetaUnsupported, as_spec, broadcast, is_spec, normalize_axes, normalize_axis,
                   probe, result_dtype, run_probe, spec_like)


def _reduce_shape(x: ArraySpec, axis: Any, keepdims: Any,
                  ufunc_reduce: bool = True) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if ufunc_reduce and x.ndim == 0 and not isinstance(axis, (tuple, list)) and axis in (0, -1):
        # ufunc.reduce (and argmax) accept the integer axis 0 or -1 on a 0-d array: nothing is reduced.
        return (), ()
    axes = normalize_axes(axis, x.ndim)
    if keepdims:
        shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    else:
        shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    return shape, axes


def _check_unsupported(name: str, out: Any, where: Any) -> None:
    if out is not None:
        raise MetaUnsupported(f"{name}: unsupported keyword 'out'")
    if where is not True:
        raise MetaUnsupported(f"{name}: unsupported keyword 'where'")


def _reduction(fn: Callable, *, has_dtype: bool, identity: bool, has_initial: bool,
               ddof: bool = False) -> Callable[..., ArraySpec]:
    """Build the meta rule of np.<fn> with its exact signature family (see _SIGNATURES below)."""
    name = fn.__name__

    def compute(a: Any, axis: Any, dtype: Any, keepdims: Any, initial: Any, extra: dict) -> ArraySpec:
        x = as_spec(a)
        shape, axes = _reduce_shape(x, axis, keepdims, ufunc_reduce=name not in ("mean", "std", "var"))
        if not identity and initial is NOVALUE and any(x.shape[i] == 0 for i in axes):
            raise MetaError(f"zero-size array to reduction operation {name} which has no identity")
        kw = dict(extra, keepdims=bool(keepdims))
        if axis is not None:
            kw["axis"] = axis
        if has_dtype:
            kw["dtype"] = dtype
        if initial is not NOVALUE:
            kw["initial"] = initial
        # The probe keeps ndim (all dims 1), so 0-d results take the scalar path, as the real call does.
        return spec_like(shape, result_dtype(name, fn, probe(x, (1,) * x.ndim), **kw), True)

    if has_dtype and ddof:
        def rule(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=NOVALUE,
                 correction=NOVALUE):
            _check_unsupported(name, out, where)
            if mean is not NOVALUE:
                raise MetaUnsupported(f"{name}: unsupported keyword 'mean'")
            extra = {"ddof": ddof} if correction is NOVALUE else {"ddof": ddof, "correction": correction}
            return compute(a, axis, dtype, keepdims, NOVALUE, extra)
    elif has_dtype and has_initial:
        def rule(a, axis=None, dtype=None, out=None, keepdims=False, initial=NOVALUE, where=True):
            _check_unsupported(name, out, where)
            return compute(a, axis, dtype, keepdims, initial, {})
    elif has_dtype:
        def rule(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
            _check_unsupported(name, out, where)
            return compute(a, axis, dtype, keepdims, NOVALUE, {})
    elif has_initial:
        def rule(a, axis=None, out=None, keepdims=False, initial=NOVALUE, where=True):
            _check_unsupported(name, out, where)
            return compute(a, axis, None, keepdims, initial, {})
    else:
        def rule(a, axis=None, out=None, keepdims=False, *, where=True):
            _check_unsupported(name, out, where)
            return compute(a, axis, None, keepdims, NOVALUE, {})
    rule.__name__ = f"{name}_meta"
    return rule


sum_meta = _reduction(np.sum, has_dtype=True, identity=True, has_initial=True)
prod_meta = _reduction(np.prod, has_dtype=True, identity=True, has_initial=True)
max_meta = _reduction(np.max, has_dtype=False, identity=False, has_initial=True)
min_meta = _reduction(np.min, has_dtype=False, identity=False, has_initial=True)
mean_meta = _reduction(np.mean, has_dtype=True, identity=True, has_initial=False)
std_meta = _reduction(np.std, has_dtype=True, identity=True, has_initial=False, ddof=True)
var_meta = _reduction(np.var, has_dtype=True, identity=True, has_initial=False, ddof=True)
any_meta = _reduction(np.any, has_dtype=False, identity=True, has_initial=False)
all_meta = _reduction(np.all, has_dtype=False, identity=True, has_initial=False)


def _arg_reduction(fn: Callable) -> Callable[..., ArraySpec]:
    name = fn.__name__

    def rule(a: Any, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> ArraySpec:
        if out is not None:
            raise MetaUnsupported(f"{name}: unsupported keyword 'out'")
        x = as_spec(a)
        shape, axes = _reduce_shape(x, axis, keepdims)
        if axis is not None and x.ndim:
            axis = normalize_axis(axis, x.ndim)
        if x.size == 0 and (axis is None or x.shape[axis] == 0):
            raise MetaError(f"attempt to get {name} of an empty sequence")
        return spec_like(shape, np.dtype(np.intp), True)

    rule.__name__ = f"{name}_meta"
    return rule


argmax_meta = _arg_reduction(np.argmax)
argmin_meta = _arg_reduction(np.argmin)


def _cumulative(fn: Callable) -> Callable[..., ArraySpec]:
    name = fn.__name__

    def rule(a: Any, axis: Any = None, dtype: Any = None, out: Any = None) -> ArraySpec:
        if out is not None:
            raise MetaUnsupported(f"{name}: unsupported keyword 'out'")
        x = as_spec(a)
        dt = result_dtype(name, fn, probe(x, (1,)), dtype=dtype)
        if axis is None or x.ndim == 0:
            if axis is not None:       # a 0-d input is raveled first, so only axes 0 and -1 exist
                normalize_axis(axis, 1)
            return ArraySpec((x.size,), dt)
        normalize_axis(axis, x.ndim)
        return ArraySpec(x.shape, dt)

    rule.__name__ = f"{name}_meta"
    return rule


cumsum_meta = _cumulative(np.cumsum)
cumprod_meta = _cumulative(np.cumprod)


def clip_meta(a: Any, a_min: Any = NOVALUE, a_max: Any = NOVALUE, out: Any = None, *, min: Any = NOVALUE,
              max: Any = NOVALUE, **kwargs: Any) -> ArraySpec:
    """np.clip(a, a_min, a_max) and a.clip(min, max): NumPy's clip ufunc, Python bounds weak (NEP 50)."""
    if out is not None or kwargs:
        raise MetaUnsupported("clip: unsupported keyword " + repr("out" if out is not None else sorted(kwargs)[0]))
    if a_min is not NOVALUE and min is not NOVALUE or a_max is not NOVALUE and max is not NOVALUE:
        raise MetaError("clip: Passed either both `a_min` and `min` or both `a_max` and `max`")
    lo = a_min if a_min is not NOVALUE else min
    hi = a_max if a_max is not NOVALUE else max
    x = as_spec(a) if not is_spec(a) else a
    # The call as written, on probes: NumPy versions differ on which bounds may be left out (2.4 requires
    # a_max once a_min is given positionally).
    run_probe("clip", np.clip, probe(x), *(probe(v) for v in (a_min, a_max) if v is not NOVALUE),
              **{k: probe(v) for k, v in (("min", min), ("max", max)) if v is not NOVALUE})
    shape = broadcast(*(v.shape for v in (x, lo, hi) if is_spec(v)))
    bounds = [probe(v) for v in (lo, hi)]
    dt = result_dtype("clip", np.clip, probe(x), *(None if b is NOVALUE else b for b in bounds))
    return spec_like(shape, dt, True)


def round_meta(a: Any, decimals: Any = 0, out: Any = None) -> ArraySpec:
    if out is not None:
        raise MetaUnsupported("round: unsupported keyword 'out'")
    x = as_spec(a)
    return spec_like(x.shape, result_dtype("round", np.round, probe(x, (1,)), decimals), True)


def nan_to_num_meta(x: Any, copy: Any = True, nan: Any = 0.0, posinf: Any = None, neginf: Any = None) -> ArraySpec:
    """np.nan_to_num: x's shape and dtype; a 0-d result is a NumPy scalar (NumPy returns x[()])."""
    if copy is not True:
        raise MetaUnsupported("nan_to_num: unsupported: copy=False (writes into x)")
    if any(is_spec(v) for v in (nan, posinf, neginf)):
        raise MetaUnsupported("nan_to_num: unsupported: nan, posinf or neginf as an array")
    spec = as_spec(x)
    if spec.dtype == object:
        raise MetaUnsupported("nan_to_num: unsupported: object arrays")
    dt = result_dtype("nan_to_num", np.nan_to_num, probe(spec, (1,)), nan=nan, posinf=posinf, neginf=neginf)
    return spec_like(spec.shape, dt, True)
