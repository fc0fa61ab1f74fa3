"""`with np.errstate(...)` blocks captured whole: np.errstate itself, the manager a call makes, and its bound
`__exit__`. Imports numpy, graph.errstate and variables.base/const.

`np.errstate(divide="ignore")` with constant keywords makes an ErrstateVar; entering it (BEFORE_WITH) pushes
its keywords on the capture's error-state stack, and every op recorded until its `__exit__(None, None,
None)` carries that stack (`node.meta["errstate"]`), so the generated code runs exactly those ops inside
`with np.errstate(...)` (graph/errstate.py). A graph break inside such a block does not split it: the
root frame restarts before the `np.errstate(...)` call (frame.errstate_blocks, see interpreter._locate),
and the whole block runs as plain Python, as before this module existed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ..breaks import BreakCategory
from .base import Var, unsupported
from .const import ConstVar

if TYPE_CHECKING:
    from ..frame import Frame

_KEYWORDS = ("all", "divide", "over", "under", "invalid")


class ErrstateClassVar(Var):
    """np.errstate itself (guarded by identity where it was read from)."""

    def __init__(self, source: Any = None) -> None:
        self.source = source

    def describe(self) -> str:
        return "np.errstate"

    def is_constant(self) -> bool:
        return True

    def as_constant(self) -> Any:
        return np.errstate

    def python_type(self) -> type:
        return type

    def call(self, frame: "Frame", args: list[Var], kwargs: dict[str, Var]) -> Var:
        if args or any(k not in _KEYWORDS or not v.is_constant() for k, v in kwargs.items()):
            raise unsupported(BreakCategory.CALL, "np.errstate with other than constant all/divide/over/"
                                                  "under/invalid keywords")
        values = {k: v.as_constant() for k, v in kwargs.items()}
        try:
            with np.errstate(**values):       # NumPy checks the values when the block is entered
                pass
        except (TypeError, ValueError, KeyError) as e:
            raise unsupported(BreakCategory.EXCEPTION, f"np.errstate raises {type(e).__name__}: {e}") from None
        return ErrstateVar(tuple(values.items()), (frame.current, frame.visits.get(frame.current, 0)))

    def reconstruct(self, out: Any) -> str:
        return self.source.expr() if self.source is not None else out.constant(np.errstate)


class ErrstateVar(Var):
    """An np.errstate(...) manager made during capture; `start` is (instruction index, visit) of the call
    that made it, where a break inside its block restarts."""

    def __init__(self, kwargs: tuple, start: tuple[int, int]) -> None:
        self.kwargs, self.start = kwargs, start
        self.entered = False

    def describe(self) -> str:
        return f"np.errstate({', '.join(f'{k}={v!r}' for k, v in self.kwargs)})"

    def python_type(self) -> type:
        return np.errstate

    def enter(self, frame: "Frame", body: int) -> tuple[Var, Var]:
        """Entering the block whose first instruction is `body`: (bound __exit__, __enter__'s result)."""
        if self.entered:
            raise unsupported(BreakCategory.EXCEPTION, "entering the same np.errstate twice raises TypeError")
        if frame.ctx.arm_depth:
            raise unsupported(BreakCategory.SIDE_EFFECT, "np.errstate entered inside a branch arm")
        self.entered = True
        frame.ctx.errstate.append(self.kwargs)
        frame.errstate_blocks.append(self.start)
        frame.errstate_regions.append(frame.ins.handler[body])
        return ErrstateExitVar(self, frame), ConstVar(None)

    def reconstruct(self, out: Any) -> str:
        if self.entered:
            raise unsupported(BreakCategory.RECONSTRUCT, f"{self.describe()} after its block was entered")
        kw = ", ".join(f"{k}={v!r}" for k, v in self.kwargs)
        return f"{out.constant(np.errstate)}({kw})"     # never entered: an equal new manager


class ErrstateExitVar(Var):
    """The bound __exit__ BEFORE_WITH pushed; called with (None, None, None) when the block ends."""

    def __init__(self, manager: ErrstateVar, frame: "Frame") -> None:
        self.manager, self.frame = manager, frame

    def describe(self) -> str:
        return f"{self.manager.describe()}.__exit__"

    def call(self, frame: "Frame", args: list[Var], kwargs: dict[str, Var]) -> Var:
        if frame.ctx.arm_depth:
            raise unsupported(BreakCategory.SIDE_EFFECT, "np.errstate left inside a branch arm")
        if kwargs or len(args) != 3 or not all(a.is_constant() and a.as_constant() is None for a in args):
            raise unsupported(BreakCategory.UNSUPPORTED, f"{self.describe()} called with an exception")
        if frame.ctx.errstate[-1:] != [self.manager.kwargs] or self.frame.errstate_blocks[-1:] != [self.manager.start]:
            raise unsupported(BreakCategory.UNSUPPORTED, f"{self.describe()} called out of order")
        frame.ctx.errstate.pop()
        self.frame.errstate_blocks.pop()
        self.frame.errstate_regions.pop()
        return ConstVar(None)
