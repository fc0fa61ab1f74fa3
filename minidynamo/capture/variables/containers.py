"""Tuples, lists, dicts and iterators whose items are Vars. Imports variables.base/const.

A list or dict that came from a source (an argument, a global) is the caller's object: reads go through
its items, and a mutation marks it dirty so the compiled entry writes the final contents back into that
same object after the graph ran (identity kept). Lists and dicts built inside the function are new.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

from .base import Var, unsupported
from .const import ConstVar, all_constant, fold
from .hooks import HOOKS
from ..breaks import BreakCategory
from .scalar import is_symbolic_int

if TYPE_CHECKING:
    from ..frame import Frame


def wrap_constant(value: Any) -> Var:
    """A Var for a constant result: tuples and lists become containers of ConstVars."""
    if isinstance(value, tuple) and type(value) is tuple:
        return TupleVar([wrap_constant(v) for v in value])
    if type(value) is list:
        return ListVar([wrap_constant(v) for v in value])
    if type(value) is dict:
        return DictVar({k: wrap_constant(v) for k, v in value.items()})
    return ConstVar(value)


def _index(frame: "Frame", key: Var, n: int) -> int | slice:
    if not key.is_constant():
        raise unsupported(BreakCategory.UNSUPPORTED, f"container index {key.describe()} is not a constant")
    k = key.as_constant()
    if not isinstance(k, (int, slice)):
        raise unsupported(BreakCategory.EXCEPTION, f"sequence index of type {type(k).__name__}")
    return k


class SequenceVar(Var):
    """Shared behaviour of TupleVar and ListVar."""

    kind: type = tuple

    def __init__(self, items: list[Var], source=None) -> None:
        self.items = list(items)
        self.source = source

    def describe(self) -> str:
        return f"a {self.kind.__name__} of {len(self.items)} item{'' if len(self.items) == 1 else 's'}"

    def python_type(self) -> type:
        return self.kind

    def is_constant(self) -> bool:
        return all(i.is_constant() for i in self.items)

    def _fresh(self, items: list[Var]) -> "SequenceVar":
        """A new container of the same kind (a slice or a concatenation is a new object)."""
        return (TupleVar if self.kind is tuple else ListVar)(items)

    def as_constant(self) -> Any:
        return self.kind(i.as_constant() for i in self.items)

    def as_bool(self, frame: "Frame") -> bool:
        return bool(self.items)

    def iterate(self, frame: "Frame") -> list[Var]:
        return list(self.items)

    def length(self, frame: "Frame") -> int:
        return len(self.items)

    def getitem(self, frame: "Frame", key: Var) -> Var:
        k = _index(frame, key, len(self.items))
        try:
            picked = self.items[k]
        except IndexError as e:
            raise unsupported(BreakCategory.EXCEPTION, f"{self.kind.__name__} index out of range: {e}") from None
        return self._fresh(picked) if isinstance(k, slice) else picked

    def contains(self, frame: "Frame", item: Var) -> Var:
        if item.is_constant() and all(i.is_constant() for i in self.items):
            return fold(frame, operator.contains, self.as_constant(), item.as_constant())
        raise unsupported(BreakCategory.UNSUPPORTED, f"`in` on {self.describe()} with non-constant items")

    def call_method(self, frame: "Frame", name: str, args: list[Var], kwargs: dict[str, Var]) -> Var:
        if name in ("index", "count") and self.is_constant() and all_constant(args, kwargs):
            return fold(frame, getattr(self.as_constant(), name), *[a.as_constant() for a in args])
        raise unsupported(BreakCategory.CALL, f"{self.kind.__name__}.{name}() on {self.describe()}")

    def binary(self, frame: "Frame", sym: str, other: Var) -> Var:
        if sym == "+" and isinstance(other, SequenceVar) and other.kind is self.kind:
            return self._fresh(self.items + other.items)
        if sym == "*" and other.is_constant() and isinstance(other.as_constant(), int):
            n = other.as_constant()
            if len(self.items) * n > frame.ctx.max_steps:   # NumPy's test_huge_list_error: 2**31 items
                raise unsupported(BreakCategory.UNSUPPORTED, f"{self.describe()} * {n}: too many items to model")
            return self._fresh(self.items * n)
        raise unsupported(BreakCategory.UNSUPPORTED, f"{self.describe()} {sym} {other.describe()}")

    def reconstruct(self, out: Any) -> str:
        if self.source is not None:
            return self.source.expr()
        inner = ", ".join(i.reconstruct(out) for i in self.items)
        if self.kind is tuple:
            return f"({inner},)" if len(self.items) == 1 else f"({inner})"
        return f"[{inner}]"


class TupleVar(SequenceVar):
    kind = tuple


class ListVar(SequenceVar):
    """A list; `dirty` once mutated (the entry then writes its final items back into the source list)."""

    kind = list

    def __init__(self, items: list[Var], source=None) -> None:
        super().__init__(items, source)
        self.dirty = False

    def make_iterator(self, frame: "Frame") -> Var:
        return LiveListIteratorVar(self)

    def length_before(self) -> int | None:
        """The length of the caller's list when the call began; None for a list the call created."""
        return None

    def _mutate(self, frame: "Frame") -> None:
        frame.ctx.side_effects.mutated(self)
        self.dirty = True

    def call_method(self, frame: "Frame", name: str, args: list[Var], kwargs: dict[str, Var]) -> Var:
        if kwargs and name != "sort":
            raise unsupported(BreakCategory.CALL, f"list.{name}() with keywords")
        if name == "append" and len(args) == 1:
            self._mutate(frame); self.items.append(args[0]); return ConstVar(None)
        if name == "extend" and len(args) == 1:
            new = args[0].iterate(frame); self._mutate(frame); self.items.extend(new); return ConstVar(None)
        if name == "insert" and len(args) == 2 and args[0].is_constant():
            self._mutate(frame); self.items.insert(args[0].as_constant(), args[1]); return ConstVar(None)
        if name == "pop" and len(args) <= 1 and all_constant(args):
            if not self.items:
                raise unsupported(BreakCategory.EXCEPTION, "pop from empty list")
            self._mutate(frame); return self.items.pop(*[a.as_constant() for a in args])
        if name == "clear" and not args:
            self._mutate(frame); self.items.clear(); return ConstVar(None)
        if name == "reverse" and not args:
            self._mutate(frame); self.items.reverse(); return ConstVar(None)
        if name == "copy" and not args:
            return ListVar(list(self.items))
        if name == "sort" and not args and set(kwargs) <= {"reverse"}:
            # No key: no code runs while CPython sorts (it shows the list empty then), so this is sorted()'s
            # order of the same items, stable, decided on capture-time constants or a break.
            order = HOOKS.sorted_list(frame, self, kwargs)
            self._mutate(frame); self.items[:] = order.items; return ConstVar(None)
        return super().call_method(frame, name, args, kwargs)

    def setitem(self, frame: "Frame", key: Var, value: Var) -> None:
        k = _index(frame, key, len(self.items))
        self._mutate(frame)
        if isinstance(k, slice):
            self.items[k] = value.iterate(frame)
        else:
            if not -len(self.items) <= k < len(self.items):
                raise unsupported(BreakCategory.EXCEPTION, "list assignment index out of range")
            self.items[k] = value

    def delitem(self, frame: "Frame", key: Var) -> None:
        k = _index(frame, key, len(self.items))
        self._mutate(frame)
        del self.items[k]


class DictVar(Var):
    """A dict with constant keys. Values are Vars; from a source, values are wrapped when read."""

    def __init__(self, items: dict[Any, Var], source=None) -> None:
        self.items = dict(items)
        self.source = source
        self.dirty = False

    def describe(self) -> str:
        return f"a dict of {len(self.items)} item{'' if len(self.items) == 1 else 's'}"

    def python_type(self) -> type:
        return dict

    def as_bool(self, frame: "Frame") -> bool:
        return bool(self.items)

    def length(self, frame: "Frame") -> int:
        return len(self.items)

    def known_values(self) -> list[Var]:
        """The values capture already holds (a lazily read dict leaves unread ones out)."""
        return list(self.items.values())

    def iterate(self, frame: "Frame") -> list[Var]:
        return [wrap_constant(k) for k in self.items]

    def make_iterator(self, frame: "Frame") -> Var:
        return DictIteratorVar(self, "keys")

    def _key(self, key: Var) -> Any:
        if not key.is_constant():
            raise unsupported(BreakCategory.UNSUPPORTED, f"dict key {key.describe()} is not a constant")
        return key.as_constant()

    def getitem(self, frame: "Frame", key: Var) -> Var:
        k = self._key(key)
        if k not in self.items:
            raise unsupported(BreakCategory.EXCEPTION, f"KeyError: {k!r}")
        return self.items[k]

    def contains(self, frame: "Frame", item: Var) -> Var:
        return ConstVar(self._key(item) in self.items)

    def setitem(self, frame: "Frame", key: Var, value: Var) -> None:
        k = self._key(key)
        frame.ctx.side_effects.mutated(self)
        self.dirty = True
        self.items[k] = value

    def delitem(self, frame: "Frame", key: Var) -> None:
        k = self._key(key)
        if k not in self.items:
            raise unsupported(BreakCategory.EXCEPTION, f"KeyError: {k!r}")
        self.setitem(frame, key, ConstVar(None))
        del self.items[k]

    def call_method(self, frame: "Frame", name: str, args: list[Var], kwargs: dict[str, Var]) -> Var:
        if name in ("keys", "values", "items") and not args:
            return DictViewVar(self, name)
        if name == "get" and 1 <= len(args) <= 2:
            k = self._key(args[0])
            return self.items[k] if k in self.items else (args[1] if len(args) > 1 else ConstVar(None))
        if name == "setdefault" and 1 <= len(args) <= 2 and not kwargs:
            k = self._key(args[0])
            if k not in self.items:
                self.setitem(frame, args[0], args[1] if len(args) > 1 else ConstVar(None))
            return self.items[k]
        if name == "copy" and not args:
            return DictVar(dict(self.items))
        if name == "update" and len(args) == 1 and isinstance(args[0], DictVar) and not kwargs:
            for k, v in args[0].items.items():
                self.setitem(frame, ConstVar(k), v)
            return ConstVar(None)
        raise unsupported(BreakCategory.CALL, f"dict.{name}()")

    def reconstruct(self, out: Any) -> str:
        if self.source is not None:
            return self.source.expr()
        inner = ", ".join(f"{out.constant(k)}: {v.reconstruct(out)}" for k, v in self.items.items())
        return "{" + inner + "}"


def reachable(values: list, depth: int = 3, more: Any = None) -> list:
    """The values and what they hold `depth` levels down: list/tuple items, dict values, and `more(v)` of any
    other value (a function's closure cells, say)."""
    out = []
    for v in values:
        out.append(v)
        if not depth:
            continue
        if isinstance(v, SequenceVar):
            out += reachable(list(v.items), depth - 1, more)
        elif isinstance(v, DictVar):
            out += reachable(v.known_values(), depth - 1, more)
        elif more is not None:
            out += reachable(more(v), depth - 1, more)
    return out


def iter_at(iterable: Any, pos: int) -> Any:
    """A real iterator over `iterable` that has already yielded `pos` items (rebuilt after a break)."""
    it = iter(iterable)
    for _ in range(pos):
        next(it)
    return it


class ListIteratorVar(Var):
    """An iterator over known items: zip(), enumerate(), reversed(), generators. Consumed by FOR_ITER."""

    def __init__(self, items: list[Var]) -> None:
        self.items = list(items)
        self.pos = 0

    def make_iterator(self, frame: "Frame") -> Var:
        return self

    def inner(self) -> list["ListIteratorVar"]:
        """The iterators this one steps (zip's, enumerate's): a fold that rolls back restores them too."""
        return []

    def reconstruct(self, out: Any) -> str:
        return f"iter(({''.join(out.value(v) + ', ' for v in self.items[self.pos:])}))"

    def describe(self) -> str:
        return f"an iterator ({len(self.items) - self.pos} items left)"

    def iterate(self, frame: "Frame") -> list[Var]:
        rest = self.items[self.pos:]
        self.pos = len(self.items)
        return rest

    def next_item(self) -> Var | None:
        if self.pos >= len(self.items):
            return None
        self.pos += 1
        return self.items[self.pos - 1]

    def length(self, frame: "Frame") -> int:
        raise unsupported(BreakCategory.EXCEPTION, "object of type iterator has no len()")


def slice_of(start: Var, stop: Var, step: Var) -> Var:
    """A slice (BUILD_SLICE, or the builtin `slice(...)`): a constant, or a SliceVar whose symbolic int bound
    (x[:n], C[i, :i + 1]) stays symbolic, specialized only where used as a constant."""
    parts = (start, stop, step)
    if all(p.is_constant() and not is_symbolic_int(p) for p in parts):
        return ConstVar(slice(*(p.as_constant() for p in parts)))
    return SliceVar(*parts)


class SliceVar(Var):
    """A slice with a non-constant part (an array bound): only usable as an index in the graph."""

    def __init__(self, start: Var, stop: Var, step: Var) -> None:
        self.parts = (start, stop, step)

    def describe(self) -> str:
        return "a slice"

    def reconstruct(self, out: Any) -> str:
        """Built in plain Python when a break needs it (`x[ptr[i]:ptr[i + 1]]` on 3.11: BUILD_SLICE)."""
        return f"slice({', '.join(out.value(p) for p in self.parts)})"

    def is_constant(self) -> bool:
        return all(p.is_constant() for p in self.parts)

    def as_constant(self) -> slice:
        """Where a slice must be a constant (a list's slice), its symbolic bounds are specialized."""
        return slice(*(p.as_constant() for p in self.parts))


class LiveListIteratorVar(ListIteratorVar):
    """`iter(lst)` / `for v in lst`: reads the list as it is at each step, as CPython's list iterator does,
    so items appended inside the loop are visited."""

    def __init__(self, seq: "ListVar") -> None:
        super().__init__([])
        self.seq = seq

    def describe(self) -> str:
        return f"a list iterator at item {self.pos}"

    def next_item(self) -> Var | None:
        if self.pos >= len(self.seq.items):
            return None
        self.pos += 1
        return self.seq.items[self.pos - 1]

    def iterate(self, frame: "Frame") -> list[Var]:
        rest = self.seq.items[self.pos:]
        self.pos = len(self.seq.items)
        return rest

    def reconstruct(self, out: Any) -> str:
        # iter_at runs in the entry's prelude, before the list's write-back: past the end of the list as it
        # was, it would raise StopIteration instead of standing where the capture left it.
        before = self.seq.length_before()
        if before is not None and self.pos > before:
            raise unsupported(BreakCategory.RECONSTRUCT, "an iterator past the old end of a list the capture lengthened")
        return f"{out.constant(iter_at)}({out.value(self.seq)}, {self.pos})"


class DictIteratorVar(ListIteratorVar):
    """Iterating a dict or one of its views: like CPython, changing the dict's size while iterating is an
    error (RuntimeError), left to plain Python to raise."""

    def __init__(self, d: "DictVar", kind: str) -> None:
        super().__init__([])
        self.dict, self.kind, self.size = d, kind, d.length(None)

    def describe(self) -> str:
        return f"a dict {self.kind} iterator at item {self.pos}"

    def _items(self, frame: "Frame | None") -> list[Var]:
        return DictViewVar(self.dict, self.kind).iterate(frame)

    def next_item(self) -> Var | None:
        if self.dict.length(None) != self.size:
            raise unsupported(BreakCategory.EXCEPTION, "dictionary changed size during iteration (RuntimeError)")
        items = self._items(None)
        if self.pos >= len(items):
            return None
        self.pos += 1
        return items[self.pos - 1]

    def iterate(self, frame: "Frame") -> list[Var]:
        rest = self._items(frame)[self.pos:]
        self.pos += len(rest)
        return rest

    def reconstruct(self, out: Any) -> str:
        return f"{out.constant(iter_at)}({out.value(self.dict)}.{self.kind}(), {self.pos})"


class DictViewVar(Var):
    """`d.keys()`, `d.values()`, `d.items()`: live views of a DictVar."""

    def __init__(self, d: "DictVar", kind: str) -> None:
        self.dict, self.kind = d, kind

    def describe(self) -> str:
        return f"a dict_{self.kind} view"

    def iterate(self, frame: "Frame | None") -> list[Var]:
        keys = self.dict.iterate(frame)
        if self.kind == "keys":
            return keys
        values = [self.dict.getitem(frame, k) for k in keys]
        return values if self.kind == "values" else [TupleVar([k, v]) for k, v in zip(keys, values)]

    def make_iterator(self, frame: "Frame") -> Var:
        return DictIteratorVar(self.dict, self.kind)

    def length(self, frame: "Frame") -> int:
        return self.dict.length(frame)

    def contains(self, frame: "Frame", item: Var) -> Var:
        if self.kind == "keys":
            return self.dict.contains(frame, item)
        return super().contains(frame, item)

    def reconstruct(self, out: Any) -> str:
        return f"{out.value(self.dict)}.{self.kind}()"


class RangeIteratorVar(ListIteratorVar):
    """Iterating a range: items are made one at a time (a loop over range(10**8) is driven, not listed)."""

    def __init__(self, rng: range) -> None:
        super().__init__([])
        self.range = rng

    def describe(self) -> str:
        return f"a range iterator at item {self.pos} of {len(self.range)}"

    def next_item(self) -> Var | None:
        if self.pos >= len(self.range):
            return None
        self.pos += 1
        return ConstVar(self.range[self.pos - 1])

    def iterate(self, frame: "Frame") -> list[Var]:
        rest = self.range[self.pos:]
        if len(rest) > MAX_MATERIALIZED:
            raise unsupported(BreakCategory.LOOP, f"materializing {len(rest)} items of a range")
        self.pos = len(self.range)
        return [ConstVar(v) for v in rest]

    def reconstruct(self, out: Any) -> str:
        return f"iter({out.constant(self.range[self.pos:])})"


MAX_MATERIALIZED = 100_000   # items capture will list out of a range at once (zip(range(n), ...), list(...))
