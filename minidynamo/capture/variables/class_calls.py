"""Calling a constant that is not a NumPy scalar type (ConstVar.call's other cases): np.ndarray(...), the
operator module's getters (itemgetter(0) folded, a getter called as its subscripts), named tuples and plain
Python classes (objects made during capture). Imports numpy_ns, getters, namedtuples and new_objects;
provides HOOKS.call_constant, so const.py imports none of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..breaks import BreakCategory
from . import new_objects
from .base import Var, unsupported
from .const import all_constant, fold
from .getters import GETTER_TYPES, call_getter, is_getter
from .hooks import HOOKS
from .namedtuples import construct, is_namedtuple_class
from .numpy_ns import construct_ndarray

if TYPE_CHECKING:
    from ..frame import Frame


@HOOKS.provide
def call_constant(frame: "Frame", var: Var, args: list[Var], kwargs: dict[str, Var]) -> Var:
    v = var.value
    if v is np.ndarray:
        return construct_ndarray(frame, args, kwargs)
    if v in GETTER_TYPES and all_constant(args, kwargs):     # itemgetter(0): an immutable constant
        return fold(frame, v, *[a.as_constant() for a in args], **{k: a.as_constant() for k, a in kwargs.items()})
    if is_getter(v):
        return call_getter(frame, v, args, kwargs)
    if is_namedtuple_class(v):
        return construct(frame, v, args, kwargs)
    if new_objects.is_plain_class(v):
        return new_objects.construct(frame, v, args, kwargs)
    raise unsupported(BreakCategory.CALL, f"calling {var.describe()}")
