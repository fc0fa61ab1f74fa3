"""LazyListVar: a list that existed before the call, its items wrapped (and guarded) when first read.
Imports variables.containers and variables.operators; the CaptureContext that made it (ctx.wrap) is passed in.
"""

from __future__ import annotations

from typing import Any

from ... import guards as G
from ..sources import ItemSource, Source
from .base import Var
from .const import ConstVar
from .containers import ListVar
from .operators import scalar_op


class LazyListVar(ListVar):
    """A list that existed before the call: items are wrapped (and guarded) when first read, so a list
    passed along without being looked into (a loop's list handed to the next iteration) guards only its
    type and length."""

    def __init__(self, ctx: Any, value: list, source: Source, guard_length: Any = None) -> None:
        self._ctx, self._real, self._resolved = ctx, value, None
        self._some: dict[int, Var] = {}
        self._guard_length = guard_length
        self._appended: list[Var] = []      # appends while the old items are unread (written back by extend)
        super().__init__([], source)
        self._resolved = None

    def _uses_length(self) -> None:
        if self._guard_length is not None:
            install, self._guard_length = self._guard_length, None
            install()

    @property
    def items(self) -> list[Var]:       # type: ignore[override]
        if self._resolved is None:
            self._uses_length()
            self._resolved = [self._item(i) for i in range(len(self._real))] + self._appended
            self._appended = []
        return self._resolved

    def len_var(self, frame: Any) -> Var:
        """`len(lst)`: a symbolic int while the old items are unread (plus what capture appended)."""
        if self._resolved is not None or self.source is None:
            return ConstVar(self.length(frame))
        n = self._ctx.length_input(self._real, self.source, self._uses_length)
        if not self._appended:
            return n
        return scalar_op(frame, "+", [n, ConstVar(len(self._appended))])

    def length_before(self) -> int | None:
        return len(self._real)

    def unread(self) -> bool:
        """Whether the caller's list is still exactly what this Var stands for: no item or length read,
        nothing appended (so reading it afresh in the entry gives the same list)."""
        return self._resolved is None and not self._appended and self.source is not None

    def real_list(self) -> list:
        return self._real

    def appended_only(self) -> list[Var] | None:
        """The items appended, when the capture never read the list's old items or length (else None)."""
        return self._appended if self._resolved is None else None

    def call_method(self, frame, name, args, kwargs):
        if name == "append" and len(args) == 1 and not kwargs and self._resolved is None:
            self._mutate(frame)
            self._appended.append(args[0])
            return ConstVar(None)
        return super().call_method(frame, name, args, kwargs)

    @items.setter
    def items(self, value: list[Var]) -> None:
        self._resolved = value

    def _item(self, i: int) -> Var:
        if i not in self._some:
            self._some[i] = self._ctx.wrap(self._real[i], ItemSource(self.source, i))
        return self._some[i]

    def length(self, frame):
        self._uses_length()
        return len(self._real) + len(self._appended) if self._resolved is None else len(self._resolved)

    def getitem(self, frame, key):
        if self._resolved is None and self.source is not None and key.is_constant() \
                and type(key.as_constant()) is int:
            i, m = key.as_constant(), len(self._appended)
            if i < 0 and -i <= m:           # an item capture appended
                return self._appended[i]
            j = i + m if i < 0 else i       # an old item: lst[j] / lst[-k], read before any write-back
            if -len(self._real) <= j < len(self._real):
                # Read through its own source: only `len(lst) > j` (or >= -j) is guarded, not the length.
                length = f"{self._ctx.bind(len, 'f')}({self.source.expr()})"
                relation = f"{length} > {j}" if j >= 0 else f"{length} >= {-j}"
                self._ctx.guard([G.Guard(relation, G.GuardKind.HOLDS, True)])
                return self._item(j)
        self._uses_length()
        if self._resolved is None and not self._appended and key.is_constant() and \
                type(key.as_constant()) is int:
            i = key.as_constant()
            if -len(self._real) <= i < len(self._real):
                return self._item(i % len(self._real))
        return super().getitem(frame, key)
