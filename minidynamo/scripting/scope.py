"""Scopes of the scripting compiler: the graph being built, the names in it, and how outer values enter an arm
or a loop body (lifted to subgraph inputs). Also op recording with meta rules. Imports graph and errors.

A value is a graph Node (an array, a NumPy scalar or a Python int/float/bool of PyScalarSpec) or a plain
Python object known at script time (a literal, a module, a function, a dtype), or a tuple/dict of values.
"""

from __future__ import annotations

import ast
import operator
from typing import Any, Callable

import numpy as np

from ..errors import ScriptError
from ..graph import ops
from ..graph.ir import ArraySpec, Graph, Node, PyScalarSpec, map_nodes
from ..graph.meta import MetaError

UNDEFINED = object()        # a name set on one path only (after an if, or inside a loop)


class Where:
    """Locates ScriptErrors: the function's file, its first line, and its source lines."""

    def __init__(self, filename: str, first_line: int, lines: list[str], function: str) -> None:
        self.filename, self.first_line, self.lines, self.function = filename, first_line, lines, function

    def error(self, node: ast.AST, construct: str, hint: str) -> ScriptError:
        line = getattr(node, "lineno", 1)
        text = self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""
        return ScriptError(construct, hint, filename=self.filename, lineno=self.first_line + line - 1,
                           source_line=text, function=self.function)


class Scope:
    """Names -> values while compiling one graph (the function body, one arm, a loop test or body).

    A child scope reads its parent's names; an outer Node it uses becomes one of its graph's inputs
    (`operands` are the outer nodes, in the order they were lifted)."""

    def __init__(self, graph: Graph, parent: "Scope | None" = None) -> None:
        self.graph, self.parent = graph, parent
        self.env: dict[str, Any] = {}
        self.operands: list[Node] = []
        self._lifted: dict[int, Node] = {}

    def owns(self, node: Node) -> bool:
        return 0 <= node.index < len(self.graph.nodes) and self.graph.nodes[node.index] is node

    def lookup(self, name: str) -> Any:
        if name in self.env:
            return self.env[name]
        if self.parent is None:
            raise KeyError(name)
        return self.lift(self.parent.lookup(name))

    def lift(self, value: Any) -> Any:
        if value is UNDEFINED:
            return value
        if isinstance(value, dict):
            return {k: self.lift(v) for k, v in value.items()}
        return map_nodes(value, self.lift_node)

    def lift_node(self, node: Node) -> Node:
        if self.owns(node):
            return node
        if self.parent is None:
            raise ValueError(f"{node.name} is not a value of this function")
        outer = self.parent.lift_node(node)
        mine = self._lifted.get(id(outer))
        if mine is None:
            mine = self.graph.add_input(f"a{len(self.operands)}", outer.spec)
            self._lifted[id(outer)] = mine
            self.operands.append(outer)
        return mine

    def assigned(self) -> dict[str, Any]:
        return dict(self.env)


def positions(own: list[Node], operands: list[Node]) -> list[int]:
    """Where each of `own` (distinct outer nodes) stands in `operands`."""
    return [next(i for i, o in enumerate(operands) if o is node) for node in own]


def canonical(graph: Graph, where: list[int], operands: list[Node]) -> Graph:
    """`graph` rebuilt so its inputs are exactly `operands` (unused ones included), its own i-th input
    becoming input `where[i]`: what cond arms and the two loop graphs must share."""
    new = Graph(graph.name)
    env: dict[int, Any] = {}
    inputs = graph.inputs
    fresh = [new.add_input(f"a{i}", o.spec) for i, o in enumerate(operands)]
    for i, node in enumerate(inputs):
        env[id(node)] = fresh[where[i]]
    for node in graph.nodes:
        if node.op == "input":
            continue
        look = lambda n: env[id(n)]  # noqa: E731
        if node.op == "const":
            copy = new.add_const(node.value)
            copy.spec = node.spec
        else:
            copy = new.call(node.op, node.target, map_nodes(node.args, look), map_nodes(node.kwargs, look),
                            spec=node.spec)
        copy.meta.update(node.meta)
        env[id(node)] = copy
    new.set_outputs([map_nodes(o, lambda n: env[id(n)]) for o in graph.outputs])
    return new


def const_node(graph: Graph, value: Any) -> Node:
    """A graph value for a Python int/float/bool or NumPy value known at script time (a loop counter's
    start): a const node whose spec says what it is."""
    node = graph.add_const(value)
    if type(value) in (int, float, bool):
        node.spec = PyScalarSpec(type(value))
    elif node.spec is None:
        raise TypeError(f"{type(value).__name__} cannot be a graph value")
    return node


# ---- specs ----------------------------------------------------------------------------------------------

def meta_arg(value: Any) -> Any:
    """What a meta rule sees for a value: an ArraySpec, or a Python scalar standing for a PyScalarSpec node
    (NumPy treats Python scalars as weak, so their value does not change the result dtype)."""
    if isinstance(value, Node):
        if isinstance(value.spec, PyScalarSpec):
            return value.meta.get("value", value.spec.type(1))
        return value.spec
    if isinstance(value, np.generic):
        return ArraySpec.of(value)
    if isinstance(value, tuple):
        return tuple(meta_arg(v) for v in value)
    if isinstance(value, list):
        return [meta_arg(v) for v in value]
    if isinstance(value, slice):
        return slice(meta_arg(value.start), meta_arg(value.stop), meta_arg(value.step))
    return value


def has_array(values: Any) -> bool:
    found = []
    map_nodes(values, lambda n: found.append(isinstance(n.spec, ArraySpec)) or n)
    return any(found)


# Result type of Python scalar arithmetic (no array involved), from the operand types.
_COMPARE = {operator.lt, operator.le, operator.eq, operator.ne, operator.gt, operator.ge}


def python_result_type(fn: Callable, types: list[type]) -> type | None:
    """The type `fn(a, b)` has for Python scalars of these types, or None when it depends on the values
    (int ** int is a float for negative exponents)."""
    if fn in _COMPARE or fn is operator.not_:
        return bool
    if any(t is complex for t in types):
        return complex
    if any(t is float for t in types):
        return float
    if fn is operator.truediv:
        return float
    if fn is operator.pow:
        return None
    if fn in (operator.and_, operator.or_, operator.xor, operator.invert) and all(t is bool for t in types):
        return bool
    return int


def record(scope: Scope, opdef: ops.OpDef, target: Any, args: tuple, kwargs: dict) -> Any:
    """Append `target(*args, **kwargs)` as an `opdef.name` node (its spec from the meta rule); a result with
    several parts comes back as a tuple of projections. MetaError means NumPy would raise: ValueError."""
    if opdef.mutates or "out" in kwargs:
        raise MetaError(f"{opdef.name} writes its argument in place")
    spec = opdef.meta(*meta_arg(args), **{k: meta_arg(v) for k, v in kwargs.items()})
    if opdef.user:      # a registered function: its result is checked against the rule's spec when it runs
        target = opdef.impl.at(spec)    # (graph/user_ops.py): a wrong rule raises MetaMismatch, never misleads
    node = scope.graph.call(opdef.name, target, args, kwargs, spec=spec)
    if isinstance(spec, tuple):
        getitem = ops.get("getitem")
        return tuple(scope.graph.call("getitem", getitem.impl, (node, i), {}, spec=s) for i, s in enumerate(spec))
    return node


def record_python(scope: Scope, name: str, fn: Callable, args: tuple) -> Node:
    """Python scalar arithmetic (no array involved) as an operator node of PyScalarSpec."""
    types = [a.spec.type if isinstance(a, Node) else type(a) for a in args]
    result = python_result_type(fn, types)
    if result is None:
        raise MetaError(f"the type of {name} on Python {'/'.join(t.__name__ for t in types)} depends on the values")
    node = scope.graph.call(name, fn, args, {}, spec=PyScalarSpec(result))
    values = [a.meta.get("value", _UNKNOWN) if isinstance(a, Node) else a for a in args]
    if all(v is not _UNKNOWN for v in values):
        try:      # ints are keyed by value (scripted.py), so a value derived from them is exact: d // n_heads
            node.meta["value"] = fn(*values)
        except Exception:
            pass
    return node


_UNKNOWN = object()
