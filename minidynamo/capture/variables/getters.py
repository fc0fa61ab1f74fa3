"""operator.itemgetter / attrgetter objects called during capture (`sorted(d, key=itemgetter(0))`,
`map(itemgetter(0), spec)`, `attrgetter("shape")(x)`). Imports variables.base, const and containers.

Such an object is immutable: made in the function from constants it is a constant (ConstVar.call folds the
class call), read from a source it is identity-guarded (an OpaqueVar). Its items or dotted names are read
from its __reduce__, and a call is the subscripts or attribute reads it stands for, each captured as
Python runs them; a call Python would refuse (no argument, keywords) is left to plain Python.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

from ..breaks import BreakCategory
from .base import Var, unsupported
from .containers import TupleVar, wrap_constant

if TYPE_CHECKING:
    from ..frame import Frame

GETTER_TYPES = (operator.itemgetter, operator.attrgetter)


def is_getter(value: Any) -> bool:
    return type(value) in GETTER_TYPES


def call_getter(frame: "Frame", getter: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    """`getter(obj)`: obj[item] or obj.a.b, a tuple of them for several items or names."""
    if kwargs or len(args) != 1:
        raise unsupported(BreakCategory.EXCEPTION, f"{type(getter).__name__} takes exactly one argument")
    obj = args[0]
    _, items = getter.__reduce__()
    if type(getter) is operator.itemgetter:
        parts = [obj.getitem(frame, wrap_constant(item)) for item in items]
    else:
        parts = [_dotted(frame, obj, name) for name in items]
    return parts[0] if len(parts) == 1 else TupleVar(parts)


def _dotted(frame: "Frame", obj: Var, name: str) -> Var:
    for part in name.split("."):
        obj = obj.getattr(frame, part)
    return obj
