"""Which array dimensions a capture makes symbolic, and the static fallback for rules that know no symbols.
Imports graph.ir and graph.symbolic only.

`ShapePolicy` is what the compiled function passes to each capture: the `dynamic=` mode of compile(), and
the dimensions that automatic dynamic found changing (source expression -> dims and why). `mark_dynamic` /
`mark_static` tag one array object, as torch._dynamo's do: the tags are read when that object is wrapped.
Sizes 0 and 1 are always static (as in Dynamo: broadcasting and emptiness depend on them), so a symbolic
size is at least 2, and the dispatcher checks that (`x.shape[0] >= 2`).
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..graph.ir import ArraySpec
from ..graph.symbolic import ShapeEnv, Sym


@dataclass(frozen=True)
class ShapePolicy:
    """mode: None (automatic: static until a size guard fails), True (every size but 0/1 symbolic), False
    (always static). dims: source expression -> {dim: why it is dynamic} for automatic dynamic."""

    mode: bool | None = None
    dims: dict[str, dict[int, str]] = field(default_factory=dict)

    def symbolic_dims(self, expr: str, value: np.ndarray) -> dict[int, str]:
        """The dimensions of `value` (read from `expr`) that this capture makes symbolic, with the reason."""
        marks = _marks_of(value)
        out: dict[int, str] = {}
        for i, size in enumerate(value.shape):
            if size < 2 or (marks is not None and i in marks[1]):
                continue
            if marks is not None and i in marks[0]:
                out[i] = "mark_dynamic"
            elif self.mode is False:
                continue
            elif self.mode is True:
                out[i] = "dynamic=True"
            elif i in self.dims.get(expr, {}):
                out[i] = self.dims[expr][i]
        return out


STATIC = ShapePolicy(mode=False)

# id(array) -> (weak reference, dynamic dims, static dims). ndarrays take weak references but no attributes.
_MARKS: dict[int, tuple[Any, set[int], set[int]]] = {}
_MARKS_LOCK = threading.Lock()


def _check_dims(x: Any, dims: Any, what: str) -> list[int]:
    if type(x) is not np.ndarray:
        raise TypeError(f"{what}(x, dim): x must be a numpy.ndarray, got {type(x).__name__}")
    items = list(dims) if isinstance(dims, (list, tuple, range)) else [dims]
    out = []
    for d in items:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
            raise TypeError(f"{what}(x, dim): dim must be an int or a sequence of ints, got {d!r}")
        if not -x.ndim <= d < x.ndim:
            raise ValueError(f"{what}(x, dim): dim {d} is out of range for an array of {x.ndim} dimension(s)")
        out.append(int(d) % x.ndim)
    return out


def _mark(x: Any, dims: Any, what: str, dynamic: bool) -> None:
    checked = _check_dims(x, dims, what)
    with _MARKS_LOCK:
        entry = _MARKS.get(id(x))
        if entry is None or entry[0]() is not x:
            key = id(x)
            entry = (weakref.ref(x, lambda _r, key=key: _MARKS.pop(key, None)), set(), set())
            _MARKS[key] = entry
        mine, other = (entry[1], entry[2]) if dynamic else (entry[2], entry[1])
        mine.update(checked)
        other.difference_update(checked)


def mark_dynamic(x: np.ndarray, dim: int | tuple[int, ...]) -> None:
    """Capture dimension(s) `dim` of the array `x` as symbolic (sizes 0 and 1 stay static), whatever the
    policy, in every compiled function `x` is passed to from now on."""
    _mark(x, dim, "mark_dynamic", True)


def mark_static(x: np.ndarray, dim: int | tuple[int, ...]) -> None:
    """Always capture dimension(s) `dim` of `x` as a constant, even with dynamic=True."""
    _mark(x, dim, "mark_static", False)


def _marks_of(value: Any) -> tuple[set[int], set[int]] | None:
    entry = _MARKS.get(id(value))
    if entry is None or entry[0]() is not value:
        return None
    return entry[1], entry[2]


def symbolic_spec(env: ShapeEnv, value: np.ndarray, expr: str, desc: str, dims: dict[int, str]) -> ArraySpec:
    """The spec of `value` with `dims` made symbols of `env` read from `expr.shape[i]`."""
    shape: list[Any] = list(value.shape)
    for i, why in dims.items():
        shape[i] = env.create_symbol(value.shape[i], f"{expr}.shape[{i}]", f"{desc}.shape[{i}]", reason=why)
    return ArraySpec(tuple(shape), value.dtype)


def specialize(env: ShapeEnv, value: Any) -> Any:
    """`value` (a meta-rule argument: specs, Syms, nested tuples/lists/slices/dicts) with every symbol made
    concrete, each guarded equal to its value: the fallback for rules that do not understand symbols."""
    if isinstance(value, Sym):
        return env.specialize(value)
    if isinstance(value, ArraySpec):
        if not value.is_symbolic:
            return value
        return ArraySpec(tuple(env.specialize(d) for d in value.shape), value.dtype, value.scalar)
    if isinstance(value, tuple):
        return tuple(specialize(env, v) for v in value)
    if isinstance(value, list):
        return [specialize(env, v) for v in value]
    if isinstance(value, dict):
        return {k: specialize(env, v) for k, v in value.items()}
    if isinstance(value, slice):
        return slice(specialize(env, value.start), specialize(env, value.stop), specialize(env, value.step))
    return value
