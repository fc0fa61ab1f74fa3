"""Stack shuffling and no-ops: NOP, RESUME, POP_TOP, PUSH_NULL, COPY, SWAP, PRECALL, END_FOR, POP_ITER,
NOT_TAKEN, CACHE."""

from __future__ import annotations

from bytecode import Instr

from ... import pyversion
from ..frame import Frame
from .registry import handler


@handler("NOP", "RESUME", "CACHE", "EXTENDED_ARG")
def nop(frame: Frame, inst: Instr) -> None:
    # ( -- )
    pass


# https://docs.python.org/3.14/library/dis.html#opcode-NOT_TAKEN
@handler("NOT_TAKEN", since=(3, 14))
def not_taken(frame: Frame, inst: Instr) -> None:
    # ( -- )   follows a conditional jump that fell through (for sys.monitoring's branch events)
    pass


@handler("POP_TOP")
def pop_top(frame: Frame, inst: Instr) -> None:
    # (value -- )
    frame.pop()


@handler("PUSH_NULL")
def push_null(frame: Frame, inst: Instr) -> None:
    # ( -- NULL)   the NULL slot of a call; None stands for it on our stack
    frame.push(None)


@handler("COPY")
def copy(frame: Frame, inst: Instr) -> None:
    # (..., v, [n-1 items] -- ..., v, [n-1 items], v)
    frame.push(frame.peek(inst.arg))


@handler("SWAP")
def swap(frame: Frame, inst: Instr) -> None:
    # (..., a, [...], b -- ..., b, [...], a)
    s = frame.stack
    s[-1], s[-inst.arg] = s[-inst.arg], s[-1]


# https://docs.python.org/3.11/library/dis.html#opcode-PRECALL
@handler("PRECALL", until=(3, 11))
def precall(frame: Frame, inst: Instr) -> None:
    # ( -- )   3.11 only; CALL does the work
    pass


# https://docs.python.org/3.12/library/dis.html#opcode-END_FOR
@handler("END_FOR", since=(3, 12), until=(3, 12))
def end_for_3_12(frame: Frame, inst: Instr) -> None:
    # (iter, value -- )   3.12 pops both; our FOR_ITER pushed a placeholder value on exhaustion
    frame.popn(2)


@handler("END_FOR", since=(3, 13))
def end_for(frame: Frame, inst: Instr) -> None:
    # (value -- )   3.13: a POP_TOP follows for the iterator, 3.14+: a POP_ITER
    frame.pop()


# https://docs.python.org/3.14/library/dis.html#opcode-POP_ITER
@handler("POP_ITER", since=(3, 14))
def pop_iter(frame: Frame, inst: Instr) -> None:
    # (iter, [NULL] -- )   the iterator's slots (two on 3.15: pyversion.ITER_SLOTS)
    frame.popn(pyversion.ITER_SLOTS)
