"""Where the two arms of a branch join: immediate post-dominators over the decoded instructions.
Imports capture.instructions and pyversion.

The join of a branch at instruction b is the first instruction every path from b must reach: its immediate
post-dominator. `EXIT` stands for leaving the function (return or raise): a branch whose arms both return
joins there. Exception edges are ignored: a raise inside an arm is never folded (it stops the arm's
capture), so only normal control flow decides where arms meet.
"""

from __future__ import annotations

import types
from functools import lru_cache

from ... import pyversion
from ..instructions import decode

EXIT = -1
_TERMINATORS = {"RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE"}
_UNCONDITIONAL = {"JUMP_FORWARD", "JUMP_BACKWARD", "JUMP_BACKWARD_NO_INTERRUPT", "JUMP", "JUMP_NO_INTERRUPT"}


@lru_cache(maxsize=256)
def successors(code: types.CodeType) -> tuple[tuple[int, ...], ...]:
    """succ[i]: instruction indices control may reach next from i (EXIT for returns and raises). Cached per
    code object: a loop's every test (loop_tests.ways) asks again, 72 times in fuzz seed 14's captures."""
    ins = decode(code)
    n = len(ins.instrs)
    succ: list[tuple[int, ...]] = []
    for i, instr in enumerate(ins.instrs):
        if instr.name in _TERMINATORS:
            succ.append((EXIT,))
            continue
        out = [] if instr.name in _UNCONDITIONAL else [i + 1 if i + 1 < n else EXIT]
        if i in ins.targets:
            target = ins.targets[i]
            out.append(target + pyversion.FOR_ITER_EXIT_SKIP if instr.name == "FOR_ITER" else target)
        succ.append(tuple(out))
    return tuple(succ)


@lru_cache(maxsize=256)
def _postdominators(code: types.CodeType) -> tuple[int, ...]:
    """pdom[i] as a bit set (bit j: instruction j post-dominates i; bit n: EXIT)."""
    succ = successors(code)
    n = len(succ)
    exit_bit = 1 << n
    everything = (1 << (n + 1)) - 1
    pdom = [everything] * n
    changed = True
    while changed:
        changed = False
        for i in range(n - 1, -1, -1):
            meet = everything
            for j in succ[i]:
                meet &= exit_bit if j == EXIT else pdom[j]
            new = meet | (1 << i)
            if new != pdom[i]:
                pdom[i], changed = new, True
    return tuple(pdom)


def join_point(code: types.CodeType, index: int) -> int | None:
    """The immediate post-dominator of instruction `index`: an instruction index, EXIT, or None when no
    instruction or exit post-dominates it (an endless loop)."""
    pdom = _postdominators(code)
    n = len(pdom)
    if pdom[index] == (1 << (n + 1)) - 1:
        return None       # no path reaches the exit: the set stayed full
    strict = pdom[index] & ~(1 << index)
    for j in range(n):
        if strict >> j & 1 and pdom[j] == strict:
            return j
    return EXIT if strict >> n & 1 else None
