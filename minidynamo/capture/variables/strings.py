"""Strings made from values capture does not know: `f"{loss:.4f}"`, `format(x.sum(), ".3f")`, and the
f-strings built from them. Imports variables.base/const/array/scalar.

Formatting an array needs its values, but nothing in the graph needs the string: a FormattedVar stands for
it and is computed in the compiled entry, right after the graph (`format(___o[0], '.4f')`), when something
that runs in plain Python consumes it, typically the `print` it is built for. So a logging line in a loop
costs one break (the print), with the array code before and after it captured. Formatting is deferred only
when it cannot raise and has no side effects: the value is an array, NumPy scalar or Python number (their
`__format__` is NumPy's or Python's own) and the spec formats a value of the same type and shape. Anything
that needs the text itself (comparing it, len(), a dict key) is a data-dependent break.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..breaks import BreakCategory
from .array import ArrayVar
from .base import Var, unsupported
from .const import ConstVar, fold
from .scalar import ScalarVar

if TYPE_CHECKING:
    from ..frame import Frame

CONVERSIONS = {None: None, "str": str, "repr": repr, "ascii": ascii}


def _samples(var: Var) -> list[Any] | None:
    """Values of var's type and shape whose formatting fails exactly when var's would; None: unknown."""
    if isinstance(var, ArrayVar):
        spec = var.spec
        if spec.ndim == 0:
            zero = np.zeros((), spec.dtype)
            return [zero, zero[()]]
        return [np.zeros((1,) * spec.ndim, spec.dtype)]      # any shape: str() always works, a spec never
    if isinstance(var, ScalarVar) and type(var.value) in (int, float, bool):
        return [type(var.value)(0)]
    if isinstance(var, (FormattedVar, JoinedStrVar)):
        return [""]
    return None


def format_value(frame: "Frame", value: Var, conversion: str | None, spec: Var) -> Var:
    """The Var for `format(conversion(value), spec)` (FORMAT_VALUE, CONVERT_VALUE, FORMAT_*, format())."""
    if not spec.is_constant():
        raise unsupported(BreakCategory.DATA_DEPENDENT, f"a format spec computed from {spec.describe()}")
    spec_text = spec.as_constant()
    text_of = getattr(value, "python_text", None)      # a user object: its own __str__/__repr__, inlined
    if text_of is not None and spec_text == "":
        value, conversion = text_of(frame, conversion), None
    if isinstance(value, ConstVar) and value.source is not None and type(value.value) is str \
            and conversion is None and spec_text == "":
        return value                            # a str argument stays unguarded: format(s, "") is s
    if isinstance(value, ConstVar) or (value.is_constant() and not isinstance(value, (ScalarVar, JoinedStrVar))):
        v = value.as_constant()
        convert = CONVERSIONS[conversion]
        return fold(frame, format, convert(v) if convert else v, spec_text)
    samples = _samples(value)
    if samples is None or not isinstance(spec_text, str) or spec_text.endswith("c"):   # 'c' fails by value
        raise unsupported(BreakCategory.DATA_DEPENDENT, f"formatting {value.describe()} needs its value")
    convert = CONVERSIONS[conversion]
    try:
        for sample in samples:
            format(convert(sample) if convert else sample, spec_text)
    except Exception:     # eager raises this too: break, and let plain Python raise it at the right moment
        raise unsupported(BreakCategory.DATA_DEPENDENT, f"formatting {value.describe()} with {spec_text!r} "
                          "raises") from None
    if conversion is None and spec_text == "" and isinstance(value, (FormattedVar, JoinedStrVar)):
        return value                            # formatting a str with no spec returns it
    if isinstance(value, ArrayVar) and not value.spec.scalar:
        # the text is of the values now: a copy, so later in-place writes in the graph do not show
        value = value.getattr(frame, "copy").call(frame, [], {})
    return FormattedVar(value, conversion, spec_text)


def join_strings(pieces: list[Var]) -> Var:
    """BUILD_STRING: fold constant pieces; otherwise a JoinedStrVar built in plain Python when needed.
    Pieces read from a source (a resume function's argument) are not guarded until the text is used."""
    if all(isinstance(p, ConstVar) and p.source is None for p in pieces):
        return ConstVar("".join(p.as_constant() for p in pieces))
    return JoinedStrVar(pieces)


def concat(a: Var, b: Var) -> Var | None:
    """`a + b` when one is text made in the entry and the other a str (None: not such a case)."""
    def is_text(v: Var) -> bool:
        return isinstance(v, _TextVar) or (isinstance(v, ConstVar) and type(v.value) is str)
    if (isinstance(a, _TextVar) or isinstance(b, _TextVar)) and is_text(a) and is_text(b):
        return JoinedStrVar([a, b])
    return None


class _TextVar(Var):
    def python_type(self) -> type:
        return str

    def getattr(self, frame: "Frame", name: str) -> Var:
        raise unsupported(BreakCategory.DATA_DEPENDENT, f"str.{name} of {self.describe()} needs its text")

    def length(self, frame: "Frame") -> Any:
        raise unsupported(BreakCategory.DATA_DEPENDENT, f"len() of {self.describe()} needs its text")


class FormattedVar(_TextVar):
    """`format(conversion(value), spec)` of an array or number, computed when the entry needs it."""

    def __init__(self, value: Var, conversion: str | None, spec: str) -> None:
        self.value, self.conversion, self.spec = value, conversion, spec

    def describe(self) -> str:
        return f"the text of {self.value.describe()}"

    def is_constant(self) -> bool:
        return False

    def as_constant(self) -> Any:
        raise unsupported(BreakCategory.DATA_DEPENDENT, f"{self.describe()} needs the values")

    def reconstruct(self, out: Any) -> str:
        inner = out.value(self.value)
        if self.conversion is not None:
            inner = f"{out.constant(CONVERSIONS[self.conversion])}({inner})"
        return f"{out.constant(format)}({inner}, {self.spec!r})"


class JoinedStrVar(_TextVar):
    """An f-string with pieces only known in plain Python (formatted arrays, a resume function's strings)."""

    def __init__(self, pieces: list[Var]) -> None:
        self.pieces = pieces

    def describe(self) -> str:
        return "an f-string of " + ", ".join(p.describe() for p in self.pieces)

    def is_constant(self) -> bool:
        return all(p.is_constant() for p in self.pieces)

    def as_constant(self) -> Any:
        if not self.is_constant():
            raise unsupported(BreakCategory.DATA_DEPENDENT, f"{self.describe()} needs the values")
        return "".join(p.as_constant() for p in self.pieces)

    def reconstruct(self, out: Any) -> str:
        return f"''.join(({''.join(out.value(p) + ', ' for p in self.pieces)}))"
