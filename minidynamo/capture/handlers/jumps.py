"""Control flow: conditional and unconditional jumps, GET_ITER / FOR_ITER (loops are unrolled, or folded
into a fori_loop node: capture/fold/fori.py), RETURN_*."""

from __future__ import annotations

from typing import Callable

from bytecode import Instr

from ... import pyversion
from ..fold.branches import fold_branch, stop_at_loop_test
from ..fold.fori import fold_for
from ..frame import Frame
from ..fold.speculation import speculate
from ..variables.array import ArrayVar
from ..variables.base import Var
from ..variables.const import ConstVar
from ..variables.containers import wrap_constant
from .registry import Plain, handler, plain_form


def pop_jump_if(frame: Frame, inst: Instr, take: Callable[[Frame, Var], bool]) -> None:
    # (cond -- )   jump when take(cond); an array condition folds into a cond node when both arms are pure
    # graph code (fold/branches.py), one way that only raises is speculated (fold/speculation.py), else breaks
    # inside as_bool (data-dependent)
    cond = frame.pop()
    if take in (_truthy, _falsy):
        stop_at_loop_test(frame, frame.current, cond)   # a test of a while loop being folded (fold/loops.py)
    if isinstance(cond, ArrayVar) and take in (_truthy, _falsy) and \
            fold_branch(frame, cond, frame.current, take is _truthy):
        return
    if take in (_truthy, _falsy):       # one way only raises: follow the other, checked at run time
        assumed = speculate(frame, cond, frame.current, take is _truthy)
        if assumed is not None:
            cond = ConstVar(assumed)
    if take(frame, cond):
        frame.jump(frame.target())


def _truthy(frame: Frame, v: Var) -> bool:
    return v.as_bool(frame)


def _is_none(v: Var) -> bool:
    return v.is_constant() and v.as_constant() is None


def _falsy(frame: Frame, v: Var) -> bool:
    return not v.as_bool(frame)


def _none(frame: Frame, v: Var) -> bool:
    return _is_none(v)


def _not_none(frame: Frame, v: Var) -> bool:
    return not _is_none(v)


# https://docs.python.org/3.12/library/dis.html#opcode-POP_JUMP_IF_TRUE  (3.11 spells direction in the name)
@handler("POP_JUMP_IF_TRUE", since=(3, 12))
def pop_jump_if_true(frame: Frame, inst: Instr) -> None:
    pop_jump_if(frame, inst, _truthy)


@handler("POP_JUMP_IF_FALSE", since=(3, 12))
def pop_jump_if_false(frame: Frame, inst: Instr) -> None:
    pop_jump_if(frame, inst, _falsy)


@plain_form("POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE", since=(3, 12))
@plain_form("POP_JUMP_FORWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_TRUE", "POP_JUMP_FORWARD_IF_FALSE",
            "POP_JUMP_BACKWARD_IF_FALSE", until=(3, 11))
def pop_jump_if_plain(frame: Frame, inst: Instr, em) -> Plain:
    # the truth value in plain Python; the jump then runs again on that bool
    return Plain(1, ["___r"], [f"___r = bool({em.value(frame.stack[-1])})"], offset=0)


@handler("POP_JUMP_IF_NONE", since=(3, 12))
def pop_jump_if_none(frame: Frame, inst: Instr) -> None:
    pop_jump_if(frame, inst, _none)


@handler("POP_JUMP_IF_NOT_NONE", since=(3, 12))
def pop_jump_if_not_none(frame: Frame, inst: Instr) -> None:
    pop_jump_if(frame, inst, _not_none)


@handler("POP_JUMP_FORWARD_IF_TRUE", "POP_JUMP_BACKWARD_IF_TRUE", until=(3, 11))
def pop_jump_if_true_3_11(frame: Frame, inst: Instr) -> None:
    pop_jump_if(frame, inst, _truthy)


@handler("POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_BACKWARD_IF_FALSE", until=(3, 11))
def pop_jump_if_false_3_11(frame: Frame, inst: Instr) -> None:
    pop_jump_if(frame, inst, _falsy)


@handler("POP_JUMP_FORWARD_IF_NONE", "POP_JUMP_BACKWARD_IF_NONE", until=(3, 11))
def pop_jump_if_none_3_11(frame: Frame, inst: Instr) -> None:
    pop_jump_if(frame, inst, _none)


@handler("POP_JUMP_FORWARD_IF_NOT_NONE", "POP_JUMP_BACKWARD_IF_NOT_NONE", until=(3, 11))
def pop_jump_if_not_none_3_11(frame: Frame, inst: Instr) -> None:
    pop_jump_if(frame, inst, _not_none)


# https://docs.python.org/3.11/library/dis.html#opcode-JUMP_IF_TRUE_OR_POP
@handler("JUMP_IF_TRUE_OR_POP", "JUMP_IF_FALSE_OR_POP", until=(3, 11))
def jump_if_or_pop_3_11(frame: Frame, inst: Instr) -> None:
    # (cond -- cond) if jumping, else (cond -- )
    want = inst.name == "JUMP_IF_TRUE_OR_POP"
    if frame.peek().as_bool(frame) == want:
        frame.jump(frame.target())
    else:
        frame.pop()


@handler("JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP", "JUMP_NO_INTERRUPT")
def jump(frame: Frame, inst: Instr) -> None:
    # ( -- )
    frame.jump(frame.target())


@handler("GET_ITER", until=(3, 14))
def get_iter_3_11(frame: Frame, inst: Instr) -> None:
    # (iterable -- iterator)   the items are known at capture time: the loop is unrolled
    frame.push(frame.pop().make_iterator(frame))


# https://docs.python.org/3.15/library/dis.html#opcode-GET_ITER
@handler("GET_ITER", since=(3, 15))
def get_iter(frame: Frame, inst: Instr) -> None:
    # (iterable -- iterator, NULL)   3.15's second slot: NULL, for which FOR_ITER calls the iterator
    frame.push(frame.pop().make_iterator(frame))
    frame.push(None)


@plain_form("GET_ITER")
def get_iter_plain(frame: Frame, inst: Instr, em) -> Plain:
    return Plain(1, ["___r"] + [None] * (pyversion.ITER_SLOTS - 1), [f"___r = iter({em.value(frame.stack[-1])})"])


# https://docs.python.org/3.13/library/dis.html#opcode-FOR_ITER
@handler("FOR_ITER")
def for_iter(frame: Frame, inst: Instr) -> None:
    # (iter, [NULL] -- iter, [NULL], next) or, exhausted, (iter, [NULL] -- ) and jump past the loop's
    # END_FOR (and what pops the iterator: see pyversion); a range loop the capture would hand to a driver,
    # or with a `break`, may become one fori_loop node (fold/fori.py)
    if fold_for(frame, frame.peek(pyversion.ITER_SLOTS)):
        return
    item = frame.peek(pyversion.ITER_SLOTS).next_item()
    if item is not None:
        frame.push(item)
        return
    frame.popn(pyversion.ITER_SLOTS)
    frame.jump(frame.target() + pyversion.FOR_ITER_EXIT_SKIP)


@handler("RETURN_VALUE")
def return_value(frame: Frame, inst: Instr) -> None:
    # (value -- )
    frame.result = frame.pop()


@handler("RETURN_CONST", since=(3, 12), until=(3, 13))
def return_const(frame: Frame, inst: Instr) -> None:
    # ( -- )
    frame.result = wrap_constant(inst.arg)
