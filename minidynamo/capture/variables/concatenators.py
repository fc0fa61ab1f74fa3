"""np.r_ and np.c_ during capture: `np.r_[x, 0.0, y]`, `np.c_[u, v]`, `np.r_[0:n, x]` are recorded as the very
calls NumPy's AxisConcatenator.__getitem__ makes (numpy/lib/_index_tricks_impl.py), so values, dtypes,
casts and their warnings and errors are NumPy's own:
- an array item (a NumPy scalar too) is given `ndmin` dimensions in front, as `np.array(item, ndmin=...)`
  does (expand_dims here: its result is only read by the concatenation, so whether it is a view does not
  matter), then np.c_'s `trans1d` moves its own axes to the end (transpose);
- a slice of Python numbers known at capture is np.arange (np.linspace for a complex step), given ndmin
  dimensions and its last axis swapped to `trans1d`;
- a Python number stays a scalar for the result dtype (np.result_type, where a Python number is weak) and
  becomes `np.array(item, dtype=final)`, given ndmin dimensions;
- every part is cast to the result dtype (astype: np.array(obj, dtype=...)'s unsafe cast) and the parts
  are concatenated along the instance's axis.
String directives ('r', '0,2,1', the matrix forms), lists and numbers the graph computes break, and the
indexing runs eagerly. Imports graph.ops and variables.const/containers/array.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ...graph import ops
from ..breaks import BreakCategory
from .array import ArrayVar
from .base import Var, unsupported
from .const import ConstVar
from .containers import TupleVar

if TYPE_CHECKING:
    from ..frame import Frame

_NUMBERS = (bool, int, float, complex)


class ConcatenatorVar(Var):
    """np.r_ or np.c_ (the library's own instances)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def describe(self) -> str:
        return "np.r_" if self.value is np.r_ else "np.c_"

    def getitem(self, frame: "Frame", key: Var) -> Var:
        items = key.items if isinstance(key, TupleVar) else [key]
        axis, ndmin, trans1d = self.value.axis, self.value.ndmin, self.value.trans1d
        parts: list[Var | Any] = []       # an array Var, or a Python number (made an array once the dtype is known)
        kinds: list[Any] = []             # what np.result_type sees: dtypes, and the Python numbers themselves
        for item in items:
            if isinstance(item, ArrayVar):
                part = self._with_ndmin(frame, item, ndmin)
                if trans1d != -1 and item.spec.ndim < ndmin:
                    part = part.call_method(frame, "transpose", [ConstVar(_moved_axes(item.spec.ndim, ndmin, trans1d))], {})
                parts.append(part)
                kinds.append(item.spec.dtype)
                continue
            const = item.as_constant() if item.is_constant() else None
            if isinstance(const, slice) and all(type(b) in _NUMBERS or b is None
                                                for b in (const.start, const.stop, const.step)):
                part = self._with_ndmin(frame, self._ramp(frame, const), ndmin)
                if ndmin > 1 and trans1d != -1:
                    part = part.call_method(frame, "swapaxes", [ConstVar(-1), ConstVar(trans1d)], {})
                parts.append(part)
                kinds.append(part.spec.dtype)
            elif type(const) in _NUMBERS:
                parts.append(const)
                kinds.append(const)
            else:
                raise unsupported(BreakCategory.UNSUPPORTED, f"{self.describe()}[...] with {item.describe()}: only "
                                  "arrays, Python numbers and slices of Python numbers known at capture are captured")
        if not parts:
            raise unsupported(BreakCategory.UNSUPPORTED, f"{self.describe()}[()] (NumPy raises: nothing to join)")
        final = np.result_type(*kinds)
        cast = []
        for part in parts:
            if not isinstance(part, Var):
                part = self._with_ndmin(frame, _call(frame, "array", [ConstVar(part)], {"dtype": ConstVar(final)}),
                                        ndmin)
            elif part.spec.dtype != final:
                part = part.call_method(frame, "astype", [ConstVar(final)], {})
            cast.append(part)
        return _call(frame, "concatenate", [TupleVar(cast)], {"axis": ConstVar(axis)})

    @staticmethod
    def _with_ndmin(frame: "Frame", part: Var, ndmin: int) -> Var:
        missing = ndmin - part.spec.ndim
        if missing <= 0:
            return part
        return _call(frame, "expand_dims", [part, ConstVar(tuple(range(missing)))])

    @staticmethod
    def _ramp(frame: "Frame", key: slice) -> Var:
        start = 0 if key.start is None else key.start
        step = 1 if key.step is None else key.step
        if isinstance(step, complex):
            return _call(frame, "linspace", [ConstVar(start), ConstVar(key.stop)], {"num": ConstVar(int(abs(step)))})
        return _call(frame, "arange", [ConstVar(start), ConstVar(key.stop), ConstVar(step)])

    def reconstruct(self, out: Any) -> str:
        return out.constant(self.value)     # the library's object, bound by identity


def _moved_axes(ndim: int, ndmin: int, trans1d: int) -> tuple[int, ...]:
    """The permutation AxisConcatenator applies to an item of `ndim` < `ndmin` dimensions."""
    k2, k1 = ndmin - ndim, trans1d
    if k1 < 0:
        k1 += k2 + 1
    axes = list(range(ndmin))
    return tuple(axes[:k1] + axes[k2:] + axes[k1:k2])


def _call(frame: "Frame", name: str, args: list[Var], kwargs: dict[str, Var] | None = None) -> Var:
    return frame.ctx.record(ops.REGISTRY[name], args, kwargs or {}, target=getattr(np, name))
