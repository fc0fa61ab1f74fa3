"""Meta rules of NumPy's sequence helpers: diff, convolve, correlate, interp, searchsorted, indices,
meshgrid, real, imag, angle.

Imports numpy, graph.meta and graph.meta_stats (its unit probe) only. Shapes are written out; dtypes and
NumPy's argument errors come from the real function run on unit probes (at most one element each).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .ir import ArraySpec
from .meta import MetaError, MetaUnsupported, as_spec, is_spec, normalize_axis, reject_keywords, run_probe, spec_like
from .meta_stats import unit_probe


def _index(value: Any, what: str) -> int:
    if isinstance(value, bool) or is_spec(value):
        raise MetaError(f"{what} must be an integer, got {value!r}")
    try:
        return operator.index(value)
    except TypeError:
        raise MetaError(f"{what} must be an integer, got {value!r}") from None


def _edge_length(value: Any, x: ArraySpec, ax: int) -> int:
    """How many items prepend=/append= add along the axis (a scalar is broadcast to one slice)."""
    spec = as_spec(value)
    if spec.ndim == 0:
        return 1
    if spec.ndim != x.ndim:
        raise MetaError("diff: all the input array dimensions except for the concatenation axis must match")
    if any(d != spec.shape[i] for i, d in enumerate(x.shape) if i != ax):
        raise MetaError("diff: all the input array dimensions except for the concatenation axis must match")
    return spec.shape[ax]


_NOT_GIVEN = object()


def diff_meta(a: Any, n: Any = 1, axis: Any = -1, prepend: Any = _NOT_GIVEN,
              append: Any = _NOT_GIVEN) -> ArraySpec:
    """n-th difference along axis: the axis (after prepend/append) shrinks by n, down to 0."""
    n = _index(n, "diff: order")
    if n == 0:                      # NumPy returns `a` itself, before any other check
        if not is_spec(a):
            raise MetaUnsupported("diff: unsupported: n=0 returns the Python value itself")
        return a
    x = as_spec(a)
    if n < 0:
        raise MetaError(f"diff: order must be non-negative but got {n}")
    if x.ndim == 0:
        raise MetaError("diff requires input that is at least one dimensional")
    ax = normalize_axis(axis, x.ndim)
    length = x.shape[ax]
    extra = {}
    for key, value in (("prepend", prepend), ("append", append)):
        if value is not _NOT_GIVEN:
            length += _edge_length(value, x, ax)
            extra[key] = value if not is_spec(value) and np.ndim(value) == 0 else unit_probe(as_spec(value))
    probe_shape = tuple(2 if i == ax else min(d, 1) for i, d in enumerate(x.shape))
    res = run_probe("diff", np.diff, np.ones(probe_shape, x.dtype), 1, ax, **extra)
    shape = x.shape[:ax] + (max(length - n, 0),) + x.shape[ax + 1:]
    return ArraySpec(shape, res.dtype)


_MODES = {"v": 0, "s": 1, "f": 2}


def _mode(mode: Any) -> int:
    if isinstance(mode, str) and mode:
        key = mode.lower()[0]
        if key in _MODES:
            return _MODES[key]
    if isinstance(mode, int) and not isinstance(mode, bool) and mode in (0, 1, 2):
        return mode
    raise MetaError(f"convolve: mode must be one of 'valid', 'same', or 'full' (got {mode!r})")


def _sliding(name: str, fn: Any, a: Any, v: Any, mode: Any) -> ArraySpec:
    x, k = as_spec(a), as_spec(v)
    if name == "correlate" and (x.ndim == 0 or k.ndim == 0):     # convolve makes 0-d inputs 1-d first
        raise MetaError(f"{name}: object of too small depth for desired array")
    if x.ndim > 1 or k.ndim > 1:
        raise MetaError(f"{name}: object too deep for desired array")
    n, m = x.size, k.size
    if n == 0 or m == 0:
        raise MetaError(f"{name}: {'a' if n == 0 else 'v'} cannot be empty")
    res = run_probe(name, fn, np.ones(1, x.dtype), np.ones(1, k.dtype), mode)
    lengths = (max(n, m) - min(n, m) + 1, max(n, m), n + m - 1)
    return ArraySpec((lengths[_mode(mode)],), np.asarray(res).dtype)


def convolve_meta(a: Any, v: Any, mode: Any = "full") -> ArraySpec:
    return _sliding("convolve", np.convolve, a, v, mode)


def correlate_meta(a: Any, v: Any, mode: Any = "valid") -> ArraySpec:
    return _sliding("correlate", np.correlate, a, v, mode)


def interp_meta(x: Any, xp: Any, fp: Any, left: Any = None, right: Any = None, period: Any = None) -> ArraySpec:
    xs, xps, fps = as_spec(x), as_spec(xp), as_spec(fp)
    if xps.ndim != 1 or fps.ndim != 1:
        raise MetaError("interp: data points must be 1-D sequences")
    if xps.shape[0] != fps.shape[0]:
        raise MetaError("interp: fp and xp are not of the same length")
    if xps.shape[0] == 0:   # whether an empty xp raises depends on x and on the NumPy version: ask NumPy
        try:
            np.interp(np.zeros(xs.shape, xs.dtype), np.zeros(0, xps.dtype), np.zeros(0, fps.dtype))
        except ValueError as e:
            raise MetaError(f"interp: {e}") from None
    res = run_probe("interp", np.interp, x if not is_spec(x) else unit_probe(x), np.ones(1, xps.dtype),
                    np.ones(1, fps.dtype), unit_probe(left), unit_probe(right), period)
    return spec_like(xs.shape, np.asarray(res).dtype, isinstance(res, np.generic))


def searchsorted_meta(a: Any, v: Any, side: str = "left", sorter: Any = None) -> ArraySpec:
    """Insertion indices (intp) of v's shape; a must be 1-d."""
    x, vs = as_spec(a), as_spec(v)
    if x.ndim != 1:
        raise MetaError("searchsorted: object of too small depth for desired array" if x.ndim == 0
                        else "searchsorted: object too deep for desired array")
    if sorter is not None:
        ss = as_spec(sorter)
        if ss.ndim != 1 or ss.shape[0] != x.shape[0]:
            raise MetaError("searchsorted: sorter.size must equal a.size")
    res = run_probe("searchsorted", np.searchsorted, np.ones(1, x.dtype), unit_probe(vs) if is_spec(v) else v,
                    side, None if sorter is None else np.zeros(1, as_spec(sorter).dtype))
    return spec_like(vs.shape, np.asarray(res).dtype, isinstance(res, np.generic))


def indices_meta(dimensions: Any, dtype: Any = int, sparse: bool = False) -> Any:
    """A (len(dims), *dims) grid, or one broadcastable array per dimension when sparse."""
    dims = tuple(_index(d, "indices: dimension") for d in dimensions)
    res = run_probe("indices", np.indices, tuple(min(d, 1) for d in dims), dtype, sparse)
    if sparse:
        return tuple(ArraySpec(tuple(d if j == i else 1 for j in range(len(dims))), r.dtype)
                     for i, (d, r) in enumerate(zip(dims, res)))
    return ArraySpec((len(dims),) + dims, res.dtype)


def meshgrid_meta(*xi: Any, copy: bool = True, sparse: bool = False, indexing: str = "xy") -> tuple:
    """One array per input, each of shape (n0, n1, ...) ('ij') or with the first two swapped ('xy');
    sparse keeps 1 in every other dimension."""
    if indexing not in ("xy", "ij"):
        raise MetaError("meshgrid: Valid values for `indexing` are 'xy' and 'ij'.")
    specs = [as_spec(x) for x in xi]
    sizes = [s.size for s in specs]
    nd = len(specs)
    res = run_probe("meshgrid", np.meshgrid, *(np.ones(min(n, 1), s.dtype) for n, s in zip(sizes, specs)),
                    copy=copy, sparse=sparse, indexing=indexing)
    out = []
    for i, (n, r) in enumerate(zip(sizes, res)):
        shape = [n if j == i else (1 if sparse else sizes[j]) for j in range(nd)]
        if indexing == "xy" and nd > 1:
            shape[0], shape[1] = shape[1], shape[0]
        out.append(ArraySpec(tuple(shape), r.dtype))
    return tuple(out)


def _part_meta(name: str) -> Any:
    """np.real / np.imag and the .real / .imag attributes: same shape, the component dtype."""
    fn = getattr(np, name)

    def rule(val: Any) -> ArraySpec:
        if not is_spec(val):        # np.real(1.5) is the Python float's own .real: not an array
            raise MetaUnsupported(f"{name}: unsupported: a Python number's {name} part is a Python value")
        x = as_spec(val)
        res = run_probe(name, fn, unit_probe(x) if is_spec(val) else val)
        return ArraySpec(x.shape, np.asarray(res).dtype, scalar=isinstance(res, np.generic))

    rule.__name__ = f"{name}_meta"
    return rule


real_meta = _part_meta("real")
imag_meta = _part_meta("imag")


def angle_meta(z: Any, deg: bool = False, **kwargs: Any) -> ArraySpec:
    reject_keywords("angle", kwargs)
    x = as_spec(z)
    res = run_probe("angle", np.angle, unit_probe(x) if is_spec(z) else z, deg)
    return spec_like(x.shape, np.asarray(res).dtype, isinstance(res, np.generic))


def _sorting(fn: Any) -> Any:
    """np.sort / np.argsort: the same shape (flattened for axis=None); sort keeps the dtype, argsort is intp."""
    name = fn.__name__

    def rule(a: Any, axis: Any = -1, kind: Any = None, order: Any = None, **kwargs: Any) -> ArraySpec:
        reject_keywords(name, kwargs, ("stable",))
        if order is not None:
            raise MetaUnsupported(f"{name}: unsupported keyword 'order' (structured arrays)")
        x = as_spec(a)
        res = run_probe(name, fn, unit_probe(x) if is_spec(a) else a, axis, kind, **kwargs)
        shape = (x.size,) if axis is None or x.ndim == 0 else x.shape    # argsort of a 0-d array is 1-d
        return ArraySpec(shape, np.asarray(res).dtype)

    rule.__name__ = f"{name}_meta"
    return rule


sort_meta = _sorting(np.sort)
argsort_meta = _sorting(np.argsort)


def diag_meta(v: Any, k: Any = 0) -> ArraySpec:
    """np.diag: a 1-d v becomes a square (n+|k|) matrix; a 2-d v gives its k-th diagonal."""
    x = as_spec(v)
    k = _index(k, "diag: k")
    if x.ndim == 1:
        n = x.shape[0] + abs(k)
        return ArraySpec((n, n), x.dtype)
    if x.ndim != 2:
        raise MetaError("diag: Input must be 1- or 2-d.")
    rows, cols = x.shape
    length = min(rows, cols - k) if k >= 0 else min(rows + k, cols)
    return ArraySpec((max(length, 0),), x.dtype)
