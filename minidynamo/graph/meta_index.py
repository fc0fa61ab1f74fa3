"""Meta rules of `x[index]` and `x[index] = value`, following NumPy's indexing rules (and np.take, an index along
one axis).

Imports numpy and graph.meta only. An index item is an int (Python, NumPy, or an integer ArraySpec of 0
dimensions whose value is unknown), a slice of ints, None, Ellipsis, an integer array (ArraySpec or a
Python list), or a boolean mask. A boolean ArraySpec mask gives a data-dependent shape: getitem raises
MetaError, and `has_bool_mask` lets front ends break before trying. Placement of advanced indices: when all
advanced indices (integers count as advanced once any array is present) stand next to each other, their
broadcast shape replaces them in place; otherwise it goes first (NumPy's "separated by a slice" rule).
"""

from __future__ import annotations

import enum
import operator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .ir import ArraySpec, PyScalarSpec
from .meta import (PYTHON_SCALARS, DataDependentShape, MetaError, MetaUnsupported, as_spec, broadcast, is_spec,
                   normalize_axis, probe, run_probe)
from .symbolic import Sym, has_symbols


class Kind(enum.Enum):
    """What one index item is."""

    INT = "int"                    # an int, known or only at run time
    SLICE = "slice"
    NEW = "new"                    # None (np.newaxis)
    ELLIPSIS = "ellipsis"
    ARRAY = "array"                # an integer array (its shape; a literal list's bounds)
    MASK = "mask"                  # a boolean ArraySpec (its shape)
    MASK_LITERAL = "mask_literal"  # a literal boolean list (its array)


@dataclass
class _Item:
    kind: Kind
    value: Any = None              # int value (None if unknown), slice, array shape, or mask shape
    bounds: tuple | None = None    # (min, max) of a literal integer list, for the bounds check


def has_bool_mask(index: Any) -> bool:
    """True when the index holds a boolean ArraySpec (a mask whose selection count is data)."""
    items = index if isinstance(index, tuple) else (index,)
    return any(is_spec(i) and i.dtype == np.bool_ for i in items)


def _literal_array(item: list | tuple) -> list[_Item]:
    if any(is_spec(v) for v in item):
        raise MetaUnsupported("index: a list mixing arrays and numbers is not supported")
    arr = np.asarray(item)          # the cost of the literal, not of any traced data
    if arr.dtype == np.bool_:       # a literal mask: its True positions are known
        return [_Item(Kind.MASK_LITERAL, arr)]
    if arr.size == 0:
        arr = arr.astype(np.intp)
    if arr.dtype.kind not in "iu":
        raise MetaError("IndexError: arrays used as indices must be of integer (or boolean) type")
    bounds = (int(arr.min()), int(arr.max())) if arr.size else None
    return [_Item(Kind.ARRAY, arr.shape, bounds)]


def _classify(item: Any) -> list[_Item]:
    if item is None:
        return [_Item(Kind.NEW)]
    if item is Ellipsis:
        return [_Item(Kind.ELLIPSIS)]
    if isinstance(item, slice):
        for part in (item.start, item.stop, item.step):
            if part is not None and (isinstance(part, bool) or not isinstance(part, (int, np.integer, Sym))):
                if (isinstance(part, PyScalarSpec) and part.type is int) or (is_spec(part) and part.ndim == 0
                                                                              and part.dtype.kind in "iu"):
                    # the slice's length is a value the graph computes: the result's shape is data
                    raise DataDependentShape("index: a slice bound known only at run time (the result's "
                                             "length depends on its value)")
                raise MetaError("index: slice indices must be concrete integers or None")
        if item.step == 0:
            raise MetaError("ValueError: slice step cannot be zero")
        return [_Item(Kind.SLICE, item)]
    if is_spec(item):
        if item.dtype == np.bool_:
            return [_Item(Kind.MASK, item.shape)]
        if item.dtype.kind not in "iu":
            raise MetaError("IndexError: arrays used as indices must be of integer (or boolean) type")
        return [_Item(Kind.INT)] if item.ndim == 0 else [_Item(Kind.ARRAY, item.shape)]
    if isinstance(item, PyScalarSpec) and item.type is int:
        return [_Item(Kind.INT)]               # a Python int known when the graph runs: bounds checked then
    if isinstance(item, bool):
        raise MetaUnsupported("index: a Python bool index is not supported")
    if isinstance(item, Sym):
        return [_Item(Kind.INT, item)]         # its bounds check guards the relation to the size
    if isinstance(item, (int, np.integer)):
        return [_Item(Kind.INT, operator.index(item))]
    if isinstance(item, (list, tuple)):
        return _literal_array(item)
    if isinstance(item, range):         # NumPy converts it like a list of its ints
        return _literal_array(list(item))
    raise MetaError("IndexError: only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and "
                    f"integer or boolean arrays are valid indices (got {type(item).__name__})")


def _consumed(it: _Item) -> int:
    if it.kind in (Kind.INT, Kind.SLICE, Kind.ARRAY):
        return 1
    if it.kind in (Kind.MASK, Kind.MASK_LITERAL):
        return len(it.value.shape) if it.kind is Kind.MASK_LITERAL else len(it.value)
    return 0


def _expand(x: ArraySpec, index: Any) -> tuple[list[tuple[_Item, int]], bool]:
    """Index items paired with the first array dimension each consumes; ellipsis expanded to full slices.
    Also returns whether an ellipsis was present (it makes an all-integer index return an array)."""
    raw = index if isinstance(index, tuple) else (index,)
    items = [it for r in raw for it in _classify(r)]
    n_ell = sum(it.kind is Kind.ELLIPSIS for it in items)
    if n_ell > 1:
        raise MetaError("IndexError: an index can only have a single ellipsis ('...')")
    used = sum(_consumed(it) for it in items)
    if used > x.ndim:
        raise MetaError(f"IndexError: too many indices for array: array is {x.ndim}-dimensional, but "
                        f"{used} were indexed")
    out: list[tuple[_Item, int]] = []
    dim = 0
    for it in items:
        if it.kind is Kind.ELLIPSIS:
            fill = x.ndim - used
            out += [(_Item(Kind.SLICE, slice(None), None), dim + k) for k in range(fill)]
            out.append((_Item("gap"), dim))        # keeps ellipsis position for the adjacency rule
            dim += fill
            continue
        out.append((it, dim))
        dim += _consumed(it)
    out += [(_Item(Kind.SLICE, slice(None)), d) for d in range(dim, x.ndim)]
    return out, n_ell == 1


def _check_int(value: int | None, size: int, axis: int) -> None:
    """Bounds check of a known integer; an unknown one (None) is out of bounds on an empty axis."""
    if size == 0 and value is None:
        raise MetaError(f"IndexError: index is out of bounds for axis {axis} with size 0")
    if value is not None and not -size <= value < size:
        raise MetaError(f"IndexError: index {value} is out of bounds for axis {axis} with size {size}")


def _mask_arrays(it: _Item, x: ArraySpec, dim: int, mask_count: int | None) -> list[tuple[int, ...]]:
    """A boolean mask stands for mask.ndim integer arrays of its True count (unknown -> mask_count; each of
    the mask.ndim arrays has that one length, so they broadcast together whatever the count)."""
    mshape = it.value.shape if it.kind is Kind.MASK_LITERAL else it.value
    covered = tuple(x.shape[dim:dim + len(mshape)])
    # NumPy accepts an empty mask against axes of any length (it selects nothing).
    if len(covered) != len(mshape) or (covered != tuple(mshape) and not _empty(mshape)):
        if len(covered) == len(mshape) and any(_varies(d) for d in mshape):
            raise DataDependentShape("getitem: a mask as long as a count matches the axis only when empty")
        raise MetaError(f"IndexError: boolean index did not match indexed array along axis {dim}; size of "
                        f"axis is {x.shape[dim:dim + len(mshape)]} but size of boolean index is {mshape}")
    if it.kind is Kind.MASK_LITERAL:
        count = int(np.count_nonzero(it.value))
    elif _empty(mshape):
        count = 0                   # an empty mask selects nothing, whatever the data
    elif mask_count is None:
        raise DataDependentShape("getitem: data-dependent shape (boolean mask index)")
    else:
        count = mask_count
    return [(count,)] * max(len(mshape), 1)


def slice_length(size: Any, s: slice) -> Any:
    """len(range(size)[s]) with NumPy's exact clipping rules; with symbols, each comparison is guarded.
    A bound equal to the size is not clipped (clipping it changes nothing), so `x[:n]` with n == size and
    n < size share one capture."""
    if not has_symbols((size, s.start, s.stop, s.step)):
        return len(range(size)[s])
    step = 1 if s.step is None else operator.index(s.step)   # a symbolic step is specialized
    lower, upper = (-1, size - 1) if step < 0 else (0, size)

    def adjust(v: Any, default: Any) -> Any:
        if v is None:
            return default
        if v < 0:
            v = v + size
            return lower if v < lower else v
        return upper if v > upper else v

    start = adjust(s.start, upper if step < 0 else lower)
    stop = adjust(s.stop, lower if step < 0 else upper)
    # (an empty slice's length is the same formula, 0: deciding `<=` rather than `<` keeps one answer for
    # `x[:i]` over every i >= 0, the index of a folded loop included)
    if step < 0:
        return (start - stop - 1) // (-step) + 1 if stop <= start else 0
    return (stop - start - 1) // step + 1 if start <= stop else 0


def index_shape(x: ArraySpec, index: Any, mask_count: int | None = None) -> tuple[tuple[int, ...], bool]:
    """(result shape, is a NumPy scalar) of x[index]; mask_count stands in for an unknown True count."""
    if not is_spec(x):
        raise MetaUnsupported("getitem: only arrays are indexed here")
    expanded, had_ellipsis = _expand(x, index)
    has_array = any(it.kind in (Kind.ARRAY, Kind.MASK, Kind.MASK_LITERAL) for it, _ in expanded)
    basic: list[tuple[int, list[int]]] = []    # (position, dims) of the non-advanced items
    advanced: list[tuple[int, tuple[int, ...]]] = []
    checks: list = []          # bounds checks of index arrays; skipped when advanced indexing selects nothing
    for pos, (it, dim) in enumerate(expanded):
        if it.kind is Kind.SLICE:
            basic.append((pos, [slice_length(x.shape[dim], it.value)]))
        elif it.kind is Kind.NEW:
            basic.append((pos, [1]))
        elif it.kind is Kind.INT:
            _check_int(it.value, x.shape[dim], dim)
            if has_array:
                advanced.append((pos, ()))
        elif it.kind is Kind.ARRAY:
            if it.bounds is not None:
                checks += [lambda v=v, n=x.shape[dim], d=dim: _check_int(v, n, d) for v in it.bounds]
            elif not _empty(it.value):
                checks.append(lambda n=x.shape[dim], d=dim: _check_int(None, n, d))
            advanced.append((pos, it.value))
        elif it.kind in (Kind.MASK, Kind.MASK_LITERAL):
            advanced += [(pos, s) for s in _mask_arrays(it, x, dim, mask_count)]
    if not advanced:
        for check in checks:
            check()
        shape = tuple(d for _, dims in basic for d in dims)
        is_scalar = not had_ellipsis and not basic and all(it.kind is Kind.INT for it, _ in expanded)
        return shape, is_scalar
    try:      # (symbolic sizes broadcast on the shape env: an index array of a list's dynamic length)
        shapes = [s for _, s in advanced]
        adv_shape = broadcast(*shapes) if any(has_symbols(s) for s in shapes) else \
            tuple(np.broadcast_shapes(*shapes))
    except (ValueError, MetaError):
        raise MetaError("IndexError: shape mismatch: indexing arrays could not be broadcast together with "
                        "shapes " + " ".join(str(s) for _, s in advanced)) from None
    if any(_varies(d) for d in adv_shape):
        # a mask's count may be 0, when NumPy checks nothing: checks that pass hold for every count, one
        # that fails holds for some counts only
        try:
            for check in checks:
                check()
        except MetaError:
            raise DataDependentShape("getitem: a boolean mask's count decides whether the other indices "
                                     "are checked") from None
    elif 0 not in adv_shape:
        for check in checks:
            check()
    _check_index_array_count(expanded, len(advanced) - sum(it.kind is Kind.INT for it, _ in expanded))
    if mask_count is not None and has_bool_mask(index) and len({pos for pos, _ in advanced}) > 1:
        raise DataDependentShape("setitem: data-dependent shape (a boolean mask combined with other index arrays)")
    positions = sorted({p for p, _ in advanced})
    adjacent = positions == list(range(positions[0], positions[-1] + 1))
    before = [d for p, dims in basic if p < positions[0] for d in dims]
    after = [d for p, dims in basic if p > positions[0] for d in dims]
    if adjacent:
        return tuple(before) + adv_shape + tuple(after), False
    return adv_shape + tuple(before + after), False


def _varies(d: Any) -> bool:
    """A size that takes many values in one capture: a mask's True count, a folded loop's index."""
    return isinstance(d, Sym) and d.env.varies(d)


def _empty(shape: tuple) -> bool:
    """Whether an index array of this shape is known to be empty (a varying size may or may not be 0)."""
    return any(not _varies(d) and d == 0 for d in shape)


# NumPy's iterator takes at most 64 operands: the result and 63 index arrays (integers do not count).
_MAX_INDEX_ARRAYS = 63


def _check_index_array_count(expanded: list[tuple[_Item, int]], n_arrays: int) -> None:
    """Without a subspace (no slice left in the index) NumPy refuses more than 63 index arrays."""
    if n_arrays > _MAX_INDEX_ARRAYS and not any(it.kind is Kind.SLICE for it, _ in expanded):
        raise MetaError(f"IndexError: when no subspace is given, the number of index arrays cannot be above "
                        f"{_MAX_INDEX_ARRAYS}, but {n_arrays} index arrays found")


def _mask_ndim(item: Any) -> int | None:
    """The number of dimensions of a boolean mask index (an array or a literal list of bools), else None."""
    if is_spec(item):
        return item.ndim if item.dtype == np.bool_ else None
    if isinstance(item, list) and not any(is_spec(v) for v in item):
        arr = np.asarray(item)
        return arr.ndim if arr.dtype == np.bool_ else None
    return None


def getitem_meta(x: Any, index: Any, mask_count: Any = None) -> ArraySpec:
    """x[index]; a boolean ArraySpec mask raises DataDependentShape, unless the capture gives its True count
    (`mask_count`, a symbol: capture/context.py)."""
    shape, is_scalar = index_shape(x, index, mask_count)
    return ArraySpec(shape, x.dtype, scalar=is_scalar)


def setitem_meta(x: Any, index: Any, value: Any) -> None:
    """x[index] = value: the value must broadcast to the indexed shape (leading 1s may be dropped) and
    convert to x's dtype the way NumPy converts it (Python ints out of range raise)."""
    if not is_spec(x) or x.scalar:
        raise MetaError("setitem: a NumPy scalar does not support item assignment")
    # With a boolean mask, its unknown count is 1 here: a value then fits every count only if it broadcasts.
    target, single = index_shape(x, index, mask_count=1)
    if is_spec(value):
        vshape: tuple[int, ...] = value.shape
    elif isinstance(value, PYTHON_SCALARS):
        vshape = ()
    elif isinstance(value, Sym) or (isinstance(value, PyScalarSpec) and value.type in (bool, int, float)):
        # a Python number known when the graph runs (a folded loop's index: mandelbrot's `N[I] = n`); an
        # int that does not fit x's dtype raises there (OverflowError), and the function re-runs eagerly
        vshape = ()
        value = value.type(0) if isinstance(value, PyScalarSpec) else 0
    elif isinstance(value, (list, tuple)):
        vshape = np.shape(value)
    else:
        raise MetaUnsupported(f"setitem: unsupported value of type {type(value).__name__}")
    items = index if isinstance(index, tuple) else (index,)
    if len(items) == 1 and _mask_ndim(items[0]) == x.ndim and len(vshape) > 1:
        raise MetaError("TypeError: NumPy boolean array indexing assignment requires a 0 or 1-dimensional input, "
                        f"input has {len(vshape)} dimensions")
    # One element is set through the value's scalar conversion; only bool() accepts a one-element array.
    if single and tuple(vshape) != () and not (x.dtype == np.bool_ and int(np.prod(vshape)) == 1):
        raise MetaError("setitem: setting an array element with a sequence.")
    trimmed = tuple(vshape)
    while len(trimmed) > len(target) and trimmed[0] == 1:
        trimmed = trimmed[1:]
    # x[mask] = values (nbody's `r[r > 0] = r[r > 0] ** -1.5` after its break, `F[mask, :] = rows`): one value
    # per True, a count only the run knows; NumPy compares the two before it writes anything and raises
    # eager's ValueError.
    if has_bool_mask(index) and len(trimmed) <= len(target):
        target = _count_from_value(x, index, target, trimmed)
    if len(trimmed) > len(target) or broadcast(trimmed, target) != tuple(target):
        raise MetaError(f"setitem: could not broadcast input array from shape {vshape} into shape "
                        f"{tuple(target)}")
    if isinstance(value, (list, tuple)):
        run_probe("setitem", operator.setitem, np.ones(np.shape(value), x.dtype), Ellipsis, value)
    else:
        run_probe("setitem", operator.setitem, np.ones(1, x.dtype), 0, probe(value, ()))
    return None


def _count_from_value(x: ArraySpec, index: Any, target: tuple, value: tuple) -> tuple:
    """The indexed shape with the boolean mask's unknown count taken from the value (`F[mask, :] = rows`):
    NumPy checks when the graph runs that the count matches (or raises, and the function re-runs eagerly)."""
    other, _ = index_shape(x, index, mask_count=2)
    offset = len(target) - len(value)
    return tuple(value[i - offset] if t != o and i >= offset else t
                 for i, (t, o) in enumerate(zip(target, other)))


def take_meta(a: Any, indices: Any, axis: Any = None, out: Any = None, mode: Any = "raise") -> ArraySpec:
    """np.take / a.take with mode='raise': `a[(:,) * axis + (indices,)]` (of the flattened array without an
    axis), so indexing's rule gives the shape, the NumPy-scalar result and the out-of-range refusals."""
    if out is not None or mode != "raise":
        raise MetaUnsupported(f"take: unsupported: {'out=' if out is not None else f'mode={mode!r}'}")
    if isinstance(indices, (range, tuple)):
        indices = list(indices)
    if _has_bool(indices):
        raise MetaUnsupported("take: unsupported: boolean indices (take casts them to 0/1)")
    x = as_spec(a)
    if axis is None or x.ndim == 0:      # (NumPy takes from a 0-d array as from its one-item ravel)
        x = ArraySpec((x.size,), x.dtype)
    if axis is None:
        return getitem_meta(x, indices)
    ax = normalize_axis(axis, x.ndim)
    return getitem_meta(ArraySpec(x.shape, x.dtype), (slice(None),) * ax + (indices,))


def _has_bool(value: Any) -> bool:
    if is_spec(value):
        return value.dtype.kind == "b"
    if isinstance(value, list):
        return any(map(_has_bool, value))
    return isinstance(value, (bool, np.bool_))


def masked_update_meta(iop: Any) -> Any:
    """`x[mask] op= value` for a boolean mask of x's own shape and a number (`dX[X < 0] *= a`): x is updated in
    place, whatever the True count; the in-place operator's casting errors come from a one-item probe."""

    def rule(x: Any, mask: Any, value: Any) -> None:
        if not is_spec(x) or x.scalar or not is_spec(mask) or mask.dtype.kind != "b" or mask.shape != x.shape:
            raise MetaUnsupported(f"masked {iop.__name__}: unsupported: needs a boolean mask of the array's shape")
        if is_spec(value) and value.ndim != 0 or not is_spec(value) and not isinstance(value, PYTHON_SCALARS):
            raise MetaUnsupported(f"masked {iop.__name__}: unsupported: a value that is not a number")
        run_probe(f"masked {iop.__name__}", iop, np.ones(1, x.dtype), probe(value))
        return None

    rule.__name__ = f"masked_{iop.__name__}_meta"
    return rule
