"""Lowering of `fori_loop` nodes (graph/control.py, capture/fori.py) to lax.fori_loop / lax.while_loop, NumPy's
semantics kept.

Imports jax (and engine.py lazily: it traces the body like a graph of its own). A body may write into the
arrays it is given (NumPy writes them in place, iteration by iteration): here those invariants become loop
state, the body's trace threads its writes functionally (views with the loop index in them are
`.at[i, 1:-1].set` updates, engine.Trace), and after the loop the outer array gets the final value (the
runner writes it back into the caller's array). So the whole loop is one XLA loop instead of one Python
iteration per index. What XLA cannot do as NumPy does stays on NumPy: a view whose size follows the
index (`A[i + 1:, i]`: the table refuses its slice), a Python number carried from one iteration to the next
(exact in Python, a fixed width in XLA), a write into a carried array, a written operand sharing memory
with another operand (each body input is traced as its own array), a `break` (its stop flag comes from a
cond of Python bools). The body's data checks (bounds, finite values, integer division) are computed in
every iteration and join the graph's check, so a failing one runs the whole call on NumPy, which
reproduces warnings, exceptions and partial writes.
"""

from __future__ import annotations

from typing import Any

import jax.numpy as jnp
from jax import lax

from ...graph.control import ForiOp
from ...graph.ir import ArraySpec, Node
from ..aliasing import alias_root, is_inplace, is_view, written_targets
from ..lowering import NotLowerable, Placement
from .control import _aliased_outputs, _observable


def refuse_fori(node: Node) -> str | None:
    """Why a fori_loop stays on NumPy, or None."""
    from .table import TABLE
    op = node.target
    if not isinstance(op, ForiOp):
        return "not a fori_loop node built by graph.control"
    body, n = op.body_graph, op.n_carried
    if op.breaks:
        return "a loop with a break (its stop flag is a Python bool, which stays in Python)"
    if any(not isinstance(s, ArraySpec) for s in node.spec):
        return "carries Python numbers from one iteration to the next (exact in Python, fixed-width in XLA)"
    root = alias_root(body)
    carried_inputs = {id(i) for i in body.inputs[1:1 + n]}
    refused = TABLE.refuse_graph(body) if TABLE.refuse_graph is not None else {}
    for b in body.nodes:
        if not b.is_call:
            continue
        if any(id(root[id(t)]) in carried_inputs for t in written_targets(b)):
            return "its body writes into a carried array"
        reason = refused.get(id(b))
        decision = TABLE.decide(b)
        if reason or decision.placement is Placement.NUMPY:
            return f"its body has {b.op}, which is not lowered: {reason or decision.reason}"
    written = {id(t) for t in written_targets(node)}
    operands = [a for a in node.args[3:] if isinstance(a, Node)]
    for w in (a for a in operands if id(a) in written):     # (one array given twice is two body inputs too)
        if sum(o is w for o in operands) > 1 or any(o is not w and _memory_of(o) is _memory_of(w) for o in operands):
            return f"its body writes into {w.name}, whose memory another operand shares"
    return None


def _memory_of(node: Node) -> Node:
    """The node owning `node`'s memory, following views and in-place results."""
    while node.is_call and node.args and isinstance(node.args[0], Node) and (is_view(node) or is_inplace(node)):
        node = node.args[0]
    return node


def _trips(start: Any, stop: Any, step: int) -> Any:
    """len(range(start, stop, step)) for a nonzero literal step, in Python when the bounds are ints."""
    if step > 0:
        count = (stop - start + step - 1) // step
    else:
        count = (start - stop - step - 1) // -step
    return max(count, 0) if isinstance(count, int) else jnp.maximum(count, 0)


def lower_fori(cx: Any, node: Node) -> tuple:
    from .engine import Piece
    op: ForiOp = node.target
    body, n = op.body_graph, op.n_carried
    observable = _observable(cx.graph, node)
    if _aliased_outputs(body) & observable:
        raise NotLowerable("the loop body returns (a view of) a carried array itself, which the program can "
                           "tell from a copy", node)
    start, stop, step = (cx.val(a) for a in node.args[:3])
    operands = node.args[3:]
    piece = Piece(body, host_checks=False)
    written = {id(i) for i in piece.written_inputs}
    slots = [j for j, i in enumerate(body.inputs[1 + n:]) if id(i) in written]     # written invariants
    invariants = [cx.val(a) for a in operands[n:]]
    consts = [c.value for c in piece.consts]
    specs = node.spec

    def iteration(i: Any, carried: tuple, state: tuple) -> tuple[tuple, tuple, Any]:
        values = list(invariants)
        for j, v in zip(slots, state):
            values[j] = v
        bx = piece.run([i, *carried, *values] + consts, outer=cx)
        new = tuple(jnp.asarray(bx.val(o), dtype=s.dtype) for o, s in zip(body.outputs[:n], specs))
        new_state = tuple(bx.val(body.inputs[1 + n + j]) for j in slots)
        ok = jnp.all(jnp.stack(bx.checks)) if bx.checks else jnp.asarray(True)
        return new, new_state, ok

    carried0 = tuple(jnp.asarray(cx.val(a), dtype=s.dtype) for a, s in zip(operands[:n], specs))
    state0 = tuple(invariants[j] for j in slots)
    trips = _trips(start, stop, step)

    def one(k: Any, loop: tuple) -> tuple:
        carried, state, ok = loop
        new, new_state, ok_body = iteration(start + k * step, carried, state)
        return new, new_state, ok & ok_body
    carried, state, ok = lax.fori_loop(0, trips, one, (carried0, state0, jnp.asarray(True)))
    cx.check(ok)
    if observable:
        cx.check(jnp.asarray(trips) > 0)    # zero iterations: the results are the operands themselves
    for j, value in zip(slots, state):
        cx.write(operands[n + j], value)
    return tuple(carried)
