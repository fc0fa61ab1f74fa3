"""Defaults that follow the original function: the dispatcher's parameters default to markers, and a call
that leaves an argument out takes the original's default as it is at that call, as eager Python does
(`fn.__defaults__ = (...)` after compile() is seen). Imports nothing of the package (a leaf).

The dispatcher starts with `prologue(...)`: one identity test per defaulted parameter on every call; when
one was left out, the default is read from the defaults tuple / kwdefaults dict fn had at compile() if fn
still has those very objects, and otherwise `fill(...)` reads the current ones (or raises Python's own
TypeError when the original no longer has one).
"""

from __future__ import annotations

import inspect
import types
from typing import Any


class Default:
    """Stands for one parameter's default in the dispatcher's signature; shows as the original value."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __repr__(self) -> str:
        return repr(self.value)


def markers(fn: types.FunctionType) -> tuple[dict[str, Default], dict[str, Default]]:
    """A marker per default of fn: (positional parameters', keyword-only parameters'), by name."""
    code = fn.__code__
    positional = code.co_varnames[:code.co_argcount]
    defaults = fn.__defaults__ or ()
    return ({name: Default(v) for name, v in zip(positional[len(positional) - len(defaults):], defaults)},
            {name: Default(v) for name, v in (fn.__kwdefaults__ or {}).items()})


def prologue(fn: types.FunctionType, markers: dict[str, str]) -> tuple[list[str], dict[str, Any]]:
    """Source lines (indented for the dispatcher's body) replacing left-out arguments by fn's current
    defaults, and the names they use; `markers` maps each defaulted parameter to its marker's name. While
    fn keeps the defaults tuple and kwdefaults dict it had at compile() (the usual case), a left-out
    argument costs a few identity tests; otherwise `fill` reads the new ones."""
    if not markers:
        return [], {}
    code = fn.__code__
    positional = list(code.co_varnames[:code.co_argcount])
    keyword = list(code.co_varnames[code.co_argcount:code.co_argcount + code.co_kwonlyargcount])
    star = code.co_varnames[code.co_argcount + code.co_kwonlyargcount] if code.co_flags & inspect.CO_VARARGS else None
    test = " or ".join(f"{p} is {m}" for p, m in markers.items())
    first = len(positional) - len(fn.__defaults__ or ())
    fast = []
    for p, m in markers.items():
        read = f"___fn_defaults[{positional.index(p) - first}]" if p in positional \
            else f"___fn_kwdefaults.get({p!r}, {m})"      # (the dict's value: it may change in place)
        fast += [f"            if {p} is {m}:", f"                {p} = {read}"]
    names = positional + keyword
    kw = ", ".join(f"{k!r}: {k}" for k in keyword)
    lines = [f"    if {test}:",
             "        if ___eager.__defaults__ is ___fn_defaults and ___eager.__kwdefaults__ is ___fn_kwdefaults:",
             *fast,
             f"        if {test}:",
             f"            {', '.join(names)}, = ___fill_defaults(({', '.join(positional)}{',' if positional else ''}), "
             f"{{{kw}}}, {star or '()'})"]
    return lines, {"___fn_defaults": fn.__defaults__, "___fn_kwdefaults": fn.__kwdefaults__}


def fill(fn: types.FunctionType, positional: tuple, keyword: dict[str, Any], varargs: tuple) -> tuple:
    """The arguments with each marker replaced by fn's current default, positional then keyword-only.
    Without such a default (deleted or shortened since), fn itself is called with the arguments that were
    given, so Python raises its own TypeError."""
    current = fn.__defaults__ or ()
    first = len(positional) - len(current)
    out = list(positional)
    for i, value in enumerate(positional):
        if type(value) is Default:
            if i < first:
                _raise_as_python(fn, positional, keyword, varargs)
            out[i] = current[i - first]
    kwdefaults = fn.__kwdefaults__ or {}
    for name, value in keyword.items():
        if type(value) is Default:
            if name not in kwdefaults:
                _raise_as_python(fn, positional, keyword, varargs)
            value = kwdefaults[name]
        out.append(value)
    return tuple(out)


def _raise_as_python(fn: types.FunctionType, positional: tuple, keyword: dict[str, Any], varargs: tuple) -> None:
    given = [v for v in positional if type(v) is not Default]
    fn(*given, *varargs, **{k: v for k, v in keyword.items() if type(v) is not Default})
    raise TypeError(f"{fn.__qualname__}() is missing an argument")   # (Python raised above)
