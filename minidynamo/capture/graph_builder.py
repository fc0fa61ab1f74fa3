"""GraphBuilder: the part of CaptureContext that records graph ops: `record(opdef, args, kwargs, target)`
appends an op node (meta rule, symbolic ints specialized where the rule needs values, dask refusals, try
regions, writes) and returns its result's Var. Imports graph, capture.op_meta and capture.variables.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..graph import lazy_values, ops
from ..graph.errstate import ERRSTATE
from ..graph.ir import ArraySpec, Node, PyScalarSpec, RngSpec, iter_nodes, map_nodes
from . import break_codes as codes, mask_counts
from .breaks import BreakCategory
from .op_meta import PY_INT, meta_spec, value_ints
from .variables.array import ArrayVar
from .variables.base import Var, unsupported
from .variables.const import ConstVar
from .variables.containers import ListVar, SliceVar, TupleVar
from .variables.lazy_array import LazyArrayVar
from .variables.rng import RngVar
from .variables.scalar import ScalarVar


class GraphBuilder:
    """CaptureContext's graph builder (mixed into it): Vars as graph arguments, one op node per record()."""

    def to_arg(self, var: Var) -> Any:
        """The graph argument for a Var: a Node for arrays, the value for constants, nested for containers."""
        if isinstance(var, (ArrayVar, ScalarVar, RngVar)):
            return var.node
        if isinstance(var, TupleVar):
            return tuple(self.to_arg(v) for v in var.items)
        if isinstance(var, ListVar):
            return [self.to_arg(v) for v in var.items]
        if isinstance(var, SliceVar):
            return slice(*(self.known.slice_bound(p, self.to_arg) for p in var.parts))
        if var.is_constant():
            return var.as_constant()
        raise unsupported(BreakCategory.UNSUPPORTED, f"{var.describe()} cannot be an argument of a graph op")

    def note_in_try(self, node: Node) -> None:
        """A node that may raise, inside a try/with region (the instruction being executed, in the active
        frame or a frame that inlined it, is covered by an exception-table entry: a try, except, finally or
        with region): its exception re-runs eagerly, writes undone (stitch/guarded_call.py)."""
        frame = self.active_frame
        while frame is not None and not frame.ins.in_try[frame.current]:
            frame = frame.parent
        if frame is not None:
            self.nodes_in_try.append(node)

    def record(self, opdef: ops.OpDef, args: list[Var], kwargs: dict[str, Var], target: Any) -> Var:
        """Append `target(*args, **kwargs)` as an `opdef.name` node; returns the result's Var."""
        g_args = tuple(self.to_arg(a) for a in args)
        g_kwargs = {k: self.to_arg(v) for k, v in kwargs.items()}
        lazy = next((n.meta["lazy"] for n in iter_nodes((g_args, g_kwargs)) if "lazy" in n.meta), None)
        if lazy is not None:    # an op on a dask value is captured only if dask computes what NumPy would
            why = lazy_values.refusal(opdef.name, target, g_args, g_kwargs) or (
                "dask computes it later, outside `with np.errstate(...)`" if self.errstate else None)
            if why is not None:
                raise unsupported(BreakCategory.UNSUPPORTED, f"{opdef.name} on a dask array: {why}")
        values = value_ints(opdef.name, args, kwargs)
        if not opdef.symbolic or not (opdef.symbolic_ints or opdef.weak_int_operands):
            # A rule that knows no symbols gets concrete values: symbolic sizes and unspecialized ints
            # are specialized here, each with its guard (an int may become a size, an index, an axis).
            # So does a symbolic rule whose ints are not all weak operands (`x.sum(axis=k)`, `np.stack(xs, k)`).
            for var in _scalar_vars(list(args) + list(kwargs.values())):
                if type(var.value) is int and not (var.is_runtime_only() and id(var.node) in values):
                    var.as_constant()
        late = [v for v in _scalar_vars(list(args) + list(kwargs.values()))
                if v.is_runtime_only() and type(v.value) is int and id(v.node) not in values] \
            if opdef.symbolic_ints else []
        if late:
            raise unsupported(codes.VALUE_SHAPE, f"{opdef.name}: a size or bound from a Python "
                              f"number known only at run time ({late[0].runtime_origin()})")
        # Meta rules see arrays as specs and unspecialized scalars as their capture-time value (a weak
        # Python scalar, as NumPy treats them), or as their symbol when the rule understands symbols.
        to_spec = lambda n: PY_INT if id(n) in values else _meta_value(n, opdef.symbolic_ints)  # noqa: E731
        s_args = [_spec_of_constant(a) for a in map_nodes(g_args, to_spec)]
        s_kwargs = {k: _spec_of_constant(v) for k, v in map_nodes(g_kwargs, to_spec).items()}
        mask_counts.hand_count(self, opdef.name, g_args, s_kwargs)
        spec = meta_spec(opdef, self.shape_env, s_args, s_kwargs)
        if lazy is not None:    # dask reduces to a 0-d dask array where NumPy gives a NumPy scalar
            spec = _unscalar(spec)
        node = self.graph.call(opdef.name, opdef.impl.at(spec) if opdef.user else target, g_args, g_kwargs, spec=spec)
        if self.errstate:
            node.meta[ERRSTATE] = tuple(self.errstate)
        mutating = bool(opdef.mutates) or "out" in g_kwargs
        if mutating:
            self.mutating_nodes.append(node)
            node.meta["writes"] = opdef.mutates     # argument positions written (stitch/snapshots.py)
        self.known.note(opdef, target, args, kwargs, node, spec, mutating)
        if opdef.checks or opdef.user:     # its exception must re-run eagerly (a user op's: a wrong meta rule)
            self.nodes_in_try.append(node)
        else:
            self.note_in_try(node)
        if spec is None:
            return ConstVar(None)
        if isinstance(spec, RngSpec):
            return RngVar(node)
        if isinstance(spec, PyScalarSpec):     # `np.random.uniform()`: a Python number known at run time only
            return ScalarVar.runtime(node, spec.type(1), f"the Python number `{opdef.name}` returns")
        make = (lambda n: LazyArrayVar(n, cls=lazy)) if lazy is not None else ArrayVar
        if isinstance(spec, tuple):
            getitem = ops.get("getitem")
            parts = []
            for i, s in enumerate(spec):
                parts.append(make(self.graph.call(getitem.name, getitem.impl, (node, i), {}, spec=s)))
            return ListVar(parts) if opdef.name in ops.LIST_RESULTS else TupleVar(parts)
        return make(node)


def _unscalar(spec: Any) -> Any:
    if isinstance(spec, tuple):
        return tuple(_unscalar(s) for s in spec)
    return ArraySpec((), spec.dtype) if isinstance(spec, ArraySpec) and spec.scalar else spec


def _meta_value(node: Node, symbolic: bool) -> Any:
    if isinstance(node.spec, PyScalarSpec):
        return node.meta.get("sym", node.meta["value"]) if symbolic else node.meta["value"]
    return node.spec


def _scalar_vars(values: list[Var]) -> list[ScalarVar]:
    """The unspecialized scalars among meta-rule arguments, also inside tuples, lists and slices."""
    out: list[ScalarVar] = []
    for v in values:
        if isinstance(v, ScalarVar):
            out.append(v)
        elif isinstance(v, (TupleVar, ListVar)):
            out += _scalar_vars(list(v.items))
        elif isinstance(v, SliceVar):
            out += _scalar_vars(list(v.parts))
    return out


def _spec_of_constant(value: Any) -> Any:
    """NumPy scalar constants take part in promotion as arrays (not weak like Python scalars)."""
    if isinstance(value, np.generic):
        return ArraySpec.of(value)
    return value
