"""copy.deepcopy during capture: a dict, list or tuple of arrays and Python numbers (an optimizer's state, a
layer's parameters, nested) is copied in the graph, as deepcopy copies it:
- an ndarray becomes `x.copy(order="K")`, which is what ndarray.__deepcopy__ does for a dtype without
  objects (PyArray_NewCopy, keep order: a transposed array stays Fortran-ordered, a strided view packed);
- Python numbers, strings, None and a tuple of only such values are the objects themselves (deepcopy
  returns immutable atoms and such tuples unchanged);
- a dict or list is a new one of deep copies, a tuple holding copies a new tuple;
- the memo: one object reached twice (`{"w": x, "v": x}`: capture knows, and guards, that both are one
  array) is copied once, and both places hold that copy.
Anything else (a NumPy scalar, an object, a set, a dict subclass, a memo argument) leaves the call one
plain-Python call, as before. Everything is checked before anything is recorded, so a refusal leaves the
graph as it was. Registers into builtins.BUILTINS (context.py wraps copy.deepcopy as a BuiltinVar).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from ..breaks import BreakCategory
from .array import ArrayVar
from .base import Var, unsupported
from .builtins import builtin
from .const import ConstVar
from .containers import DictVar, ListVar, TupleVar
from .scalar import ScalarVar

if TYPE_CHECKING:
    from ..frame import Frame

_ATOMS = (int, float, complex, bool, str, bytes, type(None))


@builtin(copy.deepcopy)
def _deepcopy(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    if len(args) != 1 or kwargs:
        raise unsupported(BreakCategory.CALL, "copy.deepcopy() with a memo runs as plain Python")
    _check(args[0])
    return _copy(frame, args[0], {})


def _identity(var: Var) -> int:
    return id(var.node) if isinstance(var, ArrayVar) else id(var)


def _atom(var: Var) -> bool:
    return isinstance(var, ScalarVar) or (var.is_constant() and type(var.as_constant()) in _ATOMS)


def _check(var: Var) -> None:
    if isinstance(var, ArrayVar):
        if var.spec.scalar or var.spec.dtype.hasobject:
            raise _refused(var)
    elif isinstance(var, (TupleVar, ListVar)) and var.python_type() in (tuple, list):
        for item in var.items:
            _check(item)
    elif isinstance(var, DictVar) and var.python_type() is dict:
        for value in var.items.values():
            _check(value)
    elif not _atom(var):
        raise _refused(var)


def _refused(var: Var) -> Exception:
    return unsupported(BreakCategory.CALL, f"copy.deepcopy() of {var.describe()} runs as plain Python (only "
                       "arrays, Python numbers and strings, and tuples, lists and dicts of them copy in the graph)")


def _copy(frame: "Frame", var: Var, memo: dict[int, Var]) -> Var:
    key = _identity(var)
    if key in memo:
        return memo[key]
    if isinstance(var, ArrayVar):
        out = var.call_method(frame, "copy", [], {"order": ConstVar("K")})
    elif isinstance(var, TupleVar):
        items = [_copy(frame, item, memo) for item in var.items]
        out = var if all(a is b for a, b in zip(items, var.items)) else TupleVar(items)
    elif isinstance(var, ListVar):
        out = ListVar([])
        memo[key] = out
        out.items = [_copy(frame, item, memo) for item in var.items]
    elif isinstance(var, DictVar):
        out = DictVar({})
        memo[key] = out
        out.items = {k: _copy(frame, v, memo) for k, v in var.items.items()}
    else:
        out = var                       # an atom: deepcopy hands back the object itself
    memo[key] = out
    return out
