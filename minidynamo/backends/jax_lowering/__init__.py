"""backend="jax": captured graphs lowered to jax.numpy/jax.lax under jax.jit, with NumPy's semantics kept.

Imports nothing of JAX until the backend is used: `compile(fn, backend="jax")` checks that JAX is installed
(ImportError naming `pip install minidynamo[jax]` otherwise), and the first graph it compiles imports the
lowering (`table.py`: op -> rule or reason; `engine.py`: tracing and jit; `runner.py`: the call path;
`finite.py`/`bounds.py`: which float values are checked for nan/inf, and when no check is needed;
`staging.py`: large inputs passed through aligned buffers each graph keeps; `persistent_cache.py`: JAX's
compilation cache across processes, opt in).
Ops the table does not lower, or lowers only for some arguments, run on NumPy: `lowering.lower_graph` cuts
the graph into JAX and NumPy pieces, and `explain()` lists each op left on NumPy with the reason.
Shapes: XLA compiles for concrete shapes, so each captured graph is one compilation per concrete input
signature (cached, and shared by structurally equal graphs); a graph with symbolic sizes (dynamic shapes,
issue 10) is specialized per concrete signature it is called with (`shapes.py`), never by deciding on a
symbol.
"""

from __future__ import annotations

import importlib.util
from typing import Any, Callable, Sequence

from ..engine_rng import keeping_global_rng

INSTALL_HINT = "backend='jax' needs JAX, which is not installed: pip install minidynamo[jax]"


def require_jax() -> None:
    """Raise ImportError (with the install command) when JAX cannot be imported."""
    if importlib.util.find_spec("jax") is None:
        raise ImportError(INSTALL_HINT)


@keeping_global_rng     # importing jax draws from NumPy's global RandomState (engine_rng.py)
def jax_backend(graph: Any, example_inputs: Sequence[Any], config: Any = None) -> Callable[..., tuple]:
    """Backend "jax": lower what can be lowered faithfully, run the rest on NumPy. A graph with symbolic
    sizes is specialized per concrete input signature (shapes.py): one lowering and one XLA compilation
    per signature, cached; the example inputs' signature is compiled now. `config`: the function's
    options (`jax_cache_dir`: persistent_cache.py)."""
    require_jax()
    from ..lowering import lower_graph, plan_lowering
    from . import persistent_cache
    from .engine import compile_piece
    from .shapes import is_symbolic, specializing
    from .table import TABLE

    @keeping_global_rng     # also when a later call's signature is compiled
    def build(g: Any) -> Callable[..., tuple]:
        return lower_graph(g, TABLE, compile_piece)

    if config is not None:
        persistent_cache.use(config.jax_cache_dir)

    def numpy_plan(g: Any, reason: str) -> Any:
        return plan_lowering(g, TABLE, refused={id(n): reason for n in g.nodes if n.is_call})
    if is_symbolic(graph):
        return specializing(graph, example_inputs, build, numpy_plan)
    return build(graph)


jax_backend.__minidynamo_requires__ = require_jax   # type: ignore[attr-defined]  (run by get_backend)
