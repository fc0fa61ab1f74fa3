"""Opcode handlers: `HANDLERS[opname] -> fn(frame, instr)`, filled by the family modules below,
`UNSUPPORTED[opname] -> reason` for opcodes capture leaves to plain Python, and `PLAIN[opname] ->
fn(frame, instr, em) -> Plain`: how the instruction runs as plain Python when a graph breaks at it (the
entry runs it after the graph, then continues in a resume function). Each plain form sits next to its
opcode's handler; `em` spells Vars as expressions (`em.value(var)`, `em.callee(var)`, `em.constant(obj)`).

The registry itself is registry.py (a leaf the families import); this package imports it and the family
modules, so importing capture.handlers fills it. A handler is registered with
`@handler("OPNAME", since=(3, 12), until=(3, 13))`; registrations outside the running version are skipped,
so version differences live on the decorator, never inside handler bodies. The registry checks that each
function is named after its opcode (snake_case, with an optional `_3_11`-style suffix).
"""

from __future__ import annotations

from .registry import (HANDLERS, PLAIN, REGISTRATIONS, UNSUPPORTED, Handler, Plain, handler,  # noqa: F401
                       plain_form, result, unsupported_opcodes)

from . import (arith, call, classes, compare, containers, context_managers, functions,  # noqa: E402,F401
               imports, jumps, load_store, stack, templates, unsupported)
