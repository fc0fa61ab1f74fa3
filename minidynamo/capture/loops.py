"""auto_cond for loops: `while <array test>:` whose body is pure graph code becomes one `while_loop` node.
Imports capture.branches, capture.liveness and graph (the interpreter loop lazily).

CPython compiles `while test: body` as `test; jump-if-false EXIT; E: body; test; jump back to E while true`
(the test is repeated at the bottom). At the first test (instruction B, whose fallthrough E starts a loop),
`fold_while` captures the body once on *placeholder* values for the variables the loop carries, up to the
bottom test (B2), whose predicate it takes without jumping. The node carries (carried..., predicate,
loop invariants...): its condition returns the predicate, its body runs body + bottom test. So it runs
`while bool(p): c, p = body(c)`, exactly eager's sequence of ops and truth tests, 0, 1 or many times.
Carried values must be arrays that keep their spec; anything else (a Python counter, a body that breaks,
writes, prints or leaves the loop with `break`/`return`) keeps today's graph break.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import GraphBreak
from ..graph import control
from ..graph.ir import ArraySpec, Node
from .branches import NotFoldable, _save, _restore, _subgraph, _truncate, check_pure
from .liveness import live_in
from .postdom import successors
from .variables.array import ArrayVar

if TYPE_CHECKING:
    from .frame import Frame

_STORES = {"STORE_FAST", "DELETE_FAST"}


class AtLoopTest(Exception):
    """Raised at the bottom test of a while body being folded: carries that test's predicate."""

    def __init__(self, key: tuple[int, int], pred: ArrayVar) -> None:
        super().__init__("the code reaches the test of an enclosing while loop being folded")
        self.key, self.pred = key, pred


def _resolve(succ: list[list[int]], frame: "Frame", i: int) -> int:
    """Follow unconditional jumps from instruction i (3.12+ ends a body with `test; POP_JUMP; JUMP_BACKWARD`)."""
    seen = set()
    while 0 <= i < len(frame.ins.instrs) and frame.ins.instrs[i].name.startswith("JUMP") and i not in seen:
        seen.add(i)
        i = succ[i][0]
    return i


def _continue_and_exit(frame: "Frame", succ: list, i: int, start: int, end: int) -> tuple[int, bool] | None:
    """For a conditional jump at i inside the loop [start, end]: (exit, continue_if_true) when one way leads
    back to `start` and the other out of the loop, else None."""
    name = frame.ins.instrs[i].name
    if "POP_JUMP" not in name or "NONE" in name:
        return None
    target, fall = _resolve(succ, frame, frame.ins.targets[i]), _resolve(succ, frame, i + 1)
    for back, out, taken in ((target, fall, "TRUE" in name), (fall, target, "TRUE" not in name)):
        if back == start and not start <= out <= end:
            return out, taken
    return None


def loop_of(frame: "Frame", jump: int) -> tuple[int, int, int, int] | None:
    """(start, end, bottom test, exit) of the `while` loop the conditional jump at `jump` controls: either the
    first test, which falls through into the loop when true, or the test at the end of the body, which
    goes back to the start when true. None for any other jump."""
    succ = successors(frame.code)
    for start, end in frame.ins.loops:
        if start == jump + 1 and "FALSE" in frame.ins.instrs[jump].name:
            exit_ = frame.ins.targets[jump]
            tests = [i for i in range(start, end + 1) if _continue_and_exit(frame, succ, i, start, end) == (exit_, True)]
            return (start, end, tests[0], exit_) if len(tests) == 1 else None
        if start <= jump <= end:
            found = _continue_and_exit(frame, succ, jump, start, end)
            if found is not None:
                return (start, end, jump, found[0]) if found[1] else None
    return None


def _carried_names(frame: "Frame", start: int, end: int, exit_: int) -> list[str]:
    """Locals the body writes that are read again: at the loop start (next iteration) or after the loop."""
    live = live_in(frame.code)
    if live is None:
        raise NotFoldable("the function's locals cannot be analysed (try/with or closures)")
    stored = [frame.ins.instrs[i].arg for i in range(start, end + 1) if frame.ins.instrs[i].name in _STORES]
    return [n for n in dict.fromkeys(stored) if n in live[start] or (exit_ < len(live) and n in live[exit_])]


def fold_while(frame: "Frame", pred: ArrayVar, jump: int, jump_if_true: bool) -> bool:
    """Replace the loop entered at the conditional jump `jump` by a while_loop node; True when done (the
    frame then stands at the loop's exit with the final carried values in its locals)."""
    from . import interpreter
    ctx = frame.ctx
    if not ctx.auto_cond or not isinstance(pred.spec, ArraySpec) or pred.spec.shape != () \
            or frame.ins.in_try[jump]:
        return False
    start, end, test, exit_ = loop_of(frame, jump)
    state = _save(frame)
    where = frame.location()
    saved_stop, frame.stop_at = frame.stop_at, None
    ctx.arm_depth += 1
    hoisted: list[Node] = []
    placeholders: list[Node] = []
    try:
        ctx.loop_tests.add((id(frame), test))
        names = _carried_names(frame, start, end, exit_)
        _fold(frame, pred, state, names, start, test, hoisted, placeholders, where)
        frame.ip = exit_
    except (NotFoldable, GraphBreak, interpreter._LoopBack) as e:
        _drop(frame, placeholders)
        _restore(frame, state, hoisted)
        ctx.folded_log.append(f"line {where[1]}: while not folded: {e}")
        return False
    finally:
        ctx.loop_tests.discard((id(frame), test))
        ctx.arm_depth -= 1
        frame.stop_at = saved_stop
        frame.visits = dict(state.visits)
    return True


def _drop(frame: "Frame", placeholders: list[Node]) -> None:
    graph = frame.ctx.graph
    for p in placeholders:
        graph._names.discard(p.name)
    graph.nodes[:] = [n for n in graph.nodes if not n.meta.get("placeholder")]
    for i, n in enumerate(graph.nodes):
        n.index = i


def _fold(frame: "Frame", pred: ArrayVar, state: Any, names: list[str], start: int, test: int,
          hoisted: list[Node], placeholders: list[Node], where: tuple) -> None:
    from .interpreter import run_until
    ctx, graph = frame.ctx, frame.ctx.graph
    initial = []
    for name in names:
        value = state.locals.get(name)
        if not isinstance(value, ArrayVar) or not isinstance(value.spec, ArraySpec):
            raise NotFoldable(f"loop variable {name!r} is not an array before the loop")
        initial.append(value)
    version, mutations = ctx.side_effects.version, len(ctx.mutating_nodes)
    _restore(frame, state, hoisted)
    for i, v in enumerate(initial + [pred]):
        node = graph.add_input(f"___carry{len(graph.nodes)}_{i}", v.spec)
        node.meta["placeholder"] = True
        placeholders.append(node)
    for name, node in zip(names, placeholders):
        frame.locals[name] = ArrayVar(node)
    frame.ip = start
    try:
        run_until(frame, None)
        raise NotFoldable("the body leaves the loop (break or return)")
    except AtLoopTest as at:
        if at.key != (id(frame), test):
            raise NotFoldable("the body reaches another loop's test") from None
        new_pred = at.pred
    if len(frame.stack) != len(state.stack) or any(a is not b for a, b in zip(frame.stack, state.stack)):
        raise NotFoldable("the body changes the stack")
    ends = [frame.locals.get(name) for name in names]
    for name, v, end in zip(names, initial, ends):
        if not isinstance(end, ArrayVar) or end.spec != v.spec:
            raise NotFoldable(f"loop variable {name!r} changes type or spec in the body")
    if new_pred.spec != pred.spec:
        raise NotFoldable(f"the loop test changes spec ({pred.spec} then {new_pred.spec})")
    nodes = _truncate(graph, state.n_nodes, hoisted)
    check_pure(ctx, state, version, mutations, nodes)
    _drop(frame, placeholders)
    body_nodes = [n for n in nodes if not n.meta.get("placeholder")]
    inside = set(map(id, body_nodes)) | set(map(id, placeholders))
    outer = set(map(id, graph.nodes))
    invariants: list[Node] = []
    for node in [a for n in body_nodes for a in n.inputs()] + [e.node for e in ends] + [new_pred.node]:
        if id(node) in inside or any(node is o for o in invariants):
            continue
        if id(node) not in outer:
            raise NotFoldable("the body reads a value from outside the graph")
        invariants.append(node)
    operands = placeholders + invariants
    outs = [e.node for e in ends] + [new_pred.node] + invariants
    body = _subgraph(f"{graph.name}_body", body_nodes, operands, outs)
    cond = _subgraph(f"{graph.name}_test", [], operands, [placeholders[-1]])
    try:
        node = control.add_while_loop(graph, cond, body, tuple([v.node for v in initial] + [pred.node] + invariants))
    except ValueError as e:
        raise NotFoldable(str(e)) from None
    filename, lineno, text = where
    node.meta.update(folded="while", filename=filename, lineno=lineno, source_line=text, function=frame.qualname)
    ctx.folded.append(node)
    from ..graph import ops
    getitem = ops.get("getitem")
    frame.locals = dict(state.locals)
    for i, name in enumerate(names):
        frame.locals[name] = ArrayVar(graph.call(getitem.name, getitem.impl, (node, i), {}, spec=node.spec[i]))
    frame.stack = list(state.stack)
