"""What a capture relies on of a Python function read from a source, guarded part by part instead of by the
function object's identity. Imports guards, capture.sources and variables.functions.

A function made afresh on every call (a closure, a nested def, a lambda) is a new object each time, so an
identity guard on it fails on every call. What the inlined call actually depends on is its code object,
its globals dict, the default values it used and the contents of its closure cells. Each is guarded or read
through its own source (`fn.__code__ is C`, `fn.__defaults__[1]`, `fn.__closure__[0].cell_contents`), so
a cell that holds an array is a graph input read on every call and a rebound `nonlocal` is seen. Writable
attributes that change behaviour (`__code__`, `__defaults__`, `__kwdefaults__`) fail these guards when
changed; other attributes (`fn.tag = 1`) are not read by an inlined call, and reading one goes through its
own source. Entry points: `structural_guards`, `default_var`, `closure_boxes`.
"""

from __future__ import annotations

import inspect
import types
from typing import TYPE_CHECKING, Any

from ... import guards as G
from ..sources import AttrSource, ItemSource, Source
from .functions import CellBox

if TYPE_CHECKING:
    from ..context import CaptureContext
    from .base import Var

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def is_module_level(fn: types.FunctionType) -> bool:
    """A function defined at module level (or in a class body): one object for the module's lifetime, so
    its identity is a cheap, stable guard. Anything defined inside a function is made per call."""
    return "<locals>" not in fn.__qualname__ and fn.__closure__ is None


def structural_guards(ctx: "CaptureContext", fn: types.FunctionType, source: Source, identity: bool) -> None:
    """Guards an inlined call of `fn` needs: its code always (`__code__` is writable), and its globals when
    its identity is not guarded (`__globals__` is read-only, so a guarded identity fixes it)."""
    expr, desc = source.expr(), source.describe()
    out = [G.Guard(f"{expr}.__code__", G.GuardKind.ID, fn.__code__, f"{desc}.__code__")]
    if not identity:
        out.append(G.Guard(f"{expr}.__globals__", G.GuardKind.ID, fn.__globals__, f"{desc}.__globals__"))
    ctx.guard(out)


def default_var(ctx: "CaptureContext", fn: types.FunctionType, source: Source, sig: inspect.Signature,
                param: inspect.Parameter, identity: bool) -> "Var":
    """The default value a call used for `param`, read through `fn.__defaults__[i]` or
    `fn.__kwdefaults__[name]` (guarded like any value from a source: by value if a constant, as a graph
    input if an array). The number of positional defaults decides which parameter `i` belongs to. A
    function whose identity is guarded keeps its defaults tuple until it is replaced as a whole, so one
    identity guard on the tuple covers every positional default."""
    if param.kind in _POSITIONAL and identity:
        attr = AttrSource(source, "__defaults__")
        ctx.guard([G.Guard(attr.expr(), G.GuardKind.ID, fn.__defaults__, attr.describe())])
        return ctx.wrap_default(param.default)
    if param.kind in _POSITIONAL:
        with_default = [p.name for p in sig.parameters.values() if p.kind in _POSITIONAL and p.default is not p.empty]
        attr = AttrSource(source, "__defaults__")
        ctx.guard([G.Guard(attr.expr(), G.GuardKind.TYPE, tuple, attr.describe()),
                   G.Guard(attr.expr(), G.GuardKind.LEN, len(with_default), attr.describe())])
        return ctx.wrap(param.default, ItemSource(attr, with_default.index(param.name)))
    attr = AttrSource(source, "__kwdefaults__")
    ctx.guard([G.Guard(attr.expr(), G.GuardKind.TYPE, dict, attr.describe())])
    return ctx.wrap(param.default, ItemSource(attr, param.name))


def closure_boxes(ctx: "CaptureContext", fn: types.FunctionType, source: Source) -> list[CellBox]:
    """CellBoxes for `fn`'s closure, each spelled `fn.__closure__[i]`: the contents are read from the cell
    of the function the call gets, and nonlocal writes go into that cell. A cell already reached another
    way in this capture (two closures sharing a variable, a resume function's own cell) keeps one box, and
    the relation is guarded so a later pair of functions shares its cell as well."""
    boxes = []
    for i, cell in enumerate(fn.__closure__ or ()):
        key = f"{source.expr()}.__closure__[{i}]"
        name = fn.__code__.co_freevars[i]
        box = ctx.cell_box(cell, key, owner=source.describe())
        if box.key != key:
            other = box.owner and f"cell {name} of {box.owner}" or f"cell {G.readable_expr(ctx.cell_expr(box))}"
            ctx.guard([G.Guard(f"({key} is {ctx.cell_expr(box)})", G.GuardKind.EQUALS, True,
                               f"cell {name} of {source.describe()} is {other}")])
        boxes.append(box)
    return boxes


def attribute_var(ctx: "CaptureContext", fn: types.FunctionType, source: Source, name: str) -> Any:
    """`fn.__name__` and the like, read through the function's source (they are writable)."""
    return ctx.wrap(getattr(fn, name), AttrSource(source, name))
