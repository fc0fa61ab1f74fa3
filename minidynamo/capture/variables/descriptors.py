"""Attributes found on a class: methods, staticmethods, classmethods, slots, NamedTuple fields and plain
class attributes, read through an instance or through the class itself. Imports variables.base/functions.

An instance's type is guarded (TYPE guard), but a class attribute can be replaced without changing the
type (`Model.forward = other`), so every method or descriptor that capture follows also guards the identity
of the class attribute it found: `<owner>.__dict__.get(name) is <what capture used>`. Properties and
cached_property live in objects.py (they run the getter inline).
"""

from __future__ import annotations

import collections
import inspect
import types
from typing import TYPE_CHECKING, Any

from ... import guards as G
from ..breaks import BreakCategory
from ..sources import AttrSource, NamespaceSource
from .base import Var, unsupported
from .functions import BoundMethodVar, UserFunctionVar
from .hooks import HOOKS
from .const import ConstVar

if TYPE_CHECKING:
    from ..frame import Frame

# Descriptors implemented in C that only store and fetch a value: reading one is reading plain data.
PLAIN_DATA = (types.MemberDescriptorType, type(collections.namedtuple("_T", "a").a))


def is_data_descriptor(static: Any) -> bool:
    return hasattr(type(static), "__set__") or hasattr(type(static), "__delete__")


def guard_class_attribute(frame: "Frame", cls: type, name: str, static: Any) -> None:
    """Guard that `name` still resolves, through `cls`'s MRO, to the object capture used."""
    guard_mro_lookup(frame, cls.__mro__, name, static)


def guard_mro_lookup(frame: "Frame", classes: tuple, name: str, static: Any) -> None:
    """Guard a lookup of `name` along `classes` (an MRO, or the part of one after super()'s class): the class
    that defines it still holds `static`, and no class before it has gained the name since (it would win)."""
    owner = next((c for c in classes if name in vars(c)), None)
    if owner is None:
        return
    for c in classes[:classes.index(owner)]:
        frame.ctx.guard([G.Guard(f"({name!r} in {_dict_key(frame, c)})", G.GuardKind.EQUALS, False,
                                 f"{c.__qualname__} defines no {name}")])
    frame.ctx.guard([G.Guard(f"{_dict_key(frame, owner)}.get({name!r})", G.GuardKind.ID, static,
                             f"{owner.__qualname__}.{name}")])


def _dict_key(frame: "Frame", cls: type) -> str:
    # The class's __dict__ proxy is bound once (a live view): the warm path skips making a new proxy.
    key = frame.ctx.bind(cls, "cls") + "_dict"
    frame.ctx.namespace.setdefault(key, vars(cls))
    return key


def _class_var(frame: "Frame", cls: type) -> Var:
    return ConstVar(cls, NamespaceSource(frame.ctx.bind(cls, "cls"), cls.__qualname__))


def _function(static: Any) -> types.FunctionType | None:
    fn = static.__func__ if isinstance(static, (staticmethod, classmethod)) else static
    return fn if isinstance(fn, types.FunctionType) else None


def instance_attribute(frame: "Frame", obj: Var, name: str, static: Any) -> Var:
    """`obj.name` where `name` is not in the instance's own __dict__ (`static` is what the class holds)."""
    value = obj.value
    if isinstance(static, PLAIN_DATA):
        try:
            return frame.ctx.wrap(getattr(value, name), AttrSource(obj.source, name))
        except AttributeError as e:
            raise unsupported(BreakCategory.EXCEPTION, f"reading {name!r}: {e}") from None
    fn = _function(static)
    if isinstance(static, (types.FunctionType, staticmethod, classmethod)) and fn is not None:
        guard_class_attribute(frame, type(value), name, static)
        if obj.source is not None and hasattr(value, "__dict__"):   # an instance attribute would win
            frame.ctx.guard([G.Guard(f"({name!r} in {obj.source.expr()}.__dict__)", G.GuardKind.EQUALS, False,
                                     f"{obj.source.describe()}.{name} not set on the instance")])
        if isinstance(static, types.FunctionType):
            return BoundMethodVar(fn, obj)
        if isinstance(static, staticmethod):
            return UserFunctionVar(fn)
        return UserFunctionVar(fn, bound_self=_class_var(frame, type(value)))
    if hasattr(type(static), "__get__"):
        raise unsupported(BreakCategory.UNSUPPORTED, f"descriptor attribute {type(value).__name__}.{name} "
                          f"({type(static).__name__})")
    base = obj.source or NamespaceSource(frame.ctx.bind(type(value), "cls"), type(value).__qualname__)
    return frame.ctx.wrap(getattr(value, name), AttrSource(base, name))   # (an object made during capture:
                                                                          # read the class attribute)


def class_attribute(frame: "Frame", cls_var: Var, name: str) -> Var:
    """`Cls.name` for a class defined in Python (a config class, `cls` inside a classmethod)."""
    cls = cls_var.as_constant()
    try:
        static = inspect.getattr_static(cls, name)
    except AttributeError:
        raise unsupported(BreakCategory.EXCEPTION, f"type object {cls.__name__!r} has no attribute {name!r}") \
            from None
    source = cls_var.source or NamespaceSource(frame.ctx.bind(cls, "cls"), cls.__qualname__)
    fn = _function(static)
    if isinstance(static, (types.FunctionType, staticmethod, classmethod)) and fn is not None:
        guard_class_attribute(frame, cls, name, static)
        return UserFunctionVar(fn, bound_self=cls_var if isinstance(static, classmethod) else None)
    if hasattr(type(static), "__get__") and not isinstance(static, type):
        raise unsupported(BreakCategory.UNSUPPORTED, f"descriptor attribute {cls.__name__}.{name} "
                          f"({type(static).__name__}) read on the class")
    return frame.ctx.wrap(getattr(cls, name), AttrSource(source, name))


def is_user_class(value: Any) -> bool:
    """A class defined in Python (not a builtin or NumPy type, whose attributes are C functions)."""
    module = getattr(value, "__module__", "") or ""
    return isinstance(value, type) and module != "builtins" and module.split(".")[0] != "numpy"


@HOOKS.provide
def user_class_attribute(frame: "Frame", cls_var: Var, name: str) -> Var | None:
    """ConstVar.getattr of a class defined in Python (None: another constant, whose attribute breaks)."""
    return class_attribute(frame, cls_var, name) if is_user_class(cls_var.value) else None
