"""Callables: user functions (inlined), functions made by MAKE_FUNCTION (closures, lambdas, 3.11
comprehensions), and bound methods of user objects. Imports variables.base.

Calling one binds the arguments with the function's own signature and runs its code in a child frame
(`frame.inline(...)`), so its array operations land in the same graph.
"""

from __future__ import annotations

import inspect
import types
from typing import TYPE_CHECKING, Any

from .base import Var, unsupported
from .const import ConstVar
from ..breaks import BreakCategory
from ..builtin_scope import BuiltinScope, function_with_builtins, made_in
from .containers import DictVar, TupleVar, wrap_constant

if TYPE_CHECKING:
    from ..frame import Frame


class CellBox:
    """A closure cell during capture: holds a Var (or None while unbound). `real` is the real cell when the
    cell existed before the call (a free variable of an existing function, or a cell a resume function was
    passed): its contents are read through a CellSource and a write is replayed after the graph. `key` is
    how the entry spells that cell (a parameter name, `fn.__closure__[i]`; None: a name bound in the namespace);
    `owner` names the function whose closure it was read from, for reports."""

    def __init__(self, value: Var | None = None, real: Any = None, key: str | None = None, owner: str = "") -> None:
        self.value = value
        self.real = real
        self.key = key
        self.owner = owner


def bind_arguments(frame: "Frame", sig: inspect.Signature, args: list[Var], kwargs: dict[str, Var],
                   defaults_of: Any, default: Any = None) -> dict[str, Var]:
    """Python's own argument binding over Vars. A default the call uses is `default(param)` (read through
    the function's source), else a constant fixed by whatever guards the function."""
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as e:
        raise unsupported(BreakCategory.EXCEPTION, f"calling {defaults_of}: {e}") from None
    out: dict[str, Var] = {}
    for name, param in sig.parameters.items():
        if name in bound.arguments:
            v = bound.arguments[name]
            if param.kind is param.VAR_POSITIONAL:
                v = TupleVar(list(v))
            elif param.kind is param.VAR_KEYWORD:
                v = DictVar(dict(v))
            out[name] = v
        elif param.kind is param.VAR_POSITIONAL:
            out[name] = TupleVar([])
        elif param.kind is param.VAR_KEYWORD:
            out[name] = DictVar({})
        else:
            out[name] = default(param) if default is not None else frame.ctx.wrap_default(param.default)
    _ = wrap_constant
    return out


class UserFunctionVar(Var):
    """A Python function that exists outside the capture (a global helper, a closure passed in). With a
    source, its identity is guarded by whoever created this Var (`pin` is None), or, for a function made
    per call, only once capture relies on the very object (`pin()`, e.g. `as_constant()`); an inlined call
    guards its code, globals, used defaults and closure cells instead (function_sources.py)."""

    def __init__(self, fn: types.FunctionType, source=None, bound_self: Var | None = None, pin: Any = None) -> None:
        self.fn = fn
        self.source = source
        self.bound_self = bound_self
        self._pin = pin

    def describe(self) -> str:
        return f"function {self.fn.__qualname__}"

    def python_type(self) -> type:
        return types.MethodType if self.bound_self is not None else types.FunctionType

    def identity_guarded(self) -> bool:
        return self._pin is None

    def pin(self) -> None:
        """Guard the function object's identity (capture is about to rely on it)."""
        if self._pin is not None:
            install, self._pin = self._pin, None
            install()

    def is_constant(self) -> bool:
        # A per-call function is not a constant until pinned: `cb is None` and `if cb:` need no identity.
        return self.bound_self is None and self._pin is None

    def as_constant(self) -> Any:
        self.pin()
        return self.fn

    def as_bool(self, frame: "Frame") -> bool:
        return True

    def call(self, frame: "Frame", args: list[Var], kwargs: dict[str, Var]) -> Var:
        from . import function_sources as fs
        if self.bound_self is not None:
            args = [self.bound_self, *args]
        original = getattr(getattr(self.fn, "_minidynamo", None), "user_fn", None)
        if isinstance(original, types.FunctionType):
            # A function minidynamo compiled (its dispatcher): the function it compiled is inlined, as
            # TorchDynamo inlines a torch.compile'd callee; the dispatcher's identity fixes which one.
            self.pin()
            return UserFunctionVar(original).call(frame, args, kwargs)
        ctx, fn, src = frame.ctx, self.fn, self._source(frame)     # (a method's code and defaults are writable)
        sig = ctx.signature(fn)
        fs.structural_guards(ctx, fn, src, self.identity_guarded())
        bound = bind_arguments(frame, sig, args, kwargs, fn.__qualname__,
                               lambda p: fs.default_var(ctx, fn, src, sig, p, self.identity_guarded()))
        cells = [ctx.cell_box(c) for c in (fn.__closure__ or ())] if self.identity_guarded() else \
            fs.closure_boxes(ctx, fn, src)
        scope = BuiltinScope.of_function(ctx, fn, src, self.identity_guarded())
        return frame.inline(fn.__code__, bound, cells, fn.__globals__, fn.__qualname__, scope)

    def getattr(self, frame: "Frame", name: str) -> Var:
        if name in ("__name__", "__qualname__", "__module__", "__doc__"):
            if self.source is not None:
                from .function_sources import attribute_var
                return attribute_var(frame.ctx, self.fn, self.source, name)
            return ConstVar(getattr(self.fn, name))
        if name in getattr(self.fn, "__dict__", {}) and self.bound_self is None and \
                not hasattr(getattr(types.FunctionType, name, None), "__set__"):   # (a data descriptor wins)
            # An attribute set on the function object (`f.grad = lambda x: 0`): read through its own source
            # every call (the function's __dict__ is writable), guarded like any value read from outside.
            from .function_sources import attribute_var
            return attribute_var(frame.ctx, self.fn, self._source(frame), name)
        return super().getattr(frame, name)

    def _source(self, frame: "Frame") -> Any:
        if self.source is not None:
            return self.source
        from ..sources import NamespaceSource      # a method found on a guarded class: the object is fixed
        return NamespaceSource(frame.ctx.bind(self.fn, "fn"), self.fn.__qualname__)

    def reconstruct(self, out: Any) -> str:
        if self.source is not None:
            return self.source.expr()
        if self.bound_self is not None:      # a class method bound to its class
            return f"{out.constant(types.MethodType)}({out.constant(self.fn)}, {out.value(self.bound_self)})"
        return out.constant(self.fn)


class NestedFunctionVar(Var):
    """A function created during capture by MAKE_FUNCTION (lambda, closure, 3.11 comprehension body)."""

    def __init__(self, code: types.CodeType, globals_: dict, qualname: str, builtins_: BuiltinScope,
                 defaults: tuple[Var, ...] = (), kwdefaults: dict[str, Var] | None = None,
                 closure: tuple[CellBox, ...] = ()) -> None:
        self.code, self.globals, self.qualname, self.builtins = code, globals_, qualname, builtins_
        self.defaults, self.kwdefaults, self.closure = defaults, kwdefaults or {}, closure
        self.annotations = False     # MAKE_FUNCTION was given annotations (not kept: no reconstruction)

    def describe(self) -> str:
        return f"nested function {self.qualname}"

    def reconstruct(self, out: Any) -> str:
        """The same function built in the entry, its closure the very cells the resume function shares
        (`out.cell`), so a later call sees every write made by either side."""
        if self.annotations or not hasattr(out, "cell"):
            why = ": its annotations are not recorded" if self.annotations else ""
            raise unsupported(BreakCategory.RECONSTRUCT, f"cannot rebuild {self.describe()} outside the graph{why}")
        defaults = "".join(out.value(d) + ", " for d in self.defaults)
        kwdefaults = ", ".join(f"{k!r}: {out.value(v)}" for k, v in self.kwdefaults.items())
        cells = "".join(out.cell(box) + ", " for box in self.closure)
        return (f"{out.constant(make_function)}({out.constant(self.code)}, {out.constant(self.globals)}, "
                f"{self.qualname!r}, ({defaults}), {{{kwdefaults}}}, ({cells}), {out.constant(self.builtins.maker)})")

    def python_type(self) -> type:
        return types.FunctionType

    def _signature(self) -> inspect.Signature:
        # A throwaway function object with placeholder defaults gives Python's exact signature rules.
        stub = types.FunctionType(self.code, {}, self.code.co_name, tuple(range(len(self.defaults))) or None,
                                  tuple(types.CellType() for _ in self.code.co_freevars) or None)
        if self.kwdefaults:
            stub.__kwdefaults__ = {k: None for k in self.kwdefaults}
        return inspect.signature(stub)

    def call(self, frame: "Frame", args: list[Var], kwargs: dict[str, Var]) -> Var:
        sig = self._signature()
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError as e:
            raise unsupported(BreakCategory.EXCEPTION, f"calling {self.qualname}: {e}") from None
        values = bind_arguments(frame, sig, args, kwargs, self.qualname)
        # Placeholder defaults stand for the real default Vars captured at MAKE_FUNCTION time.
        positional = [p for p in sig.parameters.values() if p.default is not p.empty and p.kind in
                      (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        for i, p in enumerate(positional):
            if p.name not in bound.arguments:
                values[p.name] = self.defaults[i]
        for k, v in self.kwdefaults.items():
            if k not in bound.arguments:
                values[k] = v
        # inspect names the implicit `.0` parameter of a 3.11 comprehension `implicit0`; the code reads `.0`.
        values = {_code_name(self.code, k): v for k, v in values.items()}
        return frame.inline(self.code, values, list(self.closure), self.globals, self.qualname, self.builtins)


def make_function(code: types.CodeType, globals_: dict, qualname: str, defaults: tuple, kwdefaults: dict,
                  closure: tuple, maker_builtins: Any) -> types.FunctionType:
    """What MAKE_FUNCTION builds in a frame whose builtins are `maker_builtins`, from the parts capture
    recorded (the compiled entry calls this): its builtins are decided now, as MAKE_FUNCTION decides them."""
    fn = function_with_builtins(code, globals_, code.co_name, defaults or None, closure or None,
                                made_in(globals_, maker_builtins))
    fn.__qualname__ = qualname
    if kwdefaults:
        fn.__kwdefaults__ = kwdefaults
    return fn


def _code_name(code: types.CodeType, name: str) -> str:
    if name.startswith("implicit") and "." + name[len("implicit"):] in code.co_varnames:
        return "." + name[len("implicit"):]
    return name


class BoundMethodVar(Var):
    """`obj.method` for a user object: calling it inlines the function with `self` bound."""

    def __init__(self, fn: types.FunctionType, self_var: Var) -> None:
        self.fn, self.self_var = fn, self_var

    def describe(self) -> str:
        return f"bound method {self.fn.__qualname__}"

    def call(self, frame: "Frame", args: list[Var], kwargs: dict[str, Var]) -> Var:
        return UserFunctionVar(self.fn).call(frame, [self.self_var, *args], kwargs)

    def reconstruct(self, out: Any) -> str:
        if self.source is not None:
            return self.source.expr()
        return f"{out.constant(types.MethodType)}({out.constant(self.fn)}, {out.value(self.self_var)})"
