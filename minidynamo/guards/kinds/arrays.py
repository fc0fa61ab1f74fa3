"""What an array is: its shape (SHAPE, a None entry a symbolic size) and its dtype (DTYPE).

Imports guards.guard, guards.kind, guards.words.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..guard import Guard, GuardFailure
from ..kind import GuardKind
from ..words import short_repr, with_article


def _array_words(name: str, group: dict) -> str:
    """`x` is an ndarray of shape (4, *) and dtype float32 (a SHAPE or DTYPE guard leads: both are said)."""
    ty = group.get(GuardKind.TYPE)
    what = "an ndarray" if ty is None else with_article(short_repr(ty.expected))
    parts = [f"shape {str(group[GuardKind.SHAPE].expected).replace('None', '*')}"] if GuardKind.SHAPE in group \
        else []     # (* is a symbolic size)
    parts += [f"dtype {group[GuardKind.DTYPE].expected}"] if GuardKind.DTYPE in group else []
    return f"{name} is {what} of {' and '.join(parts)}"


class ShapeGuard(Guard):
    """`x.shape == (4, 8)`; `(4, None)` leaves dimension 1 symbolic (HOLDS guards relate such sizes)."""

    KIND, WORDS_ORDER = GuardKind.SHAPE, 0

    def normalize(self, expected: Any) -> Any:
        return tuple(None if d is None else int(d) for d in expected)

    def show(self, e: str) -> str:
        return f"{e}.shape == {self.expected!r}".replace("None", "*")   # * is a symbolic size

    def code(self, text: str, e: str, r: Any) -> str:
        v = self.expected
        if None not in v:
            return f"{e}.shape == {v!r}"
        # Symbolic sizes: read the shape once (each read builds a tuple); relation guards reuse the local.
        local = r.shapes[f"{self.expr}.shape"] = f"___{r.names.tag}s{len(r.shapes)}"
        return " and ".join([f"{r.names.helper(len)}({local} := {e}.shape) == {len(v)}"]
                            + [f"{local}[{i}] == {d}" for i, d in enumerate(v) if d is not None])

    def label(self, name: str) -> str:
        return f"{name}.shape"

    def words(self, name: str, group: dict) -> str | None:
        return _array_words(name, group)

    def explain(self, value: Any, name: str) -> None:
        v, shape = self.expected, tuple(value.shape)
        if len(shape) != len(v):
            raise GuardFailure(f"{name}.ndim: expected {len(v)}, got {len(shape)}")
        diff = next((i for i, (a, b) in enumerate(zip(v, shape)) if a is not None and a != b), None)
        if diff is not None:
            raise GuardFailure(f"{name}.shape[{diff}]: expected {v[diff]}, got {shape[diff]}")


class DtypeGuard(Guard):
    """`x.dtype == float32`."""

    KIND, WORDS_ORDER = GuardKind.DTYPE, 0

    def normalize(self, expected: Any) -> Any:
        return np.dtype(expected)

    def show(self, e: str) -> str:
        return f"{e}.dtype == {self.expected}"

    def code(self, text: str, e: str, r: Any) -> str:
        # Builtin dtypes in native byte order are singletons in NumPy 2.x, so `is` hits on the
        # common path (~20% cheaper than dtype.__eq__). It is not always true: unpickled arrays,
        # dtype('q') vs dtype('l') on LP64, and newbyteorder('=') give equal but distinct
        # objects, so `==` stays as the fallback and keeps the guard exact.
        v = self.expected
        name = r.names.bind(v, f"dtype_{v.name}" if v.isbuiltin == 1 and v.isnative else "")
        return f"({e}.dtype is {name} or {e}.dtype == {name})"

    def label(self, name: str) -> str:
        return f"{name}.dtype"

    def words(self, name: str, group: dict) -> str | None:
        return _array_words(name, group)

    def explain(self, value: Any, name: str) -> None:
        if value.dtype != self.expected:
            raise GuardFailure(f"{name}.dtype: expected {self.expected}, got {value.dtype}")
