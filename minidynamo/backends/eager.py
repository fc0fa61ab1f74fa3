"""The eager backend: run the graph with the reference interpreter, no code generation.

Imports graph.interp. Slower than the "numpy" backend per call, but nothing is compiled, so it is the one
to use when debugging a backend or a pass (its results are the reference).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..graph import interp
from ..graph.ir import Graph


def eager(graph: Graph, example_inputs: Sequence[Any]) -> Callable[..., tuple]:
    """Backend "eager": `run(*inputs)` interprets `graph` node by node (inputs are not re-checked)."""

    def run(*inputs: Any) -> tuple:
        return interp.run_unchecked(graph, inputs)

    run.__name__ = f"eager_{graph.name}"
    run.__minidynamo_graph__ = graph        # type: ignore[attr-defined]
    return run
