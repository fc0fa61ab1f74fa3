"""Lowering of `cond` / `while_loop` nodes (graph/control.py) to lax.cond / lax.while_loop, NumPy's semantics
kept.

Imports jax (and engine.py lazily: it traces each subgraph like a graph of its own). The data checks and
finite checks (finite.py) of a subgraph are computed inside the arm or the loop body and come out as one
flag that joins the graph's check, so a nan/inf NumPy would warn about, an index out of bounds or an integer
division by zero in the arm taken or in any iteration makes the whole call run on NumPy, which reproduces
the warnings and exceptions. A loop stops as soon as a check fails (a clamped index must not drive an
iteration NumPy never reaches).

Identity: in NumPy `y = x if c else f(x)` makes y the very array x, and a loop that runs zero times leaves
its variables the arrays they were. Where the caller can tell (the result is returned, written into, or its
operand is written later: `_observable`), the call checks at run time that no result came out that way (the
other arm was taken, the loop ran at least once) and runs NumPy otherwise. An output that is always (a view
of) an input in such a position is not lowered, and explain() says so.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

from ...graph.control import CondOp, WhileOp
from ...graph.ir import INPUT, ArraySpec, Graph, Node, iter_nodes
from ..aliasing import alias_root, written_target
from ..lowering import NotLowerable, Placement


def refuse_control(node: Node) -> str | None:
    """Why a cond/while_loop stays on NumPy: Python numbers carried, or an op of a subgraph not lowered."""
    from .table import TABLE
    if not isinstance(node.target, (CondOp, WhileOp)):
        return "not a control-flow node built by graph.control"
    operands = node.args[1:] if node.op == "cond" else node.args
    specs = [getattr(a, "spec", None) for a in operands] + list(node.spec)
    if any(not isinstance(s, ArraySpec) for s in specs):
        return "carries Python numbers or constants (they stay in Python)"
    for label, graph in node.target.subgraphs:
        refused = TABLE.refuse_graph(graph) if TABLE.refuse_graph is not None else {}
        for n in graph.nodes:
            if not n.is_call:
                continue
            if written_target(n) is not None:
                return f"its {label} subgraph writes into an array"
            reason = refused.get(id(n))
            decision = TABLE.decide(n)
            if reason or decision.placement is Placement.NUMPY:
                return f"its {label} subgraph has {n.op}, which is not lowered: {reason or decision.reason}"
    return None


def _aliased_outputs(graph: Graph) -> set[int]:
    """Output positions of a subgraph that are one of its inputs, or a view of one."""
    root = alias_root(graph)
    return {i for i, o in enumerate(graph.outputs) if isinstance(o, Node) and root[id(o)].op == INPUT}


def _observable(graph: Graph, node: Node) -> set[int]:
    """Result positions of a control node whose identity the program can see: the result (or a view of it)
    is an output of `graph` or is written into, or the operand it may be is written after the node."""
    if any(o is node for o in iter_nodes(graph.outputs)):
        return set(range(len(node.spec)))
    root = alias_root(graph)
    outputs = {id(o) for o in iter_nodes(graph.outputs)}
    written = {id(root[id(t)]) for n in graph.nodes if n.is_call and n.index > node.index
               for t in [written_target(n)] if t is not None}
    seen: set[int] = set()
    for p in graph.nodes:
        if p.is_call and p.op == "getitem" and p.args[0] is node and isinstance(p.args[1], int):
            family = {id(n) for n in graph.nodes if root[id(n)] is p}
            candidates = _operands_it_may_be(node, p.args[1])
            if family & outputs or id(p) in written or any(id(root[id(c)]) in written for c in candidates):
                seen.add(p.args[1])
    return seen


def _operands_it_may_be(node: Node, i: int) -> list[Node]:
    """The operands a control node's result i may be: a cond's, through an arm returning (a view of) its
    input; a loop's own carried value i (when it runs zero times)."""
    if node.op != "cond":
        return [a for a in node.args[i:i + 1] if isinstance(a, Node)]
    found = []
    for _, graph in node.target.subgraphs:
        root = alias_root(graph)
        out = graph.outputs[i] if i < len(graph.outputs) else None
        if isinstance(out, Node) and root[id(out)].op == INPUT:
            j = next(k for k, n in enumerate(graph.inputs) if n is root[id(out)])
            found.append(node.args[1 + j])
    return [a for a in found if isinstance(a, Node)]


def _truth(value: Any) -> Any:
    """bool(value) of a single-value array, as a traced bool scalar (nan is true, as in Python)."""
    return jnp.reshape(jnp.asarray(value) != 0, ())


def _run_subgraph(graph: Graph, values: list, specs: tuple) -> tuple[list, Any]:
    """Trace `graph` on `values`: its outputs cast to `specs`' dtypes, and the flag of its checks."""
    from .engine import Piece
    piece = Piece(graph, host_checks=False)
    cx = piece.run(list(values) + [n.value for n in piece.consts])
    outs = [jnp.asarray(cx.val(o), dtype=s.dtype) for o, s in zip(graph.outputs, specs)]
    ok = jnp.all(jnp.stack(cx.checks)) if cx.checks else jnp.asarray(True)
    return outs, ok


def lower_cond(cx: Any, node: Node) -> tuple:
    pred, *operands = node.args
    observable = _observable(cx.graph, node)
    true_graph, false_graph = node.target.true_graph, node.target.false_graph
    bad = [bool(_aliased_outputs(g) & observable) for g in (true_graph, false_graph)]
    if all(bad):
        raise NotLowerable("both arms may return an operand itself, which the program can tell from a copy", node)

    def arm(graph: Graph, aliasing: bool):
        def run(*values: Any) -> tuple:
            outs, ok = _run_subgraph(graph, list(values), node.spec)
            return tuple(outs), ok & (not aliasing)      # the arm that returns an operand itself: NumPy runs
        return run
    outs, ok = lax.cond(_truth(cx.val(pred)), arm(true_graph, bad[0]), arm(false_graph, bad[1]),
                        *[cx.val(o) for o in operands])
    cx.check(ok)
    return tuple(outs)


def lower_while(cx: Any, node: Node) -> tuple:
    cond_graph, body_graph = node.target.cond_graph, node.target.body_graph
    observable = _observable(cx.graph, node)
    if _aliased_outputs(body_graph) & observable:
        raise NotLowerable("the loop body returns (a view of) a carried array itself, which the program can "
                           "tell from a copy", node)

    def test(values: list) -> tuple[Any, Any]:
        (pred,), ok = _run_subgraph(cond_graph, values, (cond_graph.outputs[0].spec,))
        return _truth(pred), ok

    def body(state: tuple) -> tuple:
        values, _, ok = state
        new, ok_body = _run_subgraph(body_graph, list(values), node.spec)
        pred, ok_test = test(new)
        return tuple(new), pred, ok & ok_body & ok_test

    initial = [jnp.asarray(cx.val(a), dtype=s.dtype) for a, s in zip(node.args, node.spec)]
    first, ok = test(initial)
    final, _, ok = lax.while_loop(lambda state: state[1] & state[2], body, (tuple(initial), first, ok))
    cx.check(ok)
    if observable:
        cx.check(first)     # zero iterations: the results are the operands themselves, NumPy returns them
    return tuple(final)
