"""The backend registry: name -> backend, where a backend turns a Graph into something that runs it.

Imports nothing of the package. A backend is any callable `(graph, example_inputs) -> run`, where
`run(*inputs)` returns the tuple of the graph's outputs; `compile(fn, backend=...)` accepts a registered
name or such a callable directly. A backend needing an optional engine carries `__minidynamo_requires__`, a
function raising ImportError (with the pip command) when the engine is missing.
Dynamic shapes: a graph's specs may hold symbolic sizes (`f64[s0,8]`, graph/symbolic.py) and one compiled
graph then serves every size its guards admit. A backend must not decide on a symbol (the capture is over:
that raises SymbolicDecisionError); one that needs concrete shapes may specialize per concrete shape of the
inputs it is called with (e.g. cache by `tuple(a.shape for a in inputs)`), the example inputs being one.
Options: a backend whose signature has a keyword parameter `config` is called as
`backend(graph, example_inputs, config=cfg)`, cfg being the compiled function's `config.Config` with its
`compile(..., options={...})` applied (`call_backend`); e.g. the dask backend reads `dask_chunk_bytes` there.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Sequence

Backend = Callable[[Any, Sequence[Any]], Callable[..., tuple]]

_BACKENDS: dict[str, Backend] = {}


def register_backend(name: str, fn: Backend, *, replace: bool = False) -> Backend:
    """Register `fn` under `name`; a second registration of a name needs `replace=True`. Returns fn."""
    if type(name) is not str or not name:
        raise TypeError(f"register_backend(name, fn): name must be a non-empty str, got {name!r}")
    if not callable(fn):
        raise TypeError(f"backend {name!r} must be callable, got {type(fn).__name__}")
    if name in _BACKENDS and not replace and _BACKENDS[name] is not fn:
        raise ValueError(f"backend {name!r} is already registered (pass replace=True to override)")
    _BACKENDS[name] = fn
    return fn


def get_backend(name_or_callable: str | Backend) -> Backend:
    """The backend registered under a name, or the callable itself when one is given."""
    if callable(name_or_callable):
        return name_or_callable
    try:
        backend = _BACKENDS[name_or_callable]
    except (KeyError, TypeError):
        known = ", ".join(repr(n) for n in list_backends())
        raise ValueError(f"unknown backend {name_or_callable!r}; known backends: {known} (or pass a callable "
                         f"(graph, example_inputs) -> callable)") from None
    require = getattr(backend, "__minidynamo_requires__", None)
    if require is not None:     # an engine that is not installed fails at compile(), naming the extra
        require()
    return backend


def list_backends() -> list[str]:
    """Registered backend names, sorted."""
    return sorted(_BACKENDS)


def returns_numpy_arrays(backend: Backend) -> bool:
    """Whether the graph's results are the arrays NumPy itself makes (not an engine's, such as jax or dask,
    which carry `__minidynamo_requires__`): only then do the references to them behave as eager's do."""
    return getattr(backend, "__minidynamo_requires__", None) is None


def takes_config(backend: Backend) -> bool:
    """Whether the backend accepts the per-function config as a keyword `config`."""
    try:
        param = inspect.signature(backend).parameters.get("config")
    except (TypeError, ValueError):     # a builtin or C callable without a signature
        return False
    return param is not None and param.kind in (param.POSITIONAL_OR_KEYWORD, param.KEYWORD_ONLY)


def call_backend(backend: Backend, graph: Any, example_inputs: Sequence[Any], cfg: Any) -> Callable[..., tuple]:
    """Compile `graph` with `backend`, passing `cfg` (the function's options applied) if it takes `config`."""
    if takes_config(backend):
        return backend(graph, example_inputs, config=cfg)
    return backend(graph, example_inputs)
