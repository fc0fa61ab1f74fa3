"""Where an iteration of a for loop being folded (fori.py) ends, and branches that leave it. Imports
fold.branches, fold.loop_tests, fold.loops and graph (the interpreter loop is passed in: frame.run_until).

The body's capture runs until control comes back to the loop's header (the iteration is over; a `continue`
too: AtIterationEnd from the interpreter's loop-start check) or the stack drops below the loop's iterator
(a `break` popped it). A data-dependent `if` inside the body whose arms leave the iteration (a `break` or
`continue` under it: its join point is past the body) becomes a cond whose arms each run to the end of the
iteration and give the carried values and whether the loop stops (`fold_iteration_end`). What the body and
those arms may record is checked by `check_body`: writes into arrays, nothing else with an effect.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ... import pyversion
from ...errors import GraphBreak
from ...graph import control, ops, passes
from ...graph.ir import Node, PyScalarSpec
from .branches import AtLoopTest, NotFoldable, _restore, _save, _truncate, make_cond
from .loop_tests import truth
from .loops import _carried_node
from .postdom import EXIT
from ..variables.scalar import ScalarVar
from ..stops import LoopBack
from ..variables.array import ArrayVar

if TYPE_CHECKING:
    from ..frame import Frame

# (the exit may check a local the copy after a `break` knows is bound: the same load for capture)
_LOADS = {"LOAD_FAST_CHECK": "LOAD_FAST", "LOAD_FAST_BORROW": "LOAD_FAST"}
_PURE_BUILTINS = (float, int, bool, complex, abs)     # conversions of a graph value: they raise, never write
_CARRIED = "a value carried through a folded `for` loop"


class AtIterationEnd(Exception):
    """The body of `loop` ends here: control is back at the header (`broke` False), popped the iterator
    (`broke` True) or a cond decided it (`broke` a py_bool node; `checked`: the stack is set already)."""

    def __init__(self, loop: Any, broke: Any, checked: bool = False) -> None:
        super().__init__("the iteration of a for loop being folded ends here")
        self.loop, self.broke, self.checked = loop, broke, checked


def run_iteration(frame: "Frame", loop: Any) -> Any:
    """Run the body from frame.ip to the end of the iteration; whether the loop stops there (False, True
    or a py_bool node)."""
    try:
        frame.run_until(None)
    except AtIterationEnd as end:
        if end.loop is not loop:
            raise NotFoldable("the body ends the iteration of another loop") from None
        if not end.checked:
            expect = loop.stack[:-pyversion.ITER_SLOTS] if end.broke is True else loop.stack
            if len(frame.stack) != len(expect) or any(a is not b for a, b in zip(frame.stack, expect)):
                raise NotFoldable("the body changes the stack") from None
            if end.broke is True and not _same_exit(frame, loop):
                raise NotFoldable("`break` goes elsewhere than the loop's exit (a for-else)") from None
        return end.broke
    raise NotFoldable("the body returns from the function")


def _same_exit(frame: "Frame", loop: Any) -> bool:
    """Whether control after a `break` (frame.ip) does what the loop's exit does: it is the exit, jumps
    there, or is a copy of its straight-line code up to a return (3.12+ copies short exit blocks)."""
    ins, at, exit_ = frame.ins, frame.ip, loop.exit
    while ins.instrs[at].name in ("JUMP_FORWARD", "JUMP_BACKWARD", "JUMP") and at in ins.targets:
        at = ins.targets[at]
    if at == exit_:
        return True
    for k in range(12):
        a, b = ins.instrs[at + k], ins.instrs[exit_ + k]
        if (_LOADS.get(a.name, a.name), a.arg) != (_LOADS.get(b.name, b.name), b.arg) or at + k in ins.targets \
                or exit_ + k in ins.targets:
            return False
        if a.name in ("RETURN_VALUE", "RETURN_CONST"):
            return True
    return False


def check_body(ctx: Any, state: Any, version: int, nodes: list[Node]) -> None:
    """Raise NotFoldable unless the code just captured changed nothing but arrays it wrote into (no list,
    dict, attribute or global write, no iterator advanced, no random draw, no call NumPy does not own)."""
    if ctx.side_effects.version != version:
        raise NotFoldable("the loop body mutates state (a list, dict, attribute or global)")
    if any(var.pos != pos for var, pos in state.iterators.values()):
        raise NotFoldable("the loop body advances an iterator made before the loop")
    for n in nodes:
        if not _allowed(n):
            raise NotFoldable(f"the loop body records {n.op}, which draws random numbers or is not NumPy's")


def _allowed(node: Node) -> bool:
    if control.is_control(node):
        return all(_allowed(n) for _, g in control.subgraphs(node) for n in g.nodes)
    opdef = ops.op_named(node.op)
    if opdef is not None and opdef.random:
        return node.op in ("empty", "empty_like")
    if opdef is not None or not passes.is_impure(node):
        return True
    return node.target in passes.MUTATING_OPERATORS or node.target in _PURE_BUILTINS or \
        node.target is ops.sym_size



def leaves_iteration(frame: "Frame", join: int) -> bool:
    """Whether a branch joining at `join` has an arm that ends the iteration of the loop being folded (a
    `break` or `continue` under it): its arms then run to the iteration's end."""
    loop = frame.fori[-1] if frame.fori else None
    return loop is not None and (join == EXIT or join == loop.header or join not in loop.region)


def fold_iteration_end(frame: "Frame", pred: Any, jump: int, jump_if_true: bool) -> bool:
    """The branch at `jump` on `pred` inside a loop body, whose arms leave the iteration: a cond whose arms
    run the rest of the iteration and give the carried values and whether the loop stops. On success it
    raises AtIterationEnd (the carried locals are the cond's results); False when it does not fold."""
    ctx, loop, graph = frame.ctx, frame.fori[-1], frame.ctx.graph
    ctx.fold_attempts += 1
    state = _save(frame)
    where = frame.location()
    hoisted: list[Node] = []
    try:
        arms, brokes = [], []
        for taken in (True, False):
            start = frame.ins.targets[jump] if taken == jump_if_true else jump + 1
            nodes, outs, broke = _iteration_arm(frame, loop, state, start, hoisted)
            arms.append((nodes, outs))
            brokes.append(broke)
        same = brokes[0] if all(b is brokes[0] for b in brokes) and type(brokes[0]) is bool else None
        if same is not None:        # both arms go on (or both stop): no flag to compute
            arms = [([n for n in nodes if n is not outs[-1]], outs[:-1]) for nodes, outs in arms]
        cond = make_cond(graph, pred.node, arms)
    except (NotFoldable, GraphBreak, LoopBack, AtLoopTest) as e:
        _restore(frame, state, hoisted)
        ctx.folded_log.append(f"line {where[1]}: branch to the end of the iteration not folded: {e}")
        return False
    finally:
        frame.visits = dict(state.visits)
    filename, lineno, text = where
    cond.meta.update(folded="if", filename=filename, lineno=lineno, source_line=text, function=frame.qualname)
    frame.locals = dict(state.locals)
    for i, name in enumerate(loop.names):
        frame.locals[name] = result_var(graph, cond, i, arms[0][1][i], _CARRIED)
    frame.stack = list(loop.stack)
    broke = same if same is not None else result_var(graph, cond, len(loop.names), None, "").node
    raise AtIterationEnd(loop, broke, checked=True)


def result_var(graph: Any, node: Node, i: int, example: Node | None, origin: str) -> Any:
    """Result i of a cond or fori_loop node, as the Var the rest of the capture sees (a number: known at
    run time only, from `origin`; `example` gives its capture-time stand-in)."""
    from ...graph import ops
    getitem = ops.get("getitem")
    out = graph.call(getitem.name, getitem.impl, (node, i), {}, spec=node.spec[i])
    if not isinstance(out.spec, PyScalarSpec):
        return ArrayVar(out)
    value = example.meta.get("value") if example is not None else None
    return ScalarVar.runtime(out, value if type(value) is out.spec.type else out.spec.type(1), origin)


def _iteration_arm(frame: "Frame", loop: Any, state: Any, start: int, hoisted: list[Node]) -> tuple:
    """One arm run to the end of the iteration: (its nodes, [carried values..., whether the loop stops],
    that last one as run_iteration gave it)."""
    ctx, graph = frame.ctx, frame.ctx.graph
    _restore(frame, state, hoisted)
    frame.ip = start
    version = ctx.side_effects.version
    broke = run_iteration(frame, loop)
    outs = [_carried_node(frame, name, frame.locals.get(name)) for name in loop.names] + [truth(graph, broke)]
    nodes = _truncate(graph, state.n_nodes, hoisted)
    check_body(ctx, state, version, nodes)
    return nodes, outs, broke
