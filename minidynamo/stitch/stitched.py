"""The compiled body of one cache entry, as Python source: call the graph on inputs read from their
sources, write back side effects, rebuild the return value. Imports capture (Vars, context) and graph.ir.

A whole-frame capture needs no bytecode surgery: the body is straight-line Python, so `explain()` shows
exactly what runs. (Resume functions after a graph break are where `bytecode` emission comes in.)
"""

from __future__ import annotations

import types
from dataclasses import dataclass, field
from typing import Any

from ..capture.context import CaptureContext
from ..capture.variables.array import ArrayVar
from ..capture.variables.base import Var
from ..capture.variables.const import is_literal
from ..capture.variables.containers import DictVar, ListVar, SequenceVar
from ..capture.variables.functions import CellBox
from ..capture.variables.objects import UserObjectVar
from ..graph.ir import INPUT, Graph, Node
from .entry import Code, Exit, Stmt, assign


@dataclass
class EntryBody:
    """The statements of an entry body (stitch/entry.py; rendered by the dispatcher) plus the names they use;
    `calls_graph`: the first statement calls the graph (`___o = <graph>(...)`)."""

    statements: list[Stmt]
    namespace: dict[str, Any]
    graph: Graph
    graph_key: str
    mutates: bool                       # the graph writes into arrays: never re-run it after a failure
    outputs: list[Node] = field(default_factory=list)
    calls_graph: bool = False


_NUMBER_REST = frozenset("0123456789.e+-")


def _stable(expr: str) -> bool:
    """Whether `expr` reads nothing a write-back could change: the name of a parameter or temp, a graph
    output, a plain literal (a number, a string without quotes or backslashes inside). Anything else is
    evaluated once, in the prelude, before any write-back. (Called on expressions Emitter.build spelled.)"""
    if not expr:
        return False
    if expr.isascii() and expr.isidentifier():      # (an ASCII identifier: [A-Za-z_][A-Za-z0-9_]*)
        return True
    if expr.startswith("___o[") and expr.endswith("]"):
        return expr[5:-1].isdecimal()
    number = expr[1:] if expr[0] == "-" else expr
    if number[:1].isascii() and number[:1].isdigit() and _NUMBER_REST.issuperset(number):
        return True
    quote = expr[0]
    return quote in "'\"" and len(expr) >= 2 and expr[-1] == quote and quote not in expr[1:-1] \
        and "\\" not in expr


_UNSUBSCRIPTABLE_LITERALS = (int, float, complex, bool, type(None), type(Ellipsis))


class Emitter:
    """Turns Vars into expressions of the entry body: graph outputs, sources, constants.

    `value(var)` gives each Var one expression for the whole body: a fresh container is built once (two
    names for one list stay one list, `a is b` holds for a tuple), and a value read from a source
    (`obj.w`, `lst[0]`, a global) is read in the prelude, which runs right after the graph and before any
    write-back, so it is the value the function read, not the one a write-back stored there since."""

    def __init__(self, ctx: CaptureContext) -> None:
        self.ctx = ctx
        self.outputs: list[Node] = []
        self._index: dict[int, int] = {}
        self._input_sources = {id(node): src for src, node in ctx.inputs}
        self.prelude: list[Code] = []
        self._memo: dict[int, tuple[Var, str]] = {}     # the Var is kept alive so its id stays unique

    def value(self, var: Var) -> str:
        hit = self._memo.get(id(var))
        if hit is not None:
            return hit[1]
        expr = self.build(var)
        if not _stable(expr):
            t = f"___v{len(self.prelude)}"
            self.prelude.append(assign(t, expr, temp=True))
            expr = t
        self._memo[id(var)] = (var, expr)
        return expr

    def subject(self, var: Var) -> str:
        """value(var) where the expression is subscripted or called: a literal number, bool, None or
        Ellipsis there is a bound name, since compile() warns (SyntaxWarning: `1.0[0]`, `None()`) where eager
        Python only raises when the instruction runs."""
        if var.is_constant() and type(var.as_constant()) in _UNSUBSCRIPTABLE_LITERALS:
            return self.ctx.bind(var.as_constant(), "k")
        return self.value(var)

    def cell(self, box: CellBox) -> str:
        """The real cell of a capture cell: the existing one, or one made in the prelude (empty first, so a
        function in its own cell can refer to it) holding the cell's final value."""
        if box.real is not None:
            return box.key or self.constant(box.real)
        hit = self._memo.get(id(box))
        if hit is not None:
            return hit[1]
        t = f"___c{len(self.prelude)}"
        self.prelude.append(assign(t, f"{self.constant(types.CellType)}()"))
        self._memo[id(box)] = (box, t)
        if box.value is not None:
            contents = self.value(box.value)
            self.prelude.append(Code(f"{t}.cell_contents = {contents}"))
        return t

    def build(self, var: Var) -> str:
        """The expression that computes var (its items through value())."""
        if getattr(var, "source", None) is None:
            if isinstance(var, SequenceVar) and var.python_type() in (tuple, list):   # not a NamedTuple
                inner = ", ".join(self.value(v) for v in var.items)
                named = getattr(var, "cls", None)       # a NumPy named-tuple result (QRResult, ...)
                if named is not None:
                    return f"{self.constant(named)}({inner})"
                if var.kind is tuple:
                    return f"({inner},)" if len(var.items) == 1 else f"({inner})"
                return f"[{inner}]"
            if isinstance(var, DictVar):
                return "{" + ", ".join(f"{self.constant(k)}: {self.value(v)}" for k, v in var.items.items()) + "}"
        return var.reconstruct(self)

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


def _writeback(var: Var, em: Emitter, temps: list[Code], writes: list[Code]) -> None:
    """Write the new contents of a mutated object into the real object. Every value is a stable name (a
    graph output, a parameter, a prelude temp read before any write-back), so the writes use them directly;
    the target itself is found before any write-back too (`lst[0]` may be replaced)."""
    target = em.value(var)
    appended = getattr(var, "appended_only", lambda: None)()
    if appended is not None:       # only appends, old items never read: append, without reading them
        items = [em.value(v) for v in appended]
        writes.append(Code(f"{target}.append({items[0]})" if len(items) == 1 else
                           f"{target}.extend(({', '.join(items)},))"))
    elif isinstance(var, ListVar):
        writes.append(Code(f"{target}[:] = [{', '.join(em.value(v) for v in var.items)}]"))
    elif getattr(var, "changed_only", lambda: None)() is not None:   # existing keys assigned: one by one
        writes += [Code(f"{target}[{em.constant(k)}] = {em.value(v)}") for k, v in var.changed_only().items()]
    elif isinstance(var, DictVar):
        pairs = ", ".join(f"{em.constant(k)}: {em.value(v)}" for k, v in var.items.items())
        t = f"___t{len(temps)}"
        temps.append(assign(t, f"{{{pairs}}}", temp=True))
        writes += [Code(f"{target}.clear()"), Code(f"{target}.update({t})")]
    elif isinstance(var, UserObjectVar):
        writes += [Code(f"{target}.{name} = {em.value(v)}") for name, v in var.writes.items()]


def writeback_lines(ctx: CaptureContext, em: Emitter) -> tuple[list[Code], list[Code]]:
    """(temps, writes): new contents of every mutated object and written global, computed first, then
    written into the caller's objects in the order they were first mutated."""
    temps: list[Code] = []
    writes: list[Code] = []
    for var in ctx.side_effects.objects:
        if var.source is not None:
            _writeback(var, em, temps, writes)
    for (gkey, name), var in ctx.side_effects.globals.items():
        writes.append(Code(f"{gkey}[{name!r}] = {em.value(var)}"))
    for box in ctx.side_effects.cells:      # nonlocal writes into cells that exist outside the capture
        writes.append(Code(f"{em.cell(box)}.cell_contents = {em.value(box.value)}"))
    return temps, writes


def build_body(ctx: CaptureContext, result: Var) -> EntryBody:
    """The entry body for a finished capture whose function returned `result`."""
    em = Emitter(ctx)
    temps, writes = writeback_lines(ctx, em)
    ret = em.value(result)
    return entry_body(ctx, em, [*temps, *writes, Exit(f"return {ret}")])


def entry_body(ctx: CaptureContext, em: Emitter, stmts: list[Stmt]) -> EntryBody:
    """Fix the graph's outputs (everything `stmts` read through `em`) and put the graph call first.

    The graph is called whenever it holds any operation, also one whose result nothing reads: every
    operation the program executed must run, because it may raise (a singular matrix, an index out of
    range) or warn. No pass removes such a node from a captured graph."""
    ctx.graph.set_outputs(em.outputs)
    graph_key = f"___{ctx.tag}graph"
    args = ", ".join(src.expr() for src, _ in ctx.inputs)
    has_ops = any(node.is_call for node in ctx.graph.nodes)
    head = [assign("___o", f"{graph_key}({args})")] if has_ops else []
    return EntryBody([*head, *em.prelude, *stmts], ctx.namespace, ctx.graph, graph_key,
                     bool(ctx.mutating_nodes), em.outputs, has_ops)
