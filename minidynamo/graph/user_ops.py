"""Ops made from a user's or a library's function (minidynamo.register_op / allow_in_graph): the function
is one opaque node, its result's spec given by the user's meta rule. Imports graph.ir and graph.meta only.

`UserOp(fn, meta, name, warn)` is such an op's `impl` (calling it calls fn) and the source of its meta rule
(`UserOp.spec`: the user's rule, its result read as ArraySpecs); capture records each call with the target
`UserOp.at(spec)`, which calls fn and compares what fn returned with what the rule said (type, shape, dtype):
a difference is a wrong registration, reported once through `warn` and raised inside the graph as
MetaMismatch, so the function runs again eagerly and the program gets eager's result, never one computed
from a wrong spec. Capture never runs fn itself (no folding on constants, no values computed on the side).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .ir import ArraySpec, PyScalarSpec
from .meta import MetaUnsupported


class MetaMismatch(Exception):
    """Raised inside a graph where a registered function returned what its meta rule did not describe."""


class UserMetaFailed(MetaUnsupported):
    """A registered function's meta rule raised or returned no spec: the call breaks and runs eagerly."""


class UserOp:
    """A registered function: `fn`, the user's `meta` rule, the op's name in graphs, and `warn(message)`,
    called once with the first mismatch between fn's result and the rule's spec."""

    def __init__(self, fn: Callable, meta: Callable, name: str, warn: Callable[[str], None]) -> None:
        self.fn, self.meta, self.name, self.warn = fn, meta, name, warn
        self.warned = False
        self.__name__ = self.__qualname__ = name

    def __repr__(self) -> str:
        return f"<registered op {self.name} of {describe(self.fn)}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def spec(self, *args: Any, **kwargs: Any) -> Any:
        """The OpDef's meta rule: the user's rule over specs, its result as ArraySpec / PyScalarSpec / a tuple
        of them / None. A rule that raises or answers anything else makes the call a break."""
        try:
            result = self.meta(*args, **kwargs)
        except Exception as e:      # the user's code: whatever it raises, the call runs eagerly instead
            raise UserMetaFailed(f"{self.name}: the meta rule of {describe(self.fn)} raised "
                                 f"{type(e).__name__}: {e}") from None
        return self._read(result, top=True)

    def _read(self, result: Any, top: bool) -> Any:
        if isinstance(result, (ArraySpec, PyScalarSpec)):
            return result
        if result is None and top:
            return None
        if top and type(result) is tuple:
            return tuple(self._read(r, top=False) for r in result)
        if result in (int, float):
            return PyScalarSpec(result)
        shape, dtype = getattr(result, "shape", None), getattr(result, "dtype", None)
        if isinstance(shape, tuple) and dtype is not None:      # (an ndarray, a NumPy scalar, a struct like it)
            return ArraySpec(shape, np.dtype(dtype), scalar=isinstance(result, np.generic))
        raise UserMetaFailed(f"{self.name}: the meta rule of {describe(self.fn)} returned {result!r}; it must "
                             "return a minidynamo.ArraySpec (or a tuple of them, int, float or None)")

    def at(self, spec: Any) -> "CheckedCall":
        """The target of one node whose result the rule said is `spec`."""
        return CheckedCall(self, spec)


class CheckedCall:
    """Calls the registered function and checks its result against the node's spec."""

    def __init__(self, op: UserOp, spec: Any) -> None:
        self.op, self.spec = op, spec
        self.__name__ = self.__qualname__ = op.name
        self.__module__ = getattr(op.fn, "__module__", None) or __name__

    def __repr__(self) -> str:
        return f"<checked call of {describe(self.op.fn)}: {_text(self.spec)}>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        out = self.op.fn(*args, **kwargs)
        if not matches(self.spec, out):
            message = (f"the meta rule of {describe(self.op.fn)} (op {self.op.name}) said {_text(self.spec)}, "
                       f"but it returned {_found(out)}")
            if not self.op.warned:
                self.op.warned = True
                self.op.warn(f"minidynamo: {message}: a compiled call runs eagerly; fix the meta rule given to "
                             "register_op/allow_in_graph (reported once)")
            raise MetaMismatch(message + "; fix the meta rule given to register_op/allow_in_graph")
        return out


def matches(spec: Any, value: Any) -> bool:
    """Whether `value` is exactly what `spec` describes (a tuple's items one by one)."""
    if spec is None:
        return value is None
    if isinstance(spec, tuple):
        return type(value) is tuple and len(value) == len(spec) and all(map(matches, spec, value))
    return spec.matches(value)


def describe(fn: Any) -> str:
    module = getattr(fn, "__module__", None)
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    return f"{module}.{name}" if module else name


def _text(spec: Any) -> str:
    """`spec` in words: 'an ndarray of shape (3,) and dtype float64', 'a float64 NumPy scalar'."""
    if isinstance(spec, tuple):
        return "a tuple of (" + "; ".join(map(_text, spec)) + ")"
    if isinstance(spec, ArraySpec):
        return f"a {spec.dtype} NumPy scalar" if spec.scalar else \
            f"an ndarray of shape {spec.shape} and dtype {spec.dtype}"
    return f"a Python {spec.type.__name__}" if isinstance(spec, PyScalarSpec) else "None"


def _found(value: Any) -> str:
    if type(value) is np.ndarray or isinstance(value, np.generic):
        return _text(ArraySpec.of(value))
    if type(value) is tuple:
        return "a tuple of (" + "; ".join(map(_found, value)) + ")"
    return f"a {type(value).__name__}" if value is not None else "None"
