"""A list or a range read whole as an array index (`wte[tokens]`, `wpe[range(len(tokens))]`) whose length is
dynamic: a graph input or an `arange` node instead of a constant index, so a sequence that grows by one token
per call is served by one capture. Imports capture variables only.

NumPy turns a list index into an array (`np.asarray`, an empty list into an intp array) and a range index
likewise, so `x[lst]` is `x[as_index(lst)]` and `x[range(a, b, c)]` is `x[np.arange(a, b, c)]`, results and
errors alike (an index out of bounds raises IndexError inside the graph, which then re-runs eagerly). Only a
list that converts to a 1-d intp array takes this path (booleans masks, floats and nested lists keep theirs);
the entry converts the caller's list on every call and the guards check what the conversion gave (type,
rank, dtype, the length symbolic). The length is dynamic with dynamic=True, or once a list's length guard
failed (automatic dynamic, api.py); dynamic=False never.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ...graph import ops
from .base import Var
from .hooks import HOOKS
from ..sources import CallSource
from .lazy_list import LazyListVar
from .sym_range import SymRangeVar

if TYPE_CHECKING:
    from ..frame import Frame


def as_index(lst: list) -> np.ndarray:
    """The array NumPy makes of a list used as an index."""
    return np.asarray(lst) if lst else np.empty(0, np.intp)


@HOOKS.provide
def dynamic_index(frame: "Frame", key: Var) -> Var:
    """`key` as an index array when it is a list or range of dynamic length (else `key` itself)."""
    ctx = frame.ctx
    if isinstance(key, SymRangeVar):
        return ctx.record(ops.REGISTRY["arange"], [key.start, key.stop, key.step], {}, target=np.arange)
    if not (isinstance(key, LazyListVar) and key.unread() and ctx.shape_policy.mode is not False and
            (ctx.shape_policy.mode is True or key.source.expr() in ctx.dynamic)):
        return key
    try:
        value = as_index(key.real_list())
    except (ValueError, TypeError, OverflowError):     # (ragged: NumPy's own error comes from the index)
        return key
    if value.dtype != np.intp or value.ndim != 1:
        return key
    source = CallSource(key.source, ctx.bind(as_index, "as_index"), "{} as an index array")
    dims = {0: "list length"} if len(value) >= 2 else {}
    return ctx.array_input(value, source, dims)
