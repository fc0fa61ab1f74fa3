"""GuardSet: the ordered, de-duplicated guards of one cache entry, rendered as one inline check.

Imports errors, guards.guard, guards.exact, guards.reads, guards.relations and guards.render. The dispatcher
(dispatch/cache.py) inlines expression(tag); guards.check.compile_check makes a standalone function of it.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from ..errors import InternalError
from .exact import same_expected
from .guard import Guard
from .kind import HOLDS, GuardKind
from .reads import Reads, canonical, prefixes
from .relations import implied_bounds
from .render import Render


class GuardConflictError(InternalError, ValueError):
    """Two guards expect different things of the same expr: the capture specialized inconsistently."""


class GuardSet:
    """Ordered, de-duplicated guards of one cache entry.

    >>> gs = GuardSet(array_guards("x", np.zeros((4, 8), np.float32)))
    >>> print(gs)
    type(x) is ndarray
    x.shape == (4, 8)
    x.dtype == float32
    >>> gs.expression()
    '___type(x) is ___ndarray and x.shape == (4, 8) and (x.dtype is ___dtype_float32 or ...)'
    """

    def __init__(self, guards: Iterable[Guard] = ()) -> None:
        self._guards: dict[tuple, Guard] = {}
        self._canon: dict[str, str] = {}  # expr -> ast-normalized text, for grouping
        self._rendered, self._order = {}, None   # tag -> (expression, namespace, Reads); ordered() until an add
        self._later_reads: list[str] = []   # paths the entry reads right after the check (graph inputs)
        self.extend(guards)

    def add(self, guard: Guard) -> None:
        """Add one guard; an identical one is ignored, a contradicting one raises GuardConflictError."""
        canon = self.canonical(guard.expr)
        key = guard.key(canon)
        old = self._guards.get(key)
        if old is not None:
            if not same_expected(old.expected, guard.expected):
                raise GuardConflictError(f"conflicting guards: `{old}` and `{guard}`")
            return
        if guard.OPPOSITE is not None:
            opposite = self._guards.get(Guard(guard.expr, guard.OPPOSITE, guard.expected).key(canon))
            if opposite is not None:
                raise GuardConflictError(f"conflicting guards: `{opposite}` and `{guard}`")
        self._guards[key] = guard
        self._rendered, self._order = {}, None

    def has(self, expr: str, kinds: Iterable[GuardKind]) -> bool:
        """Whether a guard of one of `kinds` checks `expr`."""
        canon = self.canonical(expr)
        return any((canon, kind) in self._guards for kind in kinds)

    def extend(self, guards: Iterable[Guard]) -> None:
        for g in guards:
            self.add(g)

    def __len__(self) -> int:
        return len(self._guards)

    def __iter__(self) -> Iterator[Guard]:
        return iter(self.ordered())

    def __str__(self) -> str:
        return "\n".join(str(g) for g in self.ordered())

    def __repr__(self) -> str:
        return f"GuardSet({len(self)} guards)"

    def ordered(self) -> list[Guard]:
        """Guards grouped by expr, depth first: an expr's gates (type, len, keys...) and then its
        other guards come before any guard on `expr.attr` or `expr[i]`, so a wrong type stops the
        check before an attribute read could raise. Kept until the next add (every miss asks each entry's)."""
        if self._order is not None: return list(self._order)  # noqa: E701
        groups: dict[str, list[Guard]] = {}
        for g in self._guards.values():
            groups.setdefault(self._canon[g.expr], []).append(g)
        children: dict[str | None, list[str]] = {}
        for canon in groups:
            parent = next((p for p in prefixes(canon) if p in groups), None)
            children.setdefault(parent, []).append(canon)
        out: list[Guard] = []

        def visit(canon: str) -> None:
            out.extend(sorted(groups[canon], key=lambda g: g.RANK))  # stable sort
            for child in children.get(canon, ()):
                visit(child)

        for root in children.get(None, ()):
            visit(root)
        self._order = tuple(out)
        return out

    def expression(self, tag: str = "") -> str:
        """One Python expression, all guards joined by `and`; its constants are in namespace(tag).

        `tag` goes into every namespace name (`___{tag}c0`), so the dispatcher can inline the
        expressions of several cache entries into one function without name clashes.
        """
        return self._render(tag)[0]

    def namespace(self, tag: str = "") -> dict[str, Any]:
        """The constants, classes and helpers that expression(tag) refers to."""
        return dict(self._render(tag)[1])

    def bound_locals(self, tag: str = "") -> list[str]:
        """Locals expression(tag) binds (guards.reads.Reads): dropped before the function's own code runs."""
        return list(self._render(tag)[2].bound.values())

    def read_later(self, exprs: Iterable[str]) -> None:
        """Paths the entry reads right after a passing check (graph inputs): guarded ones get bound to locals."""
        self._later_reads, self._rendered = self._later_reads + [self.canonical(e) for e in exprs], {}

    def reuse_reads(self, code: str, tag: str = "") -> str:
        """`code` reading the paths the check bound from their locals (code run right after the check)."""
        return self._render(tag)[2].reuse(code)

    def canonical(self, expr: str) -> str:
        """The expr as ast.unparse writes it (guards on one value group by it); InternalError if none."""
        if expr not in self._canon:
            try:
                self._canon[expr] = canonical(expr)
            except SyntaxError as e:
                raise InternalError(f"guard expression {expr!r} is not a Python expression") from e
        return self._canon[expr]

    def _render(self, tag: str) -> tuple[str, dict[str, Any], Reads]:
        if tag not in self._rendered:
            implied = implied_bounds([g.expr for g in self._guards.values() if g.kind is HOLDS])
            ordered = [g for g in self.ordered() if not (g.kind is HOLDS and g.expr in implied)]
            reads = Reads(tag, [self._canon[g.expr] for g in ordered if g.kind is not HOLDS], self._later_reads)
            render = Render(tag, reads)
            self._rendered[tag] = (render.check(ordered), render.names.namespace, reads)
        return self._rendered[tag]
