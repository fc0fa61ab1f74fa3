"""LazyDictVar: a dict that existed before the call, read lazily so a capture guards only what it used.

Values are wrapped (and guarded) when first read. The dict's keys (`tuple(d.keys()) == (...)`, order
included) are guarded only once the capture depends on them: its length or truth, `in`, iteration, a
missing key, a method, a new or deleted key. Reading or assigning a key that exists guards that key alone
(`'k' in d`, left out when the value's own guard reads `d['k']` anyway), so a dict of per-step state
(`self.state['n'] += 1`) costs two cheap guards, not a tuple of its keys built on every call.
Imports guards and capture variables; the CaptureContext is passed in.
"""

from __future__ import annotations

from typing import Any

from .. import guards as G
from .sources import ItemSource, Source
from .variables.const import ConstVar
from .variables.containers import DictVar

# Guards that read `expr` first thing, so a missing key makes them fail (a miss) before anything else runs.
_READS_FIRST = (G.GuardKind.TYPE, G.GuardKind.ID, G.GuardKind.IS_NONE, G.GuardKind.NOT_NONE)


class LazyDictVar(DictVar):
    """`items` (everything generic code reads) resolves every value and guards the keys; the methods below
    that only touch existing keys use `_store`, the values resolved so far, instead."""

    def __init__(self, ctx: Any, value: dict, source: Source) -> None:
        self._store: dict[Any, Any] = {}
        self._pending = {k: True for k in value}
        self._ctx, self._real = ctx, value
        self._keys_guarded = self._ordered = False
        self._present: set[Any] = set()
        self._written: list[Any] = []     # existing keys assigned; their old values need not be read
        self._structural = False          # keys added/deleted or a method ran: the whole dict is rewritten
        super().__init__({}, source)

    @property
    def items(self) -> dict[Any, Any]:    # type: ignore[override]
        self._resolve_all()
        return self._store

    @items.setter
    def items(self, value: dict[Any, Any]) -> None:
        self._store = value

    def describe(self) -> str:
        return f"DictVar[{len(self._real)}]"

    def _guard_keys(self) -> None:
        if not self._keys_guarded:
            self._keys_guarded = True
            self._ctx.guard([G.Guard(self.source.expr(), G.GuardKind.DICT_KEYS, tuple(self._real),
                                     self.source.describe())])

    def _resolve(self, k: Any) -> None:
        if self._pending.pop(k, None):
            self._store[k] = self._ctx.wrap(self._real[k], ItemSource(self.source, k))

    def _guard_present(self, k: Any) -> None:
        """k, a key the dict had at capture, must still be there (unless the keys or d[k] are guarded)."""
        if self._keys_guarded or k in self._present:
            return
        self._present.add(k)
        if not self._ctx.guards.has(ItemSource(self.source, k).expr(), _READS_FIRST):
            self._ctx.guard([G.Guard(f"{k!r} in {self.source.expr()}", G.GuardKind.HOLDS, True,
                                     f"{k!r} in {self.source.describe()}")])

    def _resolve_all(self) -> None:
        self._guard_keys()
        for k in list(self._pending):
            self._resolve(k)
        if not self._ordered:       # the real dict's key order; later additions keep the order they came in
            self._ordered = True
            self._store = {k: self._store[k] for k in self._real if k in self._store} | \
                {k: v for k, v in self._store.items() if k not in self._real}

    def _existing(self, k: Any) -> bool:
        return not self._structural and k in self._real

    def getitem(self, frame, key):
        k = self._key(key)
        if not self._existing(k):
            return super().getitem(frame, key)      # through items: keys guarded, a missing key breaks
        self._resolve(k)
        self._guard_present(k)
        return self._store[k]

    def length(self, frame):
        self._guard_keys()
        return len(self._pending) + len(self._store)

    def as_bool(self, frame):
        self._guard_keys()
        return bool(self._pending or self._store)

    def contains(self, frame, item):
        k = self._key(item)
        self._guard_keys()
        return ConstVar(k in self._pending or k in self._store)

    def setitem(self, frame, key, value):
        k = self._key(key)
        frame.ctx.side_effects.mutated(self)        # first: a refused write changes nothing
        if not self._existing(k):
            self._structural = True
            return super().setitem(frame, key, value)
        self._pending.pop(k, None)                  # `d['n'] += 1`: the other values stay unread
        self._guard_present(k)
        if k not in self._written:
            self._written.append(k)
        self.dirty = True
        frame.ctx.side_effects.mutated(self)
        self._store[k] = value

    def changed_only(self) -> dict | None:
        """The values assigned to existing keys, when that is the only change (written back key by key)."""
        return None if self._structural else {k: self._store[k] for k in self._written}

    def known_values(self) -> list[Any]:
        return list(self._store.values())

    def delitem(self, frame, key):
        self._structural = True
        super().delitem(frame, key)

    def call_method(self, frame, name, args, kwargs):
        if name in ("get", "setdefault") and 1 <= len(args) <= 2 and not kwargs and self._existing(self._key(args[0])):
            return self.getitem(frame, args[0])     # an existing key: read alone, nothing written
        self._structural = True
        return super().call_method(frame, name, args, kwargs)
