"""Objects of plain Python classes made during capture (`cfg = Config(lr=0.1)`, `return Output(h, c)`):
`__init__` runs inline on a NewObjectVar, and the compiled entry builds the object from the attributes it
ended with. Imports variables.objects/functions.

Only classes whose construction does nothing else: `object.__new__`, the metaclass's own `type.__call__`,
a Python `__init__` (dataclasses' generated one included), object's `__setattr__`, no `__slots__` and no
`__del__` (capture makes a throwaway instance to look attributes up on, which must not run user code).
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from ..breaks import BreakCategory
from .base import Var, unsupported
from .functions import UserFunctionVar
from .objects import UserObjectVar, refuse_descriptor_write

if TYPE_CHECKING:
    from ..frame import Frame


def is_plain_class(cls: Any) -> bool:
    if not isinstance(cls, type) or cls.__module__ == "builtins" or cls.__module__.split(".")[0] == "numpy":
        return False
    mro = cls.__mro__
    return (mro[-1] is object and all(c.__flags__ & (1 << 9) for c in mro[:-1])   # heap types: Python classes
            and type(cls).__call__ is type.__call__ and cls.__new__ is object.__new__
            and cls.__setattr__ is object.__setattr__ and not any("__slots__" in vars(c) for c in mro)
            and not hasattr(cls, "__del__") and not issubclass(cls, BaseException)
            and (isinstance(cls.__init__, types.FunctionType) or cls.__init__ is object.__init__))


def build(cls: type, names: tuple, values: tuple) -> Any:
    """What the entry runs: the object, with its attributes set in the order __init__ first set them."""
    obj = object.__new__(cls)
    for name, value in zip(names, values):
        setattr(obj, name, value)
    return obj


def construct(frame: "Frame", cls: type, args: list[Var], kwargs: dict[str, Var]) -> Var:
    try:
        placeholder = object.__new__(cls)      # attribute lookups only (abstract classes refuse: break)
    except TypeError as e:
        raise unsupported(BreakCategory.EXCEPTION, f"{cls.__name__}(): {e}") from None
    obj = NewObjectVar(placeholder)
    if cls.__init__ is object.__init__:
        if args or kwargs:
            raise unsupported(BreakCategory.EXCEPTION, f"{cls.__name__}() takes no arguments")
        return obj
    result = UserFunctionVar(cls.__init__).call(frame, [obj, *args], kwargs)
    if not (result.is_constant() and result.as_constant() is None):
        raise unsupported(BreakCategory.EXCEPTION, "__init__() should return None")
    return obj


class NewObjectVar(UserObjectVar):
    """An object made during capture: no source, so nothing to guard; its state is `writes`."""

    def __init__(self, placeholder: Any) -> None:
        super().__init__(placeholder, None)
        self._building = False

    def describe(self) -> str:
        return f"new {type(self.value).__name__} object"

    def setattr(self, frame: "Frame", name: str, value: Var) -> None:
        refuse_descriptor_write(type(self.value), name)
        self.writes[name] = value           # part of building it: nothing to write back into
        self.read_cache.pop(name, None)

    def has_attribute(self, frame: "Frame", name: str) -> bool:
        if name in self.writes:
            return True
        raise unsupported(BreakCategory.UNSUPPORTED, f"hasattr() of a class attribute of {self.describe()}")

    def reconstruct(self, out: Any) -> str:
        if self._building:
            raise unsupported(BreakCategory.RECONSTRUCT, f"{self.describe()} refers to itself")
        self._building = True
        try:
            values = "".join(out.value(v) + ", " for v in self.writes.values())
            return (f"{out.constant(build)}({out.constant(type(self.value))}, {tuple(self.writes)!r}, "
                    f"({values}))")
        finally:
            self._building = False
