"""`F`: the NumPy functions a traceable program calls (`F.tanh(h)`), one namespace for eager and traced use.

Imports graph.ops and numpy. Each `F.name` calls `np.name` with the same arguments, so on ndarrays it returns
exactly what NumPy returns; on traced or lazy arrays NumPy hands the call to the proxy's
`__array_ufunc__` / `__array_function__`, which records the registered op. Each function is also registered
with `ops.alias_function` so the bytecode front end reads `F.tanh(...)` as the `tanh` op.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..graph import ops

# Only functions NumPy itself dispatches to array-likes (ufuncs and __array_function__ functions).
NAMES = ("tanh", "exp", "log", "sqrt", "sin", "cos", "abs", "maximum", "minimum", "where", "clip",
         "sum", "mean", "max", "min", "matmul", "reshape", "transpose")


def _wrap(name: str, np_fn: Callable) -> Callable:
    def fn(*args: Any, **kwargs: Any) -> Any:
        return np_fn(*args, **kwargs)

    fn.__name__ = name
    fn.__qualname__ = f"F.{name}"
    fn.__doc__ = f"np.{name}: eager on ndarrays, recorded as the `{name}` op on traced and lazy arrays."
    fn.numpy_function = np_fn  # type: ignore[attr-defined]
    return fn


class _Functions:
    """The `F` namespace (`F.tanh`, `F.sum`, ...); `F.names` lists what it offers."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = tuple(n for n in names if hasattr(np, n))
        for name in self.names:
            setattr(self, name, _wrap(name, getattr(np, name)))

    def __repr__(self) -> str:
        return f"<F: {', '.join(self.names)}>"


F = _Functions(NAMES)


def _register_aliases() -> None:
    """Tell the op registry that F.name means the op of np.name (skipped for ops not registered yet)."""
    alias = getattr(ops, "alias_function", None)
    if alias is None:
        return
    for name in F.names:
        opdef = ops.lookup_function(getattr(np, name))
        if opdef is not None:
            alias(getattr(F, name), opdef.name)


_register_aliases()
