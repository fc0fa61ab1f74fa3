"""Which nodes an engine with immutable arrays (JAX, Dask) must leave on NumPy because of memory sharing.

Imports graph/ only. NumPy views share memory with their base, in-place operators return their operand, and
some outputs are the caller's own arrays; an engine computes values, so it returns copies and writes nothing
through views. `alias_refusals(graph)` (a `LoweringTable.refuse_graph`) names the nodes where that would show:

* a write (setitem, `x += y`, `out=`) into an array with a view that is read after the write, or written
  through: those views, and the writes into that array, stay on NumPy (the engine would update the base
  and leave the view stale); a view read only before the next write sees a copy's values;
* a write into a captured constant array (it is the user's global or closure array, written in place);
* a view returned as an output when it views a graph input or constant, or shares its base with another
  output: the view chain stays on NumPy, so the caller gets NumPy's view, not an engine copy.

`alias_root(graph)` maps each node id to the node whose memory it shares (itself when it owns its memory);
an engine that threads writes functionally uses it to find which array a write updates.
"""

from __future__ import annotations

from typing import Mapping

from ..graph.control import FORI_LOOP
from ..graph.ir import CONST, INPUT, Graph, MethodCall, Node, PyScalarSpec, iter_nodes
from ..graph.ops import INPLACE_NAMES, LIST_RESULTS

# Ops whose result may share memory with their first argument (a view, or the very same object).
# (flip and rot90 are always views; diag of a 2-d array, real and imag are too, and so is the method
# `x.conjugate()` of a real array: the array itself, where the ufunc np.conjugate makes a new one.)
VIEW_OPS = frozenset({"getitem", "reshape", "transpose", "ravel", "swapaxes", "moveaxis", "expand_dims",
                      "squeeze", "broadcast_to", *LIST_RESULTS, "asarray", "asanyarray", "ascontiguousarray",
                      "flip", "rot90", "diag", "real", "imag", "atleast_1d", "atleast_2d", "atleast_3d",
                      "sliding_window_view"})


def is_view(node: Node) -> bool:
    """The result may share memory with the first argument (basic indexing is a view, advanced a copy)."""
    if node.op == "conjugate":
        return isinstance(node.target, MethodCall)
    if node.op != "getitem":
        return node.op in VIEW_OPS
    base, index = node.args[0], node.args[1]
    if isinstance(base, Node) and isinstance(base.spec, tuple):
        return base.op in VIEW_OPS         # an item of split's list views split's argument
    items = index if isinstance(index, tuple) else (index,)
    return not any(isinstance(i, (list, tuple)) or isinstance(i, Node) and getattr(i.spec, "shape", ()) != ()
                   for i in items)


def is_inplace(node: Node) -> bool:
    """An in-place operator that writes its ndarray operand (on a NumPy scalar `s += 1` only rebinds s)."""
    return node.op in INPLACE_NAMES and _is_ndarray(node.args[0])


def written_target(node: Node) -> Node | None:
    """The node a call writes into: setitem's array, an in-place operator's operand, or None."""
    if node.op == "setitem" or is_inplace(node):
        target = node.args[0]
        return target if isinstance(target, Node) else None
    return None


def written_targets(node: Node) -> list[Node]:
    """Every node a call writes into: written_target's, or the operands a fori_loop's body writes into (its
    body's writes followed to the body's inputs, nested loops included)."""
    if node.op != FORI_LOOP:
        target = written_target(node)
        return [] if target is None else [target]
    body = node.target.body_graph
    root = alias_root(body)
    written = {id(root[id(t)]) for n in body.nodes if n.is_call for t in written_targets(n)}
    operands = node.args[3:]        # body inputs: (index, *carried, *invariants)
    return [a for inp, a in zip(body.inputs[1:], operands) if id(inp) in written and isinstance(a, Node)]


def alias_root(graph: Graph) -> dict[int, Node]:
    """node id -> the node owning the memory it shares (views and in-place results point at their base)."""
    root: dict[int, Node] = {}
    for n in graph.nodes:
        base = n.args[0] if n.is_call and n.args and isinstance(n.args[0], Node) else None
        if base is not None and (is_view(n) or is_inplace(n)):
            root[id(n)] = root.get(id(base), base)
        else:
            root[id(n)] = n
    return root


def same_object_root(graph: Graph) -> dict[int, Node]:
    """node id -> the node that is the very same object (in-place operators return their operand)."""
    root: dict[int, Node] = {}
    for n in graph.nodes:
        root[id(n)] = root.get(id(n.args[0]), n.args[0]) if n.is_call and is_inplace(n) else n
    return root


def _basic_static(index: object) -> bool:
    """An index of ints, slices of ints, None and Ellipsis: basic indexing, a view whose shape is fixed at
    capture. An int may be a py_int graph value (a loop index): the view's place follows it, its shape does
    not."""
    items = index if isinstance(index, tuple) else (index,)
    return all(i is None or i is Ellipsis or type(i) is int or _py_int(i) or (isinstance(i, slice) and all(
        p is None or type(p) is int for p in (i.start, i.stop, i.step))) for i in items)


def _py_int(item: object) -> bool:
    return isinstance(item, Node) and item.spec == PyScalarSpec(int)


def sliced_views(graph: Graph) -> dict[int, tuple[Node, object]]:
    """node id -> (parent, index) for `parent[index]` views with a basic index fixed at capture whose parents,
    up to the array owning the memory, are such views too (in-place results count as their operand). An
    engine can thread writes through these functionally: a write into the view is `parent.at[index].set`,
    and reading the view after a write slices the parent's newest value."""
    same = same_object_root(graph)
    views: dict[int, tuple[Node, object]] = {}
    for n in graph.nodes:
        if not (n.is_call and n.op == "getitem" and isinstance(n.args[0], Node) and _is_ndarray(n.args[0])
                and _basic_static(n.args[1])):
            continue
        parent = same[id(n.args[0])]
        if id(parent) in views or not (parent.is_call and is_view(parent)):
            views[id(n)] = (parent, n.args[1])
    return views


def alias_refusals(graph: Graph, tracked: Mapping[int, object] | None = None) -> Mapping[int, str]:
    """node id -> why that node must run on NumPy (see the module docstring). Views in `tracked` (an engine
    threads writes through them, see sliced_views) may be written through and read after writes."""
    root = alias_root(graph)
    members: dict[int, list[Node]] = {}
    for n in graph.nodes:
        if n.is_call and root[id(n)] is not n:
            members.setdefault(id(root[id(n)]), []).append(n)
    refused: dict[int, str] = {}
    writes: dict[int, list[int]] = {}          # root id -> positions of the nodes writing into it
    for n in graph.nodes:
        if n.is_call and "out" in n.kwargs and n.kwargs["out"] is not None:
            refused[id(n)] = "writes into an out= array"
        for target in written_targets(n) if n.is_call else ():
            base = root[id(target)]
            writes.setdefault(id(base), []).append(n.index)
            if base.op == CONST:
                refused[id(n)] = "writes into a captured constant array (the caller's own array)"
    last_read = _last_reads(graph)
    targets = {id(t) for n in graph.nodes if n.is_call for t in written_targets(n)}
    for base_id, positions in writes.items():
        views = [m for m in members.get(base_id, []) if is_view(m)]
        # A view read only before the next write into its base sees the same values as a copy; a view read
        # after such a write, or written through, must be NumPy's.
        stale = [v for v in views if (any(v.index < w < last_read[id(v)] for w in positions)
                                      or id(v) in targets) and id(v) not in (tracked or {})]
        if stale:
            why = f"writes into {stale[0].args[0].name}'s memory, which a view reads after the write"
            for m in stale + [w for w in members.get(base_id, []) if written_targets(w)] + \
                    [n for n in graph.nodes if n.is_call and n.index in positions]:
                refused[id(m)] = why
    _refuse_escaping_views(graph, root, refused)
    return refused


def _last_reads(graph: Graph) -> dict[int, int]:
    """node id -> position of its last reader (len(graph.nodes) for an output: read after the graph)."""
    last: dict[int, int] = {}
    for n in graph.nodes:
        for a in n.inputs():
            last[id(a)] = n.index
    for o in iter_nodes(graph.outputs):
        last[id(o)] = len(graph.nodes)
    return {id(n): last.get(id(n), n.index) for n in graph.nodes}


def _refuse_escaping_views(graph: Graph, root: dict[int, Node], refused: dict[int, str]) -> None:
    outputs = list({id(o): o for o in iter_nodes(graph.outputs)}.values())
    escaping: dict[int, int] = {}
    for o in outputs:
        escaping[id(root[id(o)])] = escaping.get(id(root[id(o)]), 0) + 1
    for o in outputs:
        if not is_view(o):
            continue
        base = root[id(o)]
        if base.op in (INPUT, CONST) or escaping.get(id(base), 0) > 1:
            why = f"returns a view of {base.name} (the caller must get NumPy's view, not a copy)"
            n: Node = o
            while n is not base and (is_view(n) or is_inplace(n)):
                refused[id(n)] = why
                n = n.args[0]


def _is_ndarray(value: object) -> bool:
    spec = getattr(value, "spec", None)
    return spec is not None and hasattr(spec, "scalar") and not spec.scalar
