"""`x[mask]` with a boolean mask the graph computes: its length is the mask's True count, a symbol with no
source (graph/symbolic.py's create_count) that takes any value from 0 to the mask's size. Imports graph only.

The graph then holds the selection and what follows it (`Z[I] = Z[I] ** 2 + C[I]`: mandelbrot's escape
loop, nbody's `r[r > 0] ** -1.5`) as NumPy computes it, on the selected elements only, so results, warnings
and exceptions are eager's; any decision on the count (a Python `if len(sel)`, a shape that must equal
another's, a rule that needs a concrete size) cannot be guarded and breaks (on_varying, VALUE_SHAPE). One
symbol per mask node, so every selection by the same mask has the same length and selections by two masks
never share one; np.nonzero (one-argument np.where) of a node gives index arrays of that node's symbol. A
branch on a count one of whose ways only raises (`assert len(X[X < 0]) == 0`) is speculated instead
(capture/fold/speculation.py). Only for backends that run NumPy's own code (api passes `mask_counts`): engines that need
static shapes keep the break before the selection.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..graph.ir import ArraySpec, Node
from . import break_codes as codes
from .variables.base import unsupported


def install(ctx: Any) -> None:
    """A new capture: no counts yet, off until capture_function turns them on (`ctx.mask_counts`), and
    decisions that differ over a count's (or a folded loop index's) range break, as a VALUE_SHAPE."""
    ctx.mask_counts = False
    ctx.counts = {}                 # id(mask node) -> (the node, its count symbol)
    ctx.shape_env.on_varying = _varying


def _varying(text: str) -> None:
    raise unsupported(codes.VALUE_SHAPE, f"`{text}` depends on a value known only when the graph runs (a "
                      "mask's True count, a folded loop's index)")


def hand_count(ctx: Any, op: str, g_args: tuple, s_kwargs: dict) -> None:
    """Give getitem's rule the count symbol of the one mask node its index holds, and np.nonzero's (and
    one-argument np.where's) the count of its array's nonzero items (`mask_count=`): one symbol per node, so
    `x[m]` and `np.nonzero(m)` have the same length."""
    if not ctx.mask_counts:
        return
    if op in ("nonzero", "where") and len(g_args) == 1 and isinstance(g_args[0], Node) \
            and isinstance(g_args[0].spec, ArraySpec) and g_args[0].spec.ndim > 0:
        s_kwargs["mask_count"] = _count(ctx, g_args[0])
        return
    if op != "getitem" or len(g_args) != 2:
        return
    items = g_args[1] if isinstance(g_args[1], tuple) else (g_args[1],)
    masks = [i for i in items if isinstance(i, Node) and isinstance(i.spec, ArraySpec)
             and i.spec.dtype == np.bool_ and i.spec.ndim > 0]
    if len(masks) != 1:
        return
    s_kwargs["mask_count"] = _count(ctx, masks[0])


def _count(ctx: Any, mask: Node) -> Any:
    known = ctx.counts.get(id(mask))
    if known is None:
        known = ctx.counts[id(mask)] = (mask, ctx.shape_env.create_count(mask.spec.size))
    return known[1]
