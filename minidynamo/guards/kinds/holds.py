"""HOLDS: a relation between sizes (`x.shape[0] == y.shape[0]`, `x.shape[1] >= 2`) is true. Its expr is the
check itself, reading symbolic shapes from the locals their SHAPE guards bound. Imports guards.guard,
guards.kind.
"""

from __future__ import annotations

from typing import Any

from ..guard import Guard, GuardFailure
from ..kind import GuardKind


class HoldsGuard(Guard):
    """`x.shape[1] == w.shape[0]`."""

    KIND, READS_SHAPES = GuardKind.HOLDS, True

    def show(self, e: str) -> str:
        return e

    def code(self, text: str, e: str, r: Any) -> str:
        return e

    def explain(self, value: Any, name: str) -> None:
        if not value:
            raise GuardFailure(f"{name}: does not hold")
