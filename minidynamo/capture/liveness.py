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
def live_in(code: types.CodeType, exceptions: bool = False) -> tuple[frozenset[str], ...] | None:
    """live_in(code)[i]: locals that may be read at or after instruction i; None when not analysable.
    `exceptions`: analyse code with try/with regions too (an instruction inside one may go on at its
    handler) and with cells (fast locals only: a cell is never a STORE_FAST/LOAD_FAST name), for a loop
    being folded (capture/fold/fori.py), which needs the fast locals read after it."""
    ins = decode(code)
    if not exceptions and (any(ins.in_try) or code.co_cellvars or code.co_freevars):
        return None
    n = len(ins.instrs)
    succ = _successors(code, exceptions)
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


@lru_cache(maxsize=256)
def _successors(code: types.CodeType, exceptions: bool = False) -> tuple[tuple[int, ...], ...]:
    """Each instruction's successors; `exceptions` adds the edge to its handler inside a try/with region."""
    ins = decode(code)
    n = len(ins.instrs)
    succ = []
    for i, instr in enumerate(ins.instrs):
        nxt = [i + 1] if instr.name not in _NO_FALLTHROUGH and i + 1 < n else []
        if exceptions and ins.in_try[i] and ins.handler[i] is not None:
            nxt.append(ins.handler[i])
        if i in ins.targets:
            nxt.append(ins.targets[i])
            if instr.name == "FOR_ITER":   # the exit lands past END_FOR (and POP_TOP): keep every landing
                nxt.extend(range(ins.targets[i], min(ins.targets[i] + 3, n)))
        succ.append(tuple(nxt))
    return tuple(succ)


def rebound(code: types.CodeType, index: int, name: str) -> bool:
    """Whether code from instruction `index` on may store into or delete local `name`: eager's frame holds
    its old value until then, so a dead local of that name is still passed on (dropped there, not earlier
    or later: `ndarray.resize` and sys.getrefcount count it)."""
    instrs, succ = decode(code).instrs, _successors(code)
    seen, todo = set(), [index]
    while todo:
        i = todo.pop()
        if i in seen or i >= len(instrs):
            continue
        seen.add(i)
        if instrs[i].name in ("STORE_FAST", "DELETE_FAST") and instrs[i].arg == name:
            return True
        todo.extend(succ[i])
    return False
