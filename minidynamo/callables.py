"""What compile() and explain() accept, reduced to the Python function that gets captured. Imports nothing
of the package (a leaf).

`resolve(obj)` returns a `Target`: the function whose bytecode is captured, the leading arguments every
call passes to it (the instance of a bound method or a callable object, a partial's frozen arguments), and
how to present the compiled function to the user (a bound method, a partial, a staticmethod...). Leading
arguments travel as ordinary arguments of the compiled function, so they are guarded like any argument.
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
    """The capture target for `obj`, or TypeError naming what can be compiled."""
    if isinstance(obj, types.FunctionType):
        return Target(obj, lambda compiled: compiled)
    if isinstance(obj, types.MethodType):
        inner = resolve(obj.__func__, what)
        this = obj.__self__
        return Target(inner.fn, lambda compiled: types.MethodType(inner.present(compiled), this),
                      (*inner.args, this), inner.kwargs)
    if isinstance(obj, functools.partial):
        inner = resolve(obj.func, what)
        args, kwargs = obj.args, dict(obj.keywords)
        return Target(inner.fn, lambda compiled: functools.partial(inner.present(compiled), *args, **kwargs),
                      (*inner.args, *args), {**inner.kwargs, **kwargs})
    if isinstance(obj, (staticmethod, classmethod)):
        inner = resolve(obj.__func__, what)
        kind = type(obj)
        return Target(inner.fn, lambda compiled: kind(inner.present(compiled)), inner.args, inner.kwargs)
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
            return Target(call, lambda compiled: types.MethodType(compiled, obj), (obj,))
        raise TypeError(f"{what} expects a Python function or a callable built from one, not a "
                        f"{type(obj).__name__} object: its __call__ is {type(call).__name__}, which has no "
                        f"bytecode to capture. {what} accepts {ACCEPTED}")
    if isinstance(obj, type):
        raise TypeError(f"{what} expects a Python function or a callable built from one, not the class {obj!r} "
                        f"(compile an instance, or a function that constructs it). {what} accepts {ACCEPTED}")
    raise TypeError(f"{what} expects a function ({ACCEPTED}); got {type(obj).__name__}, which is not callable: "
                    f"{obj!r}")


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
