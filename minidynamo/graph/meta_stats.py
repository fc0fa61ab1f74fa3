"""Meta rules of NumPy's statistics: cov, corrcoef, percentile, quantile, median, histogram (fixed bins).

Imports numpy and graph.meta only. Shapes are written out; dtypes (and NumPy's errors for a bad method,
axis or bins argument) come from running the real function on a *unit probe*: the operand's shape with
every dimension cut to 1 (or 0 where it is 0), so empty inputs take NumPy's own empty path and the probe
never holds more than one element.
"""

from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np

from .ir import ArraySpec
from .meta import (DataDependentShape, MetaError, MetaUnsupported, as_spec, is_spec, normalize_axes, reject_keywords,
                   run_probe, spec_like)


def unit_probe(value: Any) -> Any:
    """ArraySpec -> ones of its dtype, each dimension min(d, 1); other values pass through."""
    if not is_spec(value):
        return value
    if value.scalar:
        return np.ones((), value.dtype)[()]
    return np.ones(tuple(min(d, 1) for d in value.shape), value.dtype)


# ---- cov / corrcoef --------------------------------------------------------------------------------------

def _observations(name: str, m: Any, rowvar: bool, is_y: bool) -> ArraySpec:
    """m (or y) as NumPy's cov sees it: at least 2-d, one variable per row. With rowvar=False, m is
    transposed unless it is 1-d, y unless it has a single row."""
    x = as_spec(m)
    if x.ndim > 2:
        raise MetaError(f"{name}: m has more than 2 dimensions")
    shape = (1,) * (2 - x.ndim) + x.shape
    if not rowvar and (shape[0] != 1 if is_y else x.ndim != 1):
        shape = shape[::-1]
    return ArraySpec(shape, x.dtype)


def _cov_shape(name: str, m: Any, y: Any, rowvar: bool) -> tuple[int, ...] | None:
    """The result shape; None for NumPy's early return when m has no variables (a float64 (0, 0))."""
    x = _observations(name, m, rowvar, False)
    if y is not None and as_spec(y).ndim > 2:
        raise MetaError(f"{name}: y has more than 2 dimensions")
    if x.shape[0] == 0:
        return None
    rows = x.shape[0]
    if y is not None:
        other = _observations(name, y, rowvar, True)
        if other.shape[1] != x.shape[1]:
            raise MetaError(f"{name}: all the input array dimensions except for the concatenation axis must "
                            "match exactly")
        rows += other.shape[0]
    return (rows, rows) if rows != 1 else ()


def cov_meta(m: Any, y: Any = None, rowvar: bool = True, bias: bool = False, ddof: Any = None,
             fweights: Any = None, aweights: Any = None, *, dtype: Any = None) -> ArraySpec:
    """An (n, n) matrix for n variables, squeezed to a 0-d array for one variable."""
    if fweights is not None or aweights is not None:
        raise MetaUnsupported("cov: unsupported keyword 'fweights'/'aweights' (checked against the data)")
    shape = _cov_shape("cov", m, y, rowvar)
    if shape is None:
        return ArraySpec((0, 0), np.float64)
    res = run_probe("cov", np.cov, np.ones((1, 2), as_spec(m).dtype),
                    None if y is None else np.ones((1, 2), as_spec(y).dtype), True, bias, ddof, dtype=dtype)
    return ArraySpec(shape, np.asarray(res).dtype)


def corrcoef_meta(x: Any, y: Any = None, rowvar: bool = True, *, dtype: Any = None) -> ArraySpec:
    shape = _cov_shape("corrcoef", x, y, rowvar)
    if shape is None:
        return ArraySpec((0, 0), np.float64)
    res = run_probe("corrcoef", np.corrcoef, np.ones((1, 2), as_spec(x).dtype),
                    None if y is None else np.ones((1, 2), as_spec(y).dtype), dtype=dtype)
    # One variable: NumPy returns c / c of the 0-d covariance, a NumPy scalar.
    return spec_like(shape, np.asarray(res).dtype, True)


# ---- percentile / quantile / median ----------------------------------------------------------------------

def _reduced(x: ArraySpec, axis: Any, keepdims: bool) -> tuple[int, ...]:
    axes = normalize_axes(axis, x.ndim)
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    return tuple(d for i, d in enumerate(x.shape) if i not in axes)


def _q_shape(name: str, q: Any) -> tuple[tuple[int, ...], Any]:
    """q's shape and a probe for it: constants are checked as NumPy checks them (range, finiteness)."""
    if is_spec(q):
        return q.shape, np.full(tuple(min(d, 1) for d in q.shape), 0.5 if name == "quantile" else 50, q.dtype)
    arr = np.asarray(q)
    if arr.dtype.hasobject:
        raise MetaError(f"{name}: q must be numbers")
    return arr.shape, q


def quantile_family_meta(fn: Callable) -> Callable[..., ArraySpec]:
    """percentile(a, q, axis=None, out=None, overwrite_input=False, method='linear', keepdims=False, ...):
    q's shape followed by a reduced over axis."""
    name = fn.__name__

    def rule(a: Any, q: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
             method: str = "linear", keepdims: bool = False, **kwargs: Any) -> ArraySpec:
        reject_keywords(name, kwargs, ("weights", "interpolation"))
        if out is not None or kwargs.get("weights") is not None:
            raise MetaUnsupported(f"{name}: unsupported keyword 'out'/'weights'")
        x = as_spec(a)
        q_shape, q_probe = _q_shape(name, q)
        shape = q_shape + _reduced(x, axis, keepdims)
        res = run_probe(name, fn, unit_probe(x), q_probe, axis, None, False, method, keepdims, **kwargs)
        return spec_like(shape, np.asarray(res).dtype, isinstance(res, np.generic))

    rule.__name__ = f"{name}_meta"
    return rule


def median_meta(a: Any, axis: Any = None, out: Any = None, overwrite_input: bool = False,
                keepdims: bool = False) -> ArraySpec:
    if out is not None:
        raise MetaUnsupported("median: unsupported keyword 'out'")
    x = as_spec(a)
    shape = _reduced(x, axis, keepdims)
    res = run_probe("median", np.median, unit_probe(x), axis, None, False, keepdims)
    return spec_like(shape, np.asarray(res).dtype, isinstance(res, np.generic))


# ---- histogram -----------------------------------------------------------------------------------------

def histogram_meta(a: Any, bins: Any = 10, range: Any = None, density: Any = None,
                   weights: Any = None) -> tuple[ArraySpec, ArraySpec]:
    """(hist, bin_edges): a fixed bin count gives bins and bins + 1 values, an array of edges gives
    len - 1 and len; a string rule ('auto') picks the count from the data, so it is refused."""
    x = as_spec(a)
    if isinstance(bins, str):
        raise DataDependentShape("histogram: a bin rule picks the bin count from the data (data-dependent)")
    if weights is not None and as_spec(weights).shape != x.shape:
        raise MetaError("histogram: weights should have the same shape as a.")
    if is_spec(bins) or isinstance(bins, (list, tuple)):
        edges = as_spec(bins)
        if edges.ndim != 1:
            raise MetaError("histogram: `bins` must be 1d, when an array")
        n_edges = edges.shape[0]
        bins_probe = np.ones(min(n_edges, 2), edges.dtype) if is_spec(bins) else bins
    else:
        try:
            count = operator.index(bins)
        except TypeError:
            raise MetaError("histogram: `bins` must be an integer, a string, or an array") from None
        if count < 1:
            raise MetaError("histogram: `bins` must be positive, when an integer")
        n_edges, bins_probe = count + 1, 1
    w_probe = None if weights is None else unit_probe(as_spec(weights) if not is_spec(weights) else weights)
    x_probe = np.ones(min(x.size, 1), x.dtype)
    if w_probe is not None:
        w_probe = w_probe.reshape(x_probe.shape) if w_probe.size == x_probe.size else w_probe
    hist, edges_out = run_probe("histogram", np.histogram, x_probe, bins_probe, range, density, w_probe)
    return ArraySpec((max(n_edges - 1, 0),), hist.dtype), ArraySpec((n_edges,), edges_out.dtype)
