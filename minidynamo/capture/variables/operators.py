"""Python operators over Vars: one place decides whether `a + b` is a graph op (an array is involved), a
folded constant, or a container operation. Imports graph.ops and variables.*.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING

from ...graph import ops
from ...graph.ir import PyScalarSpec
from ...graph.symbolic import TooComplex
from .array import ArrayVar
from ...errors import Unsupported
from .base import Var, unsupported
from .const import ConstVar, fold, is_literal
from .containers import ListVar, SequenceVar, TupleVar
from .scalar import ScalarVar, is_number_constant, is_scalar
from .hooks import HOOKS
from ..breaks import BreakCategory

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
    if sym in ("%", "%=") and isinstance(a, ConstVar) and type(a.value) is str and not b.is_constant():
        return HOOKS.percent_format(frame, a.value, list(b.items) if isinstance(b, TupleVar) else [b])
    if _is_array(a) or _is_array(b):
        if isinstance(a, SequenceVar) and sym.endswith("=") and sym not in ("==", "<=", ">=", "!="):
            # `lst += x` extends the list with x's rows, `tup += x` rebinds to an array: Python's semantics
            raise unsupported(BreakCategory.UNSUPPORTED, f"{a.describe()} {sym} an array")
        if sym.endswith("=") and sym not in ("==", "<=", ">=", "!=") and not (_is_array(a) and not a.spec.scalar):
            sym = sym[:-1]   # in place on an immutable left operand (scalar, Python number) just rebinds
        opdef = ops.BINARY_OPERATORS.get(sym)
        if opdef is None:
            raise unsupported(BreakCategory.UNSUPPORTED, f"operator {sym} on arrays has no registered op")
        return frame.ctx.record(opdef, [a, b], {}, target=opdef.impl)
    if (is_scalar(a) or is_scalar(b)) and all(is_scalar(v) or is_number_constant(v) for v in (a, b)):
        return scalar_op(frame, sym.rstrip("=") if sym in PY_BINARY and sym.endswith("=") and
                         sym not in ("==", "<=", ">=", "!=") else sym, [a, b])
    if a.is_constant() and b.is_constant() and sym in PY_BINARY:
        return fold(frame, PY_BINARY[sym], a.as_constant(), b.as_constant())
    if sym == "+=" and isinstance(a, ListVar):
        a.call_method(frame, "extend", [b], {})
        return a
    if isinstance(a, SequenceVar) and sym in ("+", "*", "+=", "*="):
        return a.binary(frame, sym.rstrip("="), b)
    with_a_set = HOOKS.set_operation(frame, sym, a, b)
    if with_a_set is not None:
        return with_a_set
    if sym in ("==", "!=") and not (_is_array(a) or _is_array(b)) and _equality_is_identity(a) \
            and _equality_is_identity(b):
        same = _identity(a, b)
        if same is not None:
            return ConstVar(same if sym == "==" else not same)
    if sym in ("+", "+="):
        joined = HOOKS.concat(a, b)
        if joined is not None:
            return joined
    raise unsupported(BreakCategory.UNSUPPORTED, f"{a.describe()} {sym} {b.describe()}")


def _equality_is_identity(v: Var) -> bool:
    """True when `v == other` is decided by identity for this value (constants, containers, objects without
    their own __eq__). An object array's __eq__ compares elementwise: `arr == None` is an array."""
    if v.is_constant():
        return True
    try:
        t = v.python_type()
    except Unsupported:
        return False
    return t in (list, tuple, dict) or t.__eq__ is object.__eq__


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
        raise unsupported(BreakCategory.UNSUPPORTED, f"`is` between {a.describe()} and {b.describe()} is not known at capture")
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
            raise unsupported(BreakCategory.UNSUPPORTED, f"unary {sym} on arrays has no registered op")
        return frame.ctx.record(opdef, [a], {}, target=opdef.impl)
    if is_scalar(a):
        return scalar_op(frame, sym, [a], unary=True)
    if a.is_constant():
        return fold(frame, PY_UNARY[sym], a.as_constant())
    raise unsupported(BreakCategory.UNSUPPORTED, f"unary {sym} on {a.describe()}")


def scalar_op(frame: "Frame", sym: str, operands: list[Var], unary: bool = False) -> Var:
    """Python arithmetic on unspecialized scalars, recorded as an operator node (Python's own semantics at
    run time); the result's type and capture-time value come from doing the same operation now."""
    fn = PY_UNARY[sym] if unary else PY_BINARY[sym]
    late = [v for v in operands if is_scalar(v) and v.is_runtime_only()] if sym in ("**", "**=") else []
    if late:    # int ** int is an int or a float depending on the exponent's sign: no fixed spec for it
        raise unsupported(BreakCategory.UNSUPPORTED, f"** on a Python number known only at run time "
                          f"({late[0].runtime_origin()})")
    values = [v.value if is_scalar(v) else v.as_constant() for v in operands]
    try:
        value = fn(*values)
    except Exception as e:   # e.g. ZeroDivisionError: plain Python raises it at run time
        raise unsupported(BreakCategory.EXCEPTION, f"{sym} raised {type(e).__name__}: {e}") from None
    if type(value) not in (int, float, bool):
        raise unsupported(BreakCategory.UNSUPPORTED, f"{sym} on Python scalars gave a {type(value).__name__}")
    opdef = (ops.UNARY_OPERATORS if unary else ops.BINARY_OPERATORS).get(sym)
    name = opdef.name if opdef is not None else fn.__name__.strip("_")
    roots = tuple(r for v in operands if is_scalar(v) for r in v.roots)
    node = frame.ctx.graph.call(name, fn, tuple(frame.ctx.to_arg(v) for v in operands), {},
                                spec=PyScalarSpec(type(value)))
    frame.ctx.note_in_try(node)      # 1 / n raises ZeroDivisionError for another n
    node.meta["value"] = value
    node.meta["expr"] = _scalar_expr(sym, operands, unary)
    if type(value) is int and sym in _SYM_ARITHMETIC:
        syms = [v.node.meta.get("sym") if is_scalar(v) else v.as_constant() for v in operands]
        if all(s is not None and type(s) is not bool for s in syms):
            try:
                node.meta["sym"] = fn(*syms)      # n // 2, i + 1, n * d: still symbols
            except TooComplex:
                node.meta["expr"] = None          # a runtime value: used as a size, it specializes
    elif sym in _SYM_RELATIONS and any(is_scalar(v) and v.varies() for v in operands):
        syms = [v.node.meta.get("sym") if is_scalar(v) else v.as_constant() for v in operands]
        if all(s is not None and type(s) not in (bool, float) for s in syms):
            node.meta["relation"] = (syms[0], sym, syms[1])    # `j == 68` over a loop index (ScalarVar.as_bool)
    return ScalarVar(node, value, roots=roots)


# Integer arithmetic that symbolic ints (graph/symbolic.py) follow exactly.
_SYM_ARITHMETIC = frozenset({"+", "-", "*", "//", "%"})
_SYM_RELATIONS = frozenset({"<", "<=", "==", "!=", ">", ">="})


def _scalar_expr(sym: str, operands: list[Var], unary: bool) -> str | None:
    """Python source for a scalar operation over its operands' expressions (for guards on conditions)."""
    parts = []
    for v in operands:
        e = v.expr() if is_scalar(v) else repr(v.as_constant())
        if e is None or (not is_scalar(v) and not is_literal(v.as_constant())):
            return None
        parts.append(e)
    if sum(map(len, parts)) > _MAX_EXPR:
        return None     # a condition on it then guards the exact input values instead
    if unary:
        return f"({sym}{parts[0]})" if sym in ("-", "+", "~") else None
    return f"({parts[0]} {sym} {parts[1]})"


_MAX_EXPR = 400         # `n = n * (n + n)` in a loop triples the text per step


def not_op(frame: "Frame", a: Var) -> Var:
    return ConstVar(not a.as_bool(frame))
