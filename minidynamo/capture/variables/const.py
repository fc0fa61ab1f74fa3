"""ConstVar: a Python value known at capture time (int, float, complex, bool, str, None, slice, Ellipsis,
range, NumPy dtypes, scalar types and NumPy scalar constants). Imports variables.base.

Its value is specialized: whoever created it from a source installed a guard on that value, so operations
on it are folded at capture time and the result is again a ConstVar.
"""

from __future__ import annotations

import contextlib
import operator
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from ...graph.symbolic import Sym
from .base import Var, unsupported
from .hooks import HOOKS
from ..breaks import BreakCategory

if TYPE_CHECKING:
    from ..frame import Frame

# Literals the compiled entry can spell with repr(); anything else is bound in its namespace.
_LITERAL_TYPES = (int, float, complex, bool, str, bytes, type(None), type(Ellipsis))

# Methods of immutable constants that are safe to fold (no side effects, deterministic).
_PURE_METHODS = {
    str: {"format", "join", "upper", "lower", "strip", "split", "replace", "startswith", "endswith", "lstrip",
          "rstrip", "title", "capitalize", "count", "find", "index", "isdigit", "isidentifier", "zfill"},
    int: {"bit_length", "to_bytes", "conjugate", "__index__"},
    float: {"is_integer", "as_integer_ratio", "hex", "conjugate"},
    complex: {"conjugate"},
    range: {"index", "count"},
    slice: {"indices"},
}


class ConstVar(Var):
    """A Python constant. `ConstVar(3)`, `ConstVar(np.dtype('float32'))`, `ConstVar(slice(1, None))`.

    A constant read from a source is guarded lazily: `install_guard` runs the first time capture reads
    `.value`, so a value that is only passed along (a loop counter handed to the next iteration, an
    argument returned as is) does not make the capture specialize on it."""

    def __init__(self, value: Any, source=None, install_guard: Any = None) -> None:
        if isinstance(value, Sym) or type(value) is tuple and any(isinstance(v, Sym) for v in value):
            # A symbolic size as a Python constant would reach generated code as the symbol: specialized
            # (its value guarded) instead. Symbolic ints are ScalarVars; this is the safety net.
            value = tuple(operator.index(v) if isinstance(v, Sym) else v for v in value) \
                if type(value) is tuple else operator.index(value)
        self._value = value
        self.source = source
        self._install_guard = install_guard

    @property
    def value(self) -> Any:
        if self._install_guard is not None:
            install, self._install_guard = self._install_guard, None
            install()
        return self._value

    def describe(self) -> str:
        text = repr(self._value)
        return f"the constant {text if len(text) < 40 else text[:37] + '...'}"

    def is_constant(self) -> bool:
        return True

    def as_constant(self) -> Any:
        return self.value

    def python_type(self) -> type:
        return type(self.value)

    def as_bool(self, frame: "Frame") -> bool:
        return bool(self.value)

    def getattr(self, frame: "Frame", name: str) -> Var:
        v = self.value
        if isinstance(v, (np.dtype, np.generic, int, float, complex, slice, range, np.finfo, np.iinfo)) or v is None:
            try:
                attr = getattr(v, name)
            except AttributeError as e:
                raise unsupported(BreakCategory.EXCEPTION, f"{type(v).__name__} has no attribute {name!r}: {e}") from None
            if callable(attr) and not isinstance(attr, (type, np.dtype)):
                return BoundConstMethodVar(self, name)
            return ConstVar(attr)
        if isinstance(v, str):
            return BoundConstMethodVar(self, name)
        attribute = HOOKS.user_class_attribute(frame, self, name)
        if attribute is not None:
            return attribute
        raise unsupported(BreakCategory.UNSUPPORTED, f"attribute {name!r} of constant {type(v).__name__}")

    def getitem(self, frame: "Frame", key: Var) -> Var:
        if isinstance(self.value, (str, bytes, range)) and key.is_constant():
            return fold(frame, operator.getitem, self.value, key.as_constant())
        raise unsupported(BreakCategory.UNSUPPORTED, f"indexing constant {type(self.value).__name__}")

    def make_iterator(self, frame: "Frame") -> Var:
        if isinstance(self.value, range):
            from .containers import RangeIteratorVar
            return RangeIteratorVar(self.value)
        return super().make_iterator(frame)

    def iterate(self, frame: "Frame") -> list[Var]:
        if isinstance(self.value, range) and len(self.value) > 100_000:
            raise unsupported(BreakCategory.LOOP, f"materializing {len(self.value)} items of a range")
        if isinstance(self.value, (range, str, bytes, frozenset)):
            return [ConstVar(v) for v in self.value]
        raise unsupported(BreakCategory.UNSUPPORTED, f"iterating over constant {type(self.value).__name__}")

    def length(self, frame: "Frame") -> int:
        try:
            return len(self.value)
        except TypeError:
            raise unsupported(BreakCategory.EXCEPTION, f"len() of {type(self.value).__name__}") from None

    def contains(self, frame: "Frame", item: Var) -> Var:
        if item.is_constant() and isinstance(self.value, (range, str, bytes, frozenset)):
            return fold(frame, operator.contains, self.value, item.as_constant())
        raise unsupported(BreakCategory.UNSUPPORTED, f"`in` on constant {type(self.value).__name__}")

    def call(self, frame: "Frame", args: list[Var], kwargs: dict[str, Var]) -> Var:
        # NumPy scalar types and np.dtype are pure constructors: fold them on constant arguments.
        v = self.value
        if isinstance(v, type) and (issubclass(v, np.generic) or v in (np.dtype, np.finfo, np.iinfo)) and \
                all_constant(args, kwargs):
            return fold(frame, v, *[a.as_constant() for a in args], **{k: a.as_constant() for k, a in kwargs.items()})
        return HOOKS.call_constant(frame, self, args, kwargs)      # classes, getters (class_calls.py)

    def reconstruct(self, out: Any) -> str:
        if self.source is not None:
            return self.source.expr()
        return out.constant(self.value)


class BoundConstMethodVar(Var):
    """`"{}".format`, `(3).bit_length` ...: a pure method of a constant, folded when called."""

    def __init__(self, obj: ConstVar, name: str) -> None:
        self.obj, self.name = obj, name

    def describe(self) -> str:
        return f"method {type(self.obj.value).__name__}.{self.name}"

    def call(self, frame: "Frame", args: list[Var], kwargs: dict[str, Var]) -> Var:
        value = self.obj.value
        allowed = _PURE_METHODS.get(type(value), set())
        if isinstance(value, (np.dtype, np.generic)):
            allowed = {"item", "astype", "__index__"} if isinstance(value, np.generic) else set()
        if type(value) is str and self.name == "format" and not all_constant(args, kwargs):
            return HOOKS.format_method(frame, value, args, kwargs)
        if self.name not in allowed or not all_constant(args, kwargs):
            raise unsupported(BreakCategory.CALL, f"calling {self.describe()}")
        fn = getattr(value, self.name)
        return fold(frame, fn, *[a.as_constant() for a in args], **{k: a.as_constant() for k, a in kwargs.items()})

    def reconstruct(self, out: Any) -> str:
        return f"{self.obj.reconstruct(out)}.{self.name}"


def all_constant(args: list[Var], kwargs: dict[str, Var] | None = None) -> bool:
    return all(a.is_constant() for a in args) and all(a.is_constant() for a in (kwargs or {}).values())


def fold(frame: "Frame", fn: Any, *args: Any, **kwargs: Any) -> Var:
    """Run a pure function on constants now; an exception becomes a break so eager Python raises it. So
    does a warning (`np.float16(1e6)` overflows): folded, it would be issued once, at capture, and never by
    the calls that reuse the capture."""
    from .containers import wrap_constant
    name = getattr(fn, "__name__", fn)
    numpy_values = any(isinstance(v, (np.generic, np.ndarray)) for v in (*args, *kwargs.values()))
    try:
        # NumPy arithmetic that would warn (or raise, under np.errstate) is left to plain Python too, so
        # it warns on every call and under the error state in force there
        with warnings.catch_warnings(), np.errstate(all="raise") if numpy_values else contextlib.nullcontext():
            warnings.simplefilter("error")
            result = fn(*args, **kwargs)
    except (Warning, FloatingPointError) as e:
        raise unsupported(BreakCategory.CALL, f"{name} warns ({type(e).__name__}: {e}): left to plain Python") from None
    except Exception as e:  # the user's program raises here: leave it to plain Python
        raise unsupported(BreakCategory.EXCEPTION, f"{name} raised {type(e).__name__}: {e}") from None
    return wrap_constant(result)


def is_literal(value: Any) -> bool:
    """True when repr(value) is Python source for an equal value of the same type (np.float64 is a float
    subclass, but its repr `np.float64(1.0)` names a module the generated code does not have)."""
    if type(value) is float:
        return value == value and value not in (float("inf"), float("-inf"))
    if type(value) is complex:      # repr(complex(inf, 1)) is '(inf+1j)': not source
        return is_literal(value.real) and is_literal(value.imag)
    if isinstance(value, tuple):
        return all(is_literal(v) for v in value)
    return type(value) in _LITERAL_TYPES
