"""Values of small arrays computed only from capture-time constants.

`np.array([pad_top, pad_bottom]) < 0` over shape-derived ints is a graph value like any other (the graph
still computes a fresh array on every call), but its value is fixed by the constants it came from, which
are guarded. Capture computes such values on the side, so a Python decision on them (`if`, `any()`,
`int()`, `.item()`) is answered at capture time instead of being a data-dependent break. Using a value
installs the guards of every constant and pins every unspecialized scalar it came from.

Only pure ops (no RNG, no writes) over constants and other known values, with small concrete results, are
computed. Any in-place write recorded in the capture forgets every known value: a write may reach a known
array through a view, and tracking aliases is not worth the risk.

Imports graph.ops and variables.*; used by capture.context.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ..graph import ops
from ..graph.ir import ArraySpec, Node
from .variables.array import ArrayVar
from .variables.base import Var
from .variables.const import ConstVar
from .variables.containers import ListVar, TupleVar
from .variables.scalar import ScalarVar

MAX_ELEMENTS = 256      # bigger results are never computed at capture time


class _Unknown(Exception):
    pass


class KnownValues:
    """node -> (value, the Vars whose values it came from), for one capture."""

    def __init__(self) -> None:
        self._values: dict[Node, tuple[Any, list[Var]]] = {}

    def note(self, opdef: ops.OpDef, target: Any, args: list[Var], kwargs: dict[str, Var], node: Node,
             spec: Any, mutating: bool) -> None:
        """After `node = target(*args, **kwargs)` was recorded: compute its value if it is known."""
        if mutating:
            self._values.clear()
            return
        if opdef.random or opdef.user or not isinstance(spec, ArraySpec) or not _small(spec) or not self._values and \
                _takes_arrays(args, kwargs):
            return
        leaves: list[Var] = []
        try:
            values = [self._value(a, leaves) for a in args]
            kw = {k: self._value(v, leaves) for k, v in kwargs.items()}
        except _Unknown:
            return
        try:
            with np.errstate(all="raise"), warnings.catch_warnings():
                warnings.simplefilter("error")        # anything eager would warn about is left to run
                value = target(*values, **kw)
        except Exception:
            return
        if isinstance(value, (np.ndarray, np.generic)) and not value.dtype.hasobject and \
                value.shape == spec.shape and value.dtype == spec.dtype:
            # One entry per distinct Var, in first-use order (the order their guards go in): a value built
            # from itself (`z = 0.5 * (z + g / z)` unrolled) would otherwise double its list per step.
            self._values[node] = (value, list({id(v): v for v in leaves}.values()))

    def forget(self) -> dict:
        """Forget every known value (a loop body may write them); returns what restore() puts back."""
        saved = dict(self._values)
        self._values.clear()
        return saved

    def restore(self, saved: dict) -> None:
        self._values.update(saved)

    def has(self, var: ArrayVar) -> bool:
        """Whether `var`'s value is known (installs no guard)."""
        return var.node in self._values

    def value_of(self, var: ArrayVar) -> Any:
        """The known value of `var` (guards of its constants installed), or None."""
        entry = self._values.get(var.node)
        if entry is None:
            return None
        value, leaves = entry
        for leaf in leaves:
            leaf.as_constant()
        return value

    def slice_bound(self, var: Var, to_arg: Any) -> Any:
        """A slice bound in the graph: an integer 0-d value known here (an item of `np.arange(0, n, step)` over
        constants) is that value, under its constants' guards, since NumPy needs a bound's value."""
        if isinstance(var, ArrayVar) and var.spec.ndim == 0 and var.spec.dtype.kind in "iu":
            value = self.value_of(var)
            if value is not None:
                return value
        return to_arg(var)

    def _value(self, var: Any, leaves: list[Var]) -> Any:
        if isinstance(var, ArrayVar):
            entry = self._values.get(var.node)
            if entry is None:
                raise _Unknown
            leaves.extend(entry[1])
            return entry[0]
        if isinstance(var, ScalarVar):
            leaves.append(var)
            return var.value
        if isinstance(var, (TupleVar, ListVar)):
            items = [self._value(i, leaves) for i in var.items]
            return items if isinstance(var, ListVar) else tuple(items)
        if isinstance(var, ConstVar):
            if type(var) is not ConstVar:   # (a plain constant's guard goes in as it is read, just below)
                leaves.append(var)
            return var.as_constant()
        raise _Unknown


def _small(spec: ArraySpec) -> bool:
    return all(isinstance(d, int) for d in spec.shape) and math.prod(spec.shape) <= MAX_ELEMENTS


def _takes_arrays(args: list[Var], kwargs: dict[str, Var]) -> bool:
    """With no known value yet, an op taking an array (the common case) is skipped without walking."""
    return any(isinstance(a, ArrayVar) for a in (*args, *kwargs.values()))
