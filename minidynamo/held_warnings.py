"""Warnings of a graph that may fail its checks, held until it has run. Imports graph only.

A graph holding a checking op (OpDef.checks: np.testing's assertions, a speculated branch's `check`) is
expected to fail in ordinary use, and then the function runs again eagerly (api._guarded_graph_call),
which issues again every warning the graph's operations issued before the check (`np.log(0)` before an
`assert`): eager shows it once. Such a graph runs with `warnings.showwarning` (public, replaceable) taking
the warnings that passed the filters; when it returns they are shown through the hook that was there,
in order, with their own category, file and line; when it raises they are dropped, and the re-run issues
them. Filters are not touched, so the "default" action's once-per-location memory and the "error" action
(the warning raises inside the graph) stay as they are.
"""

from __future__ import annotations

import functools
import warnings
from typing import Any, Callable

from .graph import ops
from .graph.ir import Graph


def has_checks(graph: Graph) -> bool:
    """Whether any node of the graph is a checking op (a cond's arms are pure: never one)."""
    return any(n.is_call and n.op in ops.REGISTRY and ops.REGISTRY[n.op].checks for n in graph.nodes)


def holding_warnings(compiled: Callable[..., Any]) -> Callable[..., Any]:
    """`compiled` with its warnings shown only once it has returned."""
    @functools.wraps(compiled)
    def run(*args: Any) -> Any:
        held: list[tuple] = []
        shown = warnings.showwarning
        warnings.showwarning = lambda *w: held.append(w)
        try:
            out = compiled(*args)
        finally:
            warnings.showwarning = shown
        for w in held:
            shown(*w)
        return out
    return run
