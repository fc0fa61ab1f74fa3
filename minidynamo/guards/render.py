"""Render: one GuardSet's guards as the inline check the dispatcher runs, each guard writing its own part
(Guard.code); Namer hands out the namespace names those parts refer to.

Imports guards.guard and guards.reads. Entry point: Render(tag, reads).check(guards).
"""

from __future__ import annotations

import itertools
import math
import re
from typing import Any, Callable, Iterable

from .guard import Guard
from .reads import Reads

# Names the capture and dispatcher bind themselves; the namespace never hands them out.
RESERVED_NAMES = frozenset({"___G", "___closure", "___check"})
_INLINE_STR_MAX = 40
_ATOM = re.compile(r"[\w.\[\]'\"()]+")


class Namer:
    """Hands out namespace names: `___ndarray` for classes, `___c0` for other constants."""

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.namespace: dict[str, Any] = {}
        self._by_id: dict[int, str] = {}

    def bind(self, value: Any, hint: str = "") -> str:
        if id(value) in self._by_id:
            return self._by_id[id(value)]
        if hint.isidentifier():
            candidates = (f"___{self.tag}{hint}" + (f"_{i}" if i else "") for i in itertools.count())
        else:
            candidates = (f"___{self.tag}c{i}" for i in itertools.count())
        name = next(n for n in candidates if n not in self.namespace and n not in RESERVED_NAMES)
        self.namespace[name] = value
        self._by_id[id(value)] = name
        return name

    def helper(self, fn: Callable) -> str:
        # Builtins are bound under ___ names: an argument may be called `type` or `len`.
        return self.bind(fn, fn.__name__)

    def literal(self, value: Any) -> str:
        return repr(value) if _is_inlinable(value) else self.bind(value)


class Render:
    """The state of rendering one check: its names, the shape locals symbolic SHAPE guards bound (`x.shape`
    -> `___s0`) and the common reads (guards.reads.Reads)."""

    def __init__(self, tag: str, reads: Reads) -> None:
        self.names, self.reads = Namer(tag), reads
        self.shapes: dict[str, str] = {}

    def check(self, guards: Iterable[Guard]) -> str:
        """The guards' parts joined by `and`, in order ("True" for none)."""
        return " and ".join(self.code(g) for g in guards) or "True"

    def code(self, g: Guard) -> str:
        text = g.expr
        if g.READS_SHAPES:      # relations and symbolic-int conditions read the shape locals
            for read, local in self.shapes.items():
                text = re.sub(r"(?<![\w.\]'\")])" + re.escape(read) + r"\[", local + "[", text)
        text = self.reads.rewrite(text, g.BINDS_READ)
        # An expression with operators (`a is not b`) is parenthesized: `a is not b is True` would chain.
        return g.code(text, text if _ATOM.fullmatch(text) else f"({text})", self)


def _is_inlinable(v: Any) -> bool:
    """Values whose repr() evaluates back to an equal value of the same type, cheaply."""
    t = type(v)
    if v is None or t in (bool, int):
        return True
    if t in (str, bytes):
        return len(v) <= _INLINE_STR_MAX
    if t is float:
        return math.isfinite(v) and float(repr(v)) == v
    if t is tuple:
        return len(v) <= 16 and all(_is_inlinable(x) for x in v)
    return False
