"""Backends: each turns a Graph into a callable returning the tuple of its outputs.

Imports graph/ only. Registered here: "numpy" (generated Python, the default) and "eager" (the reference
interpreter). `get_backend(name_or_callable)` resolves what `compile(..., backend=)` was given.
"""

from .eager import eager
from .numpy_codegen import numpy_codegen
from .registry import Backend, get_backend, list_backends, register_backend

DEFAULT_BACKEND = "numpy"

register_backend("numpy", numpy_codegen)
register_backend("eager", eager)

__all__ = ["Backend", "DEFAULT_BACKEND", "eager", "get_backend", "list_backends", "numpy_codegen",
           "register_backend"]
