"""Shortcuts: a run of consecutive nodes that a backend may compute another way, call by call.

Imports graph.control and graph.ir. A backend hands codegen `Shortcut(nodes, inputs, outputs, fn)`; the
generated code calls `fn(*inputs)` where the first of the nodes would run and binds the outputs from the
tuple it returns; when it returns None, the nodes run as usual, line by line, exactly as without the
shortcut (same statements, same temporaries written inside their reader, same `del`s)::

    ___s = ___fast_region(x, b)
    if ___s is None:
        del ___s
        t1 = np.exp(x - b)
        t2 = t1 / t1.sum(axis=-1, keepdims=True)
    else:
        t2, = ___s
        del ___s

So a shortcut that cannot give eager's exact result (or whose run failed) returns None and costs one call.
The default backend's fast path (backends/fast_path/) is the one shortcut today.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from . import control
from .errstate import errstate_of
from .ir import Graph, Node, last_reads


@dataclass(frozen=True)
class Shortcut:
    """`fn(*inputs)` -> the values of `outputs` (a tuple) or None; `nodes` are consecutive call nodes of one
    graph, `inputs` nodes before them that they read, `outputs` those of `nodes` read after them."""

    nodes: tuple[Node, ...]
    inputs: tuple[Node, ...]
    outputs: tuple[Node, ...]
    fn: Callable[..., "tuple | None"]


def check(graph: Graph, shortcuts: Sequence[Shortcut]) -> None:
    """Raise ValueError unless each shortcut is a run of consecutive plain call nodes of `graph` under one
    errstate stack, not overlapping another, reading only `inputs` from outside and exposing every node
    read after it (or returned) among `outputs`."""
    position = {id(n): i for i, n in enumerate(graph.nodes)}
    last = last_reads(graph)
    taken: set[int] = set()
    for sc in shortcuts:
        idx = [position.get(id(n), -1) for n in sc.nodes]
        if not idx or -1 in idx or idx != list(range(idx[0], idx[0] + len(idx))):
            raise ValueError("a shortcut's nodes must be consecutive nodes of the graph")
        if any(not n.is_call or control.is_control(n) for n in sc.nodes):
            raise ValueError("a shortcut holds plain call nodes only")
        if len({errstate_of(n) for n in sc.nodes}) != 1:
            raise ValueError("a shortcut's nodes run under one errstate")
        if taken & set(idx):
            raise ValueError("shortcuts overlap")
        taken.update(idx)
        inside = {id(n) for n in sc.nodes}
        read = {id(a) for n in sc.nodes for a in n.inputs() if id(a) not in inside}
        if not read <= {id(i) for i in sc.inputs}:
            raise ValueError("a shortcut reads a node that is not among its inputs")
        if not {i for i in inside if last.get(i, -1) > idx[-1]} <= {id(o) for o in sc.outputs}:
            raise ValueError("a node of a shortcut read after it is not among its outputs")


def cut_points(graph: Graph, shortcuts: Sequence[Shortcut]) -> set[int]:
    """ids of the nodes where a shortcut starts or the first node after one: no operand is written inside a
    reader across them (graph/inlining.py), so the shortcut's nodes are whole statements of their own."""
    after = {id(a): b for a, b in zip(graph.nodes, graph.nodes[1:])}
    cuts: set[int] = set()
    for sc in shortcuts:
        cuts.add(id(sc.nodes[0]))
        if id(sc.nodes[-1]) in after:
            cuts.add(id(after[id(sc.nodes[-1])]))
    return cuts


def statements(call: str, result: str, outputs: list[str], plain: list[str], dropped: list[str]) -> list[str]:
    """The lines around a shortcut: `call` computes the outputs or None; `plain` are the nodes' own lines;
    `dropped` the names of outside values the plain lines delete (their last reader is inside), which the
    other branch deletes too, so both leave the same references behind."""
    bind = [f"    {', '.join(outputs)}, = {result}"] if outputs else []
    return [f"{result} = {call}", f"if {result} is None:", f"    del {result}", *(f"    {ln}" for ln in plain),
            "else:", *bind, f"    del {', '.join([result] + dropped)}"]


def by_graph(shortcuts: dict[int, list[Shortcut]] | None, graph: Graph) -> list[Shortcut]:
    """The shortcuts planned for `graph` (the top-level graph or a cond / while_loop subgraph)."""
    return (shortcuts or {}).get(id(graph), [])

