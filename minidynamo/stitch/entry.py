"""The entry body as statements: each knows the names it binds, reads its names through Python's own parser
(`ast`), and the body is rendered to source once, where the dispatcher (cache.py) inlines it.

Imports guards (the RELEASE_READS marker) and stitch.moving only, a leaf the entry builders (stitched.py,
breaking.py, partial.py, guarded_call.py) and cache.py import. What used to be done to generated lines as
text is a pass over statements: breaking.release_temps marks a temp to be moved into the one line that
reads it (`moves`, spliced at the name's own place when rendered), rng_state puts restores before the
`Rerun`, cache.py replaces each `Release` and moves the rest of a body after a `Rerun` into an `else:`.

Kinds: `Code` (one simple statement; `temp`: a value the entry computed for later lines, which
release_temps may delete or move), `Exit` (a `return` or `raise`), `Rerun` (the eager re-run after a
raising graph, guarded_call.py), `Release` (where the check's bound locals are dropped) and `Block` (a
header such as `try:` or `if ___o is None:` with its statements).
"""

from __future__ import annotations

import ast
import functools
from collections import Counter
from dataclasses import dataclass
from typing import Iterable, Iterator

from ..guards import RELEASE_READS
from .moving import moved


class Stmt:
    """A statement of an entry body."""

    binds: tuple[str, ...] = ()

    def render(self, pad: str) -> Iterator[str]:
        raise NotImplementedError


@dataclass
class Code(Stmt):
    """One simple statement: its source `text` (one line), the plain names it binds, whether it computes a
    temp (`temp`: release_temps may delete it or move it into its reader), and the names the line hands
    over as it reads them (`moves`: rendered as moving.moved at the name's place)."""

    text: str
    binds: tuple[str, ...] = ()
    temp: bool = False
    moves: frozenset[str] = frozenset()

    @property
    def reads(self) -> Counter[str]:
        """The names the line reads or binds, each as often as it occurs (names)."""
        return names(self.text)

    def render(self, pad: str) -> Iterator[str]:
        yield pad + (_moving(self.text, self.moves) if self.moves else self.text)


class Exit(Code):
    """A `return` or `raise`: the body leaves here."""


class Rerun(Exit):
    """`return ___eager(...)` after the graph raised (guarded_call.py): the function runs again eagerly."""


@dataclass
class Release(Stmt):
    """Where the locals the guard check bound are dropped (cache.py replaces it; guards.RELEASE_READS)."""

    def render(self, pad: str) -> Iterator[str]:
        yield pad + RELEASE_READS


@dataclass
class Block(Stmt):
    """A compound statement's clause: `head` (`try:`, `except Exception:`, `if ___o is None:`) and its body."""

    head: str
    body: tuple[Stmt, ...]

    @property
    def binds(self) -> tuple[str, ...]:           # type: ignore[override]
        return tuple(n for s in self.body for n in s.binds)

    def render(self, pad: str) -> Iterator[str]:
        yield pad + self.head
        for s in self.body:
            yield from s.render(pad + "    ")


def assign(target: str, expr: str, temp: bool = False) -> Code:
    """`target = expr`, binding the name `target`."""
    return Code(f"{target} = {expr}", (target,), temp)


def render(stmts: Iterable[Stmt], pad: str = "") -> list[str]:
    """The source lines of `stmts`, each indented by `pad`."""
    return [line for s in stmts for line in s.render(pad)]


def walk(stmts: Iterable[Stmt]) -> Iterator[Stmt]:
    """Every simple statement of `stmts` (inside blocks too), in source order."""
    for s in stmts:
        if isinstance(s, Block):
            yield from walk(s.body)
        else:
            yield s


def names(text: str) -> Counter[str]:
    """How often each name occurs in a line or expression of generated code: plain names read or bound, and
    keyword argument names (`f(x=...)`); attribute names and names inside strings do not count."""
    return Counter(_scan(text)[0])


def outputs(text: str) -> frozenset[int]:
    """The graph outputs `text` reads (`___o[i]`)."""
    return _scan(text)[1]


@functools.lru_cache(maxsize=1024)
def _scan(text: str) -> tuple[dict[str, int], frozenset[int]]:
    """(names, outputs) of `text`, parsed once (an entry's expressions recur: `x`, `___o[0]`)."""
    found: Counter[str] = Counter()
    read: set[int] = set()
    for node in _nodes(text):
        if isinstance(node, ast.Name):
            found[node.id] += 1
        elif isinstance(node, ast.keyword) and node.arg is not None:
            found[node.arg] += 1
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "___o" \
                and isinstance(node.slice, ast.Constant) and type(node.slice.value) is int:
            read.add(node.slice.value)
    return dict(found), frozenset(read)


def _nodes(text: str) -> Iterator[ast.AST]:
    """Every node of `text` parsed (ast.walk imports collections as it runs: a capture under a user's
    `__import__` must not call it where eager Python does not)."""
    todo = [ast.parse(text)]
    while todo:
        node = todo.pop()
        yield node
        todo.extend(ast.iter_child_nodes(node))


def _moving(text: str, moves: frozenset[str]) -> str:
    """`text` with each read of a name in `moves` handing the value over (moving.moved)."""
    raw = text.encode()
    spots = sorted((n.col_offset, n.end_col_offset, n.id) for n in _nodes(text)
                   if isinstance(n, ast.Name) and n.id in moves and isinstance(n.ctx, ast.Load))
    out, at = [], 0
    for start, end, name in spots:        # (the parser's offsets count UTF-8 bytes)
        out += [raw[at:start], moved(name).encode()]
        at = end
    return b"".join([*out, raw[at:]]).decode()
