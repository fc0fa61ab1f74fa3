"""np.mgrid and np.ogrid during capture: `np.mgrid[0:n, 0:m:0.5]` with slice bounds and steps known at capture
(an int from an argument is specialized, with its guard) is recorded as the very array operations NumPy's
nd_grid.__getitem__ performs (numpy/lib/_index_tricks_impl.py): np.indices (np.arange per axis for ogrid), then
`nn[k] = nn[k] * step + start` per axis, the sizes, the dtype (np.result_type of 0 and every bound and step)
and the steps of a complex step (`5j`: that many points, the stop included) computed here in Python as NumPy
computes them. So values, dtypes, warnings and the layout (ogrid's views with np.newaxis) are NumPy's own. An
index NumPy refuses or that warns (tried here once, on the constants) breaks, and the call runs eagerly; so does
one that is not slices of Python numbers. Imports graph.ops and variables.const/containers.
"""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from ...graph import ops
from ..breaks import BreakCategory
from .base import Var, unsupported
from .const import ConstVar
from .containers import TupleVar

if TYPE_CHECKING:
    from ..frame import Frame

_NUMBERS = (int, float, complex)


class GridVar(Var):
    """np.mgrid or np.ogrid (the library's own instances)."""

    def __init__(self, value: Any) -> None:
        self.value = value
        self.sparse = value is np.ogrid

    def describe(self) -> str:
        return "np.ogrid" if self.sparse else "np.mgrid"

    def getitem(self, frame: "Frame", key: Var) -> Var:
        const = key.as_constant()      # a bound not known at capture breaks here
        parts = const if isinstance(const, tuple) else (const,)
        if not all(isinstance(k, slice) and all(type(b) in _NUMBERS or b is None for b in (k.start, k.stop, k.step))
                   for k in parts):
            raise unsupported(BreakCategory.UNSUPPORTED, f"indexing {self.describe()} with {const!r}: only slices "
                              "of Python numbers known at capture are captured")
        try:
            with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
                warnings.simplefilter("always")
                self.value[const]
        except Exception as exc:
            raise unsupported(BreakCategory.EXCEPTION, f"{self.describe()}[{const!r}] raises "
                              f"{type(exc).__name__}: {exc}") from None
        if caught:
            raise unsupported(BreakCategory.UNSUPPORTED, f"{self.describe()}[{const!r}] warns "
                              f"({caught[0].category.__name__}: {caught[0].message})")
        if isinstance(const, tuple):
            return self._grid(frame, const)
        return self._one_slice(frame, const)

    def _grid(self, frame: "Frame", key: tuple) -> Var:
        """nd_grid.__getitem__'s `try` branch, a tuple of slices."""
        size, num_list = [], [0]
        for kk in key:
            start = 0 if kk.start is None else kk.start
            step = 1 if kk.step is None else kk.step
            if isinstance(step, complex):
                step = abs(step)
                size.append(int(step))
            else:
                size.append(math.ceil((kk.stop - start) / step))
            num_list += [start, kk.stop, step]
        typ = np.result_type(*num_list)
        if self.sparse:
            nn = [_call(frame, "arange", [ConstVar(x)], {"dtype": ConstVar(typ)}, np.arange) for x in size]
        else:
            nn = _call(frame, "indices", [ConstVar(tuple(size)), ConstVar(typ)], {}, np.indices)
        for k, kk in enumerate(key):
            start = 0 if kk.start is None else kk.start
            step = 1 if kk.step is None else kk.step
            if isinstance(step, complex):
                step = int(abs(step))
                if step != 1:
                    step = (kk.stop - start) / float(step - 1)
            axis = nn[k] if self.sparse else nn.getitem(frame, ConstVar(k))
            value = _call(frame, "add", [_call(frame, "multiply", [axis, ConstVar(step)], {}, np.multiply),
                                         ConstVar(start)], {}, np.add)
            if self.sparse:
                nn[k] = value
            else:
                nn.setitem(frame, ConstVar(k), value)
        if not self.sparse:
            return nn
        out = []
        for k in range(len(size)):
            index = tuple(slice(None, None) if i == k else None for i in range(len(size)))
            out.append(nn[k].getitem(frame, ConstVar(index)))
        return TupleVar(out)

    def _one_slice(self, frame: "Frame", key: slice) -> Var:
        """The `except` branch: one slice, np.arange over it (a complex step: that many points, stop included)."""
        step, stop, start = key.step, key.stop, 0 if key.start is None else key.start
        if isinstance(step, complex):
            step_float = abs(step)
            step = length = int(step_float)
            if step != 1:
                step = (key.stop - start) / float(step - 1)
            typ = np.result_type(start, stop, step_float)
            ramp = _call(frame, "arange", [ConstVar(0), ConstVar(length), ConstVar(1)], {"dtype": ConstVar(typ)},
                         np.arange)
            return _call(frame, "add", [_call(frame, "multiply", [ramp, ConstVar(step)], {}, np.multiply),
                                        ConstVar(start)], {}, np.add)
        if stop is None:        # np.arange(start, None): `start` is the stop; rare, left eager
            raise unsupported(BreakCategory.UNSUPPORTED, f"{self.describe()}[{key!r}]: a slice with no stop")
        bounds = [start, stop] if step is None else [start, stop, step]     # arange's step None is 1
        return _call(frame, "arange", [ConstVar(b) for b in bounds], {}, np.arange)

    def reconstruct(self, out: Any) -> str:
        return out.constant(self.value)     # the library's object, bound by identity


def _call(frame: "Frame", name: str, args: list[Var], kwargs: dict[str, Var], target: Any) -> Var:
    return frame.ctx.record(ops.REGISTRY[name], args, kwargs, target=target)
