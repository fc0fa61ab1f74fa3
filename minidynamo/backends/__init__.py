"""Backends: each turns a Graph into a callable returning the tuple of its outputs.

Imports graph/ (and config, for the dask chunk size). Registered here: "numpy" (generated Python, the
default), "eager" (the reference interpreter), "dask" (dask.array lowering; dask is imported only when a
graph is compiled for it) and "jax" (jax_lowering/, jax.numpy under jax.jit; JAX is imported likewise).
`get_backend(name_or_callable)` resolves what `compile(..., backend=)` was given.
"""

from .dask_backend import dask_backend
from .eager import eager
from .jax_lowering import jax_backend
from .numpy_codegen import numpy_codegen
from .registry import Backend, call_backend, get_backend, list_backends, register_backend, returns_numpy_arrays

DEFAULT_BACKEND = "numpy"

register_backend("numpy", numpy_codegen)
register_backend("eager", eager)
register_backend("dask", dask_backend)      # imports dask only when compile() asks for it
register_backend("jax", jax_backend)        # JAX itself is imported only when a graph is compiled for it

_OWN = (numpy_codegen, eager, dask_backend, jax_backend)


def is_own_backend(backend: Backend) -> bool:
    """Whether `backend` is one of the package's; any other is the user's code (it may run the graph)."""
    return any(backend is own for own in _OWN)


__all__ = ["Backend", "DEFAULT_BACKEND", "call_backend", "eager", "get_backend", "is_own_backend",
           "list_backends", "numpy_codegen", "register_backend"]
