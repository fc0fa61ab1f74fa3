"""Comparisons: COMPARE_OP, IS_OP, CONTAINS_OP (TO_BOOL lives with the other conversions in arith.py)."""

from __future__ import annotations

from bytecode import Instr

from ..frame import Frame
from ..variables.const import ConstVar
from ..variables.operators import binary_op, contains_op as apply_contains, is_op as apply_is
from . import handler

_SYMBOLS = {"LT": "<", "LE": "<=", "EQ": "==", "NE": "!=", "GT": ">", "GE": ">="}


# https://docs.python.org/3.13/library/dis.html#opcode-COMPARE_OP
@handler("COMPARE_OP")
def compare_op(frame: Frame, inst: Instr) -> None:
    # (lhs, rhs -- result)   3.13's *_CAST forms also apply bool() (what `if a < b:` compiles to)
    name = inst.arg.name
    rhs, lhs = frame.pop(), frame.pop()
    result = binary_op(frame, _SYMBOLS[name.removesuffix("_CAST")], lhs, rhs)
    if name.endswith("_CAST"):
        result = ConstVar(result.as_bool(frame))
    frame.push(result)


@handler("IS_OP")
def is_op(frame: Frame, inst: Instr) -> None:
    # (lhs, rhs -- lhs is rhs)   arg 1 means `is not`
    rhs, lhs = frame.pop(), frame.pop()
    frame.push(apply_is(frame, lhs, rhs, bool(inst.arg)))


@handler("CONTAINS_OP")
def contains_op(frame: Frame, inst: Instr) -> None:
    # (item, container -- item in container)   arg 1 means `not in`
    container, item = frame.pop(), frame.pop()
    frame.push(apply_contains(frame, item, container, bool(inst.arg)))
