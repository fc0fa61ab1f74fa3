"""`x[mask] op= value` (hipsternet's leaky-ReLU backward, `dX[X < 0] *= a`) captured as one op writing into x.

Imports capture.frame's Frame (duck-typed), capture.variables and graph.ops. Read alone, `x[mask]` has a
data-dependent shape (a break); the augmented assignment around it needs no shape: CPython compiles it to
`COPY 2; COPY 2; BINARY_SUBSCR; <load value>; BINARY_OP op=; SWAP 3; SWAP 2; STORE_SUBSCR` on 3.11-3.13,
and the same with `BINARY_OP []` for the BINARY_SUBSCR on 3.14-3.15 (the subscript handler calls this).
At that subscript, when the value is one local or constant, the whole statement is recorded as
`masked_<iop>(x, mask, value)`, which runs the same NumPy calls (`x[mask] = iop(x[mask], value)`). Anything
else (another value expression, a try region, a folded branch arm) keeps the break.
"""

from __future__ import annotations

import operator
from typing import Any

from bytecode import BinaryOp

from .. import pyversion
from ..graph import ops
from .variables.array import ArrayVar
from .variables.const import ConstVar
from .variables.scalar import ScalarVar

_IOPS = {BinaryOp.INPLACE_ADD: operator.iadd, BinaryOp.INPLACE_SUBTRACT: operator.isub,
         BinaryOp.INPLACE_MULTIPLY: operator.imul, BinaryOp.INPLACE_TRUE_DIVIDE: operator.itruediv,
         BinaryOp.INPLACE_FLOOR_DIVIDE: operator.ifloordiv, BinaryOp.INPLACE_REMAINDER: operator.imod,
         BinaryOp.INPLACE_POWER: operator.ipow, BinaryOp.INPLACE_AND: operator.iand,
         BinaryOp.INPLACE_OR: operator.ior, BinaryOp.INPLACE_XOR: operator.ixor}
_LOADS = (*pyversion.LOCAL_LOADS, "LOAD_CONST")
_LENGTH = 5      # the instructions after BINARY_SUBSCR that the statement runs


def _is(instr: Any, name: str, arg: Any = None) -> bool:
    return instr.name == name and (arg is None or instr.arg == arg)


def _value(frame: Any, instr: Any) -> Any:
    """The Var the statement's value load pushes, or None when it is not a number capture holds."""
    if instr.name == "LOAD_CONST":
        var = ConstVar(instr.arg)
    else:
        var = frame.locals.get(instr.arg)
    if isinstance(var, ScalarVar) or type(var) is ArrayVar and var.spec.ndim == 0:
        return var
    if isinstance(var, ConstVar) and type(var.value) in (int, float, bool):
        return var
    return None


def masked_update(frame: Any, container: Any, key: Any) -> bool:
    """Record `container[key] op= value` if the instructions at frame.current are that statement with a
    boolean mask `key` of container's shape; True when done (the frame then continues after it)."""
    k, instrs = frame.current, frame.ins.instrs
    if type(container) is not ArrayVar or type(key) is not ArrayVar or key.spec.dtype.kind != "b" \
            or key.spec.shape != container.spec.shape or frame.ctx.arm_depth or frame.ins.in_try[k]:
        return False
    if k < 2 or k + _LENGTH >= len(instrs) or not (_is(instrs[k - 2], "COPY", 2) and _is(instrs[k - 1], "COPY", 2)):
        return False
    load, binop, swap3, swap2, store = instrs[k + 1:k + 1 + _LENGTH]
    if load.name not in _LOADS or binop.name != "BINARY_OP" or binop.arg not in _IOPS or not (
            _is(swap3, "SWAP", 3) and _is(swap2, "SWAP", 2) and _is(store, "STORE_SUBSCR")):
        return False
    span = range(k + 1, k + 1 + _LENGTH)
    if any(frame.stop_at == (i, frame.visits.get(i, 0) + 1) for i in span) or \
            any(i in frame.loop_starts or i in frame.ins.targets.values() for i in span):
        return False
    value = _value(frame, load)
    if value is None:
        return False
    opdef = ops.MASKED_UPDATES[_IOPS[binop.arg]]
    frame.ctx.record(opdef, [container, key, value], {}, target=opdef.impl)
    del frame.stack[-4:]                    # x, mask and their copies: STORE_SUBSCR leaves none of them
    for i in span:
        frame.visits[i] = frame.visits.get(i, 0) + 1
    frame.ip = k + 1 + _LENGTH
    return True
