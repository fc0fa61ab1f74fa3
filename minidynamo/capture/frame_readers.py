"""Calls that read the running frame: `eval`/`exec` (without namespaces they run in it), `locals()`,
`globals()`, `vars()` and `dir()` without an argument, `sys._getframe`, `inspect.currentframe`/`stack`,
`traceback.extract_stack` and its kin. Compiled code has no frame of the user's function to show them (the
entry runs in the dispatcher's frame, a resume function holds only the live locals, an inlined callee has
none), so a function that makes one runs as plain Python, in its own frame, with the reason.

`reads_frame` decides at the call, during capture (a function reaching one before any other break);
`mentions` decides from the code alone, before a function is cut at another break (a resume function
would reach the call with a frame unlike eager's). Imports nothing of the package.
"""

from __future__ import annotations

import functools
import inspect
import sys
import traceback
import types
from typing import Any

from .instructions import decode

_ALWAYS = {locals: "locals()", globals: "globals()",
           sys._getframe: "sys._getframe()", inspect.currentframe: "inspect.currentframe()",
           inspect.stack: "inspect.stack()", traceback.extract_stack: "traceback.extract_stack()",
           traceback.format_stack: "traceback.format_stack()", traceback.print_stack: "traceback.print_stack()",
           traceback.walk_stack: "traceback.walk_stack()"}
if hasattr(sys, "_getframemodulename"):
    _ALWAYS[sys._getframemodulename] = "sys._getframemodulename()"
_WITHOUT_ARGUMENT = {vars: "vars()", dir: "dir()"}      # (with an argument they read that object only)
_WITHOUT_NAMESPACES = {eval: "eval()", exec: "exec()"}  # (given globals, they read no frame)
_READERS = {id(k): v for k, v in _ALWAYS.items()}
_GLOBAL_NAMES = {"eval", "exec", "locals", "globals", "currentframe", "_getframe"}
_ATTRIBUTE_NAMES = {"_getframe", "_getframemodulename", "currentframe", "extract_stack", "format_stack",
                    "print_stack", "walk_stack"}
_SKIP = {"PUSH_NULL", "PRECALL", "NOP", "CACHE"}


def reads_frame(callee: Any, nargs: int) -> str | None:
    """Why calling `callee` (a Var's value) with `nargs` arguments reads the caller's frame, else None."""
    if id(callee) in _READERS and any(callee is k for k in _ALWAYS):
        return _reason(_READERS[id(callee)])
    if nargs == 0 and any(callee is k for k in _WITHOUT_ARGUMENT):
        return _reason(_WITHOUT_ARGUMENT[callee])
    if nargs < 2 and any(callee is k for k in _WITHOUT_NAMESPACES):
        return _reason(_WITHOUT_NAMESPACES[callee])
    return None


@functools.lru_cache(maxsize=256)
def mentions(code: types.CodeType) -> str | None:
    """Why `code` may read its own frame (a load of one of those names, `vars()`/`dir()` called bare), else
    None. By name: a method or a local of that name counts as well (the frame then runs as plain Python)."""
    instrs = decode(code).instrs
    for i, ins in enumerate(instrs):
        name = ins.arg[1] if isinstance(ins.arg, tuple) and len(ins.arg) == 2 else ins.arg
        if not isinstance(name, str):
            continue
        if ins.name in ("LOAD_GLOBAL", "LOAD_NAME", "IMPORT_FROM") and name in _GLOBAL_NAMES:
            return _reason(f"{name}()")
        if ins.name in ("LOAD_ATTR", "LOAD_METHOD") and name in _ATTRIBUTE_NAMES:
            return _reason(f".{name}()")
        if ins.name in ("LOAD_GLOBAL", "LOAD_NAME") and name in ("vars", "dir"):
            nxt = next((n for n in instrs[i + 1:] if n.name not in _SKIP), None)
            if nxt is not None and nxt.name == "CALL" and nxt.arg == 0:
                return _reason(f"{name}()")
    return None


def _reason(call: str) -> str:
    return f"{call} reads the function's own frame (its locals, globals or callers), which only plain " \
           f"Python has: the function runs as plain Python"
