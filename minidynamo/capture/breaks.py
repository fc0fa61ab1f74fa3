"""Why capture stopped: BreakReason (code, category, message, where) and BreakCategory. Imports errors and
break_codes only.

A handler raises `GraphBreak(BreakReason(code, message))` with a code of break_codes.py (a BreakCategory
stands for that category's general code); the interpreter loop fills in the location (file, line, source
text, function, inlining stack) at the one place it catches it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


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
    """One graph break: what and where. `stack` lists the inlined callers, outermost first.

    The first argument is a BreakCode (break_codes.py) or a BreakCategory (its general code); `code` holds
    the code and `category` its category. `fallback_code` is the code of an eager fallback at this break.
    """

    category: Any          # BreakCode | BreakCategory given; a BreakCategory after __post_init__
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
    code: Any = None            # the BreakCode, from the first argument
    fallback_code: Any = None   # the BreakCode of `fallback`

    def __post_init__(self) -> None:
        from .break_codes import BreakCode, code_of
        kept = isinstance(self.code, BreakCode) and self.code.category == self.category   # (a dataclasses.replace)
        self.code = self.code if kept else code_of(self.category)
        self.category = self.code.category

    @property
    def hint(self) -> str:
        return self.code.hint

    def where(self) -> str:
        import os
        name = os.path.basename(self.filename) if self.filename else "?"
        return f"{name}:{self.lineno}" if self.lineno is not None else name

    def __str__(self) -> str:
        tag = f"[{self.code} {self.category}]"
        text = f"{self.where()} in {self.function}: {tag} {self.message}" if self.function \
            else f"{tag} {self.message}"
        if self.source_line:
            text += f"\n    `{self.source_line}`"
        for s in reversed(self.stack):
            text += f"\n    inlined from {s}"
        text += f"\n    hint: {self.code.hint}"
        if self.fallback:
            code = self.fallback_code
            text += f"\n    -> whole frame runs eagerly: {self.fallback}" + (f" [{code}]" if code else "")
            if code is not None and code is not self.code:
                text += f"\n    hint: {code.hint}"
        return text
