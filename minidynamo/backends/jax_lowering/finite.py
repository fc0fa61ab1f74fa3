"""Which float values of a graph must be checked finite so that no NumPy floating-point warning is missed.

Imports graph/ only. NumPy warns (or raises, under np.errstate) exactly where an op creates an inf or nan
from finite operands (overflow, division by zero, invalid); XLA is silent. A nan/inf, once created, shows
in every later value an op *propagates* it to (x + inf is inf, sum over it is inf or nan, a reshape keeps
it), but not through ops that can absorb it (tanh(inf) is 1, x / inf is 0, x > nan is False, a slice may
drop it). So checking the values no propagating op carries further (the *sinks*) sees every nan/inf the
graph creates: `finite_sinks(graph)`. The engine checks those (a fused reduction) and reruns the graph on
NumPy when one is not finite. Inputs are not checked: a nan/inf that comes in creates no warning by itself,
and an op that turns it into another nan/inf shows in a checked value (so such calls run on NumPy too).

Each check is a pass over an array, so where an absorbing op's float argument has the shape of its float
result (tanh(t), where(c, a, b), x / y), the engine *poisons* the result instead: `r - (a - a)` is exactly r
when a is finite (also for -0.0) and nan where a is not, so the nan/inf travels on inside XLA's fused loop
and one check further down sees it (`poisoned` lists those arguments per node). A smaller argument that
broadcasts (the row sums of x / x.sum(1, keepdims=True)) is checked itself: a pass over it costs less than
one more operation on every element of the result. When the inputs' magnitudes prove that no value can
become nan/inf, none of this runs (bounds.py).
"""

from __future__ import annotations

from typing import Any

from ...graph.control import is_control
from ...graph.ir import ArraySpec, Graph, Node, iter_nodes
from ...graph.ops import INPLACE_NAMES

ALL = None   # every argument position propagates
# op -> argument positions through which a nan/inf always reaches the result (None: all of them).
PROPAGATING: dict[str, tuple[int, ...] | None] = {
    **{name: ALL for name in (
        "add", "subtract", "multiply", "negative", "positive", "absolute", "fabs", "square", "sqrt", "cbrt",
        "log", "log2", "log10", "log1p", "sin", "cos", "tan", "sinh", "cosh", "arcsinh", "rint", "floor",
        "ceil", "trunc", "conjugate", "sum", "mean", "prod", "cumsum", "cumprod", "std", "var", "matmul",
        "dot", "vdot", "inner", "outer", "tensordot", "matvec", "vecmat", "vecdot", "reshape", "transpose",
        "ravel", "flatten", "squeeze", "expand_dims", "swapaxes", "moveaxis", "copy", "array", "asarray", "asanyarray",
        "ascontiguousarray", "broadcast_to", "concatenate", "stack", "hstack", "vstack", "tile", "flip",
        "roll", "iadd", "isub", "imul", "imatmul")},
    "divide": (0,), "itruediv": (0,),
}


def _float(spec: Any) -> bool:
    specs = spec if isinstance(spec, tuple) else (spec,)
    return any(isinstance(s, ArraySpec) and s.dtype.kind in "fc" for s in specs)


def _size(spec: Any) -> int:
    return spec.size if isinstance(spec, ArraySpec) else 0


def _propagates(consumer: Node, position: int | str) -> bool:
    positions = PROPAGATING.get(consumer.op, ())
    if consumer.op == "power" and isinstance(consumer.args[1], (int, float)) and consumer.args[1] != 0:
        positions = (0,)          # x ** 2: inf and nan stay (only x ** 0 drops them)
    if consumer.op == "astype" and position == 0:
        positions = ALL if _float(consumer.spec) else ()
    if consumer.op in INPLACE_NAMES and not (isinstance(consumer.spec, ArraySpec) and _float(consumer.spec)):
        return False
    return isinstance(position, int) and (positions is ALL or position in positions) and \
        _float(consumer.spec) and _size(consumer.spec) > 0


def _poisonable(consumer: Node, arg: Node) -> bool:
    out, a = consumer.spec, arg.spec
    if not (isinstance(out, ArraySpec) and isinstance(a, ArraySpec) and out.dtype.kind == "f"
            and a.dtype.kind == "f" and out.size > 0) or consumer.op == "setitem" or consumer.op in INPLACE_NAMES:
        return False
    return a.shape == out.shape


def poisoned(graph: Graph) -> dict[int, list[Node]]:
    """node id -> its float arguments whose nan/inf the engine folds into the node's result."""
    out: dict[int, list[Node]] = {}
    for n in graph.nodes:
        if not n.is_call:
            continue
        for pos, arg in enumerate(n.args):
            for a in iter_nodes(arg):
                if not _propagates(n, pos) and _poisonable(n, a) and all(a is not b for b in out.get(id(n), [])):
                    out.setdefault(id(n), []).append(a)
    return out


def finite_sinks(graph: Graph, poison: dict[int, list[Node]] | None = None) -> set[int]:
    """Ids of the float-valued call nodes whose finiteness the engine must check, given the
    arguments `poison` folds into their consumers' results."""
    poison = poisoned(graph) if poison is None else poison
    consumers: dict[int, list[tuple[Node, int | str]]] = {}
    for n in graph.nodes:
        for pos, arg in list(enumerate(n.args)) + list(n.kwargs.items()):
            for a in iter_nodes(arg):
                consumers.setdefault(id(a), []).append((n, pos))
    covered: set[int] = set()
    sinks: set[int] = set()
    for n in reversed(graph.nodes):
        # Only an op creates a nan/inf NumPy warns about; one that came in with an input (quiet) is
        # harmless by itself and reaches a checked value wherever an op turns it into another.
        if not n.is_call or not _float(n.spec) or _creates_nothing(n):
            continue
        if any((_propagates(c, pos) or any(a is n for a in poison.get(id(c), ())))
               and (id(c) in sinks or id(c) in covered) for c, pos in consumers.get(id(n), [])):
            covered.add(id(n))
        else:
            sinks.add(id(n))
    return sinks


def _creates_nothing(node: Node) -> bool:
    """A cond/while_loop node or a projection of its results: what the subgraphs make is checked inside them
    (jax_lowering/control.py), and a value that merely passes through creates no warning."""
    return is_control(node) or (node.op == "getitem" and isinstance(node.args[0], Node)
                                and is_control(node.args[0]))
