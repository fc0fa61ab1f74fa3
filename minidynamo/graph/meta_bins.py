"""Binning: np.digitize, and np.bincount with a minlength= the counts are expected to fit. Imports numpy
and graph.meta/meta_checks only.

np.bincount's length is max(x.max() + 1, minlength): a value, known when the graph runs. With minlength=n
given (`np.bincount(labels, minlength=n_classes)`), the op assumes length n and checks it when it runs
(`bincount_within`, a checking op: OpDef.checks): a longer result fails the graph, and the function runs
again eagerly, so the program gets NumPy's longer array. Without minlength the shape is data: a break.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .ir import ArraySpec
from .meta import DataDependentShape, MetaError, MetaUnsupported, as_spec, is_spec, run_probe, spec_like
from .meta_checks import CheckFailed


def _unit(spec: ArraySpec) -> np.ndarray:
    """Zeros of the spec's dtype, at most one item per axis (0-d stays 0-d): NumPy's argument errors."""
    return np.zeros(tuple(0 if isinstance(d, int) and d == 0 else 1 for d in spec.shape), spec.dtype)


def digitize_meta(x: Any, bins: Any, right: Any = False) -> ArraySpec:
    """Bin indices (intp) of x's shape; bins must be 1-d and monotonic (checked by NumPy when it runs)."""
    xs, bs = as_spec(x), as_spec(bins)
    res = run_probe("digitize", np.digitize, _unit(xs)[()] if xs.scalar else _unit(xs),
                    np.zeros(tuple(min(d, 1) if isinstance(d, int) else 1 for d in bs.shape), bs.dtype), right)
    return spec_like(xs.shape, np.asarray(res).dtype, isinstance(res, np.generic))


def bincount_within(x: Any, weights: Any = None, minlength: int = 0) -> np.ndarray:
    """np.bincount(x, weights, minlength), which must come out exactly minlength long."""
    out = np.bincount(x, weights, minlength)
    if out.shape[0] != minlength:
        raise CheckFailed(f"bincount: a value of x is at least minlength ({minlength})")
    return out


def bincount_meta(x: Any, weights: Any = None, minlength: Any = 0) -> ArraySpec:
    if is_spec(minlength):
        raise MetaUnsupported("bincount: unsupported: a minlength the graph computes")
    n = operator.index(minlength) if not isinstance(minlength, bool) else int(minlength)
    xs = as_spec(x)
    ws = None if weights is None else as_spec(weights)
    if ws is not None and xs.size != 0 and ws.size != xs.size:     # (an empty x ignores its weights)
        raise MetaError("bincount: The weights and list don't have the same length.")
    probe_w = None if ws is None else np.zeros(_unit(xs).shape if ws.ndim == 1 else _unit(ws).shape, ws.dtype)
    res = run_probe("bincount", np.bincount, _unit(xs), probe_w, max(n, 0))
    if n <= 0:
        raise DataDependentShape("bincount: its output shape depends on the values (give minlength=)")
    return ArraySpec((n,), res.dtype)


# (op name, implementation, meta rule, public callables, checks)
OPS = [
    ("digitize", np.digitize, digitize_meta, (np.digitize,), False),
    ("bincount", bincount_within, bincount_meta, (np.bincount,), True),
]
