"""Running traced graphs: `run(graph, inputs)` (graph.interp's checked evaluator), `check_guards`, TraceGuard.

Imports graph and numpy. Both entry points check the inputs first (names, types, shapes, dtypes), because a
traced graph has its shapes baked in: a [4, 8] graph says nothing about a [5, 8] input. `run` raises
ValueError on such an input; `check_guards` answers False (trace again).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from ..graph.interp import run   # tracing's `run` is the reference evaluator, re-exported as is
from ..graph.ir import CONST, INPUT, ArraySpec, Graph, Node, format_arg, map_nodes
from .proxy import CONVERSIONS


def check_guards(graph: Graph, inputs: Mapping[str, np.ndarray]) -> bool:
    """True when `graph` is valid for these inputs: same shapes and dtypes, and every guard recorded by
    `trace(..., mode="guard")` evaluates as it did while tracing. False means: trace again."""
    if not isinstance(graph, Graph):
        raise TypeError(f"check_guards(graph, inputs): graph must be a Graph (from trace()), got {type(graph).__name__}")
    if not _shapes_match(graph, inputs):
        return False   # shapes are baked in, so a new shape needs a new trace just like a failed guard
    return all(guard.check(inputs) for guard in graph.guards)


def _shapes_match(graph: Graph, inputs: Any) -> bool:
    """Raise on wrong names or non-array values; False when a shape or dtype differs from the graph's."""
    if not isinstance(inputs, Mapping):
        raise TypeError(f"graph {graph.name}: inputs must be a dict by input name, got {type(inputs).__name__}")
    names = graph.input_names
    missing = [n for n in names if n not in inputs]
    extra = [k for k in inputs if k not in names]
    if missing or extra:
        parts = ([f"missing {', '.join(map(repr, missing))}"] if missing else []) + \
                ([f"unexpected {', '.join(map(repr, extra))}"] if extra else [])
        raise ValueError(f"graph {graph.name}: {'; '.join(parts)} (inputs are {names})")
    for node in graph.inputs:
        if not isinstance(inputs[node.name], np.ndarray):
            raise TypeError(f"graph {graph.name}: input {node.name!r} must be a numpy.ndarray, "
                            f"got {type(inputs[node.name]).__name__}")
    return all(node.spec.matches(inputs[node.name]) for node in graph.inputs)


def node_expr(node: Node) -> str:
    """`greater(%2, 0)`: how a node's computation reads in a guard."""
    if not node.is_call:
        return node.name
    parts = [format_arg(a) for a in node.args] + [f"{k}={format_arg(v)}" for k, v in node.kwargs.items()]
    return f"{node.op}({', '.join(parts)})"


def prefix_graph(graph: Graph, target: Node, name: str) -> Graph:
    """A new graph with all of `graph`'s inputs that computes only `target` (and what it depends on)."""
    needed = {target}
    for node in reversed(graph.nodes[: target.index + 1]):
        if node in needed:
            needed.update(node.inputs())
    out = Graph(name)
    copies: dict[Node, Node] = {}
    for node in graph.nodes[: target.index + 1]:
        if node.op == INPUT:
            copies[node] = out.add_input(node.name, node.spec)
        elif node in needed:
            if node.op == CONST:
                copies[node] = out.add_const(node.value)
            else:
                copies[node] = out.call(node.op, node.target, map_nodes(node.args, copies.__getitem__),
                                        map_nodes(node.kwargs, copies.__getitem__), spec=node.spec)
    out.set_outputs([copies[target]])
    return out


@dataclass
class TraceGuard:
    """A value the trace read and followed: `kind(expr)` was `expected` on the example input.

    `condition` is a small graph over the traced graph's inputs that recomputes the value, so the guard can
    be checked on new inputs without running the rest of the graph.
    """

    condition: Graph
    kind: str            # which conversion Python asked for: "bool" (an `if`), "float", "int", "item", ...
    expected: Any
    expr: str            # the guarded node's computation, in the names of `condition`
    where: str           # "file.py:12 if s > 0:"

    def check(self, inputs: Mapping[str, Any]) -> bool:
        got = CONVERSIONS[self.kind](run(self.condition, inputs)[0])
        if self.kind in ("array", "tolist"):
            return bool(np.array_equal(got, self.expected, equal_nan=True))
        return got == self.expected or (got != got and self.expected != self.expected)   # NaN == NaN here

    def __str__(self) -> str:
        relation = "is" if self.kind == "bool" else "=="
        shown = f"<{ArraySpec.of(self.expected)}>" if self.kind == "array" else repr(self.expected)
        return f"{self.kind}({self.expr}) {relation} {shown}  # {self.where}"

    __repr__ = __str__
