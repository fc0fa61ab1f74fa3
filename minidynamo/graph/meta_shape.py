"""Meta rules of shape ops: reshape, transpose, swapaxes, moveaxis, expand_dims, squeeze, ravel, flatten,
broadcast_to, concatenate, stack, hstack, vstack, column_stack, split, array_split, tile, repeat, flip, roll, pad,
atleast_1d/2d/3d, insert.

Imports numpy and graph.meta only. All shape arithmetic is written out here; only the dtype of joins
(concatenate, stack ...) comes from a one-element probe. Scalar-ness follows NumPy: a NumPy scalar input
stays a scalar under reshape/transpose/squeeze (they are its own methods), and flip of a 0-d value is a
scalar (it indexes with `m[()]`); every other op here returns an ndarray.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from .ir import ArraySpec, PyScalarSpec
from .meta_index import slice_length
from .symbolic import Sym
from .meta import (MetaError, MetaUnsupported, as_spec, broadcast, is_spec, normalize_axes, normalize_axis, probe,
                   reject_keywords, reject_value_dims, result_dtype, run_probe)


def int_tuple(value: Any, what: str) -> tuple[int, ...]:
    """An int or a sequence of ints (symbolic ints stay symbols) as a tuple; TypeError-like MetaError
    otherwise."""
    items = tuple(value) if isinstance(value, (tuple, list)) else (value,)
    reject_value_dims(items, what)
    try:
        return tuple(v if isinstance(v, Sym) else operator.index(v) for v in items)
    except TypeError:
        raise MetaError(f"{what} must be an integer or a sequence of integers, got {value!r}") from None


def _shape_from_varargs(args: tuple, what: str) -> tuple[int, ...]:
    """a.reshape(2, 3) and a.reshape((2, 3)) / np.reshape(a, (2, 3)) alike."""
    if len(args) == 1:
        return int_tuple(args[0], what)
    return int_tuple(args, what)


def reshape_meta(a: Any, *shape: Any, order: str = "C", copy: Any = None, **kwargs: Any) -> ArraySpec:
    x = as_spec(a)
    if "shape" in kwargs or "newshape" in kwargs:
        shape = (kwargs.pop("shape", None) or kwargs.pop("newshape", None),)
    reject_keywords("reshape", kwargs)
    if copy is False:       # whether a view is possible depends on the memory layout, which specs omit
        raise MetaUnsupported("reshape: unsupported keyword copy=False (depends on the memory layout)")
    if len(shape) == 2 and isinstance(shape[1], str):       # np.reshape(a, shape, order)
        shape = shape[:1]
    if not shape:
        raise MetaError("reshape: missing the shape argument")
    new = _shape_from_varargs(shape, "reshape: shape")
    if sum(d == -1 for d in new) > 1:
        raise MetaError("reshape: can only specify one unknown dimension")
    if any(d < -1 for d in new):
        raise MetaError("reshape: negative dimensions not allowed")
    known = math.prod(d for d in new if d != -1)     # a symbol when a size is symbolic
    if -1 in new:
        if known == 0 or x.size % known:
            raise MetaError(f"cannot reshape array of size {x.size} into shape {new}")
        new = tuple(x.size // known if d == -1 else d for d in new)
    elif known != x.size:
        raise MetaError(f"cannot reshape array of size {x.size} into shape {new}")
    return ArraySpec(new, x.dtype, scalar=x.scalar and new == ())


def transpose_meta(a: Any, *axes: Any, **kwargs: Any) -> ArraySpec:
    """np.transpose(a, axes) and a.transpose(*axes); no axes reverses them (`a.T`)."""
    x = as_spec(a)
    if "axes" in kwargs:
        axes = (kwargs.pop("axes"),)
    reject_keywords("transpose", kwargs)
    if len(axes) == 1 and axes[0] is None:
        axes = ()
    perm = tuple(reversed(range(x.ndim))) if not axes else _shape_from_varargs(axes, "transpose: axes")
    if len(perm) != x.ndim:
        raise MetaError("transpose: axes don't match array")
    perm = tuple(normalize_axis(p, x.ndim, "transpose") for p in perm)
    if len(set(perm)) != len(perm):
        raise MetaError("transpose: repeated axis in transpose")
    return ArraySpec(tuple(x.shape[p] for p in perm), x.dtype, scalar=x.scalar)


def swapaxes_meta(a: Any, axis1: Any, axis2: Any) -> ArraySpec:
    x = as_spec(a)
    i, j = normalize_axis(axis1, x.ndim, "axis1"), normalize_axis(axis2, x.ndim, "axis2")
    shape = list(x.shape)
    shape[i], shape[j] = shape[j], shape[i]
    return ArraySpec(tuple(shape), x.dtype)


def moveaxis_meta(a: Any, source: Any, destination: Any) -> ArraySpec:
    x = as_spec(a)
    src = normalize_axes(int_tuple(source, "moveaxis: source"), x.ndim, "source")
    dst = normalize_axes(int_tuple(destination, "moveaxis: destination"), x.ndim, "destination")
    if len(src) != len(dst):
        raise MetaError("moveaxis: `source` and `destination` arguments must have the same number of elements")
    order = [n for n in range(x.ndim) if n not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return ArraySpec(tuple(x.shape[i] for i in order), x.dtype, scalar=x.scalar)


def expand_dims_meta(a: Any, axis: Any) -> ArraySpec:
    x = as_spec(a)
    axes = int_tuple(axis, "expand_dims: axis")
    out_ndim = x.ndim + len(axes)
    new = normalize_axes(axes, out_ndim)
    rest = iter(x.shape)
    return ArraySpec(tuple(1 if i in new else next(rest) for i in range(out_ndim)), x.dtype)


def squeeze_meta(a: Any, axis: Any = None) -> ArraySpec:
    x = as_spec(a)
    if axis is None:
        axes = tuple(i for i, d in enumerate(x.shape) if d == 1)
    elif x.ndim == 0 and not isinstance(axis, (tuple, list)) and axis in (0, -1):
        axes = ()                   # like ufunc.reduce, squeeze accepts axis 0 / -1 on a 0-d array
    else:
        axes = normalize_axes(int_tuple(axis, "squeeze: axis"), x.ndim)
        if any(x.shape[i] != 1 for i in axes):
            raise MetaError("squeeze: cannot select an axis to squeeze out which has size not equal to one")
    shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    return ArraySpec(shape, x.dtype, scalar=x.scalar)


def ravel_meta(a: Any, order: str = "C") -> ArraySpec:
    x = as_spec(a)
    return ArraySpec((x.size,), x.dtype)


def flatten_meta(a: Any, order: str = "C") -> ArraySpec:
    return ravel_meta(a, order)


def broadcast_to_meta(array: Any, shape: Any, subok: bool = False) -> ArraySpec:
    x = as_spec(array)
    target = int_tuple(shape, "broadcast_to: shape")
    if any(d < 0 for d in target):
        raise MetaError("broadcast_to: all elements of broadcast shape must be non-negative")
    if x.ndim > len(target) or broadcast(x.shape, target) != target:
        raise MetaError(f"broadcast_to: cannot broadcast an array of shape {x.shape} to {target}")
    return ArraySpec(target, x.dtype)


# ---- joining and splitting ------------------------------------------------------------------------------

def _join_dtype(name: str, specs: list[ArraySpec], dtype: Any, casting: Any) -> np.dtype:
    probes = [np.ones((1,), s.dtype) for s in specs]
    return result_dtype(name, np.concatenate, probes, axis=0, dtype=dtype, casting=casting)


def _sequence(name: str, arrays: Any) -> list[ArraySpec]:
    if is_spec(arrays) and not arrays.scalar and arrays.ndim and isinstance(arrays.shape[0], int):
        # one ndarray: NumPy iterates its first axis (`np.concatenate(arr3d, axis=-1)`)
        arrays = [ArraySpec(arrays.shape[1:], arrays.dtype)] * arrays.shape[0]
    if not isinstance(arrays, (tuple, list)):
        raise MetaError(f"{name}: expects a sequence of arrays")
    if not arrays:
        raise MetaError(f"{name}: need at least one array to concatenate")
    return [as_spec(a) for a in arrays]


def _concat_shape(specs: list[ArraySpec], axis: Any) -> tuple[int, ...]:
    if axis is None:
        return (sum(s.size for s in specs),)
    first = specs[0]
    if first.ndim == 0:
        raise MetaError("concatenate: zero-dimensional arrays cannot be concatenated")
    ax = normalize_axis(axis, first.ndim)
    for s in specs[1:]:
        if s.ndim != first.ndim:
            raise MetaError("concatenate: all the input arrays must have same number of dimensions")
        if any(d != e for i, (d, e) in enumerate(zip(s.shape, first.shape)) if i != ax):
            raise MetaError("concatenate: all the input array dimensions except for the concatenation axis "
                            "must match exactly")
    return first.shape[:ax] + (sum(s.shape[ax] for s in specs),) + first.shape[ax + 1:]


def concatenate_meta(arrays: Any, axis: Any = 0, out: Any = None, *, dtype: Any = None,
                     casting: Any = "same_kind") -> ArraySpec:
    if out is not None:
        raise MetaUnsupported("concatenate: unsupported keyword 'out'")
    specs = _sequence("concatenate", arrays)
    return ArraySpec(_concat_shape(specs, axis), _join_dtype("concatenate", specs, dtype, casting))


def stack_meta(arrays: Any, axis: Any = 0, out: Any = None, *, dtype: Any = None,
               casting: Any = "same_kind") -> ArraySpec:
    if out is not None:
        raise MetaUnsupported("stack: unsupported keyword 'out'")
    specs = _sequence("stack", arrays)
    if any(s.shape != specs[0].shape for s in specs):
        raise MetaError("stack: all input arrays must have the same shape")
    ax = normalize_axis(axis, specs[0].ndim + 1)
    shape = specs[0].shape[:ax] + (len(specs),) + specs[0].shape[ax:]
    return ArraySpec(shape, _join_dtype("stack", specs, dtype, casting))


def _at_least(spec: ArraySpec, n: int) -> ArraySpec:
    """np.atleast_1d / atleast_2d: 0-d -> (1,) or (1, 1); 1-d -> (1, n) for n == 2."""
    if spec.ndim >= n:
        return spec
    shape = (1,) * (n - spec.ndim) + spec.shape
    return ArraySpec(shape, spec.dtype)


def hstack_meta(tup: Any, *, dtype: Any = None, casting: Any = "same_kind") -> ArraySpec:
    specs = [_at_least(s, 1) for s in _sequence("hstack", tup)]
    axis = 0 if specs[0].ndim == 1 else 1
    return ArraySpec(_concat_shape(specs, axis), _join_dtype("hstack", specs, dtype, casting))


def vstack_meta(tup: Any, *, dtype: Any = None, casting: Any = "same_kind") -> ArraySpec:
    specs = [_at_least(s, 2) for s in _sequence("vstack", tup)]
    return ArraySpec(_concat_shape(specs, 0), _join_dtype("vstack", specs, dtype, casting))


def column_stack_meta(tup: Any) -> ArraySpec:
    """1-d (and 0-d) arrays become columns, then everything is joined along axis 1."""
    specs = [s if s.ndim >= 2 else ArraySpec((s.shape[0] if s.ndim else 1, 1), s.dtype)
             for s in _sequence("column_stack", tup)]
    return ArraySpec(_concat_shape(specs, 1), _join_dtype("column_stack", specs, None, "same_kind"))


def _split(name: str, ary: Any, sections: Any, axis: Any, equal: bool) -> tuple[ArraySpec, ...]:
    x = as_spec(ary)
    ax = normalize_axis(axis, x.ndim)
    n = x.shape[ax]
    if isinstance(sections, (tuple, list)):
        cuts = [0] + list(int_tuple(sections, f"{name}: indices")) + [n]
        sizes = [slice_length(n, slice(start, stop)) for start, stop in zip(cuts, cuts[1:])]
    else:
        count = int_tuple(sections, f"{name}: sections")[0]
        if count <= 0:
            raise MetaError(f"{name}: number sections must be larger than 0.")
        if equal and n % count:
            raise MetaError(f"{name}: array split does not result in an equal division")
        each, extra = n // count, n % count      # a symbolic remainder is specialized (guarded) by `*`
        sizes = [each + 1] * extra + [each] * (count - extra)
    return tuple(ArraySpec(x.shape[:ax] + (s,) + x.shape[ax + 1:], x.dtype) for s in sizes)


def split_meta(ary: Any, indices_or_sections: Any, axis: Any = 0) -> tuple[ArraySpec, ...]:
    return _split("split", ary, indices_or_sections, axis, equal=True)


def _split_along(name: str, axis: int, min_ndim: int) -> Any:
    """np.hsplit (axis 1, or 0 of a 1-d array), np.vsplit (0), np.dsplit (2): np.split along it."""
    def rule(ary: Any, indices_or_sections: Any) -> tuple[ArraySpec, ...]:
        x = as_spec(ary)
        if x.ndim < min_ndim:
            raise MetaError(f"{name}: {name} only works on arrays of {min_ndim} or more dimensions")
        return _split(name, x, indices_or_sections, 0 if name == "hsplit" and x.ndim == 1 else axis, equal=True)
    rule.__name__ = f"{name}_meta"
    return rule


hsplit_meta, vsplit_meta, dsplit_meta = _split_along("hsplit", 1, 1), _split_along("vsplit", 0, 2), \
    _split_along("dsplit", 2, 3)


def array_split_meta(ary: Any, indices_or_sections: Any, axis: Any = 0) -> tuple[ArraySpec, ...]:
    return _split("array_split", ary, indices_or_sections, axis, equal=False)


# ---- repetition and rearrangement -------------------------------------------------------------------------

def tile_meta(A: Any, reps: Any) -> ArraySpec:
    x = as_spec(A)
    tup = int_tuple(reps, "tile: reps")
    if x.size and any(r < 0 for r in tup):
        raise MetaError("tile: negative dimensions are not allowed")
    shape = (1,) * (len(tup) - x.ndim) + x.shape
    tup = (1,) * (len(shape) - len(tup)) + tup
    out = tuple(d * r for d, r in zip(shape, tup))
    # An empty input is only reshaped to `out`, so a -1 there is inferred and other negatives fail.
    if x.size == 0:
        out = reshape_meta(ArraySpec(shape, x.dtype), out).shape
    return ArraySpec(out, x.dtype)


def repeat_meta(a: Any, repeats: Any, axis: Any = None) -> ArraySpec:
    x = as_spec(a)
    reps = int_tuple(repeats, "repeat: repeats")
    if x.ndim == 0 and not isinstance(axis, (tuple, list)) and axis in (0, -1):
        axis = None                 # a 0-d array accepts axis 0 / -1, as ufunc.reduce does
    ax = None if axis is None else normalize_axis(axis, x.ndim)
    n = x.size if ax is None else x.shape[ax]
    if n and any(r < 0 for r in reps):
        raise MetaError("repeat: repeats may not contain negative values.")
    if len(reps) == 1:
        total = n * reps[0]
    elif len(reps) == n:
        total = sum(reps)
    else:
        raise MetaError(f"repeat: operands could not be broadcast together with shape ({n},) ({len(reps)},)")
    shape = (total,) if ax is None else x.shape[:ax] + (total,) + x.shape[ax + 1:]
    return ArraySpec(shape, x.dtype)


def flip_meta(m: Any, axis: Any = None) -> ArraySpec:
    x = as_spec(m)
    if axis is not None:
        normalize_axes(int_tuple(axis, "flip: axis"), x.ndim)
    return ArraySpec(x.shape, x.dtype, scalar=x.ndim == 0)


def rot90_meta(m: Any, k: Any = 1, axes: Any = (0, 1)) -> ArraySpec:
    """NumPy's checks in its order; an odd number of quarter turns swaps the two axes' sizes."""
    x = as_spec(m)
    axes = int_tuple(axes, "rot90: axes")
    if len(axes) != 2:
        raise MetaError("len(axes) must be 2.")
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == x.ndim:
        raise MetaError("Axes must be different.")
    if not all(-x.ndim <= a < x.ndim for a in axes):
        raise MetaError(f"Axes={axes} out of range for array of ndim={x.ndim}.")
    if type(k) is not int:           # NumPy takes k % 4 of anything: only ints are modelled
        raise MetaError("rot90: k must be an int")
    shape = list(x.shape)
    if k % 2:
        shape[axes[0]], shape[axes[1]] = shape[axes[1]], shape[axes[0]]
    return ArraySpec(tuple(shape), x.dtype)


def roll_meta(a: Any, shift: Any, axis: Any = None) -> ArraySpec:
    """The shift never changes the shape: it may be a value the graph computes (an int array's items, a
    Python int known at run time: PyScalarSpec), whose kind and shape NumPy's roll checks on a probe."""
    x = as_spec(a)
    items = shift if isinstance(shift, (tuple, list)) else (shift,)
    if any(is_spec(v) or isinstance(v, PyScalarSpec) for v in items):
        return _roll_by_values(x, items if isinstance(shift, (tuple, list)) else shift, axis)
    shifts = int_tuple(shift, "roll: shift")
    if axis is not None:
        if x.ndim == 0:             # NumPy's roll fails on a 0-d array whenever an axis is given
            raise MetaError("roll: a 0-d array has no axis to roll along")
        axes = int_tuple(axis, "roll: axis")
        if len(shifts) != len(axes) and 1 not in (len(shifts), len(axes)):
            raise MetaError("roll: 'shift' and 'axis' should be scalars or 1D sequences of the same length")
        for ax in axes:
            normalize_axis(ax, x.ndim)
    return ArraySpec(x.shape, x.dtype)


def sliding_window_view_meta(x: Any, window_shape: Any, axis: Any = None, *, subok: Any = False,
                             writeable: Any = False) -> ArraySpec:
    """np.lib.stride_tricks.sliding_window_view: a read-only view whose axes are shortened by window - 1
    and the window's axes appended (writeable=/subok= views are not modelled)."""
    if subok or writeable:
        raise MetaUnsupported("sliding_window_view: unsupported: subok= or writeable=")
    xs = as_spec(x)
    window = int_tuple(window_shape, "sliding_window_view: window_shape")
    if any(w < 0 for w in window):
        raise MetaError("sliding_window_view: `window_shape` cannot contain negative values")
    axes = tuple(range(xs.ndim)) if axis is None else \
        tuple(normalize_axis(a, xs.ndim) for a in int_tuple(axis, "sliding_window_view: axis"))
    if len(window) != len(axes):
        raise MetaError("sliding_window_view: window_shape and axis must have the same length (all dimensions "
                        "of x without an axis)")
    shape = list(xs.shape)
    for ax, w in zip(axes, window):
        if shape[ax] < w:
            raise MetaError("sliding_window_view: window shape cannot be larger than input array shape")
        shape[ax] = shape[ax] - w + 1
    return ArraySpec(tuple(shape) + window, xs.dtype)


def _roll_by_values(x: ArraySpec, shift: Any, axis: Any) -> ArraySpec:
    def stand_in(v: Any) -> Any:
        if isinstance(v, PyScalarSpec):
            if v.type is not int:
                raise MetaUnsupported("roll: unsupported: a shift that is a Python float known at run time")
            return 0
        if is_spec(v) and v.dtype.kind not in "biu":
            raise MetaUnsupported(f"roll: unsupported: a shift of dtype {v.dtype}")
        return np.zeros(v.shape, v.dtype)[()] if is_spec(v) and v.scalar else \
            np.zeros(v.shape, v.dtype) if is_spec(v) else v
    probe_shift = [stand_in(v) for v in shift] if isinstance(shift, (tuple, list)) else stand_in(shift)
    if any(not isinstance(d, int) for d in x.shape):
        raise MetaUnsupported("roll: unsupported: a shift from values on an array of symbolic size")
    run_probe("roll", np.roll, np.zeros(tuple(min(d, 2) for d in x.shape), x.dtype), probe_shift, axis)
    return ArraySpec(x.shape, x.dtype)


# The modes whose result is the padded shape of the input's dtype, and the keywords each takes.
_PAD_KEYWORDS = {"constant": ("constant_values",), "edge": (), "wrap": (), "reflect": ("reflect_type",),
                 "symmetric": ("reflect_type",)}


def pad_meta(array: Any, pad_width: Any, mode: Any = "constant", **kwargs: Any) -> ArraySpec:
    x = as_spec(array)
    if mode not in _PAD_KEYWORDS:
        raise MetaUnsupported(f"pad: unsupported mode {mode!r}")
    reject_keywords("pad", kwargs, _PAD_KEYWORDS[mode])
    width = np.asarray(pad_width)         # at most 2 * ndim numbers
    if width.dtype.kind not in "iub":
        raise MetaError("pad: `pad_width` must be of integral type.")
    if (width < 0).any():
        raise MetaError("pad: index can't contain negative values")
    try:
        width = np.broadcast_to(width, (x.ndim, 2))
    except ValueError:
        raise MetaError(f"pad: pad_width {pad_width!r} does not fit an array of dimension {x.ndim}") from None
    if (width < 0).any():
        raise MetaError("pad: index can't contain negative values")
    shape = tuple(d + int(lo) + int(hi) for d, (lo, hi) in zip(x.shape, width))
    if "constant_values" in kwargs:
        result_dtype("pad", np.pad, probe(x, (1,)), 1, constant_values=probe(kwargs["constant_values"]))
    if mode != "constant":      # NumPy refuses to extend an empty axis by its values: a probe of sizes 0/1 says
        one = np.zeros(tuple(0 if isinstance(d, int) and d == 0 else 1 for d in x.shape), x.dtype)
        run_probe("pad", np.pad, one, pad_width, mode, **kwargs)
    return ArraySpec(shape, x.dtype)


def triangle_meta(m: Any, k: Any = 0) -> ArraySpec:
    """np.triu / np.tril: same shape and dtype; a 1-d input is read as the rows of a square matrix."""
    x = as_spec(m)
    if x.ndim == 0:
        raise MetaError("triu/tril: the input must be at least 1-d")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise MetaError(f"triu/tril: k must be an integer, got {type(k).__name__}")
    shape = (x.shape[0], x.shape[0]) if x.ndim == 1 else x.shape
    return ArraySpec(shape, x.dtype)


def atleast_meta(n: int) -> Any:
    """np.atleast_1d/2d/3d of one array: the array itself when it has n dimensions or more, else a view with
    NumPy's padding ((N,) -> (1, N) for 2d; (N,) -> (1, N, 1) and (M, N) -> (M, N, 1) for 3d)."""
    def meta(*arys: Any) -> ArraySpec:
        if len(arys) != 1:
            raise MetaUnsupported(f"atleast_{n}d of {len(arys)} arrays (a tuple of them) is not captured")
        x = as_spec(arys[0])
        shape = x.shape
        if x.ndim < n:
            shape = {0: (1,) * n, 1: (1, *shape, 1) if n == 3 else (1, *shape), 2: (*shape, 1)}[x.ndim]
        return ArraySpec(tuple(shape), x.dtype)
    return meta


def insert_meta(arr: Any, obj: Any, values: Any, axis: Any = None) -> ArraySpec:
    """np.insert with constant positions `obj` (an int, a slice or a sequence of ints): `arr`'s dtype, one
    axis longer by the number of inserted slices. As NumPy, a single scalar position inserts every slice
    `values` holds along the axis (values are moved to it), and positions must lie in [-N, N]."""
    x, v = as_spec(arr), as_spec(values, "insert: values")
    if is_spec(obj) or isinstance(obj, (list, tuple)) and any(is_spec(o) for o in obj):
        raise MetaUnsupported("insert: positions computed in the graph are not captured")
    shape = [x.size] if axis is None else list(x.shape)
    ax = 0 if axis is None else normalize_axis(axis, x.ndim, "insert: axis")
    n = shape[ax]
    if isinstance(obj, slice):
        positions, scalar = list(range(*obj.indices(n))), False
    else:
        index = np.array(obj)
        if index.dtype == bool or index.ndim > 1 or index.size and index.dtype.kind not in "iu":
            raise MetaUnsupported(f"insert: unsupported positions {obj!r}")
        positions, scalar = [int(i) for i in index.ravel()], index.ndim == 0
        if any(not -n <= i <= n for i in positions):    # (NumPy accepts some of these in a longer list)
            raise MetaError(f"insert: index {obj!r} is out of bounds for axis {ax} with size {n}"
                            if len(positions) == 1 else "insert: unsupported: positions outside [-N, N]")
    if v.ndim > len(shape):
        raise MetaUnsupported("insert: unsupported: values with more dimensions than the array")
    if not is_spec(values):       # a Python value converts by value (2**70 into int32 overflows)
        run_probe("insert", np.array, values, dtype=x.dtype)
    vshape = (1,) * (len(shape) - v.ndim) + tuple(v.shape)
    if len(positions) == 1 and scalar:             # np.moveaxis(values, 0, axis)
        vshape = (*vshape[1:ax + 1], vshape[0], *vshape[ax + 1:])
    count = vshape[ax] if len(positions) == 1 else len(positions)
    target = tuple(count if i == ax else d for i, d in enumerate(shape))
    if broadcast(vshape, target) != target:
        raise MetaError(f"insert: could not broadcast values of shape {v.shape} into shape {target}")
    shape[ax] += count
    return ArraySpec(tuple(shape), x.dtype)
