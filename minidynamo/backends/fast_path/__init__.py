"""The default backend's exact fast path: large element-wise and row-wise regions run in blocks of rows.

Imports graph/ and config's knobs (read from the Config the backend gets). `shortcuts(graph, cfg)` finds
the regions (regions.py: runs of element-wise ufuncs and last-axis reductions sharing axis 0) of a graph and
its subgraphs whose arrays are large enough, and makes each a Shortcut (graph/shortcuts.py) whose function
(runner.Region) runs the region block by block through the very same ufuncs and methods, or returns None,
and the region's own lines run as before. Results are eager's bit for bit, warnings and exceptions too:
layout.py says which blocks keep every element on eager's code path, runner.py how errors fall back.
Config: `fast_path` (on), `threads` (default: the machine's cores; 1: blocks on the calling thread only),
`fast_path_min_bytes` (a region whose largest array is smaller runs as today: no shortcut, no cost; 0 also
runs a region of one block through the fast path, which tests use), `fast_path_block_bytes`.
"""

from __future__ import annotations

import math
from typing import Any

from ...graph import control
from ...graph.ir import ArraySpec, Graph
from ...graph.shortcuts import Shortcut
from .regions import RegionSpec, Role, find_regions
from .runner import Region


def shortcuts(graph: Graph, cfg: Any) -> dict[int, list[Shortcut]]:
    """id(graph or subgraph) -> its fast-path shortcuts (empty when the config turns the fast path off)."""
    found: dict[int, list[Shortcut]] = {}
    if cfg.fast_path:
        _collect(graph, cfg, found)
    return found


def _collect(graph: Graph, cfg: Any, found: dict[int, list[Shortcut]]) -> None:
    if _has_large(graph, cfg.fast_path_min_bytes):      # (small graphs: not even looked at)
        made = [_shortcut(spec, cfg) for spec in find_regions(graph) if _large(spec, cfg.fast_path_min_bytes)]
        if made:
            found[id(graph)] = made
    for node in graph.nodes:
        for _, sub in control.subgraphs(node):
            _collect(sub, cfg, found)


def _shortcut(spec: RegionSpec, cfg: Any) -> Shortcut:
    region = Region(spec, cfg.threads, cfg.fast_path_block_bytes, cfg.fast_path_min_bytes)
    return Shortcut(tuple(spec.nodes), tuple(spec.inputs), tuple(spec.steps[i].node for i in spec.outputs), region)


def _has_large(graph: Graph, min_bytes: int) -> bool:
    """Whether some node of `graph` holds an array of `min_bytes` or more (or of a symbolic size)."""
    for node in graph.nodes:
        sp = node.spec
        if isinstance(sp, ArraySpec) and (sp.is_symbolic or math.prod(sp.shape) * sp.dtype.itemsize >= min_bytes):
            return True
    return False


def _large(spec: RegionSpec, min_bytes: int) -> bool:
    """Whether the region's largest array reaches `min_bytes`; a symbolic size may (the region then checks
    its rows at run time: a small call returns None at once)."""
    specs = [s.node.spec for s in spec.steps] + [n.spec for n, r in zip(spec.inputs, spec.roles) if r is Role.BLOCKED]
    if any(sp.is_symbolic for sp in specs):
        return True
    return max(math.prod(sp.shape) * sp.dtype.itemsize for sp in specs) >= min_bytes
