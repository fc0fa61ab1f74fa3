"""Exception classes of minidynamo. Imports nothing of the package.

User-facing: TraceError (tracing hit a data-dependent branch in mode "error"), GraphBreakError
(`fullgraph=True` met a break), InternalError (capture failed and `suppress_errors` is off),
VerificationError / VerificationWarning (shadow verification saw a compiled call differ from eager).
Internal: GraphBreak carries a BreakReason from an opcode handler to the interpreter loop.
"""

from __future__ import annotations

from typing import Any


class MinidynamoError(Exception):
    """Base class of the errors minidynamo raises on purpose."""


class TraceError(MinidynamoError):
    """Tracing could not follow the program (a Python decision depends on an array's values)."""


class GraphBreakError(MinidynamoError):
    """`fullgraph=True` and capture would need a graph break; `reason` says where and why."""

    def __init__(self, reason: Any) -> None:
        super().__init__(str(reason))
        self.reason = reason


class VerificationError(MinidynamoError):
    """Shadow verification (`verify_every`) found a compiled call that differs from eager: `function`, the
    `pieces` (captured pieces that ran in the call), `output` (what differs: "the result", "argument 0 after
    the call", "the printed output", ...) and `detail` (the first differing element, compiled and eager)."""

    def __init__(self, message: str, *, function: str = "", pieces: Any = (), output: str = "",
                 detail: str = "") -> None:
        super().__init__(message)
        self.function, self.pieces, self.output, self.detail = function, list(pieces), output, detail


class VerificationWarning(UserWarning):
    """`verify_action="warn"`: a compiled call differed from eager; the eager result was returned."""


class InternalError(MinidynamoError):
    """A bug in minidynamo during capture, guard building or emission (`suppress_errors` off).

    `function` is the compiled function; when the error escaped symbolic execution, `filename`, `lineno`
    and `instruction` say where it was, and `inlined` names the (possibly inlined) function running there.
    """

    def __init__(self, message: str, *, function: str | None = None, filename: str | None = None,
                 lineno: int | None = None, instruction: str | None = None, inlined: str | None = None) -> None:
        super().__init__(message)
        self.function, self.filename, self.lineno = function, filename, lineno
        self.instruction, self.inlined = instruction, inlined


class GraphBreak(Exception):
    """Raised inside capture when it cannot continue; caught in one place, the interpreter loop."""

    def __init__(self, reason: Any) -> None:
        super().__init__(str(reason))
        self.reason = reason


class Unsupported(GraphBreak):
    """A GraphBreak caused by something capture does not handle yet (as opposed to one it must make)."""


class ScriptError(MinidynamoError):
    """`script(fn)` met a construct outside the scriptable subset (or one NumPy would reject): where it is
    (`filename`, `lineno`, `source_line`, `function`), what it is (`construct`) and how to fix it (`hint`)."""

    def __init__(self, construct: str, hint: str, *, filename: str = "", lineno: int | None = None,
                 source_line: str = "", function: str = "") -> None:
        import os
        where = f"{os.path.basename(filename)}:{lineno}" if filename else "?"
        text = f"{where} in {function}: {construct} is not scriptable: {hint}"
        super().__init__(text + (f"\n    `{source_line}`" if source_line else ""))
        self.construct, self.hint, self.filename, self.lineno = construct, hint, filename, lineno
        self.source_line, self.function = source_line, function


class CannotResume(Exception):
    """A break capture cannot stitch around (no plain-Python form of the instruction, cells, generators,
    a loop header it cannot hand to a driver): the frame runs eagerly, with this as the reason. `code` is
    its break code (capture/break_codes.py), None for the general one (NOT_SPLIT)."""

    def __init__(self, message: str, code: Any = None) -> None:
        super().__init__(message)
        self.code = code
