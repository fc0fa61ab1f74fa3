"""Arithmetic and subscripts: BINARY_OP (one handler + a table), UNARY_*, *_SUBSCR, *_SLICE, TO_BOOL,
CALL_INTRINSIC_1, formatting opcodes."""

from __future__ import annotations

import operator

from bytecode import BinaryOp, Instr

from ..breaks import BreakCategory
from ..fold.branches import fold_next_jump
from ..frame import Frame
from ..masked_updates import masked_update
from ..fold.speculation import speculate_next_jump
from ..variables.base import unsupported
from ..variables.const import ConstVar
from ..variables.containers import SliceVar, TupleVar
from ..variables.operators import binary_op as apply_binary_op, not_op, unary_op
from ..variables.strings import CONVERSIONS, format_value as apply_format, join_strings
from .registry import Plain, handler, plain_form, result
from ..variables.scalar import is_symbolic_int

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


# 3.14: BinaryOp.SUBSCR (`bytecode` has the member only there) is BINARY_OP's subscript, BINARY_SUBSCR before.
_SUBSCR = getattr(BinaryOp, "SUBSCR", None)


# https://docs.python.org/3.14/library/dis.html#opcode-BINARY_OP
@handler("BINARY_OP")
def binary_op(frame: Frame, inst: Instr) -> None:
    # (lhs, rhs -- result)   3.14's SUBSCR: (container, key -- container[key])
    if _SUBSCR is not None and inst.arg == _SUBSCR:
        subscript(frame)
        return
    sym = BINARY_SYMBOLS.get(inst.arg)
    if sym is None:
        raise unsupported(BreakCategory.UNSUPPORTED, f"binary operator {inst.arg!r}")
    rhs, lhs = frame.pop(), frame.pop()
    frame.push(apply_binary_op(frame, sym, lhs, rhs))


_INPLACE = {"+=": "iadd", "-=": "isub", "*=": "imul", "/=": "itruediv", "//=": "ifloordiv", "%=": "imod",
            "**=": "ipow", "@=": "imatmul", "&=": "iand", "|=": "ior", "^=": "ixor", "<<=": "ilshift",
            ">>=": "irshift"}


@plain_form("BINARY_OP")
def binary_op_plain(frame: Frame, inst: Instr, em) -> Plain:
    if _SUBSCR is not None and inst.arg == _SUBSCR:
        return binary_subscr_plain(frame, inst, em)
    sym = BINARY_SYMBOLS[inst.arg]
    lhs, rhs = em.value(frame.stack[-2]), em.value(frame.stack[-1])
    if sym in _INPLACE:       # `a += b` keeps its in-place protocol: operator.iadd
        return result(2, f"{em.constant(getattr(operator, _INPLACE[sym]))}({lhs}, {rhs})")
    return result(2, f"({lhs} {sym} {rhs})")


@plain_form("UNARY_NEGATIVE", "UNARY_INVERT", "UNARY_NOT")
def unary_plain(frame: Frame, inst: Instr, em) -> Plain:
    op = {"UNARY_NEGATIVE": "-", "UNARY_INVERT": "~", "UNARY_NOT": "not "}[inst.name]
    return result(1, f"{op}{em.value(frame.stack[-1])}")


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
    # (value -- bool(value))   an array's truth value is data-dependent: the jump after it folds into a
    # cond node (fold/branches.py) or as_bool breaks
    value = frame.pop()
    if fold_next_jump(frame, value):
        return
    assumed = speculate_next_jump(frame, value)     # one way only raises: follow the other (fold/speculation.py)
    frame.push(ConstVar(value.as_bool(frame) if assumed is None else assumed))


@plain_form("TO_BOOL", since=(3, 13))
def to_bool_plain(frame: Frame, inst: Instr, em) -> Plain:
    return result(1, f"bool({em.value(frame.stack[-1])})")


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


@handler("BINARY_SUBSCR", until=(3, 13))
def binary_subscr(frame: Frame, inst: Instr) -> None:
    # (container, key -- container[key])
    subscript(frame)


def subscript(frame: Frame) -> None:
    """container[key] (BINARY_SUBSCR; 3.14's BINARY_OP SUBSCR); `x[mask] op= v` is taken whole
    (masked_updates.py)."""
    if masked_update(frame, frame.stack[-2], frame.stack[-1]):
        return
    key, container = frame.pop(), frame.pop()
    frame.push(container.getitem(frame, key))


@plain_form("BINARY_SUBSCR", until=(3, 13))
def binary_subscr_plain(frame: Frame, inst: Instr, em) -> Plain:
    return result(2, f"{em.subject(frame.stack[-2])}[{em.value(frame.stack[-1])}]")


@handler("STORE_SUBSCR")
def store_subscr(frame: Frame, inst: Instr) -> None:
    # (value, container, key -- )
    key, container, value = frame.pop(), frame.pop(), frame.pop()
    container.setitem(frame, key, value)


@plain_form("STORE_SUBSCR")
def store_subscr_plain(frame: Frame, inst: Instr, em) -> Plain:
    value, key = em.value(frame.stack[-3]), em.value(frame.stack[-1])
    return Plain(3, [], [f"{em.subject(frame.stack[-2])}[{key}] = {value}"])


@handler("DELETE_SUBSCR")
def delete_subscr(frame: Frame, inst: Instr) -> None:
    # (container, key -- )
    key, container = frame.pop(), frame.pop()
    container.delitem(frame, key)


@plain_form("DELETE_SUBSCR")
def delete_subscr_plain(frame: Frame, inst: Instr, em) -> Plain:
    return Plain(2, [], [f"del {em.subject(frame.stack[-2])}[{em.value(frame.stack[-1])}]"])


# https://docs.python.org/3.12/library/dis.html#opcode-BINARY_SLICE
@handler("BINARY_SLICE", since=(3, 12))
def binary_slice(frame: Frame, inst: Instr) -> None:
    # (container, start, stop -- container[start:stop])
    stop, start, container = frame.pop(), frame.pop(), frame.pop()
    frame.push(container.getitem(frame, _slice(start, stop)))


@plain_form("BINARY_SLICE", since=(3, 12))
def binary_slice_plain(frame: Frame, inst: Instr, em) -> Plain:
    container, start, stop = em.subject(frame.stack[-3]), em.value(frame.stack[-2]), em.value(frame.stack[-1])
    return result(3, f"{container}[{start}:{stop}]")


@handler("STORE_SLICE", since=(3, 12))
def store_slice(frame: Frame, inst: Instr) -> None:
    # (value, container, start, stop -- )
    stop, start, container, value = frame.pop(), frame.pop(), frame.pop(), frame.pop()
    container.setitem(frame, _slice(start, stop), value)


@plain_form("STORE_SLICE", since=(3, 12))
def store_slice_plain(frame: Frame, inst: Instr, em) -> Plain:
    value, container, start, stop = (em.value(frame.stack[-4]), em.subject(frame.stack[-3]),
                                     em.value(frame.stack[-2]), em.value(frame.stack[-1]))
    return Plain(4, [], [f"{container}[{start}:{stop}] = {value}"])


def _slice(start, stop):
    if all(p.is_constant() and not is_symbolic_int(p) for p in (start, stop)):   # symbolic bounds stay
        return ConstVar(slice(start.as_constant(), stop.as_constant()))
    return SliceVar(start, stop, ConstVar(None))


_CONVERSIONS = {0: None, 1: "str", 2: "repr", 3: "ascii"}


def _format_value_arg(inst: Instr) -> tuple[str | None, bool]:
    """FORMAT_VALUE's oparg (3.11/3.12): the conversion in bits 0-1, bit 2 set when a spec is on the stack."""
    return _CONVERSIONS[inst.arg & 0x03], bool(inst.arg & 0x04)


# https://docs.python.org/3.12/library/dis.html#opcode-FORMAT_VALUE
@handler("FORMAT_VALUE", until=(3, 12))
def format_value(frame: Frame, inst: Instr) -> None:
    # ([spec], value -- str)   f-string piece; an array's text is made in the entry (variables/strings.py)
    conversion, has_spec = _format_value_arg(inst)
    spec = frame.pop() if has_spec else ConstVar("")
    frame.push(apply_format(frame, frame.pop(), conversion, spec))


def _plain_format(value: str, conversion: str | None, spec: str, em) -> str:
    if conversion is not None:
        value = f"{em.constant(CONVERSIONS[conversion])}({value})"
    return f"{em.constant(format)}({value}, {spec})"


@plain_form("FORMAT_VALUE", until=(3, 12))
def format_value_plain(frame: Frame, inst: Instr, em) -> Plain:
    conversion, has_spec = _format_value_arg(inst)
    s = frame.stack
    spec = em.value(s[-1]) if has_spec else "''"
    value = em.value(s[-2] if has_spec else s[-1])
    return result(2 if has_spec else 1, _plain_format(value, conversion, spec, em))


# https://docs.python.org/3.13/library/dis.html#opcode-CONVERT_VALUE
@handler("CONVERT_VALUE", since=(3, 13))
def convert_value(frame: Frame, inst: Instr) -> None:
    # (value -- str(value) / repr(value) / ascii(value))
    frame.push(apply_format(frame, frame.pop(), _CONVERSIONS[int(inst.arg)], ConstVar("")))


@plain_form("CONVERT_VALUE", since=(3, 13))
def convert_value_plain(frame: Frame, inst: Instr, em) -> Plain:
    return result(1, _plain_format(em.value(frame.stack[-1]), _CONVERSIONS[int(inst.arg)], "''", em))


@handler("FORMAT_SIMPLE", since=(3, 13))
def format_simple(frame: Frame, inst: Instr) -> None:
    # (value -- str)
    frame.push(apply_format(frame, frame.pop(), None, ConstVar("")))


@plain_form("FORMAT_SIMPLE", since=(3, 13))
def format_simple_plain(frame: Frame, inst: Instr, em) -> Plain:
    return result(1, _plain_format(em.value(frame.stack[-1]), None, "''", em))


@handler("FORMAT_WITH_SPEC", since=(3, 13))
def format_with_spec(frame: Frame, inst: Instr) -> None:
    # (value, spec -- str)
    spec, value = frame.pop(), frame.pop()
    frame.push(apply_format(frame, value, None, spec))


@plain_form("FORMAT_WITH_SPEC", since=(3, 13))
def format_with_spec_plain(frame: Frame, inst: Instr, em) -> Plain:
    return result(2, _plain_format(em.value(frame.stack[-2]), None, em.value(frame.stack[-1]), em))


@handler("BUILD_STRING")
def build_string(frame: Frame, inst: Instr) -> None:
    # (pieces... -- str)
    frame.push(join_strings(frame.popn(inst.arg)))


@plain_form("BUILD_STRING")
def build_string_plain(frame: Frame, inst: Instr, em) -> Plain:
    pieces = "".join(em.value(p) + ", " for p in frame.stack[len(frame.stack) - inst.arg:])
    return result(inst.arg, f"''.join(({pieces}))")
