"""Python operators over Vars: one place decides whether `a + b` is a graph op (an array is involved), a
folded constant, or a container operation. Imports graph.ops and variables.*.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING

from ...graph import ops
from .array import ArrayVar
from .base import Var, unsupported
from .const import ConstVar, fold
from .containers import ListVar, SequenceVar

if TYPE_CHECKING:
    from ..frame import Frame

# Python's operator functions by symbol, for folding constants (and in-place forms on immutables).
PY_BINARY = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv, "//": operator.floordiv,
    "%": operator.mod, "**": operator.pow, "@": operator.matmul, "&": operator.and_, "|": operator.or_,
    "^": operator.xor, "<<": operator.lshift, ">>": operator.rshift,
    "<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne, ">": operator.gt, ">=": operator.ge,
}
PY_BINARY.update({sym + "=": getattr(operator, "i" + fn.__name__.strip("_")) for sym, fn in list(PY_BINARY.items())
                  if sym not in ("<", "<=", "==", "!=", ">", ">=")})
PY_UNARY = {"-": operator.neg, "+": operator.pos, "~": operator.invert, "abs": abs}


def _is_array(v: Var) -> bool:
    return isinstance(v, ArrayVar)


def binary_op(frame: "Frame", sym: str, a: Var, b: Var) -> Var:
    """`a <sym> b` as Python evaluates it; `sym` is "+", "+=", "<", ... (reflected forms need no entry:
    the arguments keep Python's order)."""
    if _is_array(a) or _is_array(b):
        if sym.endswith("=") and sym not in ("==", "<=", ">=", "!=") and not (_is_array(a) and not a.spec.scalar):
            sym = sym[:-1]   # in place on an immutable left operand (scalar, Python number) just rebinds
        opdef = ops.BINARY_OPERATORS.get(sym)
        if opdef is None:
            raise unsupported("unsupported", f"operator {sym} on arrays has no registered op")
        return frame.ctx.record(opdef, [a, b], {}, target=opdef.impl)
    if a.is_constant() and b.is_constant() and sym in PY_BINARY:
        return fold(frame, PY_BINARY[sym], a.as_constant(), b.as_constant())
    if sym == "+=" and isinstance(a, ListVar):
        a.call_method(frame, "extend", [b], {})
        return a
    if isinstance(a, SequenceVar) and sym in ("+", "*", "+=", "*="):
        return a.binary(frame, sym.rstrip("="), b)
    if sym in ("==", "!=") and not (_is_array(a) or _is_array(b)):
        same = _identity(a, b)
        if same is not None:
            return ConstVar(same if sym == "==" else not same)
    raise unsupported("unsupported", f"{a.describe()} {sym} {b.describe()}")


def _identity(a: Var, b: Var) -> bool | None:
    """True/False when identity is known at capture time, None when it is not."""
    if a is b:
        return True
    if a.is_constant() and b.is_constant():
        return a.as_constant() is b.as_constant()
    if (a.is_constant() and a.as_constant() is None) or (b.is_constant() and b.as_constant() is None):
        return False   # a non-constant Var (array, container, object) is never None
    return None


def is_op(frame: "Frame", a: Var, b: Var, invert: bool) -> Var:
    same = _identity(a, b)
    if same is None and _is_array(a) and _is_array(b):
        same = True if a.node is b.node else None
    if same is None:
        same = frame.ctx.guard_identity(a, b)
    if same is None:
        raise unsupported("unsupported", f"`is` between {a.describe()} and {b.describe()} is not known at capture")
    return ConstVar(same != invert)


def contains_op(frame: "Frame", item: Var, container: Var, invert: bool) -> Var:
    result = container.contains(frame, item)
    if invert:
        return ConstVar(not result.as_constant())
    return result


def unary_op(frame: "Frame", sym: str, a: Var) -> Var:
    if _is_array(a):
        opdef = ops.UNARY_OPERATORS.get(sym)
        if opdef is None:
            raise unsupported("unsupported", f"unary {sym} on arrays has no registered op")
        return frame.ctx.record(opdef, [a], {}, target=opdef.impl)
    if a.is_constant():
        return fold(frame, PY_UNARY[sym], a.as_constant())
    raise unsupported("unsupported", f"unary {sym} on {a.describe()}")


def not_op(frame: "Frame", a: Var) -> Var:
    return ConstVar(not a.as_bool(frame))
