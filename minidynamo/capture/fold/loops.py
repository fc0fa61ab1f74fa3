"""auto_cond for loops: `while <test>:` whose body is pure graph code becomes one `while_loop` node.
Imports fold.branches, fold.loop_tests, capture.liveness and graph (the interpreter loop is passed in:
frame.run_until).

At a test jump of the loop (loop_tests.py: the first one at the top whose value is an array, or one at the
bottom after an iteration ran during capture) `fold_while` takes the loop's predicate from there (with
conds for the rest of a short-circuit `and`/`or`), then captures the body once on *placeholder* values for
the variables the loop carries, from the body's start to the next test jump, and the predicate from there.
The node carries (carried..., predicate, loop invariants...): its condition returns the predicate, its body
runs body + test. So it runs `while bool(p): c, p = body(c)`, exactly eager's sequence of ops and truth
tests, 0, 1 or many times. Carried values are arrays that keep their spec, or Python ints and floats that
keep their type (a counter: a runtime-only ScalarVar inside the body and after the loop, so nothing
specializes on its value). Anything else (a body that breaks, writes, prints, leaves the loop with
`break`/`return`, or a carried value whose type changes) keeps today's graph break.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import GraphBreak
from ...graph import control
from ...graph.ir import ArraySpec, Node, PyScalarSpec
from .branches import AtLoopTest, NotFoldable, _save, _restore, _subgraph, _truncate, check_pure
from ..liveness import live_in
from .loop_tests import Loop, continuation, find_loop, truth
from ..variables.array import ArrayVar
from ..variables.const import ConstVar
from ..variables.scalar import ScalarVar
from ..stops import LoopBack
from ..variables.operators import scalar_op

if TYPE_CHECKING:
    from ..frame import Frame

_STORES = {"STORE_FAST", "DELETE_FAST"}


def loop_of(frame: "Frame", jump: int) -> Loop | None:
    """The while loop the conditional jump at `jump` tests, or None."""
    return find_loop(frame, jump)


def _carried_names(frame: "Frame", start: int, end: int, exit_: int, exceptions: bool = False,
                   region: frozenset[int] | None = None) -> list[str]:
    """Locals the body writes that are read again: at the loop start (next iteration) or after the loop
    (`exceptions`: in code with try/with regions or cells too, liveness.live_in). The body is the
    instructions start..end, or `region` (a for loop's, with its out-of-line blocks: loop_region.py)."""
    live = live_in(frame.code, exceptions)
    if live is None:
        raise NotFoldable("the function's locals cannot be analysed (try/with or closures)")
    body = sorted(region) if region is not None else range(start, end + 1)
    stored = [frame.ins.instrs[i].arg for i in body if frame.ins.instrs[i].name in _STORES]
    return [n for n in dict.fromkeys(stored) if n in live[start] or (exit_ < len(live) and n in live[exit_])]


def fold_while(frame: "Frame", pred: ArrayVar, jump: int, jump_if_true: bool) -> bool:
    """Replace the loop tested at the conditional jump `jump` by a while_loop node; True when done (the
    frame then stands at the loop's exit with the final carried values in its locals)."""
    from . import loop_ends
    ctx = frame.ctx
    if not ctx.auto_cond or not isinstance(pred.spec, ArraySpec) or pred.spec.shape != () \
            or frame.ins.in_try[jump]:
        return False
    loop = find_loop(frame, jump)
    state = _save(frame)
    where = frame.location()
    ctx.fold_attempts += 1
    saved_stop, frame.stop_at = frame.stop_at, None
    ctx.arm_depth += 1
    hoisted: list[Node] = []
    placeholders: list[Node] = []
    keys = {(id(frame), t) for t in loop.tests} - ctx.loop_tests
    try:
        ctx.loop_tests.update(keys)
        entry = continuation(frame, loop, jump, pred, hoisted)
        names = _carried_names(frame, loop.start, loop.end, loop.exit)
        _fold(frame, loop, entry, names, hoisted, placeholders, where)
        frame.ip = loop.exit
    except (NotFoldable, GraphBreak, LoopBack, loop_ends.AtIterationEnd) as e:
        _drop(frame, placeholders)
        _restore(frame, state, hoisted)
        ctx.folded_log.append(f"line {where[1]}: while not folded: {e}")
        return False
    finally:
        ctx.loop_tests.difference_update(keys)
        ctx.arm_depth -= 1
        frame.stop_at = saved_stop
        frame.visits = dict(state.visits)
    return True


def _drop(frame: "Frame", placeholders: list[Node]) -> None:
    graph = frame.ctx.graph
    mine = set(map(id, placeholders))
    for p in placeholders:
        graph._names.discard(p.name)
    graph.nodes[:] = [n for n in graph.nodes if id(n) not in mine]
    for i, n in enumerate(graph.nodes):
        n.index = i


def _carried_node(frame: "Frame", name: str, value: Any) -> Node:
    """The graph value of a loop variable: an array, or a Python int/float (a constant gets a node)."""
    if isinstance(value, ArrayVar) and isinstance(value.spec, ArraySpec):
        return value.node
    if isinstance(value, ScalarVar) and type(value.value) in (int, float):
        return value.node
    if isinstance(value, ConstVar) and type(value.value) in (int, float):
        return scalar_op(frame, "+", [value], unary=True).node     # `+n`: the same number, as a graph value
    raise NotFoldable(f"loop variable {name!r} is not an array, int or float")


def _placeholder(frame: "Frame", spec: Any, i: int) -> Node:
    """A stand-in input for a carried value inside the body (dropped once the body is captured)."""
    p = frame.ctx.graph.add_input(f"___carry{len(frame.ctx.graph.nodes)}_{i}", spec)
    p.meta["placeholder"] = True
    return p


def _body_var(p: Node, initial: Node, loop: str = "while") -> Any:
    """The Var the body sees for a carried value: an array, or a number known only at run time."""
    if not isinstance(p.spec, PyScalarSpec):
        return ArrayVar(p)
    example = initial.meta.get("value")
    if type(example) is not p.spec.type:
        raise NotFoldable(f"no example value of the loop's {p.spec}")
    p.meta["value"] = example
    return ScalarVar.runtime(p, example, f"a value carried through a folded `{loop}` loop")


def _fold(frame: "Frame", loop: Loop, entry: Node, names: list[str], hoisted: list[Node],
          placeholders: list[Node], where: tuple) -> None:
    ctx, graph = frame.ctx, frame.ctx.graph
    initial = [_carried_node(frame, name, frame.locals.get(name)) for name in names]
    state = _save(frame)               # after the entry test and the initial values, which stay
    version, mutations = ctx.side_effects.version, len(ctx.mutating_nodes)
    for i, (name, node) in enumerate(zip(names, initial)):
        p = _placeholder(frame, node.spec, i)
        placeholders.append(p)
        frame.locals[name] = _body_var(p, node)
    frame.ip = loop.body
    try:
        frame.run_until(None)
        raise NotFoldable("the body leaves the loop (break or return)")
    except AtLoopTest as at:
        if at.key[0] != id(frame) or at.key[1] not in loop.tests:
            raise NotFoldable("the body reaches another loop's test") from None
        bottom = continuation(frame, loop, at.key[1], at.pred, hoisted)
    if len(frame.stack) != len(state.stack) or any(a is not b for a, b in zip(frame.stack, state.stack)):
        raise NotFoldable("the body changes the stack")
    ends = [_carried_node(frame, name, frame.locals.get(name)) for name in names]
    for name, v, end in zip(names, initial, ends):
        if end.spec != v.spec:
            raise NotFoldable(f"loop variable {name!r} changes type or spec in the body")
    if isinstance(bottom, bool) or bottom.spec != entry.spec:     # both as Python bools then
        bottom = truth(graph, bottom)
    nodes = _truncate(graph, state.n_nodes, hoisted)
    check_pure(ctx, state, version, mutations, nodes)
    entry = truth(graph, entry) if entry.spec != bottom.spec else entry
    pred_p = _placeholder(frame, entry.spec, len(names))
    placeholders.append(pred_p)
    _drop(frame, placeholders)
    body_nodes = [n for n in nodes if not n.meta.get("placeholder")]
    inside = set(map(id, body_nodes)) | set(map(id, placeholders))
    outer = set(map(id, graph.nodes))
    invariants: list[Node] = []
    for node in [a for n in body_nodes for a in n.inputs()] + ends + [bottom]:
        if id(node) in inside or any(node is o for o in invariants):
            continue
        if id(node) not in outer:
            raise NotFoldable("the body reads a value from outside the graph")
        invariants.append(node)
    operands = placeholders + invariants
    body = _subgraph(f"{graph.name}_body", body_nodes, operands, ends + [bottom] + invariants)
    cond = _subgraph(f"{graph.name}_test", [], operands, [pred_p])
    try:
        node = control.add_while_loop(graph, cond, body, tuple(initial + [entry] + invariants))
    except ValueError as e:
        raise NotFoldable(str(e)) from None
    filename, lineno, text = where
    node.meta.update(folded="while", filename=filename, lineno=lineno, source_line=text, function=frame.qualname)
    ctx.folded.append(node)
    _project(frame, state, node, names)


def _project(frame: "Frame", state: Any, node: Node, names: list[str]) -> None:
    """After the loop: each carried local is a projection of the while_loop node."""
    from ...graph import ops
    getitem, graph = ops.get("getitem"), frame.ctx.graph
    frame.locals = dict(state.locals)
    for i, name in enumerate(names):
        out = graph.call(getitem.name, getitem.impl, (node, i), {}, spec=node.spec[i])
        if isinstance(out.spec, PyScalarSpec):
            out.meta["value"] = node.args[i].meta.get("value")
            frame.locals[name] = ScalarVar.runtime(out, out.meta["value"], f"`{name}` after a folded `while` loop")
        else:
            frame.locals[name] = ArrayVar(out)
    frame.stack = list(state.stack)
