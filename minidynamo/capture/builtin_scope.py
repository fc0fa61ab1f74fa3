"""The builtins namespace a frame resolves names in, decided exactly as CPython decides it.

Since 3.10 a function object carries `__builtins__`, fixed when the function is made: the `__builtins__`
entry of its globals at that moment (a module standing for its dict), or, when the globals have none, the
builtins of the frame that made it. LOAD_GLOBAL, IMPORT_NAME and LOAD_BUILD_CLASS read that namespace,
never the globals' current entry, so `types.FunctionType(code, {})`, exec'd code with a custom builtins
dict, or `__builtins__` replaced after the function was made all resolve differently from
`globals['__builtins__']`. Imports capture.breaks and variables.base only.
Entry points: BuiltinScope (a frame's), made_in (MAKE_FUNCTION's rule), function_with_builtins; a name
found there becomes a Var in variables/builtins.py (builtin_var).
"""

from __future__ import annotations

import types
from typing import Any

from .. import guards as G
from .breaks import BreakCategory
from .variables.base import unsupported

_ABSENT = object()
# The builtins a function made by this module's own code gets when its globals have no `__builtins__`.
OWN_BUILTINS: Any = (lambda: None).__builtins__


def made_in(globals_: dict, maker_builtins: Any) -> Any:
    """The `__builtins__` of a function made over `globals_` by a frame whose builtins are `maker_builtins`
    (CPython reads the entry with a plain dict lookup: a dict subclass's overrides play no part)."""
    raw = dict.get(globals_, "__builtins__", _ABSENT)
    if raw is _ABSENT:
        return maker_builtins
    return raw.__dict__ if isinstance(raw, types.ModuleType) else raw


def _make(function_type, code, globals_, name, defaults, closure):
    # Runs with the wanted builtins as its own (see function_with_builtins); calls only its arguments.
    return function_type(code, globals_, name, defaults, closure)


def function_with_builtins(code: types.CodeType, globals_: dict, name: str, defaults: Any, closure: Any,
                           builtins_: Any) -> types.FunctionType:
    """`types.FunctionType(code, globals_, ...)` whose `__builtins__` is `builtins_`. FunctionType takes
    no builtins argument: with no `__builtins__` in the globals it uses its caller's frame builtins, so
    the call is made from a helper whose own builtins are `builtins_`. Globals that name other builtins
    cannot give it: ValueError (the caller runs the function as plain Python instead)."""
    if made_in(globals_, OWN_BUILTINS) is builtins_:
        return types.FunctionType(code, globals_, name, defaults, closure)
    if dict.get(globals_, "__builtins__", _ABSENT) is not _ABSENT:
        raise ValueError("the function's globals name other builtins than the function's own "
                         "(`__builtins__` replaced after it was made)")
    maker = types.FunctionType(_make.__code__, {"__builtins__": builtins_}, "_make")
    return maker(types.FunctionType, code, globals_, name, defaults, closure)


def can_rebuild(fn: types.FunctionType) -> bool:
    """Whether a function over fn's code and globals can be given fn's own builtins (resume functions)."""
    return made_in(fn.__globals__, OWN_BUILTINS) is fn.__builtins__ or "__builtins__" not in fn.__globals__


class BuiltinScope:
    """A frame's builtins: the namespace and the guards that fix it, installed the first time capture
    resolves a builtin through it (a frame whose function is a fixed object needs none)."""

    def __init__(self, ns: Any, guards: list[G.Guard] | None = None, parent: "BuiltinScope | None" = None) -> None:
        self.ns = ns
        self.maker = None if parent is None else parent.ns   # a made function's: its maker frame's builtins
        self._guards = guards or []
        self._parent = parent

    def namespace(self, ctx: Any) -> dict:
        """The namespace, guarded; a non-dict namespace (looked up with __getitem__) breaks."""
        self.install(ctx)
        if type(self.ns) is not dict:
            raise unsupported(BreakCategory.UNSUPPORTED, f"the builtins namespace is a {type(self.ns).__name__}, "
                                                         "not a dict")
        return self.ns

    def install(self, ctx: Any) -> None:
        if self._parent is not None:
            self._parent.install(ctx)
            self._parent = None
        if self._guards:
            guards, self._guards = self._guards, []
            ctx.guard(guards)

    @classmethod
    def of_function(cls, ctx: Any, fn: types.FunctionType, source: Any, identity: bool) -> "BuiltinScope":
        """An inlined function's: fixed by its identity guard, else by `fn.__builtins__ is B` when used."""
        if identity:
            return cls(fn.__builtins__)
        expr = f"{source.expr()}.__builtins__"
        return cls(fn.__builtins__, [G.Guard(expr, G.GuardKind.ID, fn.__builtins__, f"{source.describe()}.__builtins__")])

    @classmethod
    def of_new_function(cls, ctx: Any, globals_key: str, globals_: dict, maker: "BuiltinScope") -> "BuiltinScope":
        """A function MAKE_FUNCTION makes in a frame whose builtins are `maker`'s: the globals' entry as it
        is when the function is made, else the maker's builtins."""
        default = ctx.bind(maker.ns, "B")
        raw = dict.get(globals_, "__builtins__", maker.ns)
        guard = G.Guard(f"{globals_key}.get('__builtins__', {default})", G.GuardKind.ID, raw, "global __builtins__")
        return cls(made_in(globals_, maker.ns), [guard], parent=maker)
