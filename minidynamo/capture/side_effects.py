"""Mutations made during capture, replayed by the compiled entry after the graph ran. Imports nothing else.

Capture tracks mutated objects symbolically (a ListVar's items, a UserObjectVar's written attributes, a
global's or a real closure cell's new value), so later reads see the new values. What the caller can observe is only the final
state of each object, which the entry writes back in the order the objects were first mutated.
"""

from __future__ import annotations

from typing import Any, Callable


class SideEffects:
    """Ordered record of mutated objects and written globals."""

    def __init__(self, position: Callable[[], int] = lambda: 0) -> None:
        self.objects: list[Any] = []                     # ListVar / DictVar / UserObjectVar, first mutation order
        self.globals: dict[tuple[str, str], Any] = {}    # (globals_key, name) -> Var, in first-write order
        self.cells: list[Any] = []      # CellBoxes of real cells written (nonlocal), first-write order
        self.version = 0        # bumped by every mutation, so a branch arm can prove it made none
        # How many graph nodes were recorded before the first mutation the caller can see (an object read
        # from a source, a global, a real cell): ops recorded later run after it in eager Python.
        self.first_visible: int | None = None
        self._position = position

        # Called before any mutation is recorded (it raises while a loop body is folded: a failed fold goes
        # on capturing in the same pass, so nothing it ran may have changed a container)
        self.refuse: Any = None

    def _visible(self) -> None:
        if self.first_visible is None:
            self.first_visible = self._position()

    def _check(self) -> None:
        if self.refuse is not None:
            self.refuse()

    def mutated(self, var: Any) -> None:
        self._check()
        self.version += 1
        if getattr(var, "source", None) is not None:
            self._visible()
        if not any(v is var for v in self.objects):
            self.objects.append(var)

    def store_global(self, globals_key: str, name: str, var: Any) -> None:
        self._check()
        self.version += 1
        self._visible()
        self.globals[(globals_key, name)] = var

    def store_cell(self, box: Any) -> None:
        self._check()
        self.version += 1
        self._visible()
        if not any(b is box for b in self.cells):
            self.cells.append(box)

    def all_after(self, nodes: int) -> bool:
        """Whether every mutation the caller can see came after the graph's `nodes` operations: then if one of
        them raises, eager Python has made none of those mutations either."""
        return self.first_visible is None or self.first_visible >= nodes

    def distinct_pairs(self, mutables: Any) -> list[tuple[Any, Any]]:
        """(a mutated object's source, the source of another wrapped mutable of its type), each pair once: not
        again the other way round when both are mutated (every guard is checked on every warm call)."""
        pairs, seen = [], set()
        for var in [v for v in self.objects if v.source is not None]:
            for other, src in mutables:
                key = frozenset((var.source.expr(), src.expr()))
                if other is not var and other.python_type() is var.python_type() and key not in seen:
                    seen.add(key)
                    pairs.append((var.source, src))
        return pairs

    def load_global(self, globals_key: str, name: str) -> Any | None:
        return self.globals.get((globals_key, name))

    def __bool__(self) -> bool:
        return bool(self.objects or self.globals or self.cells)
