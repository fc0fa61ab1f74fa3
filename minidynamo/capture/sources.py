"""Where a value came from, as a Python expression the guards and the compiled entry can evaluate.

Imports nothing of the package. Expressions are over the compiled function's parameter names plus names
bound in the entry's namespace (`___G0` for a globals dict, `___k3` for a captured object such as a
closure cell). `expr()` is evaluated on every call, so sources keep arrays fresh: an array held by a
global, a closure, an attribute or a dict is read again each time, never baked in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field


class Source:
    """Base class: `expr()` is a Python expression for the value; `describe()` a human name for reports."""

    def expr(self) -> str:
        raise NotImplementedError

    def describe(self) -> str:
        return self.expr()

    def __str__(self) -> str:
        return self.expr()


@dataclass(frozen=True, eq=True)
class LocalSource(Source):
    """A parameter of the compiled function; `label` names a generated one in words (a resume function's
    `___stack0` is "the condition of `if s > 0:` (line 6)")."""

    name: str
    label: str = field(default="", compare=False)

    def expr(self) -> str:
        return self.name

    def describe(self) -> str:
        return self.label or self.name


_CONDITION = re.compile(r"(if|elif|while|assert)\b|.* if .* else ")


def stack_labels(names: list[str], values: dict, filename: str, line: int | None, text: str) -> dict[str, str]:
    """Words for a resume function's stack parameters (`___stack<i>`, bottom first): the top one is the
    value of the statement at the break (a branch's condition), the ones below it what that line's
    statement was still holding on Python's evaluation stack (a `for` loop's iterator, a call's callee)."""
    where = f"line {line}" if line is not None else "the break"
    out = {}
    for k, name in enumerate(names):
        value = values.get(name)
        if k == len(names) - 1:
            what = "the condition of" if type(value) is bool and _CONDITION.match(text) else "the value of"
            out[name] = f"{what} `{text}` ({where})" if text else f"the value computed at {where}"
        elif type(value).__name__.endswith("iterator") or type(value).__name__ == "generator":
            out[name] = f"the loop's iterator ({type(value).__name__}, on Python's stack at {where})"
        else:
            out[name] = f"value {k + 1} on Python's stack at {where}" + (f" (`{text}`)" if text else "")
    return out


@dataclass(frozen=True, eq=True)
class NamespaceSource(Source):
    """An object bound in the entry's namespace under `key` (a globals dict, a closure cell, a module)."""

    key: str
    label: str = ""

    def expr(self) -> str:
        return self.key

    def describe(self) -> str:
        return self.label or self.key


@dataclass(frozen=True, eq=True)
class GlobalSource(Source):
    """`globals_key[name]`: a module global of the function that read it."""

    globals_key: str
    name: str

    def expr(self) -> str:
        return f"{self.globals_key}[{self.name!r}]"

    def describe(self) -> str:
        return f"global {self.name}"


@dataclass(frozen=True, eq=True)
class CellSource(Source):
    """The contents of a closure cell bound in the namespace under `cell_key`."""

    cell_key: str
    name: str

    def expr(self) -> str:
        return f"{self.cell_key}.cell_contents"

    def describe(self) -> str:
        return f"closure variable {self.name}"


@dataclass(frozen=True, eq=True)
class AttrSource(Source):
    base: Source
    name: str

    def expr(self) -> str:
        return f"{self.base.expr()}.{self.name}"

    def describe(self) -> str:
        return f"{self.base.describe()}.{self.name}"


@dataclass(frozen=True, eq=True)
class ItemSource(Source):
    """`base[key]` for a constant key (dict key, list/tuple index)."""

    base: Source
    key: object

    def expr(self) -> str:
        return f"{self.base.expr()}[{self.key!r}]"

    def describe(self) -> str:
        return f"{self.base.describe()}[{self.key!r}]"


@dataclass(frozen=True, eq=True)
class CallSource(Source):
    """`fn(base)` for a function of minidynamo's own (`len`, dynamic_index.as_index) bound in the namespace
    under `fn_key` (a parameter may be called `len`); `shown` formats base's description (`len({})`)."""

    base: Source
    fn_key: str
    shown: str

    def expr(self) -> str:
        return f"{self.fn_key}({self.base.expr()})"

    def describe(self) -> str:
        return self.shown.format(self.base.describe())


def input_name(source: Source) -> str:
    """A readable Python identifier for a graph input read from `source` (p['W1'] -> p_W1)."""
    text = source.describe().replace("global ", "").replace("closure variable ", "")
    if "`" in text:      # a value labelled in words (a resume function's stack value): named after its slot
        text = source.expr()
    out = "".join(c if c.isalnum() else "_" for c in text).strip("_")
    while "__" in out:
        out = out.replace("__", "_")
    if not out or out[0].isdigit():
        out = "v_" + out
    return out


_TAG = re.compile(r"___e\d+_")


def untagged(expr: str) -> str:
    """A source expression without its capture's namespace tag (`___e3_G0['state'].t` -> `___G0['state'].t`):
    the same source read by another capture (automatic dynamic numbers are remembered across captures)."""
    return _TAG.sub("___", expr)
