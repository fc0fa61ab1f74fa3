"""Strings made from values capture does not know: `f"{loss:.4f}"`, `format(x.sum(), ".3f")`, the
f-strings built from them, and the same through `"{:.4f}".format(loss)` and `"%.4f" % loss`. Imports variables.base/const/array/scalar.

Formatting an array needs its values, but nothing in the graph needs the string: a FormattedVar stands for
it and is computed in the compiled entry, right after the graph (`format(___o[0], '.4f')`), when something
that runs in plain Python consumes it, typically the `print` it is built for. So a logging line in a loop
costs one break (the print), with the array code before and after it captured. Formatting is deferred only
when it cannot raise and has no side effects: the value is an array, NumPy scalar or Python number (their
`__format__` is NumPy's or Python's own) and the spec formats a value of the same type and shape. Anything
that needs the text itself (comparing it, len(), a dict key) is a data-dependent break.
"""

from __future__ import annotations

import re
import string
from typing import TYPE_CHECKING, Any

import numpy as np

from ..breaks import BreakCategory
from .array import ArrayVar
from .base import Var, unsupported
from .const import ConstVar, fold
from .scalar import ScalarVar
from .hooks import HOOKS

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
    if isinstance(var, _TextVar):
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


_METHOD_CONVERSIONS = {None: None, "s": "str", "r": "repr", "a": "ascii"}


@HOOKS.provide
def format_method(frame: "Frame", template: str, args: list[Var], kwargs: dict[str, Var]) -> Var:
    """`template.format(*args, **kwargs)` with values only the graph knows: str.format formats each field as
    an f-string does (`format(conversion(value), spec)`), so it is that f-string's pieces. Fields that index
    or read attributes (`{0.shape}`), nested specs (`{:{w}}`) and templates str.format rejects break, and
    plain Python runs (and raises) them."""
    def field_value(name: str) -> Var:
        nonlocal auto
        if name == "" or name.isdigit():
            numbered = name == ""
            if auto is not None and auto != numbered:
                raise unsupported(BreakCategory.EXCEPTION, f"{template!r}.format mixes automatic and manual "
                                  "field numbering")
            auto = numbered
            index = len(used) if numbered else int(name)
            used.append(index)
            if index >= len(args):
                raise unsupported(BreakCategory.EXCEPTION, f"{template!r}.format has no argument {index}")
            return args[index]
        if name.isidentifier() and name in kwargs:
            return kwargs[name]
        raise unsupported(BreakCategory.UNSUPPORTED, f"field {{{name}}} of {template!r}.format")

    auto: bool | None = None            # fields numbered automatically ({}) or by hand ({0}), never both
    used: list[int] = []
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as e:
        raise unsupported(BreakCategory.EXCEPTION, f"{template!r}.format: {e}") from None
    pieces: list[Var] = []
    for literal, name, spec, conversion in parsed:
        if literal:
            pieces.append(ConstVar(literal))
        if name is None:
            continue
        if "{" in spec or conversion not in _METHOD_CONVERSIONS:
            raise unsupported(BreakCategory.UNSUPPORTED, f"field {{{name}}} of {template!r}.format")
        pieces.append(format_value(frame, field_value(name), _METHOD_CONVERSIONS[conversion], ConstVar(spec)))
    return join_strings(pieces)


# One printf-style conversion: %[(key)][flags][width][.precision][length]type (a stray % matches nothing).
_PERCENT = re.compile(r"%(\([^)]*\))?[-+ #0]*(\*|\d+)?(?:\.(\*|\d*))?[hlL]?(.)", re.S)
_FLOAT_TYPES, _INT_TYPES = set("eEfFgG"), set("diouxX")


@HOOKS.provide
def percent_format(frame: "Frame", template: str, values: list[Var]) -> Var:
    """`template % values` (values: the items of the tuple on the right, or the one value there), made in
    plain Python when needed, as an f-string's text is. Deferred only when it cannot raise or warn whatever
    the values: constants; %s/%r/%a of anything format_value defers; float types of 0-d real arrays and
    Python floats; integer types of 0-d integer arrays and Python ints. Keys, `*` widths, %c and the rest
    break."""
    types_: list[str] = []
    for m in _PERCENT.finditer(template):
        key, width, precision, kind = m.groups()
        if kind == "%" and m.group(0) == "%%":
            continue
        if key is not None or "*" in (width, precision) or kind not in "rsa" and kind not in _FLOAT_TYPES | _INT_TYPES:
            raise unsupported(BreakCategory.UNSUPPORTED, f"conversion {m.group(0)!r} of {template!r} % ...")
        types_.append(kind)
    if template.count("%") != 2 * template.count("%%") + len(types_) or len(types_) != len(values):
        raise unsupported(BreakCategory.EXCEPTION, f"{template!r} % {len(values)} value(s) raises")
    for kind, value in zip(types_, values):
        if kind in "rsa" or isinstance(value, ConstVar):    # (a constant fails now or never)
            continue
        if isinstance(value, ArrayVar):
            dtype = value.spec.dtype
            fits = value.spec.ndim == 0 and (dtype.kind in "fiub" if kind in _FLOAT_TYPES else dtype.kind in "iu")
        else:
            fits = isinstance(value, ScalarVar) and type(value.value) is (float if kind in _FLOAT_TYPES else int)
        if not fits:
            raise unsupported(BreakCategory.DATA_DEPENDENT, f"%{kind} of {value.describe()} may fail by value")
    samples = [[v.as_constant()] if isinstance(v, ConstVar) else _samples(v) for v in values]
    if any(s is None for s in samples):
        raise unsupported(BreakCategory.DATA_DEPENDENT, f"{template!r} % ... needs the values")
    try:
        template % tuple(s[0] for s in samples)
    except Exception:       # eager raises this too: break, and let plain Python raise it at the right moment
        raise unsupported(BreakCategory.DATA_DEPENDENT, f"{template!r} % ... raises") from None
    values = [v.getattr(frame, "copy").call(frame, [], {}) if isinstance(v, ArrayVar) and not v.spec.scalar
              else v for v in values]      # the text is of the values now (later in-place writes do not show)
    return PercentVar(template, values)


def join_strings(pieces: list[Var]) -> Var:
    """BUILD_STRING: fold constant pieces; otherwise a JoinedStrVar built in plain Python when needed.
    Pieces read from a source (a resume function's argument) are not guarded until the text is used."""
    if all(isinstance(p, ConstVar) and p.source is None for p in pieces):
        return ConstVar("".join(p.as_constant() for p in pieces))
    return JoinedStrVar(pieces)


@HOOKS.provide
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

    def is_constant(self) -> bool:
        return False

    def as_constant(self) -> Any:
        raise unsupported(BreakCategory.DATA_DEPENDENT, f"{self.describe()} needs the values")


class FormattedVar(_TextVar):
    """`format(conversion(value), spec)` of an array or number, computed when the entry needs it."""

    def __init__(self, value: Var, conversion: str | None, spec: str) -> None:
        self.value, self.conversion, self.spec = value, conversion, spec

    def describe(self) -> str:
        return f"the text of {self.value.describe()}"

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


class PercentVar(_TextVar):
    """`template % (values...)` of arrays or numbers, computed when the entry needs it."""

    def __init__(self, template: str, values: list[Var]) -> None:
        self.template, self.values = template, values

    def describe(self) -> str:
        return f"the text of {self.template!r} % ..."

    def reconstruct(self, out: Any) -> str:
        return f"({out.constant(self.template)} % ({''.join(out.value(v) + ', ' for v in self.values)}))"
