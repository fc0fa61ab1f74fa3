"""Escape hatches, torch.compile style: `disable(fn)`. Imports nothing of the package.

`disable(fn)` returns a wrapper with fn's name, docstring and signature (`__wrapped__`) that calls fn.
Capture never walks it: a call to it from compiled code is one break at the call, where it runs as plain
Python (capture/frame.py's inline refuses its code; stitch/breaking.py calls it as itself, never through a
compiled wrapper), and `compile()` of it runs it as plain Python every call. Called directly it is fn.
Every wrapper shares one code object, so `is_disabled` is an identity test and the guards capture puts on
a called function's code also guard the marking.
"""

from __future__ import annotations

import functools
import types
from typing import Any, Callable


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
