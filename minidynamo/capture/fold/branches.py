"""auto_cond: a data-dependent `if` whose arms are pure graph code becomes one `cond` node instead of a break.
Imports fold.postdom, capture.liveness, capture.variables and graph (the interpreter loop is passed in:
frame.run_until).

At a conditional jump on a single-value ArrayVar, `fold_branch` runs both arms symbolically from the same
state up to their join point (the branch's immediate post-dominator, or the function's return). An arm
qualifies only if it is pure graph code: only the opcodes in ARM_OPCODES, no recorded mutation (no in-place
array op, no list/dict/attribute/global write: the SideEffects version stays put), no iterator that existed
before the branch advanced, nothing that breaks, and no capture-time exception. Both arms must then leave
the same live values: arrays of the same spec (they become the cond's outputs), or the very same Python
value. Anything else leaves the state as it was before the branch and returns False: the caller raises the
usual data-dependent graph break, so the promise never depends on this module being clever.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...errors import GraphBreak
from ...graph import control
from ...graph.ir import CONST, INPUT, ArraySpec, Graph, Node, iter_nodes, map_nodes
from ..liveness import live_in
from .postdom import EXIT, join_point
from ..variables.array import ArrayVar
from ..variables.const import ConstVar
from ..variables.containers import ListIteratorVar, TupleVar, reachable
from ..stops import LoopBack

if TYPE_CHECKING:
    from ..frame import Frame

# What an arm may execute: loads, local stores, arithmetic, calls (whose callee must itself be capturable
# and pure: a print or a list.append shows up as a break or as a SideEffects change), tuples, jumps.
ARM_OPCODES = frozenset({
    "NOP", "RESUME", "CACHE", "EXTENDED_ARG", "LOAD_FAST", "LOAD_FAST_CHECK", "STORE_FAST", "LOAD_CONST",
    "LOAD_GLOBAL", "LOAD_ATTR", "LOAD_METHOD", "LOAD_DEREF", "COPY_FREE_VARS", "PUSH_NULL", "PRECALL",
    "CALL", "KW_NAMES", "CALL_KW", "BINARY_OP", "UNARY_NEGATIVE", "UNARY_INVERT", "UNARY_NOT",
    "CALL_INTRINSIC_1", "COMPARE_OP", "IS_OP", "CONTAINS_OP", "TO_BOOL", "BINARY_SUBSCR", "BINARY_SLICE",
    "BUILD_TUPLE", "BUILD_SLICE", "UNPACK_SEQUENCE", "POP_TOP", "COPY", "SWAP", "JUMP_FORWARD",
    "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE",
    "POP_JUMP_IF_NONE", "POP_JUMP_IF_NOT_NONE", "POP_JUMP_FORWARD_IF_TRUE", "POP_JUMP_FORWARD_IF_FALSE",
    "POP_JUMP_BACKWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_FALSE", "POP_JUMP_FORWARD_IF_NONE",
    "POP_JUMP_FORWARD_IF_NOT_NONE", "POP_JUMP_BACKWARD_IF_NONE", "POP_JUMP_BACKWARD_IF_NOT_NONE",
    "GET_ITER", "FOR_ITER", "END_FOR", "RETURN_VALUE", "RETURN_CONST", "NOT_TAKEN", "POP_ITER",
    "LOAD_FAST_BORROW",
})
# What the body of a for loop being folded (fori.py) may execute, branch arms in it too: writes into arrays
# and lists made there as well (a write into anything else shows up as a SideEffects change).
FORI_OPCODES = ARM_OPCODES | {"STORE_SUBSCR", "STORE_SLICE", "BUILD_LIST", "LIST_EXTEND", "DELETE_FAST"}
# Symbolic steps one capture may spend inside arms and loop bodies being folded (nested folds multiply the
# work; past the budget every branch keeps its break, so capture time stays bounded).
ARM_STEP_BUDGET = 20_000
# Python values two arms may both leave behind (compared by type and repr, so 0.0 and -0.0 differ).
_PLAIN = (bool, int, float, complex, str, bytes, type(None), type(Ellipsis))


class NotFoldable(Exception):
    """This branch keeps its graph break (the message says why, for logs and tests)."""


class AtLoopTest(Exception):
    """Raised at a test jump of a while loop being folded (loops.py): carries the value the jump tests."""

    def __init__(self, key: tuple[int, int], pred: Any) -> None:
        super().__init__("the code reaches the test of an enclosing while loop being folded")
        self.key, self.pred = key, pred


def stop_at_loop_test(frame: "Frame", jump: int, value: Any) -> None:
    """Raise AtLoopTest when the conditional jump at `jump` tests a while loop being folded."""
    key = (id(frame), jump)
    if key in frame.ctx.loop_tests:
        raise AtLoopTest(key, value)


@dataclass
class _State:
    """What an arm may change in the frame and the capture, and is put back before the other arm."""

    stack: list
    locals: dict
    visits: dict
    n_nodes: int
    current: int
    iterators: dict     # id -> (iterator Var, position) for iterators reachable before the branch


@dataclass
class _Arm:
    stack: list
    locals: dict
    result: Any
    nodes: list[Node]


def fold_next_jump(frame: "Frame", value: Any) -> bool:
    """3.13's TO_BOOL and COMPARE_OP(..._CAST) convert an array to bool just before the jump: fold that
    jump (instruction frame.ip) when it is a conditional one. False: convert (and break) as usual."""
    if frame.ip >= len(frame.ins.instrs):
        return False
    name = frame.ins.instrs[frame.ip].name
    if name not in ("POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE"):
        return False
    stop_at_loop_test(frame, frame.ip, value)
    if not isinstance(value, ArrayVar) or not frame.ctx.auto_cond:
        return False
    return fold_branch(frame, value, frame.ip, name == "POP_JUMP_IF_TRUE")


def fold_branch(frame: "Frame", pred: ArrayVar, jump: int, jump_if_true: bool) -> bool:
    """Try to replace the conditional jump at instruction `jump` (its condition `pred` already popped) by a
    cond node; True when done (the frame then stands at the join, or has its result)."""
    from . import loop_ends, loops
    ctx = frame.ctx
    spec = pred.spec
    key = (id(frame), jump)
    stop_at_loop_test(frame, jump, pred)    # a test of a while loop being folded: hand it the predicate
    if ctx.arm_steps > ARM_STEP_BUDGET or ctx.known.has(pred):
        # (a known predicate is decided at capture time: no arm is run speculatively, since a failed fold
        # would leave the arm's writes into containers behind when the capture goes on)
        return False
    if loops.loop_of(frame, jump) is not None:
        return loops.fold_while(frame, pred, jump, jump_if_true)
    if not ctx.auto_cond or not isinstance(spec, ArraySpec) or spec.shape != () or key in ctx.folding \
            or not frame.foldable_at(jump):
        return False
    join = join_point(frame.code, jump)
    if join is None:
        return False
    if loop_ends.leaves_iteration(frame, join):     # a `break`/`continue` under it, in a loop body being folded
        return loop_ends.fold_iteration_end(frame, pred, jump, jump_if_true)
    state = _save(frame)
    where = frame.location()
    ctx.fold_attempts += 1
    saved_stop, frame.stop_at = frame.stop_at, None
    ctx.folding.add(key)
    ctx.arm_depth += 1
    hoisted: list[Node] = []
    try:
        arms = {}
        for taken in (True, False):
            start = frame.ins.targets[jump] if taken == jump_if_true else jump + 1
            arms[taken] = _run_arm(frame, state, start, join, hoisted)
        _merge(frame, pred, arms, join, hoisted, state, where)
    except (NotFoldable, GraphBreak, LoopBack, AtLoopTest, loop_ends.AtIterationEnd) as e:
        # (AtLoopTest: an arm reached the test of the while loop being folded around it: a `break` or
        # `continue` in the arm; the loop then keeps its break)
        _restore(frame, state, hoisted)
        ctx.folded_log.append(f"line {where[1]}: not folded: {e}")
        return False
    finally:
        ctx.folding.discard(key)
        ctx.arm_depth -= 1
        frame.stop_at = saved_stop
        frame.visits = dict(state.visits)
    return True


def _save(frame: "Frame") -> _State:
    iters = {id(it): (it, it.pos) for v in reachable(list(frame.stack) + list(frame.locals.values()))
             if isinstance(v, ListIteratorVar) for it in _with_inner(v)}
    return _State(list(frame.stack), dict(frame.locals), dict(frame.visits), len(frame.ctx.graph.nodes),
                  frame.current, iters)


def _with_inner(it: ListIteratorVar) -> list[ListIteratorVar]:
    return [it, *(i for inner in it.inner() for i in _with_inner(inner))]


def _restore(frame: "Frame", state: _State, hoisted: list[Node]) -> None:
    frame.stack, frame.locals, frame.visits = list(state.stack), dict(state.locals), dict(state.visits)
    frame.result, frame.current = None, state.current
    frame.ip = state.current + 1    # just after the jump: a branch that did not fold runs on from there
    for var, pos in state.iterators.values():
        var.pos = pos
    _truncate(frame.ctx.graph, state.n_nodes, hoisted)


def _truncate(graph: Graph, n: int, hoisted: list[Node]) -> list[Node]:
    """Cut the graph back to its first n nodes and return what was cut; inputs created meanwhile (an array
    global first read in an arm) stay, moved behind the cut, since the capture context holds them."""
    cut = graph.nodes[n:]
    del graph.nodes[n:]
    for node in cut:
        if node.op == INPUT and not node.meta.get("placeholder"):
            hoisted.append(node)
    for node in hoisted:
        if node not in graph.nodes[n:]:
            node.index = len(graph.nodes)
            graph.nodes.append(node)
    return [node for node in cut if node.op != INPUT]


def check_pure(ctx: Any, state: _State, version: int, mutations: int, nodes: list[Node],
               writes: bool = False) -> None:
    """Raise NotFoldable unless the code just run changed nothing outside the graph (`writes`: but arrays,
    as in the body of a for loop being folded)."""
    from ...graph import passes
    if writes:
        from .loop_ends import check_body
        return check_body(ctx, state, version, nodes)
    if ctx.side_effects.version != version or len(ctx.mutating_nodes) != mutations:
        raise NotFoldable("the arm mutates state (a list, dict, attribute, global or array)")
    if any(var.pos != pos for var, pos in state.iterators.values()):
        raise NotFoldable("the arm advances an iterator made before the branch")
    if any(passes.is_impure(n) for n in nodes):
        raise NotFoldable("the arm records an impure op")


def _run_arm(frame: "Frame", state: _State, start: int, join: int, hoisted: list[Node]) -> _Arm:
    ctx = frame.ctx
    version, mutations = ctx.side_effects.version, len(ctx.mutating_nodes)
    _restore(frame, state, hoisted)
    frame.ip = start
    frame.run_until(None if join == EXIT else join)
    if (frame.result is None) != (join != EXIT):
        raise NotFoldable("the arm does not reach the join point")
    nodes = _truncate(ctx.graph, state.n_nodes, hoisted)
    check_pure(ctx, state, version, mutations, nodes, writes=ctx.fori is not None and ctx.fori.depth > 0)
    return _Arm(list(frame.stack), dict(frame.locals), frame.result, nodes)


class _Outputs:
    """The cond's outputs: pairs (value in the true arm, value in the false arm), deduplicated."""

    def __init__(self) -> None:
        self.pairs: list[tuple[Node, Node]] = []
        self.projections: list[ArrayVar | None] = []

    def merge(self, a: Any, b: Any) -> Any:
        """The Var standing for `a` (true arm) / `b` (false arm) after the join."""
        if a is b:
            return a
        if isinstance(a, ArrayVar) and isinstance(b, ArrayVar) and type(a) is type(b):
            if a.spec != b.spec:
                raise NotFoldable(f"the arms leave arrays of different specs ({a.spec} and {b.spec})")
            pair = (a.node, b.node)
            if pair not in self.pairs:
                self.pairs.append(pair)
                self.projections.append(None)
            return ("output", self.pairs.index(pair))
        if isinstance(a, TupleVar) and type(a) is type(b) and len(a.items) == len(b.items):
            return ("tuple", [self.merge(x, y) for x, y in zip(a.items, b.items)])
        if isinstance(a, ConstVar) and isinstance(b, ConstVar):
            x, y = a.value, b.value     # reading .value guards a value read from an input: it is relied on
            if type(x) is type(y) and type(x) in _PLAIN and repr(x) == repr(y):
                return a
        raise NotFoldable(f"the arms leave different Python values ({a!r} and {b!r})")


def _merge(frame: "Frame", pred: ArrayVar, arms: dict, join: int, hoisted: list[Node], state: _State,
           where: tuple) -> None:
    t, f = arms[True], arms[False]
    if len(t.stack) != len(f.stack):
        raise NotFoldable("the arms leave stacks of different depths")
    outputs = _Outputs()
    stack = [outputs.merge(a, b) for a, b in zip(t.stack, f.stack)]
    live = live_in(frame.code)
    names = [n for n in dict.fromkeys([*t.locals, *f.locals])
             if join != EXIT and (live is None or join >= len(live) or n in live[join])]
    local_values = {}
    for name in names:
        if name not in t.locals or name not in f.locals:
            raise NotFoldable(f"local {name!r} is set in one arm only and read after the join")
        local_values[name] = outputs.merge(t.locals[name], f.locals[name])
    result = outputs.merge(t.result, f.result) if join == EXIT else None
    graph = frame.ctx.graph
    node = make_cond(graph, pred.node, [(arm.nodes, [p[side] for p in outputs.pairs]) for arm, side in ((t, 0), (f, 1))])
    filename, lineno, text = where
    node.meta.update(folded="if", filename=filename, lineno=lineno, source_line=text, function=frame.qualname)
    frame.ctx.folded.append(node)
    resolve = lambda v: _resolve(graph, node, outputs, v)  # noqa: E731
    frame.stack = [resolve(v) for v in stack]
    if join == EXIT:
        frame.result = resolve(result)
    else:   # locals dead at the join are dropped: nothing reads them before writing them again
        frame.locals = {k: resolve(v) for k, v in local_values.items()}
        frame.ip = join


def make_cond(graph: Graph, pred: Node, arms: list[tuple[list[Node], list[Node]]]) -> Node:
    """Append a cond node on `pred` made of two arms (true first), each (nodes recorded in the arm, its
    outputs); its operands are the values from before the branch that the arms read."""
    operands: list[Node] = []
    for nodes, outs in arms:
        inside = set(map(id, nodes))
        for node in [a for n in nodes for a in n.inputs()] + outs:
            if id(node) in inside:
                continue
            if not graph.holds(node):
                raise NotFoldable("an arm reads a value made in the other arm")
            if all(node is not o for o in operands):
                operands.append(node)
    graphs = [_subgraph(f"{graph.name}_{label}", nodes, operands, outs)
              for label, (nodes, outs) in zip(("true", "false"), arms)]
    try:
        return control.add_cond(graph, pred, graphs[0], graphs[1], tuple(operands))
    except ValueError as e:
        raise NotFoldable(str(e)) from None


def _resolve(graph: Graph, cond: Node, outputs: _Outputs, value: Any) -> Any:
    if isinstance(value, tuple) and value[:1] == ("output",):
        i = value[1]
        if outputs.projections[i] is None:
            from ...graph import ops
            getitem = ops.get("getitem")
            outputs.projections[i] = ArrayVar(graph.call(getitem.name, getitem.impl, (cond, i), {},
                                                         spec=cond.spec[i]))
        return outputs.projections[i]
    if isinstance(value, tuple) and value[:1] == ("tuple",):
        return TupleVar([_resolve(graph, cond, outputs, v) for v in value[1]])
    return value


def _subgraph(name: str, nodes: list[Node], operands: list[Node], outputs: list[Node]) -> Graph:
    """One arm as a graph of its own: the operands become its inputs a0, a1, ..."""
    g = Graph(name)
    env: dict[int, Node] = {id(o): g.add_input(f"a{i}", o.spec) for i, o in enumerate(operands)}
    lookup = lambda n: env[id(n)]  # noqa: E731
    for node in nodes:
        if node.op == CONST:
            new = g.add_const(node.value)
        else:
            new = g.call(node.op, node.target, map_nodes(node.args, lookup), map_nodes(node.kwargs, lookup),
                         spec=node.spec)
        new.meta.update(node.meta)
        env[id(node)] = new
    g.set_outputs([lookup(o) for o in outputs])
    assert all(isinstance(o, Node) for o in iter_nodes(g.outputs))
    return g
