"""backend="jax": captured graphs lowered to jax.numpy/jax.lax under jax.jit, with NumPy's semantics kept.

Imports nothing of JAX until the backend is used: `compile(fn, backend="jax")` checks that JAX is installed
(ImportError naming `pip install minidynamo[jax]` otherwise), and the first graph it compiles imports the
lowering (`table.py`: op -> rule or reason; `engine.py`: tracing and jit; `runner.py`: the call path).
Ops the table does not lower, or lowers only for some arguments, run on NumPy: `lowering.lower_graph` cuts
the graph into JAX and NumPy pieces, and `explain()` lists each op left on NumPy with the reason.
"""

from __future__ import annotations

import importlib.util
from typing import Any, Callable, Sequence

INSTALL_HINT = "backend='jax' needs JAX, which is not installed: pip install minidynamo[jax]"


def require_jax() -> None:
    """Raise ImportError (with the install command) when JAX cannot be imported."""
    if importlib.util.find_spec("jax") is None:
        raise ImportError(INSTALL_HINT)


def jax_backend(graph: Any, example_inputs: Sequence[Any]) -> Callable[..., tuple]:
    """Backend "jax": lower what can be lowered faithfully, run the rest on NumPy."""
    require_jax()
    from ..lowering import lower_graph
    from .engine import compile_piece
    from .table import TABLE
    return lower_graph(graph, TABLE, compile_piece)


jax_backend.__minidynamo_requires__ = require_jax   # type: ignore[attr-defined]  (run by get_backend)
