"""RngVar: a random generator object the graph holds (np.random.Generator or RandomState), and the graph
input made for one read from the caller.

Imports graph.ir, graph.ops, guards and variables.base. A generator from before the call (an argument, a
global, an attribute) is a graph input read afresh on every call and guarded by its exact type, so each
call draws from whatever generator it is given; `np.random.default_rng(seed)` makes one inside the graph.
Each method call is an op flagged random (`Generator.normal(rng, ...)`): passes never fold, merge, drop or
reorder it, so the stream is consumed exactly as eagerly. A method or attribute without an op (`spawn`,
`bit_generator`, a draw returning a Python number) is a graph break: plain Python runs it, in order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ... import guards as G
from ...graph import ops
from ...graph.ir import MethodCall, Node, RngSpec
from ..breaks import BreakCategory
from .base import MethodVar, Var, unsupported

if TYPE_CHECKING:
    from ..context import CaptureContext
    from ..frame import Frame
    from ..sources import Source

RNG_TYPES = (np.random.Generator, np.random.RandomState)


class RngVar(Var):
    """A Generator or RandomState in the graph: `node` is its input or the default_rng node."""

    def __init__(self, node: Node, source: "Source | None" = None) -> None:
        self.node, self.source = node, source

    @property
    def spec(self) -> RngSpec:
        return self.node.spec

    def describe(self) -> str:
        return f"a {self.spec.type.__name__} object"

    def python_type(self) -> type:
        return self.spec.type

    def getattr(self, frame: "Frame", name: str) -> Var:
        if ops.rng_method(self.spec.type, name) is None:
            raise unsupported(BreakCategory.UNSUPPORTED,
                              f"{self.spec.type.__name__}.{name} is not captured (no op draws it)")
        return MethodVar(self, name)

    def call_method(self, frame: "Frame", name: str, args: list[Var], kwargs: dict[str, Var]) -> Var:
        opdef = ops.rng_method(self.spec.type, name)
        if opdef is None:
            raise unsupported(BreakCategory.UNSUPPORTED,
                              f"{self.spec.type.__name__}.{name} is not captured (no op draws it)")
        return frame.ctx.record(opdef, [self, *args], kwargs, target=MethodCall(name))

    def reconstruct(self, out: Any) -> str:
        return out.graph_value(self)


class RngClassVar(Var):
    """np.random.RandomState, the class: a constant (isinstance, type comparisons) that, called, makes a
    RandomState in the graph (op `random.RandomState`, like np.random.default_rng)."""

    def __init__(self, source: "Source | None" = None) -> None:
        self.source = source

    def describe(self) -> str:
        return "np.random.RandomState"

    def is_constant(self) -> bool:
        return True

    def as_constant(self) -> Any:
        return np.random.RandomState

    def python_type(self) -> type:
        return type

    def call(self, frame: "Frame", args: list[Var], kwargs: dict[str, Var]) -> Var:
        return frame.ctx.record(ops.get("random.RandomState"), args, kwargs, target=np.random.RandomState)

    def reconstruct(self, out: Any) -> str:
        return self.source.expr() if self.source is not None else out.constant(np.random.RandomState)


def rng_input(ctx: "CaptureContext", value: Any, source: "Source") -> RngVar:
    """A generator read from `source`: one graph input per source, guarded by its exact type."""
    expr = source.expr()
    known = ctx._inputs_by_expr.get(expr)
    if known is not None:
        return known
    ctx.guard([G.Guard(expr, G.GuardKind.TYPE, type(value), source.describe())])
    node = ctx.graph.add_input(ctx._input_name(source), RngSpec(type(value)))
    var = RngVar(node, source)
    ctx.inputs.append((source, node))
    ctx._inputs_by_expr[expr] = var
    ctx._alive.append(value)
    return var
