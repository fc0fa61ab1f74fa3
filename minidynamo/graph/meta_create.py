"""Meta rules of array creation and conversion: zeros ones empty full eye identity arange linspace, the
*_like family, astype, where (3 arguments), copy, ascontiguousarray.

Imports numpy and graph.meta only. Creation ops take no array arguments; their shape comes from Python
values, written out here (arange's length is NumPy's own formula, ceil((stop - start) / step) computed on
the Python numbers). Fill values are checked by a one-element probe, so `np.full(3, 300, np.uint8)` raises
MetaError as NumPy 2 raises OverflowError.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from .ir import ArraySpec
from .meta import (NOVALUE, DataDependentShape, MetaError, MetaUnsupported, as_spec, broadcast, is_spec, probe,
                   reject_keywords, result_dtype)
from .meta_shape import int_tuple
from .symbolic import Sym

_REAL = (bool, int, float)


def _dtype(dtype: Any, default: Any = np.float64, source: np.dtype | None = None) -> np.dtype:
    """np.dtype(dtype); an unsized flexible dtype ('S', 'U', 'V') takes the size NumPy gives it: from the
    source dtype when converting an array (float64 -> 'S' is S32), else its creation size (S1)."""
    try:
        dt = np.dtype(default if dtype is None else dtype)
    except TypeError as e:
        raise MetaError(f"data type {dtype!r} not understood: {e}") from None
    if dt.itemsize == 0 and dt.kind in "SUV":
        empty = np.empty(0, dt) if source is None else np.empty(0, source)
        try:
            return empty.astype(dt).dtype
        except (TypeError, ValueError) as e:
            raise MetaError(f"cannot convert {source} to {dtype!r}: {e}") from None
    return dt


def _shape(shape: Any) -> tuple[int, ...]:
    dims = int_tuple(shape, "shape")
    if any(d < 0 for d in dims):
        raise MetaError("negative dimensions are not allowed")
    return dims


def _filled(name: str, shape: Any, dtype: Any, **kwargs: Any) -> ArraySpec:
    reject_keywords(name, kwargs, ("order", "device", "like"))
    return ArraySpec(_shape(shape), _dtype(dtype))


def zeros_meta(shape: Any, dtype: Any = float, **kwargs: Any) -> ArraySpec:
    return _filled("zeros", shape, dtype, **kwargs)


def ones_meta(shape: Any, dtype: Any = None, **kwargs: Any) -> ArraySpec:
    return _filled("ones", shape, dtype, **kwargs)


def empty_meta(shape: Any, dtype: Any = float, **kwargs: Any) -> ArraySpec:
    return _filled("empty", shape, dtype, **kwargs)


def _check_fill(name: str, shape: tuple[int, ...], fill: Any, dtype: np.dtype) -> None:
    """The fill value must broadcast into the shape and convert to the dtype (value checks included)."""
    trimmed = fill.shape if is_spec(fill) else ()
    while len(trimmed) > len(shape) and trimmed[0] == 1:     # copyto drops leading 1s, like setitem
        trimmed = trimmed[1:]
    if len(trimmed) > len(shape) or broadcast(trimmed, shape) != shape:
        raise MetaError(f"{name}: could not broadcast input array from shape {fill.shape} into shape {shape}")
    result_dtype(name, np.full, (1,), probe(fill, ()), dtype)


def full_meta(shape: Any, fill_value: Any, dtype: Any = None, **kwargs: Any) -> ArraySpec:
    reject_keywords("full", kwargs, ("order", "device", "like"))
    dims = _shape(shape)
    dt = as_spec(fill_value, "fill_value").dtype if dtype is None else _dtype(dtype)
    _check_fill("full", dims, fill_value, dt)
    return ArraySpec(dims, dt)


def _like(name: str, a: Any, dtype: Any, shape: Any, kwargs: dict) -> ArraySpec:
    reject_keywords(name, kwargs, ("order", "subok", "device"))
    x = as_spec(a)
    dims = x.shape if shape is None else _shape(shape)
    return ArraySpec(dims, x.dtype if dtype is None else _dtype(dtype))


def zeros_like_meta(a: Any, dtype: Any = None, order: str = "K", subok: bool = True, shape: Any = None,
                    **kwargs: Any) -> ArraySpec:
    return _like("zeros_like", a, dtype, shape, kwargs)


def ones_like_meta(a: Any, dtype: Any = None, order: str = "K", subok: bool = True, shape: Any = None,
                   **kwargs: Any) -> ArraySpec:
    return _like("ones_like", a, dtype, shape, kwargs)


def empty_like_meta(prototype: Any, dtype: Any = None, order: str = "K", subok: bool = True,
                    shape: Any = None, **kwargs: Any) -> ArraySpec:
    return _like("empty_like", prototype, dtype, shape, kwargs)


def full_like_meta(a: Any, fill_value: Any, dtype: Any = None, order: str = "K", subok: bool = True,
                   shape: Any = None, **kwargs: Any) -> ArraySpec:
    spec = _like("full_like", a, dtype, shape, kwargs)
    _check_fill("full_like", spec.shape, fill_value, spec.dtype)
    return spec


def eye_meta(N: Any, M: Any = None, k: Any = 0, dtype: Any = float, **kwargs: Any) -> ArraySpec:
    reject_keywords("eye", kwargs, ("order", "device", "like"))
    rows = _shape(N)[0]
    cols = rows if M is None else _shape(M)[0]
    int_tuple(k, "eye: k")
    return ArraySpec((rows, cols), _dtype(dtype))


def tri_meta(N: Any, M: Any = None, k: Any = 0, dtype: Any = float, **kwargs: Any) -> ArraySpec:
    """np.tri: ones at and below the k-th diagonal, (N, M) as np.eye, but built from two aranges, so a
    negative N or M gives an empty axis instead of an error."""
    reject_keywords("tri", kwargs, ("like",))
    rows = int_tuple(N, "tri: N")[0]
    cols = rows if M is None else int_tuple(M, "tri: M")[0]
    int_tuple(k, "tri: k")
    # A negative N or M is an empty axis; for a symbolic one (an int input) `d < 0` is decided and guarded.
    return ArraySpec(tuple(0 if d < 0 else d for d in (rows, cols)), _dtype(dtype))


def identity_meta(n: Any, dtype: Any = None, **kwargs: Any) -> ArraySpec:
    reject_keywords("identity", kwargs, ("like",))
    return eye_meta(n, dtype=dtype)


def arange_meta(*args: Any, dtype: Any = None, **kwargs: Any) -> ArraySpec:
    """np.arange([start,] stop[, step]); the default dtype is intp promoted with each given number."""
    reject_keywords("arange", kwargs, ("start", "stop", "step", "device", "like"))
    given = [kwargs.get(k) for k in ("start", "stop", "step") if kwargs.get(k) is not None]
    values = list(args) + given
    if not 1 <= len(values) <= 3:
        raise MetaError("arange: expects 1 to 3 numbers (start, stop, step)")
    if any(isinstance(v, Sym) for v in values):
        return _arange_symbolic(values, dtype)
    if not all(isinstance(v, _REAL) for v in values):
        raise MetaUnsupported("arange: start, stop and step must be concrete real Python numbers")
    start, stop, step = (0, values[0], 1) if len(values) == 1 else (list(values) + [1])[:3]
    if step == 0:
        raise MetaError("arange: division by zero (step is 0)")
    dt = np.result_type(np.intp, *(np.asarray(v).dtype for v in values)) if dtype is None else _dtype(dtype)
    try:
        length = math.ceil((stop - start) / step)
    except OverflowError:
        raise MetaError("arange: Maximum allowed size exceeded") from None
    if dt == np.bool_ and length > 2:
        raise MetaError("arange() is only supported for booleans when the result has at most length 2.")
    return ArraySpec((max(length, 0),), dt)


def _arange_symbolic(values: list, dtype: Any) -> ArraySpec:
    """np.arange over ints, some symbolic: NumPy's length ceil((stop - start) / step), in integers."""
    if not all(isinstance(v, (Sym, int)) and not isinstance(v, bool) for v in values):
        raise MetaUnsupported("arange: symbolic bounds need integer start, stop and step")
    start, stop, step = (0, values[0], 1) if len(values) == 1 else (list(values) + [1])[:3]
    step = operator.index(step)          # a symbolic step is specialized (guarded)
    if step == 0:
        raise MetaError("arange: division by zero (step is 0)")
    dt = np.dtype(np.intp) if dtype is None else _dtype(dtype)
    length = (stop - start + step - 1) // step if step > 0 else (start - stop - step - 1) // -step
    if dt == np.bool_:
        length = operator.index(length)
        if length > 2:
            raise MetaError("arange() is only supported for booleans when the result has at most length 2.")
    return ArraySpec((length if length > 0 else 0,), dt)


def linspace_meta(start: Any, stop: Any, num: Any = 50, endpoint: bool = True, retstep: bool = False,
                  dtype: Any = None, axis: Any = 0, **kwargs: Any) -> ArraySpec:
    reject_keywords("linspace", kwargs, ("device",))
    if retstep:
        raise MetaUnsupported("linspace: unsupported keyword 'retstep' (its step is a Python float)")
    if not all(isinstance(v, (bool, int, float, complex)) for v in (start, stop)):
        raise MetaUnsupported("linspace: only Python-number start and stop are supported")
    try:
        count = operator.index(num)
    except TypeError:
        raise MetaError(f"linspace: num must be an integer, got {num!r}") from None
    if count < 0:
        raise MetaError(f"linspace: Number of samples, {count}, must be non-negative.")
    dt = np.result_type(start, stop, float(count)) if dtype is None else _dtype(dtype)
    result_dtype("linspace", np.linspace, start, stop, min(count, 2), endpoint, dtype=dt)
    return ArraySpec((count,), dt)


# ---- conversion and selection ---------------------------------------------------------------------------

def astype_meta(a: Any, dtype: Any, order: str = "K", casting: str = "unsafe", subok: bool = True,
                copy: bool = True) -> ArraySpec:
    x = as_spec(a)
    dt = _dtype(dtype, source=x.dtype)
    if not np.can_cast(x.dtype, dt, casting):
        raise MetaError(f"astype: Cannot cast array data from {x.dtype} to {dt} according to the rule "
                        f"{casting!r}")
    return ArraySpec(x.shape, dt, scalar=x.scalar)


def where_meta(condition: Any, x: Any = NOVALUE, y: Any = NOVALUE, mask_count: Any = None) -> Any:
    """Three-argument np.where; the one-argument form is np.nonzero (nonzero_meta)."""
    if x is NOVALUE and y is NOVALUE:
        return nonzero_meta(condition, mask_count, name="where")
    if x is NOVALUE or y is NOVALUE:
        raise MetaError("where: either both or neither of x and y should be given")
    shape = broadcast(*(v.shape for v in (condition, x, y) if is_spec(v)))
    return ArraySpec(shape, result_dtype("where", np.where, probe(condition), probe(x), probe(y)))


def nonzero_meta(a: Any, mask_count: Any = None, name: str = "nonzero") -> tuple[ArraySpec, ...]:
    """np.nonzero(a) (a.nonzero(), one-argument np.where): one intp index array per axis, each as long as a's
    count of nonzero items, known only when the graph runs: `mask_count`, the count symbol capture hands the
    rule for a graph array (capture/mask_counts.py; the same symbol as `x[a]`'s length for a boolean a).
    Without one (an engine that needs static shapes, a front end without counts) the shape is data."""
    x = as_spec(a)
    if mask_count is None or x.ndim == 0:      # (NumPy refuses nonzero on 0-d arrays)
        detail = " (one-argument np.where is np.nonzero)" if name == "where" else ""
        raise DataDependentShape(f"{name}: data-dependent shape{detail}")
    return tuple(ArraySpec((mask_count,), np.dtype(np.intp)) for _ in range(x.ndim))


def copy_meta(a: Any, order: str = "K", subok: bool = False) -> ArraySpec:
    """np.copy: always an ndarray (a 0-d one for a NumPy scalar)."""
    x = as_spec(a)
    return ArraySpec(x.shape, x.dtype)


def copy_method_meta(a: Any, order: str = "C") -> ArraySpec:
    """a.copy(): a NumPy scalar's copy is a NumPy scalar."""
    x = as_spec(a)
    return ArraySpec(x.shape, x.dtype, scalar=x.scalar)


def ascontiguousarray_meta(a: Any, dtype: Any = None, **kwargs: Any) -> ArraySpec:
    reject_keywords("ascontiguousarray", kwargs, ("like",))
    x = as_spec(a)
    if not is_spec(a):              # a Python number is converted to the dtype (values checked)
        result_dtype("ascontiguousarray", np.ascontiguousarray, a, dtype)
    return ArraySpec(x.shape or (1,), x.dtype if dtype is None else _dtype(dtype, source=x.dtype))


def _literal(value: Any) -> bool:
    """A Python number or a (nested) list/tuple of them: no arrays inside."""
    if isinstance(value, (list, tuple)):
        return all(_literal(v) for v in value)
    return type(value) in (bool, int, float, complex)


def array_meta(obj: Any, dtype: Any = None, *, copy: Any = True) -> ArraySpec:
    """np.array / np.asarray of an array (same shape; a copy or the array itself) or of a Python literal
    (probed on the literal itself, which is already in memory). Always an ndarray, never a NumPy scalar.
    copy=True is np.array's default, spelled out (ILearnDeepLearning's layers keep `np.array(x, copy=True)`);
    copy=False/None may return the input itself, which is not modelled."""
    if copy is not True:
        raise MetaUnsupported("array(): unsupported: copy= other than True (the result may be the input itself)")
    if is_spec(obj):
        spec = as_spec(obj)
        return ArraySpec(spec.shape, spec.dtype if dtype is None else _dtype(dtype, source=spec.dtype))
    if not _literal(obj):
        raise MetaUnsupported("array(): only arrays and Python number literals are captured")
    try:
        result = np.asarray(obj, dtype=None if dtype is None else _dtype(dtype))
    except (TypeError, ValueError, OverflowError) as e:
        raise MetaError(f"array(): {e}") from None
    if result.dtype.hasobject:
        raise MetaUnsupported("array(): object arrays are not captured")
    return ArraySpec(result.shape, result.dtype)
