"""Gates on what a value is: its exact type (TYPE), the very object (ID), None or not (IS_NONE, NOT_NONE).

A failed one hides every other guard on the value and below it (a list that should have been an array gets
no shape complaint). Imports guards.guard, guards.kind, guards.words.
"""

from __future__ import annotations

import types
from typing import Any

from ..guard import Guard, GuardFailure
from ..kind import GuardKind
from ..words import short_repr, value_repr, with_article


class TypeGuard(Guard):
    """`type(x) is ndarray`: the exact class, no subclasses."""

    KIND, RANK, BINDS_READ, WORDS_ORDER = GuardKind.TYPE, 0, True, 7

    def normalize(self, expected: Any) -> Any:
        if not isinstance(expected, type):
            raise TypeError(f"TYPE guard on {self.expr} expects a class, got {expected!r}")
        return expected

    def show(self, e: str) -> str:
        return f"type({e}) is {short_repr(self.expected)}"

    def code(self, text: str, e: str, r: Any) -> str:
        # (a call's argument needs no parentheses, also around a `:=` binding)
        v = self.expected
        return f"{r.names.helper(type)}({text}) is {r.names.bind(v, v.__name__)}"

    def label(self, name: str) -> str:
        return self.wrap("type", name)

    def words(self, name: str, group: dict) -> str | None:
        if len(group) > 1:      # (said by the kind that leads the others)
            return None
        what = with_article(short_repr(self.expected))
        return f"{name} is {what} (any value: not specialized)" if self.expected in (int, float) else f"{name} is {what}"

    def explain(self, value: Any, name: str) -> None:
        if type(value) is not self.expected:
            raise GuardFailure(f"{self.label(name)}: expected {short_repr(self.expected)}, "
                               f"got {short_repr(type(value))}")


class IdGuard(Guard):
    """`x is v`: functions, modules, classes, singletons."""

    KIND, RANK, BINDS_READ, WORDS_ORDER = GuardKind.ID, 0, True, 4

    def show(self, e: str) -> str:
        return f"{e} is {short_repr(self.expected)}"

    def code(self, text: str, e: str, r: Any) -> str:
        v = self.expected
        return f"{e} is {repr(v) if v is None or v is True or v is False or v is Ellipsis else r.names.bind(v)}"

    def words(self, name: str, group: dict) -> str | None:
        v = self.expected
        if isinstance(v, types.ModuleType):
            return f"{name} is the module {v.__name__}"
        if v is None or type(v) is bool:
            return f"{name} is {v!r}"
        if isinstance(v, type):
            return f"{name} is the class {v.__qualname__}"
        return f"{name} is the same object as at capture ({short_repr(v)})"

    def explain(self, value: Any, name: str) -> None:
        if value is not self.expected:
            got, want = short_repr(value), short_repr(self.expected)
            raise GuardFailure(f"{name}: expected {want}, got {got}" + (" (a different object)" if got == want else ""))


class IsNoneGuard(Guard):
    """`x is None`."""

    KIND, RANK, OPPOSITE, WORDS_ORDER = GuardKind.IS_NONE, 0, GuardKind.NOT_NONE, 5
    IS = "is"

    def show(self, e: str) -> str:
        return f"{e} {self.IS} None"

    def code(self, text: str, e: str, r: Any) -> str:
        return f"{e} {self.IS} None"

    def words(self, name: str, group: dict) -> str | None:
        return f"{name} {self.IS} None"

    def explain(self, value: Any, name: str) -> None:
        if value is not None:
            raise GuardFailure(f"{name}: expected None, got {value_repr(value)}")


class NotNoneGuard(IsNoneGuard):
    """`x is not None`."""

    KIND, OPPOSITE, WORDS_ORDER = GuardKind.NOT_NONE, GuardKind.IS_NONE, 6
    IS = "is not"

    def explain(self, value: Any, name: str) -> None:
        if value is None:
            raise GuardFailure(f"{name}: expected not None, got None")
