"""Whether an object has an attribute (HASATTR, NOT_HASATTR): gates before reading it. Several may sit on one
expr, one per attribute name. Imports guards.guard, guards.kind.
"""

from __future__ import annotations

from typing import Any

from ..guard import Guard, GuardFailure
from ..kind import GuardKind


class HasattrGuard(Guard):
    """`hasattr(obj, 'w')`."""

    KIND, RANK, OPPOSITE = GuardKind.HASATTR, 1, GuardKind.NOT_HASATTR
    HAS = True      # what hasattr must give
    _NOT = ""

    def normalize(self, expected: Any) -> Any:
        if not str(expected).isidentifier():
            raise ValueError(f"{self.kind} guard needs an attribute name, got {expected!r}")
        return expected

    def key(self, canon: str) -> tuple:
        return (canon, self.kind, self.expected)

    def show(self, e: str) -> str:
        return f"{self._NOT}hasattr({e}, {self.expected!r})"

    def code(self, text: str, e: str, r: Any) -> str:
        return f"{self._NOT}{r.names.helper(hasattr)}({e}, {self.expected!r})"

    def explain(self, value: Any, name: str) -> None:
        has = hasattr(value, self.expected)
        if has != self.HAS:
            raise GuardFailure(f"hasattr({name}, {self.expected!r}): expected {not has}, got {has}")


class NotHasattrGuard(HasattrGuard):
    """`not hasattr(obj, 'w')`."""

    KIND, OPPOSITE = GuardKind.NOT_HASATTR, GuardKind.HASATTR
    HAS, _NOT = False, "not "
