"""The default backend, "numpy": the graph as one generated straight-line Python function.

Imports graph.codegen, config and backends.fast_path. The function calls the same NumPy callables as the
user's code in the same order, so results are bit-identical to eager NumPy; `fn.__minidynamo_source__`
shows what runs. Large element-wise and row-wise regions become shortcuts (fast_path/): the same ufuncs
over blocks of rows on several threads, with the region's plain lines as their fallback; a graph with any
runs as it runs faster, with them or as the code without them (fast_path/trial.py).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from .. import config as config_mod
from ..graph import codegen
from ..graph.ir import Graph
from . import fast_path
from .fast_path import trial


def numpy_codegen(graph: Graph, example_inputs: Sequence[Any], config: Any = None) -> Callable[..., tuple]:
    """Backend "numpy": compile `graph` to Python source and return that function."""
    cfg = config if config is not None else config_mod.current()
    shortcuts = fast_path.shortcuts(graph, cfg)
    fast = codegen.compile_graph(graph, shortcuts)
    if not shortcuts or not cfg.fast_path_timed:
        return fast
    return trial.timed(fast, codegen.compile_graph(graph))     # (the code fast_path=False compiles)
