"""The signature of a function's own code. Imports nothing of the package (a leaf).

`inspect.signature` follows `__wrapped__` (functools.wraps) and honours `__signature__`, which describe
some *other* callable; binding arguments for a function's bytecode needs the parameters of that bytecode.
"""

from __future__ import annotations

import inspect
import types


def code_signature(fn: types.FunctionType) -> inspect.Signature:
    """Parameters, defaults and kinds exactly as `fn.__code__` and `fn.__defaults__` define them."""
    stub = types.FunctionType(fn.__code__, {}, fn.__name__, fn.__defaults__, fn.__closure__)
    stub.__kwdefaults__ = fn.__kwdefaults__
    return inspect.signature(stub, follow_wrapped=False)
