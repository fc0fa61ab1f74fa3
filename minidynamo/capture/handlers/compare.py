"""Comparisons: COMPARE_OP, IS_OP, CONTAINS_OP (TO_BOOL lives with the other conversions in arith.py)."""

from __future__ import annotations

from bytecode import Instr

from ..fold.branches import fold_next_jump
from ..frame import Frame
from ..fold.speculation import speculate_next_jump
from ..variables.const import ConstVar
from ..variables.operators import binary_op, contains_op as apply_contains, is_op as apply_is
from .registry import Plain, handler, plain_form, result

_SYMBOLS = {"LT": "<", "LE": "<=", "EQ": "==", "NE": "!=", "GT": ">", "GE": ">="}


# https://docs.python.org/3.13/library/dis.html#opcode-COMPARE_OP
@handler("COMPARE_OP")
def compare_op(frame: Frame, inst: Instr) -> None:
    # (lhs, rhs -- result)   3.13's *_CAST forms also apply bool() (what `if a < b:` compiles to)
    name = inst.arg.name
    rhs, lhs = frame.pop(), frame.pop()
    result = binary_op(frame, _SYMBOLS[name.removesuffix("_CAST")], lhs, rhs)
    if name.endswith("_CAST"):
        if fold_next_jump(frame, result):   # `if a < b:` on arrays: the jump folds into a cond node
            return
        assumed = speculate_next_jump(frame, result)     # one way only raises (fold/speculation.py)
        result = ConstVar(result.as_bool(frame) if assumed is None else assumed)
    frame.push(result)


@plain_form("COMPARE_OP")
def compare_op_plain(frame: Frame, inst: Instr, em) -> Plain:
    name = inst.arg.name
    lhs, rhs = em.value(frame.stack[-2]), em.value(frame.stack[-1])
    expr = f"({lhs} {_SYMBOLS[name.removesuffix('_CAST')]} {rhs})"
    return result(2, f"bool{expr}" if name.endswith("_CAST") else expr)


@handler("IS_OP")
def is_op(frame: Frame, inst: Instr) -> None:
    # (lhs, rhs -- lhs is rhs)   arg 1 means `is not`
    rhs, lhs = frame.pop(), frame.pop()
    frame.push(apply_is(frame, lhs, rhs, bool(inst.arg)))


@plain_form("IS_OP")
def is_op_plain(frame: Frame, inst: Instr, em) -> Plain:
    lhs, rhs = em.value(frame.stack[-2]), em.value(frame.stack[-1])
    return result(2, f"({lhs} {'is not' if inst.arg else 'is'} {rhs})")


@handler("CONTAINS_OP")
def contains_op(frame: Frame, inst: Instr) -> None:
    # (item, container -- item in container)   arg 1 means `not in`
    container, item = frame.pop(), frame.pop()
    frame.push(apply_contains(frame, item, container, bool(inst.arg)))


@plain_form("CONTAINS_OP")
def contains_op_plain(frame: Frame, inst: Instr, em) -> Plain:
    item, container = em.value(frame.stack[-2]), em.value(frame.stack[-1])
    return result(2, f"({item} {'not in' if inst.arg else 'in'} {container})")
