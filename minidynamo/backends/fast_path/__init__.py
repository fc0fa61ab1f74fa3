"""The default backend's exact fast path: large element-wise and row-wise regions run in blocks of rows.

Imports graph/ and config's knobs (read from the Config the backend gets). `shortcuts(graph, cfg)` finds
the regions (regions.py: runs of element-wise ufuncs and last-axis reductions sharing axis 0) of a graph and
its subgraphs whose arrays are large enough, and makes each a Shortcut (graph/shortcuts.py) whose function
(runner.Region) runs the region block by block through the very same ufuncs and methods, or returns None,
and the region's own lines run as before. Results are eager's bit for bit, warnings and exceptions too:
layout.py says which blocks keep every element on eager's code path, runner.py how errors fall back.
Config: `fast_path` (on), `threads` (default: the machine's cores; 1: blocks on the calling thread only),
`fast_path_min_bytes` (a region whose largest array is smaller runs as today: no shortcut, no cost; 0 also
runs a region of one block through the fast path, which tests use), `fast_path_one_step_bytes` (the same bar
for a region of one step, 32 MiB: see _bar), `fast_path_block_bytes`, `fast_path_timed` (numpy_codegen then
hands out trial.timed's function: the graph's code with its regions or without them, whichever runs faster).
"""

from __future__ import annotations

import operator
from typing import Any

from ...graph import codegen, control, inlining
from ...graph.ir import ArraySpec, Graph, Node
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
        inline = inlining.plan(graph.nodes, graph.outputs)
        made = [_shortcut(spec, cfg, bar) for spec in find_regions(graph)
                if _large(spec, bar := _bar(spec, cfg)) and not _eager_reuses(spec, inline)]
        if made:
            found[id(graph)] = made
    for node in graph.nodes:
        for _, sub in control.subgraphs(node):
            _collect(sub, cfg, found)


def _bar(spec: RegionSpec, cfg: Any) -> int:
    """The bytes the region's largest array must reach. A region of one step keeps nothing in cache between
    steps; what it gains is its reused output, where eager's fresh result costs page faults: with glibc's
    malloc, an array of 32 MiB or more (its largest mmap threshold) is handed back to the system when freed
    and every new one is faulted in again (`alpha * A`, 2048 x 2048 float64: eager 7.6 ms, the region 2.9),
    while a smaller one reuses memory malloc keeps warm (2000 x 2000: eager 2.4 ms, the region 1.09x that on
    one thread, 1.19x in CPU time on two). So one step needs `fast_path_one_step_bytes` too."""
    if len(spec.steps) == 1:
        return max(cfg.fast_path_min_bytes, cfg.fast_path_one_step_bytes)
    return cfg.fast_path_min_bytes


def _shortcut(spec: RegionSpec, cfg: Any, bar: int) -> Shortcut:
    region = Region(spec, cfg.threads, cfg.fast_path_block_bytes, bar)
    return Shortcut(tuple(spec.nodes), tuple(spec.inputs), tuple(spec.steps[i].node for i in spec.outputs), region)


def _eager_reuses(spec: RegionSpec, inline: dict[int, Node]) -> bool:
    """A region of one operator step reading a temporary that dies there (`np.outer(u, v) + np.outer(w, z)`):
    without the region, codegen writes the temporary inside the operator's expression (graph/inlining.py)
    and NumPy writes the result into its buffer (temporary elision, as eager does). The region cannot: the
    temporary is named for its fallback lines. What a region of one step gains is a reused output and the
    threads; eager's elision already reuses a buffer, and threads cost CPU time: no region."""
    if len(spec.steps) != 1:
        return False
    node = spec.steps[0].node
    if not codegen.is_operator(node):
        return False
    operands = node.args if node.target in _COMMUTATIVE else node.args[:1]
    return any(isinstance(a, Node) and inline.get(id(a)) is node and isinstance(a.spec, ArraySpec) and
               a.spec.shape == node.spec.shape and a.spec.dtype == node.spec.dtype for a in operands)


_COMMUTATIVE = frozenset({operator.add, operator.mul, operator.and_, operator.or_, operator.xor})


def _has_large(graph: Graph, min_bytes: int) -> bool:
    """Whether some node of `graph` holds, or may hold, an array of `min_bytes` or more."""
    return any(isinstance(node.spec, ArraySpec) and most_bytes(node.spec) >= min_bytes for node in graph.nodes)


def _large(spec: RegionSpec, min_bytes: int) -> bool:
    """Whether the region's largest array may reach `min_bytes`; a symbolic size may (the region then checks
    its rows at run time: a small call returns None at once), unless its bounds say it never does."""
    specs = [s.node.spec for s in spec.steps] + [n.spec for n, r in zip(spec.inputs, spec.roles) if r is Role.BLOCKED]
    return max(most_bytes(sp) for sp in specs) >= min_bytes


def most_bytes(spec: ArraySpec) -> float:
    """The most bytes an array of `spec` holds for any input its guards admit: a symbolic dimension counts
    its upper bound (graph/symbolic.py's Sym.bounds; unbounded: inf). A slice sized by the index of a folded
    loop (`C[i, :i + 1]` in `for i in range(50)`) holds at most 50 elements: a shortcut there would cost a
    call and a check per iteration, and name every operand around it (no temporary elision), for blocks it
    never runs."""
    most = 1.0
    for d in spec.shape:
        most *= d if type(d) is int else max(0.0, d.bounds()[1])
    return most * spec.dtype.itemsize
