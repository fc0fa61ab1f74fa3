"""Arithmetic and subscripts: BINARY_OP (one handler + a table), UNARY_*, *_SUBSCR, *_SLICE, TO_BOOL,
CALL_INTRINSIC_1, formatting opcodes."""

from __future__ import annotations

from bytecode import BinaryOp, Instr

from ..frame import Frame
from ..variables.base import unsupported
from ..variables.const import ConstVar, fold
from ..variables.containers import TupleVar, wrap_constant
from ..variables.operators import binary_op as apply_binary_op, not_op, unary_op
from . import handler
from ..breaks import BreakCategory

# BinaryOp enum -> Python operator symbol (in-place forms end in "=").
BINARY_SYMBOLS = {
    BinaryOp.ADD: "+", BinaryOp.SUBTRACT: "-", BinaryOp.MULTIPLY: "*", BinaryOp.TRUE_DIVIDE: "/",
    BinaryOp.FLOOR_DIVIDE: "//", BinaryOp.REMAINDER: "%", BinaryOp.POWER: "**", BinaryOp.MATRIX_MULTIPLY: "@",
    BinaryOp.AND: "&", BinaryOp.OR: "|", BinaryOp.XOR: "^", BinaryOp.LSHIFT: "<<", BinaryOp.RSHIFT: ">>",
    BinaryOp.INPLACE_ADD: "+=", BinaryOp.INPLACE_SUBTRACT: "-=", BinaryOp.INPLACE_MULTIPLY: "*=",
    BinaryOp.INPLACE_TRUE_DIVIDE: "/=", BinaryOp.INPLACE_FLOOR_DIVIDE: "//=", BinaryOp.INPLACE_REMAINDER: "%=",
    BinaryOp.INPLACE_POWER: "**=", BinaryOp.INPLACE_MATRIX_MULTIPLY: "@=", BinaryOp.INPLACE_AND: "&=",
    BinaryOp.INPLACE_OR: "|=", BinaryOp.INPLACE_XOR: "^=", BinaryOp.INPLACE_LSHIFT: "<<=",
    BinaryOp.INPLACE_RSHIFT: ">>=",
}


# https://docs.python.org/3.13/library/dis.html#opcode-BINARY_OP
@handler("BINARY_OP")
def binary_op(frame: Frame, inst: Instr) -> None:
    # (lhs, rhs -- result)
    sym = BINARY_SYMBOLS.get(inst.arg)
    if sym is None:                                   # 3.14's BinaryOp.SUBSCR is not supported here
        raise unsupported(BreakCategory.UNSUPPORTED, f"binary operator {inst.arg!r}")
    rhs, lhs = frame.pop(), frame.pop()
    frame.push(apply_binary_op(frame, sym, lhs, rhs))


@handler("UNARY_NEGATIVE")
def unary_negative(frame: Frame, inst: Instr) -> None:
    # (value -- -value)
    frame.push(unary_op(frame, "-", frame.pop()))


@handler("UNARY_POSITIVE", until=(3, 11))
def unary_positive(frame: Frame, inst: Instr) -> None:
    # (value -- +value)
    frame.push(unary_op(frame, "+", frame.pop()))


@handler("UNARY_INVERT")
def unary_invert(frame: Frame, inst: Instr) -> None:
    # (value -- ~value)
    frame.push(unary_op(frame, "~", frame.pop()))


@handler("UNARY_NOT")
def unary_not(frame: Frame, inst: Instr) -> None:
    # (value -- not value)
    frame.push(not_op(frame, frame.pop()))


# https://docs.python.org/3.13/library/dis.html#opcode-TO_BOOL
@handler("TO_BOOL", since=(3, 13))
def to_bool(frame: Frame, inst: Instr) -> None:
    # (value -- bool(value))   an array's truth value is data-dependent: as_bool breaks
    frame.push(ConstVar(frame.pop().as_bool(frame)))


# https://docs.python.org/3.12/library/dis.html#opcode-CALL_INTRINSIC_1
@handler("CALL_INTRINSIC_1", since=(3, 12))
def call_intrinsic_1(frame: Frame, inst: Instr) -> None:
    # (value -- result)   only the intrinsics numeric code produces
    name = getattr(inst.arg, "name", str(inst.arg))
    if name == "INTRINSIC_UNARY_POSITIVE":
        frame.push(unary_op(frame, "+", frame.pop()))
    elif name == "INTRINSIC_LIST_TO_TUPLE":
        frame.push(TupleVar(frame.pop().iterate(frame)))
    else:
        raise unsupported(BreakCategory.UNSUPPORTED, f"intrinsic {name}")


@handler("BINARY_SUBSCR")
def binary_subscr(frame: Frame, inst: Instr) -> None:
    # (container, key -- container[key])
    key, container = frame.pop(), frame.pop()
    frame.push(container.getitem(frame, key))


@handler("STORE_SUBSCR")
def store_subscr(frame: Frame, inst: Instr) -> None:
    # (value, container, key -- )
    key, container, value = frame.pop(), frame.pop(), frame.pop()
    container.setitem(frame, key, value)


@handler("DELETE_SUBSCR")
def delete_subscr(frame: Frame, inst: Instr) -> None:
    # (container, key -- )
    key, container = frame.pop(), frame.pop()
    container.delitem(frame, key)


# https://docs.python.org/3.12/library/dis.html#opcode-BINARY_SLICE
@handler("BINARY_SLICE", since=(3, 12))
def binary_slice(frame: Frame, inst: Instr) -> None:
    # (container, start, stop -- container[start:stop])
    stop, start, container = frame.pop(), frame.pop(), frame.pop()
    frame.push(container.getitem(frame, _slice(start, stop)))


@handler("STORE_SLICE", since=(3, 12))
def store_slice(frame: Frame, inst: Instr) -> None:
    # (value, container, start, stop -- )
    stop, start, container, value = frame.pop(), frame.pop(), frame.pop(), frame.pop()
    container.setitem(frame, _slice(start, stop), value)


def _slice(start, stop):
    from ..variables.containers import SliceVar
    if start.is_constant() and stop.is_constant():
        return ConstVar(slice(start.as_constant(), stop.as_constant()))
    return SliceVar(start, stop, ConstVar(None))


@handler("FORMAT_VALUE", until=(3, 12))
def format_value(frame: Frame, inst: Instr) -> None:
    # ([spec], value -- str)   f-string piece; arg says conversion and whether a spec is on the stack
    flags = inst.arg
    spec = frame.pop().as_constant() if flags & 0x04 else ""
    value = frame.pop().as_constant()
    conv = {0: None, 1: str, 2: repr, 3: ascii}[flags & 0x03]
    frame.push(fold(frame, format, conv(value) if conv else value, spec))


@handler("CONVERT_VALUE", since=(3, 13))
def convert_value(frame: Frame, inst: Instr) -> None:
    # (value -- converted)
    conv = {1: str, 2: repr, 3: ascii}[int(inst.arg)]
    frame.push(fold(frame, conv, frame.pop().as_constant()))


@handler("FORMAT_SIMPLE", since=(3, 13))
def format_simple(frame: Frame, inst: Instr) -> None:
    # (value -- str)
    frame.push(fold(frame, format, frame.pop().as_constant(), ""))


@handler("FORMAT_WITH_SPEC", since=(3, 13))
def format_with_spec(frame: Frame, inst: Instr) -> None:
    # (value, spec -- str)
    spec, value = frame.pop(), frame.pop()
    frame.push(fold(frame, format, value.as_constant(), spec.as_constant()))


@handler("BUILD_STRING")
def build_string(frame: Frame, inst: Instr) -> None:
    # (pieces... -- str)
    frame.push(wrap_constant("".join(p.as_constant() for p in frame.popn(inst.arg))))
