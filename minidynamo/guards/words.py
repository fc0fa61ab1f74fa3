"""Guards' values and sources as people read them: readable_expr (a source's generated names in words),
short_repr (an expected value), value_repr (a value found at a failed check), with_article.

Imports only numpy and the stdlib.
"""

from __future__ import annotations

import enum
import re
import types
from typing import Any

import numpy as np

# Globals dicts are bound as `___G` (or, per cache entry, `___e3_G0`); closure cells as `___closure[i]` or
# `___e3_cell2` (a cell object bound in the namespace).
_GLOBAL_RE = re.compile(r"___\w*?G\d*(?:\[(['\"])(\w+)\1\]|\.get\((['\"])(\w+)\3\))")
_CELL_RE = re.compile(r"___closure\[(\d+)\]\.cell_contents")
_CELL_OBJ_RE = re.compile(r"___\w*?cell(\d+)\.cell_contents")
# A resume function's stack values are its `___stackN` parameters; people read them as `stackN`.
_STACK_RE = re.compile(r"\b___stack(\d+)\b")


def readable_expr(expr: str) -> str:
    """A guard's source as people read it: `___G['scale']` -> `global scale`, `___closure[0].cell_contents`
    -> `closure cell 0`, `___stack1` -> `stack1` (used by failure messages, warnings and reports)."""
    expr = _GLOBAL_RE.sub(lambda m: f"global {m.group(2) or m.group(4)}", expr)
    expr = _CELL_OBJ_RE.sub(r"closure cell #\1", _CELL_RE.sub(r"closure cell \1", expr))
    return _STACK_RE.sub(r"stack\1", expr)


def short_repr(obj: Any) -> str:
    """Short, address-free names: `ndarray`, `<function helper>`, `<module numpy>`."""
    if isinstance(obj, type):
        return obj.__qualname__
    if isinstance(obj, types.ModuleType):
        return f"<module {obj.__name__}>"
    if isinstance(obj, types.CodeType):     # a function's code, guarded instead of a per-call function object
        return f"<code {obj.co_qualname} line {obj.co_firstlineno}>"
    if type(obj) is dict and "__builtins__" in obj and isinstance(obj.get("__name__"), str):
        return f"<globals of {obj['__name__']}>"     # a function's __globals__
    if callable(obj) and isinstance(getattr(obj, "__name__", None), str):
        kind = "ufunc" if isinstance(obj, np.ufunc) else "function"  # np.sum is a dispatcher object
        return f"<{kind} {getattr(obj, '__qualname__', obj.__name__)}>"
    if obj is None or isinstance(obj, (bool, int, float, str, bytes, enum.Enum)):
        return repr(obj)
    return f"<{type(obj).__qualname__} object>"


def value_repr(value: Any) -> str:
    """A value a failed check found, short: arrays by shape and dtype, other values cut at 80 characters."""
    if isinstance(value, np.ndarray):
        return f"ndarray of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def with_article(noun: str) -> str:
    """`an ndarray`, `a tuple`."""
    return f"an {noun}" if noun[:1].lower() in "aeiou" or noun == "ndarray" else f"a {noun}"
