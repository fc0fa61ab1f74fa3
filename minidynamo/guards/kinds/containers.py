"""What a container holds: its length (LEN) and a dict's keys in order (DICT_KEYS). Both are gates: a wrong
length hides the guards on its items. Imports guards.guard, guards.kind, guards.words.
"""

from __future__ import annotations

from typing import Any

from ..guard import Guard, GuardFailure
from ..kind import GuardKind
from ..words import short_repr, with_article


class LenGuard(Guard):
    """`len(x) == 3`."""

    KIND, RANK, WORDS_ORDER = GuardKind.LEN, 1, 3

    def normalize(self, expected: Any) -> Any:
        return int(expected)

    def show(self, e: str) -> str:
        return f"len({e}) == {self.expected}"

    def code(self, text: str, e: str, r: Any) -> str:
        return f"{r.names.helper(len)}({e}) == {self.expected!r}"

    def label(self, name: str) -> str:
        return self.wrap("len", name)

    def words(self, name: str, group: dict) -> str | None:
        ty = group.get(GuardKind.TYPE)
        what = with_article(short_repr(ty.expected)) if ty is not None else "a container"
        return f"{name} is {what} of length {self.expected}"

    def explain(self, value: Any, name: str) -> None:
        n = len(value)
        if n != self.expected:
            raise GuardFailure(f"{self.label(name)}: expected {self.expected}, got {n}")


class DictKeysGuard(Guard):
    """`tuple(d.keys()) == ('a', 'b')`, order included."""

    KIND, RANK, WORDS_ORDER = GuardKind.DICT_KEYS, 1, 2

    def normalize(self, expected: Any) -> Any:
        return tuple(expected)

    def show(self, e: str) -> str:
        return f"tuple({e}.keys()) == {self.expected!r}"

    def code(self, text: str, e: str, r: Any) -> str:
        return f"{r.names.helper(tuple)}({e}.keys()) == {r.names.literal(self.expected)}"

    def label(self, name: str) -> str:
        return f"keys of {name}"

    def words(self, name: str, group: dict) -> str | None:
        return f"{name} is a dict with keys {', '.join(repr(k) for k in self.expected)} (in this order)"

    def explain(self, value: Any, name: str) -> None:
        keys, v = tuple(value.keys()), self.expected
        if keys != v:
            hint = " (same keys, different order)" if set(keys) == set(v) else ""
            raise GuardFailure(f"keys of {name}: expected {v!r}, got {keys!r}{hint}")
