"""Which locals are still read from an instruction on: backward liveness over the decoded instructions.
Imports capture.instructions.

A resume function only needs the locals live at its resume point; every other local passed costs guards
on each call and can force captures it does not need. The analysis must never miss a read (a dropped
local that is read later raises UnboundLocalError), so it is conservative: code with an exception table
(try/with) or with cell variables answers "every local".
"""

from __future__ import annotations

from functools import lru_cache
import types

from .. import pyversion
from .instructions import decode

_USES = {*pyversion.LOCAL_LOADS, "LOAD_FAST_AND_CLEAR", "DELETE_FAST"}
_DEFS = {"STORE_FAST"}
_NO_FALLTHROUGH = {"RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE", "JUMP_FORWARD", "JUMP_BACKWARD",
                   "JUMP_BACKWARD_NO_INTERRUPT", "JUMP", "JUMP_NO_INTERRUPT"}


@lru_cache(maxsize=256)
def live_in(code: types.CodeType) -> tuple[frozenset[str], ...] | None:
    """live_in(code)[i]: locals that may be read at or after instruction i; None when not analysable."""
    ins = decode(code)
    if any(ins.in_try) or code.co_cellvars or code.co_freevars:
        return None
    n = len(ins.instrs)
    succ = [[] for _ in range(n)]
    for i, instr in enumerate(ins.instrs):
        if instr.name not in _NO_FALLTHROUGH and i + 1 < n:
            succ[i].append(i + 1)
        if i in ins.targets:
            target = ins.targets[i]
            succ[i].append(target)
            if instr.name == "FOR_ITER":   # the exit lands past END_FOR (and POP_TOP): keep every landing
                succ[i].extend(t for t in range(target, min(target + 3, n)))
    live = [frozenset()] * n
    changed = True
    while changed:
        changed = False
        for i in range(n - 1, -1, -1):
            instr = ins.instrs[i]
            out = frozenset().union(*(live[j] for j in succ[i])) if succ[i] else frozenset()
            name = instr.arg if isinstance(instr.arg, str) else None
            if instr.name in _DEFS and name is not None:
                out = out - {name}
            if instr.name in _USES and name is not None:
                out = out | {name}
            if out != live[i]:
                live[i], changed = out, True
    return tuple(live)


def is_live(code: types.CodeType, index: int, name: str) -> bool:
    table = live_in(code)
    return table is None or index >= len(table) or name in table[index]
