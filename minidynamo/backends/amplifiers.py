"""Steps that turn a rounding difference into a different answer, and the nodes an engine leaves to NumPy
for them.

Imports graph only. An engine's results are within tolerance of NumPy's, not bit-identical (XLA's and
dask's reduction orders, XLA's transcendental functions). Most steps keep such a difference at the
tolerance level, but some do not:
- eigen- and singular value decompositions (eig, eigh, eigvals, svd): the sign (and for eig the order) of
  the vectors LAPACK returns depends on the rounding path of its iterations, so a matrix 1e-15 away can
  give eigenvectors of the other sign (ML-From-Scratch's PCA.transform: max difference 13.6);
- steps that resolve ties (argsort, argmax, argmin, searchsorted, unique, lexsort, argpartition): values
  NumPy computes equal (duplicates, symmetric terms) may come out one ulp apart, and the other index wins.
Such a step's inputs must be NumPy's own values, so unless they are exactly NumPy's anyway (inputs,
constants, and what moves, selects or compares them: EXACT_OPS, integer arithmetic), every node they are
computed from (its ancestors, any dtype) runs on NumPy, and so does the step itself (`amplified_refusals`,
applied by lowering.plan_lowering for every engine). A loop node whose body holds such a step stays on NumPy too: the values it carries
from one iteration to the next feed the step. Across a graph break the step is in Python or in a later
graph: capture marks the outputs of a graph that the rest of the function may hand to such a step
(`node.meta[HANDED_ON]`, by name: capture/later_steps.py), and those outputs' ancestors stay on NumPy.
Comparisons and rounding (`x > 0`, floor, astype(int)) are not in the list: they give another answer only
for a value within rounding of the threshold itself, which the engines' tolerance contract accepts.
"""

from __future__ import annotations

from ..graph.amplifying import AMPLIFYING_NAMES, HANDED_ON  # noqa: F401  (names and meta key: graph/)
from ..graph.control import subgraphs
from ..graph.ir import ArraySpec, Graph, Node, iter_nodes

# Ops an engine computes exactly as NumPy does from exact operands: they move, select or compare values
# (and round them to integers), never round an arithmetic result.
EXACT_OPS = frozenset({"getitem", "reshape", "transpose", "ravel", "flatten", "copy", "array", "asarray",
                       "ascontiguousarray", "squeeze", "expand_dims", "concatenate", "stack", "hstack", "vstack",
                       "broadcast_to", "flip", "fliplr", "flipud", "roll", "swapaxes", "moveaxis", "atleast_1d",
                       "atleast_2d", "atleast_3d", "astype", "negative", "positive", "absolute", "abs",
                       "maximum", "minimum", "max", "min", "amax", "amin", "clip", "where", "greater", "less",
                       "equal", "not_equal", "greater_equal", "less_equal", "logical_and", "logical_or",
                       "logical_not", "isnan", "isfinite", "isinf", "argmax", "argmin", "argsort"})


def is_amplifying(op: str) -> bool:
    """Whether a graph op is one of those steps (`linalg.eig`, `argmax`, a method `argsort` ...)."""
    return op.rsplit(".", 1)[-1] in AMPLIFYING_NAMES


def _amplifier_inside(node: Node) -> str | None:
    """The first amplifying step in a control node's subgraphs, nested ones included."""
    for _, sub in subgraphs(node):
        for n in sub.nodes:
            if n.is_call:
                found = n.op if is_amplifying(n.op) else _amplifier_inside(n)
                if found is not None:
                    return found
    return None


def _exact(graph: Graph) -> set[int]:
    """ids of the nodes whose values an engine computes bit for bit as NumPy does: inputs, constants, and
    what EXACT_OPS or integer arithmetic makes of such values alone."""
    exact: set[int] = set()
    for n in graph.nodes:
        inputs = n.inputs()
        if not n.is_call or all(id(a) in exact for a in inputs) and (n.op in EXACT_OPS or _integral(n, inputs)):
            exact.add(id(n))
    return exact


def _integral(node: Node, inputs: list[Node]) -> bool:
    def whole(spec: object) -> bool:
        return isinstance(spec, ArraySpec) and spec.dtype.kind in "biu"
    return whole(node.spec) and all(whole(a.spec) for a in inputs)


def amplified_refusals(graph: Graph) -> dict[int, str]:
    """node id -> why it stays on NumPy: each amplifying step of the graph (also one inside a loop or cond
    node) and each output marked HANDED_ON whose inputs are not exactly NumPy's, and every node they are
    computed from."""
    exact = _exact(graph)
    starts: list[tuple[Node, str]] = []
    for n in graph.nodes:
        if not n.is_call:
            continue
        inner = None if is_amplifying(n.op) else _amplifier_inside(n)
        if inner is not None or is_amplifying(n.op) and not all(id(a) in exact for a in n.inputs()):
            starts.append((n, f"feeds {inner or n.op}, whose answer a rounding difference changes (sign of "
                              "eigenvectors, ties): computed by NumPy, exactly"))
    for o in iter_nodes(graph.outputs):
        if o.meta.get(HANDED_ON) and id(o) not in exact:
            starts.append((o, f"handed on to {o.meta[HANDED_ON]} later in the function, whose answer a rounding "
                              "difference changes (sign of eigenvectors, ties): computed by NumPy, exactly"))
    refused: dict[int, str] = {}
    for start, why in starts:
        stack = [start]
        while stack:
            n = stack.pop()
            if id(n) in refused or not n.is_call:
                continue
            refused[id(n)] = why
            stack.extend(n.inputs())
    return refused
