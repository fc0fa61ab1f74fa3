"""LazyArrayVar: a dask array (or a value computed from one) in the graph. Imports variables.array (the
dask backend's table answers through graph/lazy_values.py; nothing here imports dask or a backend).

A dask array with known chunks is captured like an ndarray of the same shape and dtype, but only into ops
whose dask.array implementation gives NumPy's shape, dtype and values (`lazy_values.refusal`): anything
else (an in-place write, a NumPy-only function, a dask method such as `.rechunk()`) is a graph break, so
it runs as the plain Python it is and the captured code never differs from what dask itself would do. A
reduction of a dask array is a 0-d dask array, not a NumPy scalar; `type(v)` is the dask class.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...graph.ir import Node
from ..breaks import BreakCategory
from .array import _SPEC_ATTRS, ArrayMethodVar, ArrayVar
from .base import Var, unsupported

if TYPE_CHECKING:
    from ..frame import Frame


class LazyArrayVar(ArrayVar):
    """A graph value that is a dask array at run time; `node.meta["lazy"]` holds the dask array class."""

    def __init__(self, node: Node, source: Any = None, cls: type | None = None) -> None:
        super().__init__(node, source)
        if cls is not None:
            node.meta["lazy"] = cls

    def describe(self) -> str:
        return f"dask array {self.spec}"

    def python_type(self) -> type:
        return self.node.meta["lazy"]

    def getattr(self, frame: "Frame", name: str) -> Var:
        if name in _SPEC_ATTRS or name in ("T", "size", "nbytes"):
            return super().getattr(frame, name)
        if callable(getattr(self.python_type(), name, None)):
            return ArrayMethodVar(self, name)      # recorded only if the method lowers (see ctx.record)
        raise unsupported(BreakCategory.UNSUPPORTED, f"attribute {name!r} of a dask array is not modelled")

    def setitem(self, frame: "Frame", key: Var, value: Var) -> None:
        raise unsupported(BreakCategory.UNSUPPORTED, "item assignment into a dask array rebuilds it: runs as Python")
