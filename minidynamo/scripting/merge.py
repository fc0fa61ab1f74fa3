"""Joining two compiled arms into a cond node, and two loop graphs into a while_loop node. Imports scripting.scope
and graph.

Values are flattened into leaves: graph values (Nodes) become outputs of the subgraphs, equal Python values
stay Python values, a Python scalar on one side and a graph scalar of the same type on the other becomes a
constant node in that arm. Anything else (an array against a number, two specs) is a ScriptError.
"""

from __future__ import annotations

import ast
from typing import Any

from ..graph import control, ops
from ..graph.ir import Graph, Node, PyScalarSpec
from .scope import Scope, canonical, const_node, positions

_LEAF = object()


def flatten(value: Any) -> tuple[list, Any]:
    """(graph-value leaves, template): the template is the value with each leaf replaced by _LEAF."""
    if isinstance(value, Node):
        return [value], _LEAF
    if isinstance(value, (tuple, list)):
        parts = [flatten(v) for v in value]
        return [leaf for p in parts for leaf in p[0]], type(value)(p[1] for p in parts)
    if isinstance(value, dict):
        parts = [flatten(v) for v in value.values()]
        return [leaf for p in parts for leaf in p[0]], _Dict(zip(value, (p[1] for p in parts)))
    return [], value


class _Dict(dict):
    """A dict in a template (told apart from a dict constant)."""


def rebuild(template: Any, leaves: list) -> Any:
    it = iter(leaves)

    def go(t: Any) -> Any:
        if t is _LEAF:
            return next(it)
        if isinstance(t, (tuple, list)):
            return type(t)(go(x) for x in t)
        if isinstance(t, _Dict):
            return {k: go(x) for k, x in t.items()}
        return t
    return go(template)


def _pair(cx: Any, node: ast.AST, a: Any, b: Any, sa: Scope, sb: Scope, out: list) -> Any:
    """Merge one pair of values; graph values are appended to `out` as (node in a, node in b)."""
    if isinstance(a, (tuple, list)) and type(a) is type(b) and len(a) == len(b):
        return type(a)(_pair(cx, node, x, y, sa, sb, out) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict) and list(a) == list(b):
        return _Dict({k: _pair(cx, node, a[k], b[k], sa, sb, out) for k in a})
    if not isinstance(a, Node) and not isinstance(b, Node):
        if type(a) is type(b) and repr(a) == repr(b):
            return a
        raise cx.fail(node, "values that differ between the two paths",
                      f"{a!r} on one path and {b!r} on the other: make them arrays or numbers of one type")
    if not isinstance(a, Node):
        a = _promote(cx, node, a, b, sa)
    if not isinstance(b, Node):
        b = _promote(cx, node, b, a, sb)
    if a.spec != b.spec:
        raise cx.fail(node, "values of different types on the two paths",
                      f"{a.spec} on one path and {b.spec} on the other; both paths must produce the same "
                      "shape and dtype (or the same Python type)")
    out.append((a, b))
    return _LEAF


def _promote(cx: Any, node: ast.AST, value: Any, other: Node, scope: Scope) -> Node:
    if isinstance(other.spec, PyScalarSpec) and type(value) is other.spec.type:
        return const_node(scope.graph, value)
    raise cx.fail(node, "values of different kinds on the two paths",
                  f"{value!r} on one path and a {other.spec} value on the other")


def build_cond(cx: Any, node: ast.AST, scope: Scope, pred: Node, arms: list) -> Any:
    """cond(pred) over two arms [(arm scope, value), (arm scope, value)]; returns the merged value."""
    (st, vt), (sf, vf) = arms
    pairs: list[tuple[Node, Node]] = []
    template = _pair(cx, node, vt, vf, st, sf, pairs)
    st.graph.set_outputs([st.lift_node(a) for a, _ in pairs])
    sf.graph.set_outputs([sf.lift_node(b) for _, b in pairs])
    operands = list(st.operands)
    for o in sf.operands:
        if all(o is not p for p in operands):
            operands.append(o)
    graphs = [canonical(s.graph, positions(s.operands, operands), operands) for s in (st, sf)]
    try:
        cond = control.add_cond(scope.graph, scope.lift_node(pred), graphs[0], graphs[1], tuple(operands))
    except ValueError as e:
        raise cx.fail(node, "this branch", f"{e} (eager Python would raise or behave differently)") from None
    cond.meta.update(scripted="if", lineno=getattr(node, "lineno", None))
    return rebuild(template, projections(scope, cond))


def projections(scope: Scope, node: Node, count: int | None = None) -> list[Node]:
    getitem = ops.get("getitem")
    specs = node.spec[:count] if count is not None else node.spec
    return [scope.graph.call("getitem", getitem.impl, (node, i), {}, spec=s) for i, s in enumerate(specs)]


def build_while(cx: Any, node: ast.AST, scope: Scope, carried: list[Node], test: Scope, pred: Any,
                body: Scope, ends: list[Any]) -> list[Node]:
    """while_loop over `carried` (nodes of `scope`): `test` and `body` are scopes whose first inputs stand for
    the carried values; returns the final carried values."""
    if not isinstance(pred, Node):
        raise cx.fail(node, "a loop test known when scripting", "a loop whose test never changes needs `break`, "
                                                                "which scripting does not support")
    outs = []
    for value, start in zip(ends, carried):
        if not isinstance(value, Node):
            value = _promote(cx, node, value, start, body)
        if value.spec != start.spec:
            raise cx.fail(node, "a loop variable that changes type",
                          f"it starts as {start.spec} and becomes {value.spec}; keep shape and dtype fixed")
        outs.append(body.lift_node(value))
    n = len(carried)
    unique: list[Node] = []
    for o in test.operands[n:] + body.operands[n:]:
        if all(o is not u for u in unique):
            unique.append(o)
    operands = carried + unique
    test.graph.set_outputs([test.lift_node(pred)])
    body.graph.set_outputs(outs)
    graphs = [canonical(s.graph, list(range(n)) + [n + i for i in positions(s.operands[n:], unique)], operands)
              for s in (test, body)]
    body_graph = graphs[1]      # invariants pass through the body unchanged
    body_graph.set_outputs(body_graph.outputs[:n] + list(body_graph.inputs[n:]))
    try:
        loop = control.add_while_loop(scope.graph, graphs[0], body_graph, tuple(operands))
    except ValueError as e:
        raise cx.fail(node, "this loop", str(e)) from None
    loop.meta.update(scripted="while", lineno=getattr(node, "lineno", None))
    return projections(scope, loop, n)


def loop_scope(scope: Scope, label: str, carried: list[Node]) -> Scope:
    """A scope for a loop's test or body whose first inputs are the carried values."""
    sub = Scope(Graph(f"{scope.graph.name}_{label}"), scope)
    for i, c in enumerate(carried):     # positional: two loop variables may start as the same value
        sub.graph.add_input(f"c{i}", c.spec)
        sub.operands.append(c)
    return sub
