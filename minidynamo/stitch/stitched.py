"""The compiled body of one cache entry, as Python source: call the graph on inputs read from their
sources, write back side effects, rebuild the return value. Imports capture (Vars, context) and graph.ir.

A whole-frame capture needs no bytecode surgery: the body is straight-line Python, so `explain()` shows
exactly what runs. (Resume functions after a graph break are where `bytecode` emission comes in.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..capture.context import CaptureContext
from ..capture.variables.array import ArrayVar
from ..capture.variables.base import Var
from ..capture.variables.const import is_literal
from ..capture.variables.containers import DictVar, ListVar
from ..capture.variables.objects import UserObjectVar
from ..graph.ir import INPUT, Graph, Node


@dataclass
class EntryBody:
    """Source lines of an entry body (indented by the dispatcher) plus the names they use."""

    lines: list[str]
    namespace: dict[str, Any]
    graph: Graph
    graph_key: str
    mutates: bool                       # the graph writes into arrays: never re-run it after a failure
    outputs: list[Node] = field(default_factory=list)


class Emitter:
    """Turns Vars into expressions of the entry body: graph outputs, sources, constants."""

    def __init__(self, ctx: CaptureContext) -> None:
        self.ctx = ctx
        self.outputs: list[Node] = []
        self._index: dict[int, int] = {}
        self._input_sources = {id(node): src for src, node in ctx.inputs}

    def graph_value(self, var: ArrayVar) -> str:
        node = var.node
        if node.op == INPUT:
            return self._input_sources[id(node)].expr()      # the caller's own object: identity kept
        i = self._index.get(id(node))
        if i is None:
            i = self._index[id(node)] = len(self.outputs)
            self.outputs.append(node)
        return f"___o[{i}]"

    def constant(self, value: Any) -> str:
        if is_literal(value) and not isinstance(value, tuple):
            return repr(value)
        return self.ctx.bind(value, "k")


def _writeback(var: Var, em: Emitter, temps: list[str], writes: list[str]) -> None:
    """Compute the new contents of a mutated object into a temp, then write it into the real object."""
    target = var.source.expr()
    t = f"___t{len(temps)}"
    if isinstance(var, ListVar):
        temps.append(f"{t} = [{', '.join(v.reconstruct(em) for v in var.items)}]")
        writes.append(f"{target}[:] = {t}")
    elif isinstance(var, DictVar):
        pairs = ", ".join(f"{em.constant(k)}: {v.reconstruct(em)}" for k, v in var.items.items())
        temps.append(f"{t} = {{{pairs}}}")
        writes += [f"{target}.clear()", f"{target}.update({t})"]
    elif isinstance(var, UserObjectVar):
        values = ", ".join(v.reconstruct(em) for v in var.writes.values())
        temps.append(f"{t} = ({values},)")
        writes += [f"{target}.{name} = {t}[{i}]" for i, name in enumerate(var.writes)]


def writeback_lines(ctx: CaptureContext, em: Emitter) -> tuple[list[str], list[str]]:
    """(temps, writes): new contents of every mutated object and written global, computed first, then
    written into the caller's objects in the order they were first mutated."""
    temps: list[str] = []
    writes: list[str] = []
    for var in ctx.side_effects.objects:
        if var.source is not None:
            _writeback(var, em, temps, writes)
    for (gkey, name), var in ctx.side_effects.globals.items():
        t = f"___t{len(temps)}"
        temps.append(f"{t} = {var.reconstruct(em)}")
        writes.append(f"{gkey}[{name!r}] = {t}")
    return temps, writes


def build_body(ctx: CaptureContext, result: Var) -> EntryBody:
    """Lines of the entry body for a finished capture whose function returned `result`."""
    em = Emitter(ctx)
    temps, writes = writeback_lines(ctx, em)
    ret = result.reconstruct(em)
    ctx.graph.set_outputs(em.outputs)
    graph_key = f"___{ctx.tag}graph"
    args = ", ".join(src.expr() for src, _ in ctx.inputs)
    lines = [f"___o = {graph_key}({args})"] if em.outputs or ctx.mutating_nodes else []
    lines += temps + writes + [f"return {ret}"]
    return EntryBody(lines, ctx.namespace, ctx.graph, graph_key, bool(ctx.mutating_nodes), em.outputs)
