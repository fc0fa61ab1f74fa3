"""The opcode registry the family modules register into and the interpreter reads: `HANDLERS[opname] ->
fn(frame, instr)`, `UNSUPPORTED[opname] -> reason`, `PLAIN[opname] -> fn(frame, instr, em) -> Plain` (see the
package's docstring). A leaf of capture.handlers: it imports pyversion only, so the families import it
instead of the package that imports them (which made each family part of the package's import cycle)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable

from ... import pyversion

Handler = Callable[..., None]
HANDLERS: dict[str, Handler] = {}
# Every registration, for every version (opnames, since, until, function): the coverage tests check the
# ranges of all five supported versions from whichever Python runs them.
REGISTRATIONS: list[tuple[tuple[str, ...], tuple[int, int] | None, tuple[int, int] | None, Handler]] = []
UNSUPPORTED: dict[str, str] = {}
PLAIN: dict[str, Callable[..., "Plain"]] = {}


@dataclass
class Plain:
    """An instruction as plain Python: the stack items it consumes, the expressions it pushes (None: a
    NULL slot), the lines computing them, and where execution goes on (1: after it; 0: at it again, as
    a conditional jump does on the Python bool computed here)."""

    consumed: int
    pushed: list[str | None] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    offset: int = 1


def result(consumed: int, expr: str) -> Plain:
    """The common form: pop `consumed` items, push `___r = expr`."""
    return Plain(consumed, ["___r"], [f"___r = {expr}"])


def handler(*opnames: str, since: tuple[int, int] | None = None,
            until: tuple[int, int] | None = None) -> Callable[[Handler], Handler]:
    """Register `fn` for each opname on the Python versions in [since, until]."""

    def deco(fn: Handler) -> Handler:
        REGISTRATIONS.append((opnames, since, until, fn))
        if not pyversion.in_range(since, until):
            return fn
        for name in opnames:
            if name in HANDLERS:
                raise RuntimeError(f"two handlers for {name}: {HANDLERS[name].__name__} and {fn.__name__}")
            HANDLERS[name] = fn
        base = re.sub(r"_3_\d+$", "", fn.__name__)
        if len(opnames) == 1 and base != opnames[0].lower():
            raise RuntimeError(f"handler for {opnames[0]} must be named {opnames[0].lower()}, not {fn.__name__}")
        return fn

    return deco


def plain_form(*opnames: str, since: tuple[int, int] | None = None,
               until: tuple[int, int] | None = None) -> Callable[[Callable], Callable]:
    """Register the plain-Python form of each opname on the Python versions in [since, until]."""

    def deco(fn: Callable) -> Callable:
        if pyversion.in_range(since, until):
            for name in opnames:
                PLAIN[name] = fn
        return fn

    return deco


def unsupported_opcodes(reason: str, *opnames: str) -> None:
    for name in opnames:
        UNSUPPORTED[name] = reason
