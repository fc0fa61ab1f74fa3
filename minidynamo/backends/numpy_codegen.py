"""The default backend, "numpy": the graph as one generated straight-line Python function.

Imports graph.codegen. The function calls the same NumPy callables as the user's code in the same order,
so results are bit-identical to eager NumPy; `fn.__minidynamo_source__` shows what runs.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from ..graph import codegen
from ..graph.ir import Graph


def numpy_codegen(graph: Graph, example_inputs: Sequence[Any]) -> Callable[..., tuple]:
    """Backend "numpy": compile `graph` to Python source and return that function."""
    return codegen.compile_graph(graph)
