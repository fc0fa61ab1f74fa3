"""Why capture stopped: BreakReason (category, message, where) and BreakCategory. Imports errors only.

A handler raises `GraphBreak(BreakReason(category, message))`; the interpreter loop fills in the location
(file, line, source text, function, inlining stack) at the one place it catches it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field


class BreakCategory(enum.StrEnum):
    """Why capture stopped, as reports group it; compares equal to its value ("call")."""

    DATA_DEPENDENT = "data_dependent"  # a Python decision on an array's values (if/while, .item(), bool())
    CALL = "call"                      # a call that cannot be captured (print, other libraries, C functions)
    SIDE_EFFECT = "side_effect"        # a mutation capture cannot replay safely
    UNSUPPORTED = "unsupported"        # an opcode, value or operation capture does not handle
    INLINE = "inline"                  # inlining limit, recursion
    RECONSTRUCT = "reconstruct"        # a result that cannot be rebuilt outside the graph
    EXCEPTION = "exception"            # the Python code raises during capture (eager will raise it)
    LOOP = "loop"                      # a loop too long to unroll, or one stepped by a real iterator


@dataclass
class BreakReason:
    """One graph break: what and where. `stack` lists the inlined callers, outermost first."""

    category: BreakCategory
    message: str
    filename: str = ""
    lineno: int | None = None
    function: str = ""
    source_line: str = ""
    opname: str = ""
    stack: list[str] = field(default_factory=list)
    root_stop: tuple[int, int] | None = None   # (instruction index, visit) of the root frame at the break
    fallback: str = ""          # set when the frame could not be split at this break and runs eagerly
    frame_reader: str = ""      # the break is a call reading the frame: the frame runs eagerly (why)

    def where(self) -> str:
        import os
        name = os.path.basename(self.filename) if self.filename else "?"
        return f"{name}:{self.lineno}" if self.lineno is not None else name

    def __str__(self) -> str:
        text = f"{self.where()} in {self.function}: [{self.category}] {self.message}" if self.function \
            else f"[{self.category}] {self.message}"
        if self.source_line:
            text += f"\n    `{self.source_line}`"
        for s in reversed(self.stack):
            text += f"\n    inlined from {s}"
        if self.fallback:
            text += f"\n    -> whole frame runs eagerly: {self.fallback}"
        return text
