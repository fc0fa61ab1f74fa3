"""User objects and modules read during capture: attributes are wrapped through the capture context
(which guards them), methods are inlined, attribute writes are recorded and replayed. Imports variables.*.
"""

from __future__ import annotations

import functools
import inspect
import types
from typing import TYPE_CHECKING, Any

from ..breaks import BreakCategory
from ... import guards as G
from ..sources import AttrSource, ItemSource
from .descriptors import PLAIN_DATA, guard_class_attribute, guard_mro_lookup, instance_attribute, is_data_descriptor
from .base import Var, unsupported
from .builtins import builtin
from ...graph import ops
from .functions import BoundMethodVar, UserFunctionVar
from .numpy_ns import NumpyFunctionVar
from .getters import call_getter, is_getter

if TYPE_CHECKING:
    from ..frame import Frame


_MISSING = object()


def refuse_descriptor_write(cls: type, name: str) -> None:
    """A write through a property setter (or another data descriptor) runs user code: not plain storage."""
    static = inspect.getattr_static(cls, name, None)
    if is_data_descriptor(static) and not isinstance(static, types.MemberDescriptorType):
        raise unsupported(BreakCategory.SIDE_EFFECT, f"attribute write through the descriptor "
                          f"{cls.__name__}.{name} ({type(static).__name__})")


class UserObjectVar(Var):
    """An instance of a user class (a model, a config). Its type is guarded; attributes read are guarded
    by value (constants) or by type/shape/dtype (arrays); `writes` hold attributes set during capture."""

    def __init__(self, value: Any, source) -> None:
        self.value, self.source = value, source
        self.writes: dict[str, Var] = {}
        self.read_cache: dict[str, Var] = {}

    def describe(self) -> str:
        return f"a {type(self.value).__name__} object"

    def python_type(self) -> type:
        return type(self.value)

    def getattr(self, frame: "Frame", name: str) -> Var:
        if name in self.writes:
            return self.writes[name]
        if name in self.read_cache:
            return self.read_cache[name]
        value = self.value
        try:
            static = inspect.getattr_static(value, name)
        except AttributeError:
            raise unsupported(BreakCategory.EXCEPTION,
                              f"{type(value).__name__} object has no attribute {name!r}") from None
        inst_dict = getattr(value, "__dict__", {})
        if isinstance(value, types.ModuleType) or name in inst_dict and not is_data_descriptor(static):
            var = frame.ctx.wrap(getattr(value, name), AttrSource(self.source, name))
        elif isinstance(static, (property, functools.cached_property)):
            return self._descriptor(frame, name, static)     # runs user code: not cached
        else:
            var = instance_attribute(frame, self, name, static)
        var = _front_end_alias(var)
        self.read_cache[name] = var
        return var

    def _descriptor(self, frame: "Frame", name: str, static: Any) -> Var:
        """A property getter inlined; a cached_property computed and stored into the instance, as its
        __get__ does (the entry is guarded on the instance not having it yet)."""
        getter = static.fget if isinstance(static, property) else static.func
        if not isinstance(getter, types.FunctionType):
            raise unsupported(BreakCategory.UNSUPPORTED, f"{type(static).__name__} {name!r} of "
                              f"{self.describe()} has a getter without bytecode")
        guard_class_attribute(frame, type(self.value), name, static)
        if isinstance(static, property):
            return UserFunctionVar(getter).call(frame, [self], {})
        if self.source is not None:    # (an object made during capture has nothing cached)
            frame.ctx.guard([G.Guard(f"({name!r} in {self.source.expr()}.__dict__)", G.GuardKind.EQUALS, False,
                                     f"{self.source.describe()}.{name} not cached yet")])
        result = UserFunctionVar(getter).call(frame, [self], {})
        self.setattr(frame, name, result)
        return result

    def python_text(self, frame: "Frame", conversion: str | None) -> Var:
        """str(obj) / repr(obj) / f"{obj}": the class's own __str__ or __repr__ run inline, as Python would
        pick it (object's own are address-dependent: a break). Guards each class attribute it looked at."""
        cls = type(self.value)
        if conversion is None and inspect.getattr_static(cls, "__format__", None) is not object.__format__:
            raise unsupported(BreakCategory.CALL, f"format() of {self.describe()}: its class defines __format__")
        if conversion not in (None, "str", "repr"):
            raise unsupported(BreakCategory.CALL, f"{conversion}() of {self.describe()}")
        for name in ("__repr__",) if conversion == "repr" else ("__str__", "__repr__"):
            static = inspect.getattr_static(cls, name, None)
            guard_class_attribute(frame, cls, name, static)
            if isinstance(static, types.FunctionType):
                text = UserFunctionVar(static).call(frame, [self], {})
                if text.python_type() is not str:
                    raise unsupported(BreakCategory.EXCEPTION, f"{cls.__name__}.{name} returned a non-string")
                return text
            if static is not getattr(object, name):
                raise unsupported(BreakCategory.CALL, f"{name} of {self.describe()} is not Python code")
        raise unsupported(BreakCategory.DATA_DEPENDENT, f"the text of {self.describe()} shows its address")

    def has_attribute(self, frame: "Frame", name: str) -> bool:
        """hasattr(obj, name), guarded on the answer; a getter that might raise AttributeError breaks."""
        if name in self.writes:
            return True
        cls = type(self.value)
        generic = cls.__getattribute__ is object.__getattribute__ or cls is types.SimpleNamespace or \
            isinstance(self.value, types.ModuleType)
        if "__getattr__" in dir(cls) or not generic:
            raise unsupported(BreakCategory.UNSUPPORTED, f"hasattr() on {self.describe()} with custom attribute lookup")
        static = inspect.getattr_static(self.value, name, _MISSING)
        if static is not _MISSING and hasattr(type(static), "__get__") and not isinstance(
                static, (types.FunctionType, staticmethod, classmethod, *PLAIN_DATA)):
            raise unsupported(BreakCategory.UNSUPPORTED, f"hasattr() through the descriptor {cls.__name__}.{name}")
        found = hasattr(self.value, name)
        kind = G.GuardKind.HASATTR if found else G.GuardKind.NOT_HASATTR
        frame.ctx.guard([G.Guard(self.source.expr(), kind, name, self.source.describe())])
        return found

    def setattr(self, frame: "Frame", name: str, value: Var) -> None:
        cls = type(self.value)
        plain = cls is types.SimpleNamespace or getattr(cls, "__setattr__", None) is object.__setattr__
        if isinstance(self.value, types.ModuleType) or not plain:
            raise unsupported(BreakCategory.SIDE_EFFECT, f"attribute write on {self.describe()} with custom __setattr__")
        refuse_descriptor_write(cls, name)
        frame.ctx.side_effects.mutated(self)      # every write counts (a folded branch's arm must make none)
        self.writes[name] = value
        self.read_cache.pop(name, None)

    def call(self, frame: "Frame", args: list[Var], kwargs: dict[str, Var]) -> Var:
        call = inspect.getattr_static(type(self.value), "__call__", None)
        if isinstance(call, types.FunctionType) and not isinstance(self.value, functools.partial):
            # (a partial subclass, as compile() hands back for a partial, breaks at the call as partials do)
            guard_class_attribute(frame, type(self.value), "__call__", call)
            return BoundMethodVar(call, self).call(frame, args, kwargs)
        raise unsupported(BreakCategory.CALL, f"calling {self.describe()}")

    # NamedTuples (and other tuple subclasses) unpack and index like tuples.
    def iterate(self, frame: "Frame") -> list[Var]:
        if not isinstance(self.value, tuple):
            return super().iterate(frame)
        frame.ctx.guard([G.Guard(self.source.expr(), G.GuardKind.LEN, len(self.value), self.source.describe())])
        return [frame.ctx.wrap(v, ItemSource(self.source, i)) for i, v in enumerate(self.value)]

    def length(self, frame: "Frame") -> int:
        return len(self.iterate(frame))

    def getitem(self, frame: "Frame", key: Var) -> Var:
        if isinstance(self.value, tuple) and key.is_constant() and type(key.as_constant()) is int:
            items = self.iterate(frame)
            i = key.as_constant()
            if -len(items) <= i < len(items):
                return items[i]
        return super().getitem(frame, key)


def _front_end_alias(var: Var) -> Var:
    """`F.tanh` (the tracing front end's namespace) only forwards to np.tanh and says so in `numpy_function`;
    read it as the registered op itself rather than inlining the forwarder. The identity guard that
    ctx.wrap installed on the attribute keeps this safe if someone swaps F.tanh."""
    fn = getattr(var, "fn", None)
    if not isinstance(var, UserFunctionVar) or var.bound_self is not None:
        return var
    inner = getattr(fn, "numpy_function", None)
    opdef = ops.lookup_function(inner) if inner is not None else None
    if opdef is None:
        return var
    var.pin()       # the forwarder is recognised by this very object's attribute
    return NumpyFunctionVar(inner, opdef, var.source)


class OpaqueVar(Var):
    """A value capture does not model: usable only as something passed through unchanged."""

    def __init__(self, value: Any, source=None) -> None:
        self.value, self.source = value, source

    def describe(self) -> str:
        return f"a {type(self.value).__name__} object (not modelled by capture)"

    def python_type(self) -> type:
        return type(self.value)

    def call(self, frame: "Frame", args: list[Var], kwargs: dict[str, Var]) -> Var:
        if is_getter(self.value):       # an itemgetter/attrgetter read from a source: identity-guarded
            return call_getter(frame, self.value, args, kwargs)
        name = getattr(self.value, "__qualname__", type(self.value).__name__)
        raise unsupported(BreakCategory.CALL, f"call to {name} is not captured")

    def reconstruct(self, out: Any) -> str:
        return self.source.expr() if self.source is not None else out.constant(self.value)


class SuperVar(Var):
    """`super()` / `super(cls, obj)` over a user object: attribute lookup starts after `cls` in the MRO of
    obj's (guarded) type, so a method found there is fixed by the guards already installed: obj's type and
    the identity of `cls` (the `__class__` cell or the argument)."""

    def __init__(self, cls: Var, obj: Var) -> None:
        self.cls, self.obj = cls, obj

    def describe(self) -> str:
        return f"super() of {self.obj.describe()}"

    def getattr(self, frame: "Frame", name: str) -> Var:
        cls = self.cls.as_constant()
        if not isinstance(self.obj, UserObjectVar) or not isinstance(cls, type) \
                or isinstance(self.obj.value, types.ModuleType) or not isinstance(self.obj.value, cls):
            raise unsupported(BreakCategory.UNSUPPORTED, f"super() lookup of {name!r} on {self.obj.describe()}")
        mro = type(self.obj.value).__mro__
        after = mro[mro.index(cls) + 1:]
        for klass in after:
            if name in vars(klass):
                found = vars(klass)[name]
                if isinstance(found, types.FunctionType):
                    guard_mro_lookup(frame, after, name, found)
                    return BoundMethodVar(found, self.obj)
                break
        raise unsupported(BreakCategory.UNSUPPORTED, f"super().{name} of {self.obj.describe()} is not a plain method")

    def reconstruct(self, out: Any) -> str:
        return f"super({out.value(self.cls)}, {out.value(self.obj)})"


@builtin(super)
def _super(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    """super(cls, obj) as given, or zero-argument super(): the `__class__` cell and the frame's first local,
    read exactly where CPython reads them."""
    if kwargs or len(args) not in (0, 2):
        raise unsupported(BreakCategory.UNSUPPORTED, "super() with other than zero or two arguments")
    if args:
        return SuperVar(args[0], args[1])
    code = frame.code
    if "__class__" not in code.co_freevars or code.co_argcount == 0:
        raise unsupported(BreakCategory.EXCEPTION, "super(): no __class__ cell or no arguments (RuntimeError)")
    first = code.co_varnames[0]
    obj = frame.locals.get(first)
    if obj is None and first in frame.cells:
        obj = frame.load_cell(first)
    if obj is None:
        raise unsupported(BreakCategory.EXCEPTION, f"super(): first argument {first!r} is unbound")
    return SuperVar(frame.load_cell("__class__"), obj)
