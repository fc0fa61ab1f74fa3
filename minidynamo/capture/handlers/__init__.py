"""Opcode handlers: `HANDLERS[opname] -> fn(frame, instr)`, filled by the family modules below, and
`UNSUPPORTED[opname] -> reason` for opcodes capture leaves to plain Python.

Imports capture.frame (for types), pyversion and the family modules. A handler is registered with
`@handler("OPNAME", since=(3, 12), until=(3, 13))`; registrations outside the running version are skipped,
so version differences live on the decorator, never inside handler bodies. The registry checks that each
function is named after its opcode (snake_case, with an optional `_3_11`-style suffix).
"""

from __future__ import annotations

import re
from typing import Callable

from ... import pyversion

Handler = Callable[..., None]
HANDLERS: dict[str, Handler] = {}
UNSUPPORTED: dict[str, str] = {}


def handler(*opnames: str, since: tuple[int, int] | None = None,
            until: tuple[int, int] | None = None) -> Callable[[Handler], Handler]:
    """Register `fn` for each opname on the Python versions in [since, until]."""

    def deco(fn: Handler) -> Handler:
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


def unsupported_opcodes(reason: str, *opnames: str) -> None:
    for name in opnames:
        UNSUPPORTED[name] = reason


from . import arith, call, compare, containers, functions, jumps, load_store, stack, unsupported  # noqa: E402,F401
