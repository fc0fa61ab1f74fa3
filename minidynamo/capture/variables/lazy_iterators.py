"""Iterators that read their source when a loop steps them, as CPython's do: `for v in x` over an array,
`reversed(x)` over an array or a list, and `zip(...)` / `enumerate(...)` over arrays and lists.

Why: NumPy's iterator reads `x[i]` at the i-th step, so an iteration sees what earlier iterations wrote
(`for i, v in enumerate(x): x[i + 1] += v` is an in-place prefix sum). Reading every item when the loop
starts, as a snapshot, gave eager's results only while the loop wrote nothing into its own source. After
a break each is rebuilt as the real iterator over the same objects at the same position.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..breaks import BreakCategory
from .base import unsupported
from .const import ConstVar
from .containers import DictVar, DictViewVar, ListIteratorVar, ListVar, TupleVar, iter_at, reachable
from .hooks import HOOKS
from .array import ArrayVar

if TYPE_CHECKING:
    from ..frame import Frame
    from .base import Var


class _SteppedIterator(ListIteratorVar):
    """An iterator whose items exist only once stepped: `iterate` (list(it), unpacking) steps to the end."""

    def iterate(self, frame: "Frame") -> list["Var"]:
        rest = []
        while (item := self.next_item()) is not None:
            rest.append(item)
        return rest


class ArrayIteratorVar(_SteppedIterator):
    """iter(x) / reversed(x) over an array (not 0-d): the i-th step records `x[i]` (x[n - 1 - i] reversed)."""

    def __init__(self, frame: "Frame", array: "Var", reverse: bool = False) -> None:
        super().__init__([])
        self.frame, self.array, self.reverse = frame, array, reverse
        self.count = array.length(frame)        # NumPy's len(); raises for a 0-d array, as iter() does

    def describe(self) -> str:
        return f"an array iterator at item {self.pos} of {self.count}"

    def next_item(self) -> "Var | None":
        if self.pos >= self.count:
            return None
        index = self.count - 1 - self.pos if self.reverse else self.pos
        self.pos += 1
        return self.array.getitem(self.frame, ConstVar(index))

    def reconstruct(self, out: Any) -> str:
        source = out.value(self.array)
        if self.reverse:
            source = f"{out.constant(reversed)}({source})"
        return f"{out.constant(iter_at)}({source}, {self.pos})"


@HOOKS.provide
def array_iterator(frame: "Frame", array: Var) -> Var:
    """iter(x) of an array: each step reads x[i] when the loop reaches it (ArrayVar.make_iterator)."""
    return ArrayIteratorVar(frame, array)


class ReversedListIteratorVar(_SteppedIterator):
    """reversed(lst): the i-th step reads lst[n - 1 - i] as the list is then (n: its length when reversed()
    ran), and the iterator ends for good once that index falls outside the list, as CPython's
    list_reverseiterator. Its state is `pos` alone (a folded branch that rolls back restores only that)."""

    def __init__(self, seq: Any) -> None:
        super().__init__([])
        self.seq, self.top = seq, len(seq.items) - 1

    def describe(self) -> str:
        return f"a reversed list iterator at item {self.pos}"

    def next_item(self) -> "Var | None":
        index = self.top - self.pos
        if 0 <= index < len(self.seq.items):
            self.pos += 1
            return self.seq.items[index]
        self.pos = self.top + 1                 # exhausted: index -1 from now on, whatever the list becomes
        return None

    def reconstruct(self, out: Any) -> str:
        # (runs in the entry's prelude, before the list's write-back: an index past the list as it was then
        # would be clamped by __setstate__)
        index, before = self.top - self.pos, self.seq.length_before()
        if before is not None and index >= before:
            raise unsupported(BreakCategory.RECONSTRUCT, "a reversed iterator past the old end of a list the "
                                                         "capture lengthened")
        return f"{out.constant(reversed_at)}({out.value(self.seq)}, {index})"


def reversed_at(seq: list, index: int) -> Any:
    """A real reversed iterator over `seq` that reads seq[index] next (rebuilt after a break)."""
    it = reversed(seq)
    it.__setstate__(index)
    return it


class ZipIteratorVar(_SteppedIterator):
    """zip(a, b, ...): each step steps every argument's iterator in order, as zip() does."""

    def __init__(self, iterators: list[ListIteratorVar]) -> None:
        super().__init__([])
        self.iterators = iterators

    def describe(self) -> str:
        return f"a zip iterator at item {self.pos}"

    def inner(self) -> list[ListIteratorVar]:
        return list(self.iterators)

    def next_item(self) -> "Var | None":
        row = []
        for it in self.iterators:
            item = it.next_item()
            if item is None:
                return None
            row.append(item)
        self.pos += 1
        return TupleVar(row)

    def reconstruct(self, out: Any) -> str:
        return f"{out.constant(zip)}({', '.join(out.value(it) for it in self.iterators)})"


class EnumerateIteratorVar(_SteppedIterator):
    """enumerate(x, start): (start + i, the i-th item of x's iterator)."""

    def __init__(self, iterator: ListIteratorVar, start: int) -> None:
        super().__init__([])
        self.iterator, self.start = iterator, start

    def describe(self) -> str:
        return f"an enumerate iterator at item {self.pos}"

    def inner(self) -> list[ListIteratorVar]:
        return [self.iterator]

    def next_item(self) -> "Var | None":
        item = self.iterator.next_item()
        if item is None:
            return None
        self.pos += 1
        return TupleVar([ConstVar(self.start + self.pos - 1), item])

    def reconstruct(self, out: Any) -> str:
        return f"{out.constant(enumerate)}({out.value(self.iterator)}, {self.start + self.pos})"


def has_items(value: "Var") -> bool:
    """An array NumPy iterates (not 0-d, not a NumPy scalar)."""
    return isinstance(value, ArrayVar) and not value.spec.scalar and value.spec.ndim > 0


def reads_when_stepped(value: "Var") -> bool:
    """zip/enumerate over this value step its iterator lazily: arrays, lists and a dict's values can change
    meanwhile (`for i, (k, v) in enumerate(d.items()): d[other] = ...`), and an iterator
    (`enumerate(zip(a, b))`) may itself read an array when stepped."""
    return isinstance(value, (ListVar, ListIteratorVar, DictVar, DictViewVar)) or has_items(value)


class RunAheadIteratorVar(ListIteratorVar):
    """Items a generator, map(), filter() or accumulate() produced when it was called, ahead of the loop
    that consumes them (capture cannot suspend a generator). They equal eager's only while nothing they were
    computed from changes, so once the capture records a write that may reach an earlier value (into an
    array that existed when they were made, a list, an object, a global) while items remain, stepping on
    and rebuilding the iterator after a break are both refused: that code runs as plain Python."""

    def __init__(self, ctx: Any, items: list["Var"], what: str, inputs: list[Any]) -> None:
        super().__init__(items)
        self.ctx, self.what = ctx, what
        self.n_nodes = len(ctx.graph.nodes)
        self.version = ctx.side_effects.version
        self.n_writes = len(ctx.mutating_nodes)
        self.n_globals, self.n_cells = len(ctx.side_effects.globals), len(ctx.side_effects.cells)
        self.readable = {id(v) for v in reachable(inputs, more=_held_by_function)}     # what the producer could have read

    def _stale(self) -> bool:
        effects = self.ctx.side_effects
        if effects.version != self.version and (
                len(effects.globals) != self.n_globals or len(effects.cells) != self.n_cells or any(
                getattr(v, "source", None) is not None or id(v) in self.readable for v in effects.objects)):
            return True     # (a changed global or cell, or a container from outside or passed to the producer)
        return any(not _made_after(w, self.n_nodes) for w in self.ctx.mutating_nodes[self.n_writes:])

    def _refuse(self) -> None:
        raise unsupported(BreakCategory.SIDE_EFFECT, f"the loop over {self.what} writes into values that existed "
                          f"when its items were computed ahead of the loop; they could differ from eager's")

    def next_item(self) -> "Var | None":
        if self.pos < len(self.items) and self._stale():     # (also before the first: `it = map(..); x[0] = 5`)
            self._refuse()
        return super().next_item()

    def reconstruct(self, out: Any) -> str:
        if self.pos < len(self.items) and self._stale():
            self._refuse()
        return super().reconstruct(out)


def _held_by_function(v: Any) -> list[Any]:
    """What a function value could read besides its arguments: its closure cells' contents, its defaults."""
    cells = [getattr(c, "value", None) for c in getattr(v, "closure", None) or ()]
    return [c for c in cells if c is not None] + list(getattr(v, "defaults", None) or ())


def _made_after(write: Any, n_nodes: int) -> bool:
    """Every array `write` writes into (its declared arguments, its `out=`) was made by a graph op after the
    items were computed, so no item was read from it. An op that may return a view is followed to its first
    argument (conservative)."""
    from ...graph.ir import Node
    from ...graph.passes import returns_fresh, written_arguments

    def fresh(target: Any) -> bool:
        while isinstance(target, Node) and target.is_call and not returns_fresh(target.target) and target.args \
                and isinstance(target.args[0], Node):
            target = target.args[0]
        return isinstance(target, Node) and target.is_call and target.index >= n_nodes
    targets = written_arguments(write)
    return bool(targets) and all(fresh(t) for t in targets)


def run_ahead(ctx: Any, items: list["Var"], what: str, inputs: list[Any]) -> ListIteratorVar:
    """The iterator over items computed ahead of their loop from `inputs` (the producer's arguments, its
    function): a plain one when every item is a constant (`itertools.product(range(n), range(m))`: no write
    can change them), else a RunAheadIteratorVar."""
    if all(_constant(v) for v in items):
        return ListIteratorVar(items)
    return RunAheadIteratorVar(ctx, items, what, inputs)


def _constant(v: "Var") -> bool:
    if isinstance(v, TupleVar):
        return all(_constant(i) for i in v.items)
    return isinstance(v, ConstVar) and isinstance(v.value, (int, float, complex, str, bytes, bool, type(None)))
