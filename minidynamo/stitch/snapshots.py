"""What a writing graph saves of its input arrays before it runs, so that the eager re-run after it raised
(stitch/guarded_call.py) makes each write once: only the parts its writes can reach.

Imports capture.context (names only) and graph. A write through basic indices of constants and of numbers
the graph takes as inputs (`x[i] = v`, `x[i, 1:j] += v`, `row = x[i]; row *= 2`) saves that part alone,
`x[i, 1:j].copy()`, where the whole of x was copied before: a loop body writing one row per iteration
copied the whole array per iteration. Any other write (a mask, an index the graph computes, a reshaped view,
`out=`) saves every input array the written value is made from, whole. A part whose index is out of range
saves nothing: the graph raises at that write before writing anything.
"""

from __future__ import annotations

import numbers
import operator
from typing import Any

from ..capture.context import CaptureContext
from ..graph.ir import INPUT, ArraySpec, Node, PyScalarSpec, iter_nodes
from ..graph.passes import written_arguments

MAX_PARTS = 8          # more parts of one array than this: one copy of the whole array is cheaper to make
_INT_ARITHMETIC = {operator.add: "+", operator.sub: "-", operator.mul: "*"}    # cannot raise on ints


def take(array: Any, chain: tuple) -> Any:
    """A copy of array[chain[0]][chain[1]]..., or None when an index does not apply (out of range)."""
    try:
        for index in chain:
            array = array[index]
        return array.copy()
    except (IndexError, TypeError, ValueError):
        return None


def put(array: Any, chain: tuple, saved: Any) -> None:
    """Write `saved` back where take() read it (nothing if it read nothing, or the array is read-only: the
    graph raised at its first write into it)."""
    if saved is None or not array.flags.writeable:
        return
    for index in chain[:-1]:
        array = array[index]
    array[chain[-1]] = saved


def _index_text(value: Any, names: dict[int, str]) -> str | None:
    """Python text building a basic index from constants and graph-input ints, or None."""
    if isinstance(value, Node):
        if not (isinstance(value.spec, PyScalarSpec) and value.spec.type is int):
            return None
        if value.op == INPUT:
            return names.get(id(value))
        symbol = _INT_ARITHMETIC.get(value.target) if len(value.args) == 2 and not value.kwargs else None
        sides = [_index_text(a, names) for a in value.args] if symbol else [None]
        return None if None in sides else f"({sides[0]} {symbol} {sides[1]})"     # `i - 1` of a loop index
    if value is None or value is Ellipsis:
        return repr(value)
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(int(value))
    if type(value) is slice:
        parts = [_index_text(p, names) for p in (value.start, value.stop, value.step)]
        return None if None in parts else f"slice({', '.join(parts)})"
    if type(value) is tuple:
        items = [_index_text(v, names) for v in value]
        return None if None in items else "(" + "".join(i + ", " for i in items) + ")"
    return None


def _part(target: Any, index: Any, arrays: dict[int, str], names: dict[int, str]) -> tuple[Node, str] | None:
    """(input array, chain text) of the part `target[index]` (index None: all of target), or None."""
    chain = [] if index is None else [index]
    while isinstance(target, Node) and id(target) not in arrays:
        if target.op != "getitem" or len(target.args) != 2:
            return None
        chain.insert(0, target.args[1])
        target = target.args[0]
    texts = [_index_text(i, names) for i in chain]
    if not isinstance(target, Node) or None in texts:
        return None
    return target, "(" + "".join(t + ", " for t in texts) + ")"


def _sources(target: Any, arrays: dict[int, str], seen: set[int]) -> list[Node]:
    """The input arrays `target` is made from (over-approximate: a view may share any one's memory) that an
    earlier walk sharing `seen` did not find: a node it visited is skipped with everything it reads, which
    that walk found already, in the same order (a depth-first walk per written value was quadratic: an
    unrolled loop writing `acc[j % n] += j` walked the whole graph before it at every write)."""
    found, stack = [], list(iter_nodes(target))
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        if id(node) in arrays:
            found.append(node)
        stack.extend(node.inputs())
    return found


def written_parts(ctx: CaptureContext) -> list[tuple[str, str | None]]:
    """(array expression, chain text or None for the whole array) for every part the graph may write."""
    arrays = {id(n): src.expr() for src, n in ctx.inputs if isinstance(n.spec, ArraySpec) and not n.spec.scalar}
    names = {id(n): src.expr() for src, n in ctx.inputs}
    parts: dict[int, list[str] | None] = {}
    order: list[Node] = []
    walked: set[int] = set()     # nodes _sources visited: their sources are whole-array parts already
    for node in ctx.mutating_nodes:
        setitem = node.op == "setitem"
        targets = written_arguments(node)
        for i, target in enumerate(targets):
            part = _part(target, node.args[1] if setitem and i == 0 else None, arrays, names)
            bases = [part[0]] if part is not None else _sources(target, arrays, walked)
            for base in bases:
                if id(base) not in parts:
                    parts[id(base)] = []
                    order.append(base)
                chains = parts[id(base)]
                if part is None or chains is None or len(chains) >= MAX_PARTS:
                    parts[id(base)] = None
                elif part[1] not in chains:
                    chains.append(part[1])
    out: list[tuple[str, str | None]] = []
    for base in order:
        chains = parts[id(base)]
        out += [(arrays[id(base)], None)] if chains is None or "()" in chains else \
            [(arrays[id(base)], c) for c in chains]
    return out


def snapshot_lines(ctx: CaptureContext, namespace: dict) -> tuple[str, list[str]]:
    """(the line saving the parts, the lines restoring them, for the entry's except clause)."""
    parts = written_parts(ctx)
    if any(chain is not None for _, chain in parts):
        namespace["___take"], namespace["___put"] = take, put
    saves = "".join(f"{a}.copy(), " if c is None else f"___take({a}, {c}), " for a, c in parts)
    # (a read-only array was not written: the graph raised at the first write into it)
    restores = [f"if {a}.flags.writeable: {a}[...] = ___snap[{i}]" if c is None else
                f"___put({a}, {c}, ___snap[{i}])" for i, (a, c) in enumerate(parts)]
    return f"___snap = ({saves})", restores
