"""The base of all symbolic values: `Var`, whose methods answer what a handler asks or raise GraphBreak.

Imports errors and capture.breaks. Handlers never switch on Var types; they call `value.getattr(...)`,
`value.call(...)`, `value.as_bool(...)` and each subclass answers for its own kind of value. A method a
subclass does not override raises `Unsupported` naming the value and the operation, which the interpreter
turns into a graph break with that reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...errors import Unsupported
from .. import break_codes as codes
from ..breaks import BreakCategory, BreakReason

if TYPE_CHECKING:
    from ..frame import Frame
    from ..sources import Source


def unsupported(code: "codes.BreakCode | BreakCategory", message: str) -> Unsupported:
    """The break to raise: a code of capture/break_codes.py (a BreakCategory: its general code)."""
    return Unsupported(BreakReason(code, message))


class Var:
    """A value during symbolic execution. `source` says where it came from when it existed before the call."""

    source: "Source | None" = None

    def describe(self) -> str:
        """The value in words for break reasons, e.g. "a float64 array of shape (4, 8)", "the constant 3"
        (never a class name of ours: people read these)."""
        name = type(self).__name__.strip("_")
        return f"a {name[:-3].lower() if name.endswith('Var') else name} value"

    # ---- what a value is ------------------------------------------------------------------------------
    def is_constant(self) -> bool:
        """True when the value is a Python constant known at capture time (as_constant() works)."""
        return False

    def as_constant(self) -> Any:
        raise unsupported(BreakCategory.UNSUPPORTED, f"{self.describe()} is not a Python constant here")

    def python_type(self) -> type:
        raise unsupported(BreakCategory.UNSUPPORTED, f"the type of {self.describe()} is not known at capture time")

    # ---- operations ------------------------------------------------------------------------------------
    def as_bool(self, frame: "Frame") -> bool:
        raise unsupported(BreakCategory.UNSUPPORTED, f"truth value of {self.describe()}")

    def getattr(self, frame: "Frame", name: str) -> "Var":
        raise unsupported(BreakCategory.UNSUPPORTED, f"attribute {name!r} of {self.describe()}")

    def setattr(self, frame: "Frame", name: str, value: "Var") -> None:
        raise unsupported(BreakCategory.SIDE_EFFECT, f"setting attribute {name!r} on {self.describe()}")

    def call(self, frame: "Frame", args: list["Var"], kwargs: dict[str, "Var"]) -> "Var":
        raise unsupported(BreakCategory.CALL, f"calling {self.describe()}")

    def call_method(self, frame: "Frame", name: str, args: list["Var"], kwargs: dict[str, "Var"]) -> "Var":
        return self.getattr(frame, name).call(frame, args, kwargs)

    def getitem(self, frame: "Frame", key: "Var") -> "Var":
        raise unsupported(BreakCategory.UNSUPPORTED, f"indexing {self.describe()}")

    def setitem(self, frame: "Frame", key: "Var", value: "Var") -> None:
        raise unsupported(BreakCategory.SIDE_EFFECT, f"item assignment on {self.describe()}")

    def delitem(self, frame: "Frame", key: "Var") -> None:
        raise unsupported(BreakCategory.SIDE_EFFECT, f"item deletion on {self.describe()}")

    def iterate(self, frame: "Frame") -> list["Var"]:
        """All items this value yields when iterated (loops over it are unrolled)."""
        raise unsupported(BreakCategory.UNSUPPORTED, f"iterating over {self.describe()}")

    def make_iterator(self, frame: "Frame") -> "Var":
        """GET_ITER / iter(): an iterator Var over this value's items."""
        from .containers import ListIteratorVar
        return ListIteratorVar(self.iterate(frame))

    def next_item(self) -> "Var | None":
        """FOR_ITER: the next item, or None when exhausted. Only iterators with known items answer; a real
        iterator (passed into a resume function) is stepped by the loop driver in plain Python."""
        raise unsupported(BreakCategory.LOOP, f"stepping {self.describe()}: the loop is driven from plain Python")

    def length(self, frame: "Frame") -> int:
        raise unsupported(BreakCategory.UNSUPPORTED, f"len() of {self.describe()}")

    def contains(self, frame: "Frame", item: "Var") -> "Var":
        raise unsupported(BreakCategory.UNSUPPORTED, f"`in` on {self.describe()}")

    # ---- leaving capture ---------------------------------------------------------------------------------
    def reconstruct(self, out: Any) -> str:
        """A Python expression, in the compiled entry, that evaluates to this value after the graph ran.
        `out` is the stitch.Emitter (graph outputs, namespace constants)."""
        if self.source is not None:
            return self.source.expr()
        raise unsupported(BreakCategory.RECONSTRUCT, f"cannot rebuild {self.describe()} outside the graph")

    def __repr__(self) -> str:
        return self.describe()


class MethodVar(Var):
    """`obj.name` loaded to be called at once (LOAD_METHOD, LOAD_ATTR's method form): the call goes to
    `obj.call_method`, so containers and constants answer method calls without modelling bound methods."""

    def __init__(self, obj: Var, name: str) -> None:
        self.obj, self.name = obj, name

    def describe(self) -> str:
        return f"method {self.name} of {self.obj.describe()}"

    def call(self, frame: "Frame", args: list["Var"], kwargs: dict[str, "Var"]) -> "Var":
        return self.obj.call_method(frame, self.name, args, kwargs)
