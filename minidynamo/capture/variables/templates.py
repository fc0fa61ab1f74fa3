"""t-strings (PEP 750, 3.14+): `t"..."` builds a Template of its strings and Interpolations, each holding
its value itself (not its text). Imports variables.base/const. Captured as f-strings are: on constants
(numbers, strings, None) the template is folded at capture time, and the entry builds an equal, fresh one
per call (CPython makes a new Template per evaluation); any other value (an array, a list, an object)
would have to be that very object inside the template: a graph break, and plain Python builds it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..breaks import BreakCategory
from .base import Var, unsupported
from .containers import TupleVar, wrap_constant
from .scalar import ScalarVar

if TYPE_CHECKING:
    from ..frame import Frame

# Values an interpolation may hold when folded: immutable, so an equal one made per call is the same value.
_FOLDED = (int, float, complex, bool, str, bytes, type(None))
# CONVERT_VALUE / BUILD_INTERPOLATION's conversion numbers.
CONVERSIONS = {0: None, 1: "s", 2: "r", 3: "a"}


def _templatelib() -> Any:
    import string.templatelib as templatelib        # 3.14+ only (this module is used there only)
    return templatelib


def _folded(var: Var, what: str) -> Any:
    """The constant `var` stands for (guarded, as any constant capture uses), or a break."""
    value = var.as_constant() if var.is_constant() and not isinstance(var, ScalarVar) else _NOT_FOLDED
    if type(value) not in _FOLDED:
        raise unsupported(BreakCategory.DATA_DEPENDENT, f"a t-string {what} of {var.describe()}: the template "
                          "holds the value itself, so plain Python builds it")
    return value


_NOT_FOLDED = object()


def interpolation(value: Var, expression: Var, conversion: int, spec: Var) -> "InterpolationVar":
    """BUILD_INTERPOLATION: the Interpolation of `value` (folded constants only; else a break)."""
    return InterpolationVar(_folded(value, "value"), _folded(expression, "expression"),
                            CONVERSIONS[conversion], _folded(spec, "format spec"))


def template(strings: Var, interpolations: list[Var]) -> "TemplateVar":
    """BUILD_TEMPLATE: strings (a constant tuple) around the interpolations."""
    if not all(isinstance(i, InterpolationVar) for i in interpolations):
        raise unsupported(BreakCategory.DATA_DEPENDENT, "a t-string of interpolations made in plain Python")
    return TemplateVar(tuple(strings.as_constant()), list(interpolations))


def make_template(strings: tuple, interpolations: tuple) -> Any:
    """What BUILD_TEMPLATE makes, from Python: Template(s0, i0, s1, ..., sn)."""
    parts: list = [strings[0]]
    for interp, s in zip(interpolations, strings[1:]):
        parts += [interp, s]
    return _templatelib().Template(*parts)


class InterpolationVar(Var):
    """`Interpolation(value, expression, conversion, format_spec)` of constants."""

    def __init__(self, value: Any, expression: str, conversion: str | None, spec: str) -> None:
        self.value, self.expression, self.conversion, self.spec = value, expression, conversion, spec

    def describe(self) -> str:
        return f"the t-string interpolation {{{self.expression}}}"

    def python_type(self) -> type:
        return _templatelib().Interpolation

    def getattr(self, frame: "Frame", name: str) -> Var:
        fields = {"value": self.value, "expression": self.expression, "conversion": self.conversion,
                  "format_spec": self.spec}
        if name not in fields:
            return super().getattr(frame, name)
        return wrap_constant(fields[name])

    def reconstruct(self, out: Any) -> str:
        args = f"{out.constant(self.value)}, {self.expression!r}, {self.conversion!r}, {self.spec!r}"
        return f"{out.constant(_templatelib().Interpolation)}({args})"


class TemplateVar(Var):
    """A t-string's Template of folded interpolations; the entry builds a fresh, equal one when it is needed."""

    def __init__(self, strings: tuple, interpolations: list[InterpolationVar]) -> None:
        self.strings, self.interpolations = strings, interpolations

    def describe(self) -> str:
        return "a t-string template"

    def python_type(self) -> type:
        return _templatelib().Template

    def getattr(self, frame: "Frame", name: str) -> Var:
        if name == "strings":
            return wrap_constant(self.strings)
        if name == "interpolations":
            return TupleVar(list(self.interpolations))
        if name == "values":
            return wrap_constant(tuple(i.value for i in self.interpolations))
        return super().getattr(frame, name)

    def reconstruct(self, out: Any) -> str:
        interps = "".join(i.reconstruct(out) + ", " for i in self.interpolations)
        return f"{out.constant(make_template)}({self.strings!r}, ({interps}))"
