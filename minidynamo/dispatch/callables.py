"""What compile() and explain() accept, reduced to the Python function that gets captured. Imports nothing
of the package (a leaf).

`resolve(obj)` returns a `Target`: the function whose bytecode is captured, the leading arguments every
call passes to it (the instance of a bound method or a callable object, a partial's frozen arguments), and
how to present the compiled function to the user (a bound method, a partial, a staticmethod...). Leading
arguments travel as ordinary arguments of the compiled function, so they are guarded like any argument.

Parts of a callable that can change after compile() are read at call time, as the original reads them:
a partial's func, args and keywords (its keywords dict changes in place; `__setstate__` replaces all
three), the class attribute `__call__` of a layer (or the layer's class), the callable inside a
staticmethod/classmethod (`__init__` may be called again). What compile() hands back for these is a live
presentation: it checks the part it baked in (one identity test) and calls the compiled function with the
parts as they are now, or, when that part was replaced, calls the original object itself (plain Python,
exactly eager). A bound method's `__func__` and `__self__` are read-only; its function's `__code__` is
guarded by the capture like every compiled function's (api.code_guard).
"""

from __future__ import annotations

import functools
import inspect
import types
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

ACCEPTED = ("a Python function or lambda, a bound method, an object whose class defines __call__ in Python, "
            "a functools.partial of one of these, a staticmethod/classmethod object, or a NumPy function/ufunc")


@dataclass
class Target:
    fn: types.FunctionType                       # the function whose bytecode is captured
    present: Callable[[Any], Any]                # compiled fn -> what compile() hands back
    args: tuple = ()                             # leading arguments of every call (explain passes them)
    kwargs: dict = field(default_factory=dict)


def resolve(obj: Any, what: str = "compile()") -> Target:
    """The capture target for `obj`, or TypeError naming what can be compiled. A live presentation made by
    compile() resolves as the object it presents."""
    origin = getattr(obj, ORIGIN, None)
    if origin is not None:
        return resolve(origin, what)
    if isinstance(obj, types.FunctionType):
        return Target(obj, lambda compiled: compiled)
    if isinstance(obj, types.MethodType):        # __func__ and __self__ are read-only: nothing to re-read
        inner = resolve(obj.__func__, what)
        this = obj.__self__
        return Target(inner.fn, lambda compiled: types.MethodType(inner.present(compiled), this),
                      (*inner.args, this), inner.kwargs)
    if isinstance(obj, functools.partial):
        inner = resolve(obj.func, what)
        return Target(inner.fn, lambda compiled: _live_partial(obj, inner.present(compiled)),
                      (*inner.args, *obj.args), {**inner.kwargs, **obj.keywords})
    if isinstance(obj, (staticmethod, classmethod)):
        inner = resolve(obj.__func__, what)
        return Target(inner.fn, lambda compiled: _live_descriptor(obj, inner.present(compiled)), inner.args,
                      inner.kwargs)
    if _is_numpy_callable(obj):
        return Target(_forwarder(obj), lambda compiled: compiled)
    builtin = (types.BuiltinFunctionType, types.WrapperDescriptorType, types.MethodWrapperType,
               types.MethodDescriptorType)
    if isinstance(obj, builtin):
        raise TypeError(f"{what} expects a Python function or a callable built from one, not {obj!r}: builtins "
                        f"and C functions have no bytecode to capture. {what} accepts {ACCEPTED}")
    if not isinstance(obj, type) and callable(obj):
        call = inspect.getattr_static(type(obj), "__call__", None)
        if isinstance(call, types.FunctionType):     # a layer object: type(obj).__call__ with obj as self
            return Target(call, lambda compiled: _live_layer(obj, call, compiled), (obj,))
        raise TypeError(f"{what} expects a Python function or a callable built from one, not a "
                        f"{type(obj).__name__} object: its __call__ is {type(call).__name__}, which has no "
                        f"bytecode to capture. {what} accepts {ACCEPTED}")
    if isinstance(obj, type):
        raise TypeError(f"{what} expects a Python function or a callable built from one, not the class {obj!r} "
                        f"(compile an instance, or a function that constructs it). {what} accepts {ACCEPTED}")
    raise TypeError(f"{what} expects a function ({ACCEPTED}); got {type(obj).__name__}, which is not callable: "
                    f"{obj!r}")


def compiled_function(obj: Any) -> Any:
    """The compiled function (the dispatcher) inside what compile() handed back, else obj itself."""
    for _ in range(64):
        if isinstance(obj, functools.partial):
            obj = obj.func
        elif hasattr(obj, COMPILED):
            obj = getattr(obj, COMPILED)
        elif isinstance(obj, (types.MethodType, staticmethod, classmethod)):
            obj = obj.__func__
        else:
            break
    return obj


# ---- live presentations: the parts that can change are read at every call ------------------------------
ORIGIN = "__minidynamo_origin__"        # on a live presentation: the object it presents
COMPILED = "__minidynamo_compiled__"    # on a live function: the compiled function it calls


class LivePartial(functools.partial):
    """What compile() hands back for a partial `p`: a partial (its func the compiled function, its args and
    its keywords p's very objects) that calls with p's func, args and keywords as they are at that call."""

    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        p = self.__dict__[ORIGIN]
        if p.func is self.__dict__["___func"]:
            return self.func(*p.args, *args, **{**p.keywords, **kwargs})
        return p(*args, **kwargs)      # p's function was replaced (__setstate__): p itself, as eagerly


def _live_partial(p: functools.partial, compiled: Any) -> LivePartial:
    live = LivePartial(compiled)
    live.__setstate__((compiled, p.args, p.keywords, {ORIGIN: p, "___func": p.func}))   # shares the dict
    return live


def _live_layer(obj: Any, call: types.FunctionType, compiled: Any) -> types.MethodType:
    """`obj(...)` looks `__call__` up on type(obj) at every call: while it is still `call`, the compiled
    function runs with obj as self; after the class's `__call__` (or obj's class) changed, obj itself."""
    def __call__(self, /, *args: Any, **kwargs: Any) -> Any:
        if type(self).__call__ is call:
            return compiled(self, *args, **kwargs)
        return self(*args, **kwargs)
    return types.MethodType(_presenting(__call__, obj, compiled, call), obj)


def _live_descriptor(desc: staticmethod | classmethod, compiled: Any) -> staticmethod | classmethod:
    """A staticmethod/classmethod whose function reads desc's callable at every call (desc.__init__ may
    replace it): the compiled function while it is the one compiled, else that callable, as eagerly."""
    inner = desc.__func__
    if isinstance(desc, staticmethod):
        def live(*args: Any, **kwargs: Any) -> Any:
            fn = desc.__func__
            return compiled(*args, **kwargs) if fn is inner else fn(*args, **kwargs)
    else:
        def live(cls: Any, /, *args: Any, **kwargs: Any) -> Any:
            fn = desc.__func__
            return compiled(cls, *args, **kwargs) if fn is inner else fn(cls, *args, **kwargs)
    presented = type(desc)(_presenting(live, desc, compiled, inner))
    setattr(presented, ORIGIN, desc)
    return presented


def _presenting(live: types.FunctionType, origin: Any, compiled: Any, like: Any) -> types.FunctionType:
    """live, named and documented as `like`, knowing the object it presents and the function it calls."""
    functools.update_wrapper(live, like, updated=())
    del live.__wrapped__        # (signatures come from the compiled function: it has the original's)
    live.__signature__ = inspect.signature(compiled)
    setattr(live, ORIGIN, origin)
    setattr(live, COMPILED, compiled)
    return live


def _is_numpy_callable(obj: Any) -> bool:
    if isinstance(obj, np.ufunc):
        return True
    module = getattr(obj, "__module__", None) or ""
    return callable(obj) and not isinstance(obj, type) and (module == "numpy" or module.startswith("numpy."))


def _forwarder(fn: Any) -> types.FunctionType:
    """`def tanh(*args, **kwargs): return tanh(*args, **kwargs)`, reading the NumPy callable from its
    globals, so the capture records one op (or breaks, for a NumPy function without a registered op)."""
    name = getattr(fn, "__name__", "numpy_function")
    name = name if name.isidentifier() else "numpy_function"
    scope: dict[str, Any] = {"target": fn}
    exec(compile(f"def {name}(*args, **kwargs):\n    return target(*args, **kwargs)\n",
                 f"<minidynamo forwarder to {name}>", "exec"), scope)
    forward = scope[name]
    forward.__qualname__ = name
    forward.__doc__ = getattr(fn, "__doc__", None)
    return forward
