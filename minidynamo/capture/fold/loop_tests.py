"""The test of a while loop being folded, as one graph value: Python's short-circuit `and`/`or` become conds.
Imports fold.branches, fold.postdom and graph (the interpreter loop is passed in: frame.run_until).

CPython compiles `while a and b:` as a chain of conditional jumps (3.11-3.13: at the top, and again at the
bottom of the body; 3.14: at the top only, where the back edge lands) whose ways out are the body's first
instruction (`body`: run the body) or the loop's exit. A
*test jump* of the loop is one from which only pure test code (loads, calls, operators: TEST_OPCODES, no
store, no other jump) leads to `start` or the exit, both reachable. Wherever control comes to a test jump,
what follows is exactly "evaluate the rest of the test, then run the body or leave", so `continuation`
turns it into the loop's predicate: at a jump on a graph value whose one way ends the test and whose other
way evaluates more of it, a cond node runs that rest only when Python would (same order, same ops, same
exceptions); a jump on a Python constant is simply followed, as eager does.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ... import pyversion
from ...graph.ir import ArraySpec, Node, PyScalarSpec
from .branches import ARM_OPCODES, AtLoopTest, NotFoldable, _restore, _save, _truncate, check_pure, make_cond
from ..instructions import decode
from .postdom import successors
from ..variables.array import ArrayVar
from ..variables.scalar import ScalarVar

if TYPE_CHECKING:
    from ..frame import Frame

# What test code between two test jumps may run: ARM_OPCODES without stores, jumps and stack shuffles.
TEST_OPCODES = ARM_OPCODES - {
    "STORE_FAST", "JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "RETURN_VALUE", "RETURN_CONST",
    "GET_ITER", "FOR_ITER", "END_FOR", "POP_ITER", "POP_TOP", "COPY", "SWAP", "UNPACK_SEQUENCE"} - {
    n for n in ARM_OPCODES if "POP_JUMP" in n}
_TEST_JUMPS = {"POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE", "POP_JUMP_FORWARD_IF_TRUE", "POP_JUMP_FORWARD_IF_FALSE",
               "POP_JUMP_BACKWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_FALSE"}
_BOOL = PyScalarSpec(bool)


@dataclass(frozen=True)
class Loop:
    """A `while` loop: the back edge at `end` jumps to `start`, the body starts at `body` (`start` itself
    but for 3.14's loop tested at the top: pyversion.WHILE_TESTED_AT_TOP), `exit` follows the loop."""

    start: int
    end: int
    exit: int
    tests: frozenset[int]      # its test jumps
    body: int


def find_loop(frame: "Frame", jump: int) -> Loop | None:
    """The while loop whose test jump is at `jump`, or None."""
    for start, end in frame.ins.loops:
        if frame.ins.instrs[start].name == "FOR_ITER":
            continue
        body = _body_start(frame.code, start, end)
        exits = _test_jumps(frame.code, start, end, body) if body is not None else {}
        if jump in exits:
            tests = frozenset(j for j, x in exits.items() if x == exits[jump])
            return Loop(start, end, exits[jump], tests, body)
    return None


@lru_cache(maxsize=256)
def _body_start(code: Any, start: int, end: int) -> int | None:
    """Where the body of the loop from `start` to `end` begins: `start` (3.11-3.13; on 3.14 a loop tested at
    its bottom only, `while True: ... if c: break`), or on 3.14 the one way of its top test into the loop.
    Candidates are tried from the last: `while a and b:` is tested by both jumps (its body after `b`), and a
    body that begins with an `if` does not make that `if` part of the test (its other way leads elsewhere)."""
    if not pyversion.WHILE_TESTED_AT_TOP:
        return start
    ins, succ = decode(code), successors(code)
    jumps = [j for j in range(start, end + 1) if ins.instrs[j].name in _TEST_JUMPS and not ins.in_try[j]]
    ways = {_follow(succ, ins.instrs, w) for j in jumps for w in (j + 1, ins.targets[j])}
    for body in sorted((w for w in ways if start < w <= end), reverse=True):
        exits = _test_jumps(code, start, end, body)
        k = start
        while k <= end and ins.instrs[k].name in TEST_OPCODES:
            k += 1
        if k in exits:                  # the test begins where the back edge lands
            return body
    return start


def _follow(succ: tuple[tuple[int, ...], ...], instrs: list, i: int) -> int:
    """Follow unconditional jumps from instruction i (3.12+ ends a body with `test; POP_JUMP; JUMP_BACKWARD`),
    and 3.14's NOT_TAKEN after a conditional jump."""
    seen = set()
    while 0 <= i < len(instrs) and (instrs[i].name.startswith("JUMP") or instrs[i].name == "NOT_TAKEN") \
            and i not in seen:
        seen.add(i)
        i = succ[i][0]
    return i


def ways(frame: "Frame", jump: int) -> tuple[int, int]:
    """(where control goes when the value tested at `jump` is true, ... when false), past plain jumps."""
    succ, instrs = successors(frame.code), frame.ins.instrs
    target, fall = _follow(succ, instrs, frame.ins.targets[jump]), _follow(succ, instrs, jump + 1)
    return (target, fall) if "TRUE" in instrs[jump].name else (fall, target)


@lru_cache(maxsize=256)
def _test_jumps(code: Any, start: int, end: int, body: int) -> dict[int, int]:
    """{test jump: the loop exit it leads to} for the loop from `start` to its back edge at `end` whose body
    starts at `body`. The exit is the instruction after the loop, or (a `break` ending a `while True:` body,
    which 3.12+ compiles as a copy of the code after the loop) the first instruction that is not test code."""
    ins = decode(code)
    succ = successors(code)
    ends: dict[int, frozenset | None] = {}

    def of_jump(j: int) -> frozenset | None:
        if j not in ends:
            ends[j] = None              # (a cycle through test code is no test)
            a = _follow(succ, ins.instrs, ins.targets[j])
            b = _follow(succ, ins.instrs, j + 1)
            ea, eb = (of_way(a), of_way(b)) if a != b else (None, None)
            ends[j] = ea | eb if ea is not None and eb is not None else None
        return ends[j]

    def of_way(i: int) -> frozenset | None:
        if i in (body, end + 1):
            return frozenset({i})
        k = i
        while 0 <= k < len(ins.instrs) and ins.instrs[k].name in TEST_OPCODES and not ins.in_try[k]:
            k += 1
        if 0 <= k < len(ins.instrs) and ins.instrs[k].name in _TEST_JUMPS and not ins.in_try[k]:
            return of_jump(k)
        return frozenset({i}) if leaves(i) else None     # an exit (one per loop, below)

    def leaves(i: int) -> bool:
        """Control at i is out of the loop: past it, or on straight-line code to a return."""
        if not start <= i <= end:
            return i >= 0
        while i <= end and not ins.instrs[i].name.startswith(("JUMP", "POP_JUMP", "FOR_ITER")):
            if ins.instrs[i].name in ("RETURN_VALUE", "RETURN_CONST"):
                return True
            i += 1
        return False

    out = {}
    for j, instr in enumerate(ins.instrs):
        if instr.name in _TEST_JUMPS and not ins.in_try[j]:
            found = of_jump(j)
            if found is not None and body in found and len(found) == 2:
                out[j] = min(found - {body})
    return out


def continuation(frame: "Frame", loop: Loop, jump: int, value: Any, hoisted: list[Node]) -> Node | bool:
    """The loop's predicate from the test jump at `jump` on `value` (already popped): a graph node (true:
    run the body) appended to the frame's graph, or a Python bool when the rest was decided at capture."""
    on_true, on_false = ways(frame, jump)
    if not isinstance(value, (ArrayVar, ScalarVar)):       # a Python constant: go where Python goes
        return _rest(frame, loop, on_true if value.as_bool(frame) else on_false, hoisted)
    if isinstance(value, ArrayVar) and (not isinstance(value.spec, ArraySpec) or value.spec.shape != ()):
        raise NotFoldable(f"the loop tests an array of spec {value.spec}")
    graph = frame.ctx.graph
    if (on_true, on_false) == (loop.body, loop.exit):
        return value.node
    if (on_true, on_false) == (loop.exit, loop.body):
        return graph.call("not_", operator.not_, (value.node,), {}, spec=_BOOL)
    arms = [_arm(frame, loop, way, value, side, hoisted) for side, way in ((True, on_true), (False, on_false))]
    cond = make_cond(graph, value.node, arms)
    return _getitem(graph, cond)


def _rest(frame: "Frame", loop: Loop, way: int, hoisted: list[Node]) -> Node | bool:
    """Run the test code from instruction `way` to the next test jump and continue there."""
    if way in (loop.body, loop.exit):
        return way == loop.body
    frame.ip = way
    try:
        frame.run_until(None)
    except AtLoopTest as at:
        if at.key[0] != id(frame) or at.key[1] not in loop.tests:
            raise NotFoldable("the loop test reaches another loop's test") from None
        return continuation(frame, loop, at.key[1], at.pred, hoisted)
    raise NotFoldable("the loop test does not reach a test jump")


def _arm(frame: "Frame", loop: Loop, way: int, value: Any, side: bool, hoisted: list[Node]) -> tuple:
    """One arm of a cond in the test, taken when bool(value) is `side`: (nodes, [its Python bool])."""
    ctx, graph = frame.ctx, frame.ctx.graph
    state = _save(frame)
    version, mutations = ctx.side_effects.version, len(ctx.mutating_nodes)
    try:
        if way in (loop.body, loop.exit):     # the test ends here: bool(value) is `side`, the answer known
            ends_true = way == loop.body
            out = truth(graph, value.node, negate=ends_true != side)
        else:
            out = truth(graph, _rest(frame, loop, way, hoisted))
        if len(frame.stack) != len(state.stack) or any(a is not b for a, b in zip(frame.stack, state.stack)) \
                or any(frame.locals.get(k) is not v for k, v in state.locals.items()):
            raise NotFoldable("the loop test changes the stack or a local")
        nodes = _truncate(graph, state.n_nodes, hoisted)
        check_pure(ctx, state, version, mutations, nodes)
    finally:
        _restore(frame, state, hoisted)
    return nodes, [out]


def truth(graph: Any, value: Node | bool, negate: bool = False) -> Node:
    """`bool(value)` (or `not value`) as a py_bool node; a py_bool node is already its own truth."""
    if not negate and isinstance(value, Node) and value.spec == _BOOL:
        return value
    fn = operator.not_ if negate else operator.truth
    return graph.call(fn.__name__, fn, (value,), {}, spec=_BOOL)


def _getitem(graph: Any, cond: Node) -> Node:
    from ...graph import ops
    getitem = ops.get("getitem")
    return graph.call(getitem.name, getitem.impl, (cond, 0), {}, spec=cond.spec[0])
