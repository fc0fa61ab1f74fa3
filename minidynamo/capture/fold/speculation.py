"""Speculated branches: a data-dependent branch one of whose ways only raises (`assert np.allclose(...)`,
`if x.min() < 0: raise ValueError(...)`, `assert len(X[X < 0]) == 0` on a mask's True count) is captured as
the way that does not, with a `check` node testing the condition when the graph runs. Imports graph.ops and variables.*.

The check calls `bool()` on the condition as eager Python does at that jump; when the truth value is not the
one capture followed it raises, and (like an assertion op, OpDef.checks) the compiled function then runs
again eagerly with the arrays the graph wrote restored, so the program raises its own exception, message
and traceback, after the same side effects. The raising way is recognised by its bytecode alone: from its
first instruction, straight-line code (no jump, return or loop) up to a RAISE_VARARGS of an exception. Any
doubt keeps the usual data-dependent break; a wrong guess could only cost time, never a result, since the
raising way itself is never captured.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...graph import ops
from ...graph.symbolic import COUNT, Sym
from ..variables.array import ArrayVar
from ..variables.base import Var
from ..variables.const import ConstVar
from ..variables.scalar import ScalarVar

if TYPE_CHECKING:
    from ..frame import Frame

_MAX_ARM = 48                # instructions of a raising way: a message built with an f-string fits easily
_ENDS_ARM = ("RETURN_VALUE", "RETURN_CONST", "YIELD_VALUE", "FOR_ITER", "SEND", "RERAISE", "END_FOR")


def speculate(frame: "Frame", cond: Var, jump: int, jump_if_true: bool) -> bool | None:
    """For the conditional jump at instruction `jump` on `cond` (taken when bool(cond) is `jump_if_true`):
    the truth value capture follows, after recording its check; None when the branch is not one to
    speculate (no way of it only raises, or its value is known)."""
    if not _needs_value(frame, cond):
        return None
    ins = frame.ins
    jumped, fell = _raises(frame, ins.targets.get(jump)), _raises(frame, jump + 1)
    if jumped == fell:
        return None
    assumed = not jump_if_true if jumped else jump_if_true
    frame.ctx.record(ops.get("check"), [cond, ConstVar(assumed)], {}, target=ops.get("check").impl)
    return assumed


def speculate_next_jump(frame: "Frame", cond: Var) -> bool | None:
    """3.13+'s TO_BOOL and COMPARE_OP(..._CAST) take bool() just before the jump at frame.ip: speculate()
    on that jump, when it is a conditional one."""
    jump = frame.ins.instrs[frame.ip].name if frame.ip < len(frame.ins.instrs) else ""
    if jump not in ("POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE"):
        return None
    return speculate(frame, cond, frame.ip, jump == "POP_JUMP_IF_TRUE")


def _needs_value(frame: "Frame", cond: Var) -> bool:
    """A graph array (not a dask value, not one whose value capture knows), a Python number known only
    when the graph runs, or a comparison on a mask's True count that its range does not decide
    (`len(X[X < 0]) == 0`): the values a branch cannot be decided on at capture time."""
    if type(cond) is ArrayVar:
        return cond.known(frame) is None
    if not isinstance(cond, ScalarVar):
        return False
    return cond.is_runtime_only() or _undecided_count(frame, cond)


def _undecided_count(frame: "Frame", cond: ScalarVar) -> bool:
    """Whether `cond` is computed from a mask's True count (graph/symbolic.py's create_count): its value
    lies anywhere in the count's range, so a branch on it is not taken at capture time. (Speculating one the
    range would settle only adds a check that always passes.) A folded loop's index is left to the loop
    folding, whose decision there keeps the loop unfolded."""
    if cond.varies():
        return False
    atoms = frame.ctx.shape_env.atoms
    for root in cond.roots:
        sym = root.node.meta.get("sym")
        if isinstance(sym, Sym) and any(atoms[a].description == COUNT for m in sym.poly for a in m):
            return True
    return False


def _raises(frame: "Frame", start: int | None) -> bool:
    """Whether the code from instruction `start` runs straight into a `raise <exception>`, also through a
    forward JUMP_FORWARD (3.11 reaches an assert's raise that way from the last test of a chained comparison,
    `assert a == b == 0`)."""
    if start is None:
        return False
    ins, i = frame.ins, start
    for _ in range(_MAX_ARM):
        if i >= len(ins.instrs):
            return False
        name = ins.instrs[i].name
        if name == "RAISE_VARARGS":
            return ins.instrs[i].arg >= 1
        if name == "JUMP_FORWARD" and ins.targets.get(i, -1) > i:
            i = ins.targets[i]
            continue
        if i in ins.targets or name in _ENDS_ARM:
            return False
        i += 1
    return False
