"""Which intermediates generated graph code writes inside their one reader's expression instead of into a
local: `t1 = np.clip(x, 2, 10) * a` rather than `t0 = np.clip(x, 2, 10); t1 = t0 * a`.

Imports graph.ir and graph.control only. Why: eager Python hands a temporary straight from one operation to
the next with no other reference, and NumPy's operators then reuse its buffer for the result (temporary
elision, for arrays of 256 KiB and more). A temporary held by a local has a second reference, so every
operator allocated a fresh result: one-graph kernels ran 1.1-1.4x slower than eager for that alone.

Order is kept exactly: an expression evaluates its operands left to right (a subscript assignment its value
first), so a node may move into its reader only when every node between the two moves into that reader's
expression too; `plan` checks this by simulating a stack of pending expressions, which a statement (a
subscript assignment, a control-flow node, a node read twice or returned) empties.
"""

from __future__ import annotations

import operator
from typing import Any

from . import control
from .errstate import errstate_of
from .ir import Node, iter_nodes

# How deep one expression may nest inlined operands: CPython's parser refuses a line nested past 200
# parentheses ("too many nested parentheses"), and a long chain of one-use operators nests one per step.
MAX_DEPTH = 32


def is_setitem_statement(node: Node) -> bool:
    """Codegen writes this node as `a[i] = v` (a statement with no value of its own)."""
    return node.target is operator.setitem and len(node.args) == 3 and not node.kwargs


def is_subscript(node: Node) -> bool:
    """Codegen writes this node as `a[i]`."""
    return node.target is operator.getitem and len(node.args) == 2 and not node.kwargs


def evaluation_order(node: Node) -> list[Node]:
    """The nodes `node`'s generated text reads, in the order Python evaluates them."""
    if is_setitem_statement(node):      # `a[i] = v` evaluates v, then a, then i
        return [*iter_nodes(node.args[2]), *iter_nodes(node.args[0]), *iter_nodes(node.args[1])]
    return list(node.inputs())


def plan(nodes: list[Node], outputs: Any, cuts: set[int] | frozenset[int] = frozenset()) -> dict[int, Node]:
    """id of each call node written inline -> the node whose expression holds it. A node's one-use
    operands move into it when they were computed just before it (operators, calls, method calls,
    subscripts and the value of a subscript assignment alike), so the line reads as eager's source
    (`(x - mu) / np.sqrt(var + eps)`): NumPy's operators then reuse a temporary's buffer, and no local costs
    a store and a `del` (layernorm at 512 x 512 ran 1.4x eager when `var + eps` was named and `x - mu` with
    it; cholesky's `np.sqrt(A[i, i])` 1.05x). A warning or exception of an operand is still told apart from
    its reader's by the column span of the instruction that raised (codegen.node_at). No operand moves
    across a node whose id is in `cuts` (graph/shortcuts.py)."""
    uses: dict[int, int] = {}
    for n in nodes:
        for a in n.inputs():
            uses[id(a)] = uses.get(id(a), 0) + 1
    for o in iter_nodes(outputs):
        uses[id(o)] = uses.get(id(o), 0) + 2       # a returned value is always a local
    inline: dict[int, Node] = {}
    depth: dict[int, int] = {}      # id of a node -> how deeply its expression nests inlined operands
    stack: list[Node] = []
    pending: set[int] = set()       # the ids of the nodes on `stack` (each node is pushed once at most)
    for node in nodes:
        if id(node) in cuts:
            stack.clear()
            pending.clear()
        if not node.is_call:
            continue
        statement = control.is_control(node) or is_setitem_statement(node)
        reads = [n for n in evaluation_order(node) if id(n) in pending] if pending else []
        k = len(reads)
        if k:
            deepest = max(depth.get(id(r), 0) for r in reads)
            takes = is_setitem_statement(node) or not control.is_control(node)
            if takes and k <= len(stack) and all(p is r for p, r in zip(stack[-k:], reads)) and \
                    all(errstate_of(r) == errstate_of(node) for r in reads) and deepest < MAX_DEPTH:
                for r in reads:
                    inline[id(r)] = node
                    pending.discard(id(r))
                depth[id(node)] = deepest + 1
                del stack[-k:]
            else:
                # the operands read stay statements at their own place, and so does every pending node
                # below them (computed before them); those above stay pending: they were computed after
                # them, and still come after them inline (`(x - mu) / np.sqrt(var + eps)` with var named)
                read_ids = {id(r) for r in reads}
                cut = max(i for i, p in enumerate(stack) if id(p) in read_ids) + 1
                pending.difference_update(id(p) for p in stack[:cut])
                del stack[:cut]
        if statement or uses.get(id(node), 0) != 1:
            stack.clear()
            pending.clear()
        else:
            stack.append(node)
            pending.add(id(node))
    return inline
