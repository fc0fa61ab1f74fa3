"""A callable replaced in capture by a Python polyfill (minidynamo.substitute_in_graph): capture inlines the
polyfill where the program calls the original; the original itself is what plain Python runs (eagerly, at
a break, in the entry). Imports hatches and variables.*.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..breaks import BreakCategory
from .base import Var, unsupported
from .const import ConstVar
from .functions import UserFunctionVar

if TYPE_CHECKING:
    from ..frame import Frame


class SubstitutedVar(Var):
    """`original` (a C function, say), read from `source` under an identity guard, whose calls capture
    as calls of `polyfill`. Not a UserFunctionVar: a break inside the polyfill calls the original as
    plain Python (reconstruct), never a compiled polyfill."""

    def __init__(self, original: Any, polyfill: Any, source: Any = None) -> None:
        self.original, self.polyfill, self.source = original, polyfill, source

    def describe(self) -> str:
        name = getattr(self.original, "__qualname__", None) or getattr(self.original, "__name__", "?")
        return f"function {name} (captured as its polyfill {self.polyfill.__qualname__})"

    def is_constant(self) -> bool:
        return True

    def as_constant(self) -> Any:
        return self.original

    def as_bool(self, frame: "Frame") -> bool:
        return True

    def call(self, frame: "Frame", args: list[Var], kwargs: dict[str, Var]) -> Var:
        return UserFunctionVar(self.polyfill).call(frame, args, kwargs)

    def getattr(self, frame: "Frame", name: str) -> Var:
        value = getattr(self.original, name, None)
        if isinstance(value, (int, float, str, bool, type(None))) and hasattr(self.original, name):
            return ConstVar(value)
        raise unsupported(BreakCategory.UNSUPPORTED, f"attribute {name!r} of {self.describe()}")

    def reconstruct(self, out: Any) -> str:
        return self.source.expr() if self.source is not None else out.constant(self.original)
