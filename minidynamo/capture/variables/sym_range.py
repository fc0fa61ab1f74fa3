"""range() over symbolic ints (`for i in range(n)` with n = x.shape[0] symbolic): a loop that keeps its bound
symbolic. Imports capture variables and graph.symbolic only (through the ints' `sym` metadata).

Each step of the iterator decides `start + k*step < stop` on the symbols (the shape environment guards the
answer, `x.shape[0] > 2`), so an unrolled loop guards exactly the iteration count it ran, and a loop handed
to a loop driver after `unroll_limit` steps keeps one capture for every bound past that many steps: the
iterator is rebuilt at run time as `iter(range(start + k*step, stop, step))` from the bound's own value.
Anything else that needs the range whole (len, indexing, list(), zip) specializes its bounds, with guards.

The first item decides the whole count at once (two guards, the per-item decisions then implied), which
specializes the capture on the trip count even where it captures only the first iterations (a body that
breaks: the rest of the loop runs in a resume function or a driver). A piece whose count guard failed keeps
that loop's count open from then on (automatic dynamic, as for a changed int: the key `count_key` joins the
capture's `dynamic` set, minidynamo/dispatch/trip_counts.py): each item then decides only that it exists, so
a loop whose bound changes every call (nussinov's `for k in range(i + 1, j)` after a break) captures once
for "not empty" and once for "empty" instead of once per trip count up to the cache limit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import Var
from .const import ConstVar
from .containers import ListIteratorVar
from .scalar import is_symbolic_int
from .operators import scalar_op

if TYPE_CHECKING:
    from ..frame import Frame


def symbolic_range(args: list[Var]) -> "SymRangeVar | None":
    """A SymRangeVar for `range(*args)` when a bound is a symbolic int and the others are ints, else None
    (the caller folds the range as a constant)."""
    if not 1 <= len(args) <= 3 or not any(is_symbolic_int(a) for a in args):
        return None
    if not all(is_symbolic_int(a) or (a.is_constant() and type(a.as_constant()) is int) for a in args):
        return None
    start, stop, step = (ConstVar(0), args[0], ConstVar(1)) if len(args) == 1 else \
        (args[0], args[1], args[2] if len(args) == 3 else ConstVar(1))
    if step.as_constant() == 0:       # a symbolic step is specialized (guarded); 0 raises as range() does
        return None
    return SymRangeVar(start, stop, step)


def _sym(v: Var) -> Any:
    """The symbol (or int) behind a bound."""
    return v.node.meta["sym"] if is_symbolic_int(v) else v.as_constant()


def _hint(v: Var) -> int:
    return v.value if is_symbolic_int(v) else v.as_constant()


class SymRangeVar(Var):
    def __init__(self, start: Var, stop: Var, step: Var) -> None:
        self.start, self.stop, self.step = start, stop, step
        self.source = None

    def describe(self) -> str:
        return f"range({self.start.describe()}, {self.stop.describe()}, {self.step.as_constant()})"

    def python_type(self) -> type:
        return range

    def make_iterator(self, frame: "Frame") -> Var:
        return SymRangeIteratorVar(self, frame)

    def constant(self) -> ConstVar:
        """The range with its bounds specialized (guarded), for every use that needs it whole."""
        return ConstVar(range(self.start.as_constant(), self.stop.as_constant(), self.step.as_constant()))

    def iterate(self, frame: "Frame") -> list[Var]:
        return self.constant().iterate(frame)

    def length(self, frame: "Frame") -> int:
        return self.constant().length(frame)

    def as_bool(self, frame: "Frame") -> bool:
        return self.constant().as_bool(frame)

    def getitem(self, frame: "Frame", key: Var) -> Var:
        return self.constant().getitem(frame, key)

    def contains(self, frame: "Frame", item: Var) -> Var:
        return self.constant().contains(frame, item)

    def getattr(self, frame: "Frame", name: str) -> Var:
        return self.constant().getattr(frame, name)

    def is_constant(self) -> bool:
        return True

    def as_constant(self) -> range:
        return self.constant().as_constant()

    def reconstruct(self, out: Any) -> str:
        return f"range({out.value(self.start)}, {out.value(self.stop)}, {self.step.as_constant()})"


class SymRangeIteratorVar(ListIteratorVar):
    """The iterator of a SymRangeVar: item k exists while `start + k*step` is before `stop` (decided on the
    symbols, guarded); items are ints, or symbolic ints when the start is symbolic."""

    def __init__(self, rng: SymRangeVar, frame: "Frame") -> None:
        super().__init__([])
        # Only the capture's context, not the frame: the frame holds this iterator, and the cycle would keep
        # every value in the frame (the caller's objects) alive past the capture, until a garbage collection.
        self.range, self.frame = rng, _ContextOnly(frame.ctx)
        self.key = count_key(frame)

    def describe(self) -> str:
        return f"an iterator at item {self.pos} of {self.range.describe()}"

    def _before_stop(self, k: int) -> bool:
        """Whether item k exists: `start + k*step` before `stop`, decided on the symbols (guarded)."""
        step = self.range.step.as_constant()
        at, stop = _sym(self.range.start) + k * step, _sym(self.range.stop)
        return bool(at < stop) if step > 0 else bool(at > stop)

    def _decide_count(self) -> None:
        """Before the first item, one decision on the length: more items than capture unrolls (the loop
        will be driven: one guard for every longer bound), or exactly this many (an unrolled loop). The
        per-item decisions that follow are then implied (the shape env narrows the bound's range)."""
        r, ctx = self.range, self.frame.ctx
        if self.key in ctx.dynamic:         # its count guard failed before: items decide one by one
            return
        n = len(range(_hint(r.start), _hint(r.stop), r.step.as_constant()))
        limit = ctx.unroll_limit
        ctx.counting = self.key
        try:
            if n > limit:
                self._before_stop(limit)
            else:
                self._before_stop(n)
                if n:
                    self._before_stop(n - 1)
        finally:
            ctx.counting = None

    def next_item(self) -> Var | None:
        if self.pos == 0:
            self._decide_count()
        offset = self.pos * self.range.step.as_constant()
        if not self._before_stop(self.pos):
            return None
        self.pos += 1
        if not is_symbolic_int(self.range.start):
            return ConstVar(self.range.start.as_constant() + offset)
        return scalar_op(self.frame, "+", [self.range.start, ConstVar(offset)])

    def iterate(self, frame: "Frame") -> list[Var]:
        items = []
        while (item := self.next_item()) is not None:
            items.append(item)
        return items

    def reconstruct(self, out: Any) -> str:
        step = self.range.step.as_constant()
        return f"iter(range({out.value(self.range.start)} + {self.pos * step}, {out.value(self.range.stop)}, {step}))"


def count_key(frame: "Frame") -> str:
    """Names the loop over a range made at the frame's current instruction, within one compiled function
    (its code and the instruction; no source expression has spaces)."""
    code = frame.code
    return f"range count at {code.co_qualname}:{code.co_firstlineno}:{frame.current}"


class _ContextOnly:
    """What SymRangeIteratorVar needs of a frame (scalar_op reads `frame.ctx` only)."""

    __slots__ = ("ctx",)

    def __init__(self, ctx: Any) -> None:
        self.ctx = ctx
