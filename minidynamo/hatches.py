"""Escape hatches, torch.compile style: `disable(fn)`, `register_op(fn, meta=...)`, `allow_in_graph(fn, meta=...)`,
`substitute_in_graph(original)(polyfill)`. Imports graph (ops, user_ops) only.

`disable(fn)` returns a wrapper with fn's name, docstring and signature (`__wrapped__`) that calls fn.
Capture never walks it: a call to it from compiled code is one break at the call, where it runs as plain
Python (capture/frame.py's inline refuses its code; stitch/breaking.py calls it as itself, never through a
compiled wrapper), and `compile()` of it runs it as plain Python every call. Called directly it is fn.
Every wrapper shares one code object, so `is_disabled` is an identity test and the guards capture puts on
a called function's code also guard the marking.

`register_op(fn, meta=rule)` makes every call to fn that capture meets (the same object, read from a global,
an attribute, a closure cell or an argument, under the identity guard such reads get) one graph node, its
result's spec given by `rule` over the arguments' specs (graph/user_ops.py checks it when the node runs).
`allow_in_graph(fn, meta=rule)` is the same for a function that is not pure: never merged, dropped or moved.
`substitute_in_graph(original)(polyfill)` puts `original` in SUBSTITUTES: capture (context.wrap,
variables/numpy_ns.wrap_library_value) reads it as a SubstitutedVar (variables/substitutes.py), whose calls
inline the polyfill and whose plain form is the original.
"""

from __future__ import annotations

import functools
import inspect
import logging
import types
from typing import Any, Callable

from .graph import ops
from .graph.user_ops import UserOp


def _wrapper(fn: Callable) -> types.FunctionType:
    def disabled(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs)
    return disabled


DISABLED_CODE = _wrapper(print).__code__


def is_disabled(fn: Any) -> bool:
    """Whether fn is a wrapper `disable()` made."""
    return isinstance(fn, types.FunctionType) and fn.__code__ is DISABLED_CODE


def disabled_reason(fn: Any) -> str | None:
    """Why compile(fn) runs fn as plain Python every call, when fn is a disabled wrapper."""
    if not is_disabled(fn):
        return None
    return f"{fn.__qualname__} is disabled (minidynamo.disable): it runs as plain Python"


def disable(fn: Callable | None = None) -> Any:
    """Never capture `fn`: `@disable`, `@disable()` or `disable(fn)`. From compiled code a call to it is one
    graph break at the call, run as plain Python (as eager runs it: its side effects, printed output and
    exceptions); compiling it compiles nothing. What fn itself calls runs as plain Python too, except
    functions compiled on their own (they dispatch as they do anywhere)."""
    if fn is None:
        return disable
    if not callable(fn):
        raise TypeError(f"minidynamo.disable(fn): fn must be callable, got {type(fn).__name__} {fn!r}")
    if is_disabled(fn):
        return fn
    wrapper = _wrapper(fn)
    # (not fn's __dict__: a compiled function's `_minidynamo` would make the wrapper read as compiled)
    functools.update_wrapper(wrapper, fn, updated=())
    return wrapper


def register_op(fn: Callable | None = None, *, meta: Callable | None = None, pure: bool = True) -> Any:
    """Record every call to `fn` from compiled code as one graph op (`@register_op(meta=...)` or
    `register_op(fn, meta=...)`; returns fn itself). `meta(*args, **kwargs)` gets the call's arguments with each
    array (ndarray or NumPy scalar) replaced by its `ArraySpec` (shape, dtype, scalar) and returns the result's:
    an ArraySpec, a tuple of them (fn returns a tuple), `float` or `int` (fn returns that Python number) or
    None. Capture never runs fn; the graph does, once per call as eagerly, and checks the result against
    the rule: a difference is logged once (a warning record on the `minidynamo.registrations` logger) and
    that call runs eagerly, never a wrong result.
    `pure=True` (the default) promises fn has no effects and depends on its arguments only, so it may be
    merged, dropped or moved; `pure=False`: it may draw from NumPy's global random state (saved and put
    back when the graph re-runs eagerly), and is never merged, dropped or moved. fn must not write its
    arguments, print or change Python state: use `disable(fn)` for such a function."""
    if fn is None:
        return functools.partial(_register, meta=meta, pure=pure, api="register_op")
    return _register(fn, meta=meta, pure=pure, api="register_op")


def allow_in_graph(fn: Callable | None = None, *, meta: Callable | None = None) -> Any:
    """Put every call to `fn` into the graph as it is, one op kept in program order (never merged, dropped or
    moved): `register_op(fn, meta=meta, pure=False)`. The meta rule is required (capture does not look inside
    fn, so only the rule can say what fn returns)."""
    if fn is None:
        return functools.partial(_register, meta=meta, pure=False, api="allow_in_graph")
    return _register(fn, meta=meta, pure=False, api="allow_in_graph")


def _register(fn: Any, *, meta: Any, pure: Any, api: str) -> Any:
    if not callable(fn) or isinstance(fn, type):
        raise TypeError(f"minidynamo.{api}(fn): fn must be a function, got {type(fn).__name__} {fn!r}")
    if meta is None or not callable(meta):
        raise TypeError(f"minidynamo.{api}(fn, meta=...): meta must be a callable returning the result's "
                        f"ArraySpec, got {meta!r}")
    if type(pure) is not bool:
        raise TypeError(f"minidynamo.{api}(fn, pure=...): pure must be True or False, got {pure!r}")
    if isinstance(fn, types.MethodType) or _bound_builtin(fn):
        raise ValueError(f"minidynamo.{api}(fn): fn is a bound method {fn!r}, made anew at every read; "
                         "register the function itself")
    if is_disabled(fn):
        raise ValueError(f"minidynamo.{api}(fn): {fn.__qualname__} is disabled (minidynamo.disable): it runs as "
                         "plain Python and cannot also be a graph op")
    known = ops.lookup_function(fn)
    if known is not None:
        raise ValueError(f"minidynamo.{api}(fn): {fn!r} is already the graph op {known.name!r}"
                         + (" (registered before)" if known.user else ""))
    op = UserOp(fn, meta, ops.user_name(fn), _warn)
    ops.register_user(ops.OpDef(op.name, op, op.spec, random=not pure, doc=f"{api} of {op!r}"), fn)
    return fn


def _warn(message: str) -> None:
    # A logging record, not a Python warning: it is issued inside a graph that then raises, whose warnings
    # are held and dropped (stitch/held_warnings.py), and the program's own warning filters must not see it
    # (`-W error` would make it an exception), as the cache-limit message (api.py) is a record too.
    REGISTRATIONS.warning("%s", message)


REGISTRATIONS = logging.getLogger("minidynamo.registrations")


# ---- substitute_in_graph: original (by id) -> (original, polyfill); the originals kept alive, ids never reused
SUBSTITUTES: dict[int, tuple[Any, types.FunctionType]] = {}


def substitute_for(value: Any) -> types.FunctionType | None:
    """The polyfill capture inlines in place of `value`, or None."""
    entry = SUBSTITUTES.get(id(value))
    return entry[1] if entry is not None and entry[0] is value else None


def substitute_in_graph(original: Callable) -> Callable[[types.FunctionType], Any]:
    """`@substitute_in_graph(original)` over a Python function `polyfill` computing what `original` computes
    (usually a C function capture cannot see into): capture inlines the polyfill wherever compiled code
    calls `original`, so its NumPy work joins the graph; plain Python (eagerly, at a graph break, inside the
    polyfill's own breaks) still calls the original. Returns a function named as the polyfill that calls
    the original (and is captured as the polyfill too). Where both signatures can be read they must have
    the same parameters (names, kinds, which have defaults)."""
    if not callable(original) or isinstance(original, type):
        raise TypeError(f"minidynamo.substitute_in_graph(original): original must be a function, got "
                        f"{type(original).__name__} {original!r}")
    if isinstance(original, types.MethodType) or _bound_builtin(original):
        raise ValueError(f"minidynamo.substitute_in_graph(original): {original!r} is a bound method, made anew "
                         "at every read; substitute the function itself")
    if substitute_for(original) is not None:
        raise ValueError(f"minidynamo.substitute_in_graph(original): {original!r} has a polyfill already "
                         f"({substitute_for(original).__qualname__})")

    def register(polyfill: types.FunctionType) -> Any:
        if not isinstance(polyfill, types.FunctionType) or is_disabled(polyfill):
            raise TypeError(f"minidynamo.substitute_in_graph(original)(polyfill): polyfill must be a Python "
                            f"function capture can inline, got {type(polyfill).__name__} {polyfill!r}")
        if substitute_for(original) is not None:
            raise ValueError(f"minidynamo.substitute_in_graph(original)(polyfill): {original!r} has a polyfill "
                             f"already ({substitute_for(original).__qualname__})")
        _check_signatures(original, polyfill)

        def substituted(*args: Any, **kwargs: Any) -> Any:
            return original(*args, **kwargs)
        functools.update_wrapper(substituted, polyfill, updated=())
        for fn in (original, substituted):
            SUBSTITUTES[id(fn)] = (fn, polyfill)
        return substituted
    return register


def _bound_builtin(fn: Any) -> bool:
    """A builtin method bound to an object (`[].append`, `np.add.reduce`): a new object at every read."""
    return type(fn).__name__ == "builtin_function_or_method" and \
        not isinstance(getattr(fn, "__self__", None), (types.ModuleType, type(None)))


def _check_signatures(original: Any, polyfill: types.FunctionType) -> None:
    try:
        want = inspect.signature(original)
    except (TypeError, ValueError):     # (many C functions have none)
        return
    got = inspect.signature(polyfill)
    shape = lambda s: [(p.name, p.kind, p.default is p.empty) for p in s.parameters.values()]  # noqa: E731
    if shape(want) != shape(got):
        raise TypeError(f"minidynamo.substitute_in_graph(original)(polyfill): the polyfill's signature "
                        f"{polyfill.__qualname__}{got} differs from the original's {want}")
