"""The signature of a function's own code. Imports nothing of the package (a leaf).

`inspect.signature` follows `__wrapped__` (functools.wraps) and honours `__signature__`, which describe
some *other* callable; binding arguments for a function's bytecode needs the parameters of that bytecode.
"""

from __future__ import annotations

import inspect
import types
import weakref

# code -> (defaults, kwdefaults items, signature): the miss path asks for a function's signature several
# times per capture (issue 28: a sixth of a recompile-heavy program's capture time). Reused only for the
# same defaults tuple and the same kwdefaults values (a dict: it may be changed in place).
_cache: "weakref.WeakKeyDictionary[types.CodeType, tuple]" = weakref.WeakKeyDictionary()


def code_signature(fn: types.FunctionType) -> inspect.Signature:
    """Parameters, defaults and kinds exactly as `fn.__code__` and `fn.__defaults__` define them."""
    defaults, kwdefaults = fn.__defaults__, fn.__kwdefaults__
    kw = None if kwdefaults is None else tuple(kwdefaults.items())
    cached = _cache.get(fn.__code__)
    if cached is not None and cached[0] is defaults and _same_items(cached[1], kw):
        return cached[2]
    stub = types.FunctionType(fn.__code__, {}, fn.__name__, defaults, fn.__closure__)
    stub.__kwdefaults__ = kwdefaults
    signature = inspect.signature(stub, follow_wrapped=False)
    _cache[fn.__code__] = (defaults, kw, signature)
    return signature


def _same_items(a: tuple | None, b: tuple | None) -> bool:
    if a is None or b is None:
        return a is b
    return len(a) == len(b) and all(x[0] == y[0] and x[1] is y[1] for x, y in zip(a, b))
