"""NamedTuples built during capture (`return State(h, c)`): a tuple of Vars that knows its class, so field
access, unpacking and indexing work and the compiled entry rebuilds it as `State(h, c)`. Imports
variables.containers. NamedTuples that existed before the call are UserObjectVars (objects.py).
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from ..breaks import BreakCategory
from .base import Var, unsupported
from .containers import TupleVar

if TYPE_CHECKING:
    from ..frame import Frame


def is_namedtuple_class(cls: Any) -> bool:
    """A class made by collections.namedtuple / typing.NamedTuple whose construction runs no user code."""
    if not (isinstance(cls, type) and issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple)):
        return False
    base = next(c for c in cls.__mro__ if "_fields" in vars(c))
    # the generated __new__ (a subclass overriding __new__ or __init__ runs code we do not model)
    return all("__new__" not in vars(c) and "__init__" not in vars(c) for c in cls.__mro__[:cls.__mro__.index(base)])


def construct(frame: "Frame", cls: type, args: list[Var], kwargs: dict[str, Var]) -> Var:
    """`cls(*args, **kwargs)`: Python's binding against the generated signature (defaults included)."""
    sig = inspect.signature(cls)
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as e:
        raise unsupported(BreakCategory.EXCEPTION, f"{cls.__name__}(): {e}") from None
    items = []
    for name, param in sig.parameters.items():
        if name in bound.arguments:
            items.append(bound.arguments[name])
        else:
            items.append(frame.ctx.wrap_default(param.default))
    return NamedTupleVar(cls, items)


class NamedTupleVar(TupleVar):
    def __init__(self, cls: type, items: list[Var]) -> None:
        super().__init__(items)
        self.cls = cls

    def describe(self) -> str:
        return f"a {self.cls.__name__} (a named tuple of {len(self.items)})"

    def python_type(self) -> type:
        return self.cls

    def as_constant(self) -> Any:
        return self.cls(*[i.as_constant() for i in self.items])

    def getattr(self, frame: "Frame", name: str) -> Var:
        if name in self.cls._fields:
            return self.items[self.cls._fields.index(name)]
        raise unsupported(BreakCategory.UNSUPPORTED, f"attribute {name!r} of {self.describe()}")

    def call_method(self, frame: "Frame", name: str, args: list[Var], kwargs: dict[str, Var]) -> Var:
        if name in self.cls._fields:
            return self.getattr(frame, name).call(frame, args, kwargs)
        return super().call_method(frame, name, args, kwargs)

    def reconstruct(self, out: Any) -> str:
        return f"{out.constant(self.cls)}({''.join(out.value(v) + ', ' for v in self.items)})"
