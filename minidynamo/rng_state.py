"""Random streams around a graph call that may be re-run eagerly: the entry lines that save and restore
NumPy's global RandomState and every generator the graph reads from the caller.

Imports numpy and graph only. A graph that raises is re-run as plain Python (api._guarded_graph_call); the
draws it made before raising must not count, so the states are saved before the graph and put back before
that re-run, and the stream is consumed exactly once, as eagerly. Generators made inside the graph
(`np.random.default_rng(seed)`) are made again by the re-run and need nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .graph import ops
from .graph.ir import RngSpec


def _saves(key: str, graph: Any, inputs: list, namespace: dict) -> tuple[list[str], list[str]]:
    """(save lines, restore lines) for the global state and each generator input of the graph."""
    save, restore = [], []
    if any(ops.uses_global_rng(n.op) for n in graph.nodes):
        namespace[f"{key}_get_rng"], namespace[f"{key}_set_rng"] = np.random.get_state, np.random.set_state
        save.append(f"{key}_rng = {key}_get_rng(legacy=False)")
        restore.append(f"{key}_set_rng({key}_rng)")
    read = {id(n) for n in graph.nodes if n.is_call for n in n.inputs()}
    for i, (source, node) in enumerate(inputs):
        if not isinstance(node.spec, RngSpec) or id(node) not in read:
            continue
        expr, saved = source.expr(), f"{key}_rng{i}"
        if node.spec.type is np.random.Generator:
            save.append(f"{saved} = {expr}.bit_generator.state")
            restore.append(f"{expr}.bit_generator.state = {saved}")
        else:
            save.append(f"{saved} = {expr}.get_state(legacy=False)")
            restore.append(f"{expr}.set_state({saved})")
    return save, restore


def restoring_rng(key: str, lines: list[str], graph: Any, inputs: list, namespace: dict) -> list[str]:
    """`lines` (a guarded graph call) with the random states saved before it and restored before its
    eager re-run; unchanged when the graph draws nothing or its exception propagates as is (the draws
    made stand, as eager's)."""
    if not any(line.startswith("except Exception:") for line in lines):
        return lines
    save, restore = _saves(key, graph, inputs, namespace)
    if not save:
        return lines
    out = list(save)
    for line in lines:
        if line.startswith("    return ___eager("):      # the eager re-run after the graph raised
            out += [f"    {r}" for r in restore]
        out.append(line)
    return out
