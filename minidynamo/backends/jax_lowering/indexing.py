"""Lowering of `x[index]` and `x[index] = value` to jax.numpy, with NumPy's bounds errors kept.

Imports jax. XLA clamps an out-of-bounds gather and drops an out-of-bounds scatter where NumPy raises
IndexError, so every index whose value is data (an integer array, a NumPy integer scalar, an unspecialized
Python int) gets a bounds check (`cx.check`); literal indices were checked by the meta rule at capture.
Writes through integer arrays stay on NumPy: XLA applies duplicate indices in an unspecified order, NumPy
last-write-wins. A boolean-mask write of a scalar into an array of the mask's shape lowers to `where`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import jax.numpy as jnp

from ...graph.ir import ArraySpec, Node, PyScalarSpec


def _items(index: Any) -> tuple:
    return index if isinstance(index, tuple) else (index,)


def _is_bool_node(item: Any) -> bool:
    return isinstance(item, Node) and isinstance(item.spec, ArraySpec) and item.spec.dtype == np.bool_


def _static(item: Any) -> bool:
    if isinstance(item, slice):
        return not any(isinstance(p, Node) for p in (item.start, item.stop, item.step))
    return item is None or item is Ellipsis or isinstance(item, (int, np.integer, list, tuple))


def refuse_getitem(node: Node) -> str | None:
    base, index = node.args
    if isinstance(base, Node) and isinstance(base.spec, tuple):
        return None if isinstance(index, int) else "a sequence of arrays indexed by something else than an int"
    if not isinstance(base, Node) or not isinstance(base.spec, ArraySpec):
        return "indexing a constant"
    for item in _items(index):
        if _is_bool_node(item):
            return "a boolean mask index has a data-dependent shape"
        if not (_static(item) or isinstance(item, Node)):
            return f"index item {item!r} is not lowered"
    return None


def refuse_setitem(node: Node) -> str | None:
    target, index, value = node.args
    if not isinstance(target, Node) or not isinstance(target.spec, ArraySpec) or target.spec.scalar:
        return "writes into something that is not an array"
    items = _items(index)
    if len(items) == 1 and _is_bool_node(items[0]):
        if items[0].spec.shape != target.spec.shape or isinstance(value, Node) and value.spec.shape != ():
            return "a boolean-mask write lowers only for a mask of the array's shape and a scalar value"
    else:
        for item in items:
            if isinstance(item, Node) and (not isinstance(item.spec, (ArraySpec, PyScalarSpec))
                                           or isinstance(item.spec, ArraySpec) and item.spec.shape != ()):
                return ("a write through an integer-array index: XLA applies duplicate indices in an "
                        "unspecified order, NumPy's last write wins")
            if isinstance(item, (list, tuple)):
                return "a write through a literal index list (duplicates must apply in NumPy's order)"
            if not (_static(item) or isinstance(item, Node)):
                return f"index item {item!r} is not lowered"
    kind = target.spec.dtype.kind
    vkind = value.spec.dtype.kind if isinstance(value, Node) and isinstance(value.spec, ArraySpec) else (
        "f" if isinstance(value, float) else "i" if isinstance(value, int) else "?")
    if kind in "iub" and vkind == "f":
        return "writes floats into an integer array (NumPy's cast of nan/inf is not XLA's)"
    if isinstance(value, int) and not isinstance(value, bool) and kind in "iu":
        info = np.iinfo(target.spec.dtype)
        if not info.min <= value <= info.max:
            return f"Python int {value} is out of range for {target.spec.dtype}"
    return None


def lower_index(cx: Any, base_spec: ArraySpec, index: Any) -> Any:
    """The index with data items replaced by traced values, each data item bounds-checked on its axis."""
    items = _items(index)
    axes = _axis_of_items(items, base_spec.ndim)
    out = []
    for item, axis in zip(items, axes):
        if isinstance(item, Node):
            value = cx.val(item)
            n = base_spec.shape[axis]
            cx.check(jnp.all((value >= -n) & (value < n)))
            out.append(value)
        elif isinstance(item, list):
            out.append(np.asarray(item))        # jnp takes a literal index list only as an array
        else:
            out.append(item)
    return tuple(out) if isinstance(index, tuple) else out[0]


def _axis_of_items(items: tuple, ndim: int) -> list[int]:
    """The base axis each index item reads (None and Ellipsis included, for alignment)."""
    consumed = sum(0 if (i is None or i is Ellipsis) else 1 for i in items)
    axes, axis = [], 0
    for item in items:
        axes.append(axis)
        if item is Ellipsis:
            axis += ndim - consumed
        elif item is not None:
            axis += 1
    return axes


def lower_getitem(cx: Any, node: Node) -> Any:
    base, index = node.args
    if isinstance(base.spec, tuple):            # an item of split's list or divmod's tuple
        return cx.val(base)[index]
    return cx.val(base)[lower_index(cx, base.spec, index)]


def lower_setitem(cx: Any, node: Node) -> Any:
    """The target's new value (the engine threads it as the array's current value)."""
    target, index, value = node.args
    current = cx.val(target)
    dtype = target.spec.dtype
    new = cx.as_dtype(cx.val(value), dtype)
    items = _items(index)
    if len(items) == 1 and _is_bool_node(items[0]):
        return jnp.where(cx.val(items[0]), new, current)
    return current.at[lower_index(cx, target.spec, index)].set(new)
