"""Guard: one assumption a cached graph made about a value, the base class of one class per kind (kinds/).

`Guard(expr, kind, expected, description)` builds the instance of that kind's class: TypeGuard, ShapeGuard...
Each class knows how its expectation is normalized, how it reads (`show`, `label`), how it is checked inline
in the dispatcher (`code`, given a render.Render), how a failure is explained (`explain` raises
GuardFailure) and how the guards on one value are said in words (`words`, value_words). Imports guards.kind, guards.words and guards.source.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any, ClassVar

from .kind import GuardKind
from .source import GuardSource
from .words import readable_expr

# Each kind's class, registered by Guard.__init_subclass__; Guard(...) constructs through it.
CLASSES: dict[GuardKind, type["Guard"]] = {}


class GuardFailure(Exception):
    """A guard does not hold for a value; the message says why (`x.shape[0]: expected 4, got 5`)."""


@dataclass(frozen=True)
class Guard:
    """One assumption, e.g. Guard("x", SHAPE, (4, 8)) prints as `x.shape == (4, 8)` (a ShapeGuard).

    `expr` is a Python expression over the compiled function's argument names plus `___G` (its globals) and
    `___closure` (its cells); `description` is the human name of the source ("closure variable 'scale'"),
    which failure reasons use instead of the raw expr. Both make the guard's `source`.
    """

    expr: str
    kind: GuardKind
    expected: Any = None
    description: str = ""

    KIND: ClassVar[GuardKind]
    # Order among one expr's guards: gates (rank 0 and 1) decide whether reading the expr any further makes
    # sense, so they come first, and when one fails the failure reasons say nothing more about that expr.
    RANK: ClassVar[int] = 2
    OPPOSITE: ClassVar[GuardKind | None] = None   # a kind that contradicts this one on the same expr
    WORDS_ORDER: ClassVar[int | None] = None   # which kind leads a value's sentence (words), lowest first
    BINDS_READ: ClassVar[bool] = False     # the first guard on a path, binding it to a local (guards.reads)
    READS_SHAPES: ClassVar[bool] = False   # its expr may read a symbolic shape another guard bound to a local
    NORMALIZES: ClassVar[bool] = False     # whether normalize() is defined (kept as given otherwise)

    def __new__(cls, *args: Any, **kwargs: Any) -> "Guard":
        if cls is Guard:
            kind = args[1] if len(args) > 1 else kwargs["kind"]
            # (a StrEnum member hashes and compares as its string: "SHAPE" finds SHAPE's class too)
            cls = CLASSES.get(kind) or CLASSES[GuardKind(kind)]
        return object.__new__(cls)

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        CLASSES[cls.KIND] = cls
        cls.NORMALIZES = cls.normalize is not Guard.normalize

    def __post_init__(self) -> None:
        if self.kind is not self.KIND:
            if self.kind != self.KIND:
                raise TypeError(f"{type(self).__name__} is a {self.KIND} guard, not {self.kind}")
            object.__setattr__(self, "kind", self.KIND)
        if self.NORMALIZES:
            object.__setattr__(self, "expected", self.normalize(self.expected))

    @functools.cached_property
    def source(self) -> GuardSource:
        """Where the guarded value comes from: the expression the check reads and its name in words."""
        return GuardSource(self.expr, self.description)

    relation: ClassVar[tuple[str, str, bool] | None] = None   # (a, b, same): an identity relation (kinds/equals.py)

    @property
    def is_gate(self) -> bool:
        return self.RANK < 2

    def __str__(self) -> str:
        return self.show(readable_expr(self.expr))

    def normalize(self, expected: Any) -> Any:
        """The expectation as kept (a tuple of ints for a shape, a np.dtype...); raises if it is not one."""
        return expected

    def key(self, canon: str) -> tuple:
        """What identifies the guard in a GuardSet: one expectation per (expr, kind), unless a kind says else."""
        return (canon, self.kind)

    def show(self, e: str) -> str:
        """The check as people read it, over `e` (the source in words)."""
        raise NotImplementedError

    def code(self, text: str, e: str, r: Any) -> str:
        """The inline check over `text` (the expr as the check reads it; `e`, parenthesized where it has
        operators); r is the render.Render of the whole check (namespace names, shape locals)."""
        raise NotImplementedError

    def label(self, name: str) -> str:
        """What the guard reads, for a could-not-evaluate message: `x.shape`, `len(x)`..."""
        return name

    def explain(self, value: Any, name: str) -> None:
        """Raise GuardFailure (`<label>: expected ..., got ...`) unless the guard holds for `value`."""
        raise NotImplementedError

    def words(self, name: str, group: dict[GuardKind, "Guard"]) -> str | None:
        """What all guards on one value (`group`, by kind) require, in one sentence led by this kind, e.g.
        "`x` is an ndarray of shape (4, 8) and dtype float64"; None when this kind does not lead it."""
        return None

    def wrap(self, fn: str, name: str) -> str:
        # `type(x)` reads well; `type(global scale)` does not, so human names get `type of global scale`.
        return f"{fn}({name})" if name == self.expr else f"{fn} of {name}"


def value_words(name: str, group: dict[GuardKind, Guard]) -> str | None:
    """The guards on one value (by kind) in one sentence, led by the kind with the lowest WORDS_ORDER whose
    words() says it; None when none does (the caller lists the checks)."""
    for g in sorted((g for g in group.values() if g.WORDS_ORDER is not None), key=lambda g: g.WORDS_ORDER):
        words = g.words(name, group)
        if words is not None:
            return words
    return None
