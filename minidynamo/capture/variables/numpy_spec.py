"""NumPy calls answered at capture time from specs, and results NumPy returns as named tuples.

Imports graph.ir/graph.meta and variables.*. `np.shape(x)`, `np.ndim(x)`, `np.size(x, axis)`,
`np.result_type(...)`, `np.iscomplexobj(x)` and `np.isrealobj(x)` depend only on shapes and dtypes, which
the capture knows exactly (and guards), so they fold to constants: `int()` or `range()` on the result does
not break. Named-tuple results (QRResult, SVDResult...) are NamedTupleVars of graph values.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

import numpy as np

from ...graph.ir import ArraySpec
from ...graph.meta import MetaError, as_spec, normalize_axis, probe
from ...graph.symbolic import has_symbols, is_symbolic
from ..breaks import BreakCategory
from .array import ArrayVar
from .base import Var, unsupported
from .containers import TupleVar, wrap_constant
from .namedtuples import NamedTupleVar

if TYPE_CHECKING:
    from ..frame import Frame


def _size(a: Any, axis: Any = None) -> int:
    spec = as_spec(a)
    return spec.size if axis is None else spec.shape[normalize_axis(axis, spec.ndim)]


def _result_type(*arrays_and_dtypes: Any) -> np.dtype:
    return np.result_type(*(probe(v) for v in arrays_and_dtypes))


SPEC_FUNCTIONS: dict[int, Callable[..., Any]] = {
    id(np.shape): lambda a: as_spec(a).shape,
    id(np.ndim): lambda a: as_spec(a).ndim,
    id(np.size): _size,
    id(np.result_type): _result_type,
    id(np.iscomplexobj): lambda x: issubclass(as_spec(x).dtype.type, np.complexfloating),
    id(np.isrealobj): lambda x: not issubclass(as_spec(x).dtype.type, np.complexfloating),
}


def _spec_arg(frame: "Frame", var: Var) -> Any:
    """An ArraySpec for an array (a NumPy scalar constant included), the value for other constants."""
    if isinstance(var, ArrayVar):
        return var.spec
    if not var.is_constant():
        raise unsupported(BreakCategory.UNSUPPORTED, f"{var.describe()} is neither an array nor a constant")
    value = var.as_constant()
    return ArraySpec.of(value) if isinstance(value, np.generic) else value


def _symbolic_sizes(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var | None:
    """np.shape(x) / np.size(x[, axis]) of an array with symbolic sizes: what x.shape, x.size and
    x.shape[axis] give (symbolic ints computed in the graph, or a guarded size), never a symbol as a constant."""
    x = args[0] if args else None
    if not isinstance(x, ArrayVar) or not has_symbols(x.spec.shape) or fn not in (np.shape, np.size):
        return None
    axis = args[1] if len(args) > 1 else kwargs.get("axis")
    if fn is np.shape and len(args) == 1 and not kwargs:
        return x.getattr(frame, "shape")
    if fn is np.size and len(args) + len(kwargs) <= 2 and (axis is None or axis.is_constant()):
        if axis is None or axis.as_constant() is None:
            return x.getattr(frame, "size")
        try:
            return x.dim(frame, normalize_axis(axis.as_constant(), x.spec.ndim))
        except MetaError as e:
            raise unsupported(BreakCategory.EXCEPTION, f"np.size: {e}") from None
    return None


class SpecFunctionVar(Var):
    """np.shape & co: evaluated on specs while capturing; the result is a constant."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn

    def describe(self) -> str:
        return f"function {self.fn.__name__}"

    def is_constant(self) -> bool:
        return True

    def as_constant(self) -> Any:
        return self.fn

    def call(self, frame: "Frame", args: list[Var], kwargs: dict[str, Var]) -> Var:
        sizes = _symbolic_sizes(frame, self.fn, args, kwargs)
        if sizes is not None:
            return sizes
        rule = SPEC_FUNCTIONS[id(self.fn)]
        try:
            value = rule(*[_spec_arg(frame, a) for a in args], **{k: _spec_arg(frame, v) for k, v in kwargs.items()})
        except (MetaError, TypeError, ValueError) as e:
            raise unsupported(BreakCategory.EXCEPTION, f"np.{self.fn.__name__}: {e}") from None
        if any(is_symbolic(v) for v in (value if isinstance(value, tuple) else (value,))):
            raise unsupported(BreakCategory.UNSUPPORTED, f"np.{self.fn.__name__} of a symbolic size")
        return wrap_constant(value)

    def reconstruct(self, out: Any) -> str:
        return out.constant(self.fn)


def named_result(result: Var) -> Var:
    """The recorded result as a NamedTupleVar when its op's meta said NumPy returns a named tuple (QRResult,
    SVDResult...), so the caller gets NumPy's own class."""
    if isinstance(result, TupleVar) and result.items and isinstance(result.items[0], ArrayVar):
        producer = result.items[0].node.args[0] if result.items[0].node.args else None
        cls = getattr(getattr(producer, "spec", None), "cls", None)
        if cls is not None:
            return NamedTupleVar(cls, result.items)
    return result
