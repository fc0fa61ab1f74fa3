"""The engine-neutral lowering driver: which nodes of a Graph an engine runs, which stay on NumPy, and why.

Imports graph/ only; it never imports an engine. A backend that lowers graphs to another array library (JAX,
Dask, ...) gives a `LoweringTable` (op name -> `OpRule`, or a reason the op is not lowered) and a function
compiling a graph whose every op it lowers. `plan_lowering(graph, table)` decides each call node and cuts the
graph into `Piece`s: maximal runs of consecutive nodes with the same placement, each a Graph of its own whose
inputs are the values it reads from earlier pieces. `lower_graph(graph, table, compile_engine)` compiles the
pieces (NumPy pieces with the default backend's code generator, so they keep NumPy's exact semantics) and
chains them in node order; the callable it returns carries the plan as `__minidynamo_lowering__`, which
`explain()` prints (`plan.summary()`: how many ops were lowered, and which were not, with the reason).

    plan = plan_lowering(graph, table)
    plan.fully_lowered          # True when one engine piece runs the whole graph
    print(plan.summary())       # e.g. "jax: 5 of 6 ops lowered, 2 piece(s)" + one line per op left on NumPy
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

from ..graph import codegen
from ..graph.errstate import has_errstate
from ..graph.ir import CONST, INPUT, Graph, Node, iter_nodes, map_nodes
from .aliasing import alias_root, written_targets
from .amplifiers import amplified_refusals


class Placement(enum.Enum):
    """Where a node runs."""

    ENGINE = "engine"
    NUMPY = "numpy"


class NotLowerable(Exception):
    """Raised by an engine's compile function when a piece it was given cannot be lowered after all. With a
    `node` (of the piece's graph), the driver plans again with that node on NumPy; without one, the whole
    piece runs on NumPy. Either way `reason` is recorded."""

    def __init__(self, reason: str, node: Node | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.node = node


@dataclass(frozen=True)
class OpRule:
    """How one op lowers. `lower` is the engine's own rule (the driver never calls it); `refuse(node)` returns
    why this particular call cannot be lowered (an unsupported keyword, a dtype), or None."""

    lower: Callable[..., Any]
    refuse: Callable[[Node], str | None] | None = None


@dataclass(frozen=True)
class LoweringTable:
    """One engine's lowering table. Every op is either in `rules` or in `not_lowered` with its reason; an op
    in neither is reported as missing from the table. `refuse_node` is an engine-wide check run before the
    op's own (dtypes the engine lacks, values it cannot hold). `refuse_graph(graph)` maps node ids to reasons
    that need the whole graph to see (writes through views, outputs that must alias an input)."""

    engine: str
    rules: Mapping[str, OpRule]
    not_lowered: Mapping[str, str]
    refuse_node: Callable[[Node], str | None] | None = None
    refuse_graph: Callable[[Graph], Mapping[int, str]] | None = None

    def decide(self, node: Node) -> "Decision":
        """Lowered or not, and why not."""
        if has_errstate(node):
            return Decision(node, Placement.NUMPY, "runs inside `with np.errstate(...)`: NumPy's own warnings "
                                                   "and FloatingPointError under that state")
        if converts_sequence(node.op, node.args):
            return Decision(node, Placement.NUMPY, SEQUENCE_OPERAND)
        rule = self.rules.get(node.op)
        if rule is None:
            reason = self.not_lowered.get(node.op, f"no {self.engine} lowering for op {node.op!r}")
            return Decision(node, Placement.NUMPY, reason)
        for check in (self.refuse_node, rule.refuse):
            reason = check(node) if check is not None else None
            if reason:
                return Decision(node, Placement.NUMPY, reason)
        return Decision(node, Placement.ENGINE)


# Ops whose sequence argument is a sequence of arrays by their API (joined, not converted), and indexing,
# whose key is a tuple of indices.
_JOINS = frozenset({"concatenate", "stack", "hstack", "vstack", "column_stack", "dstack", "getitem", "setitem"})
SEQUENCE_OPERAND = "an operand is a list or tuple of graph values, which NumPy converts with np.asarray (not lowered)"


def converts_sequence(op: str, args: tuple) -> bool:
    """Whether a call hands NumPy a list or tuple holding graph values to convert (`[a, b] - m`)."""
    return op not in _JOINS and any(isinstance(a, (list, tuple)) and iter_nodes(a) for a in args)


@dataclass(frozen=True)
class Decision:
    """Where one call node runs; `reason` says why it stays on NumPy."""

    node: Node
    placement: Placement
    reason: str = ""

    def __str__(self) -> str:
        where = "lowered" if self.placement is Placement.ENGINE else f"on NumPy: {self.reason}"
        return f"{self.node.name} = {self.node.op}(...): {where}"


@dataclass
class Piece:
    """A run of consecutive nodes with one placement, as a Graph of its own. `nodes` are the outer call
    nodes it runs; `reads` the outer nodes (inputs or values of earlier pieces) its graph inputs stand for, in
    order; `writes` the outer nodes its outputs stand for (what later pieces or the graph's outputs read)."""

    graph: Graph
    placement: Placement
    nodes: list[Node] = field(default_factory=list)
    reads: list[Node] = field(default_factory=list)
    writes: list[Node] = field(default_factory=list)


@dataclass
class LoweringPlan:
    """The decisions for every call node of `graph` and the pieces they cut it into."""

    graph: Graph
    engine: str
    decisions: list[Decision]
    pieces: list[Piece]

    @property
    def not_lowered(self) -> list[Decision]:
        return [d for d in self.decisions if d.placement is Placement.NUMPY]

    @property
    def fully_lowered(self) -> bool:
        return all(p.placement is Placement.ENGINE for p in self.pieces)

    def summary(self) -> str:
        """One line of counts, then one line per op left on NumPy with the reason."""
        n, left = len(self.decisions), self.not_lowered
        lines = [f"{self.engine}: {n - len(left)} of {n} op(s) lowered, {len(self.pieces)} piece(s)"
                 + (" (runs on NumPy)" if all(p.placement is Placement.NUMPY for p in self.pieces) else "")]
        lines += [f"  {d.node} -- not lowered: {d.reason}" for d in left]
        return "\n".join(lines)


def plan_lowering(graph: Graph, table: LoweringTable, *, min_engine_ops: int = 1,
                  refused: Mapping[int, str] | None = None) -> LoweringPlan:
    """Decide every call node and cut the graph into pieces. An engine piece of fewer than `min_engine_ops`
    nodes stays on NumPy (moving data to the engine for one cheap op does not pay); `refused` adds node ids
    that must stay on NumPy, with the reason."""
    refused = {**(table.refuse_graph(graph) if table.refuse_graph is not None else {}),
               **amplified_refusals(graph), **(refused or {})}
    decisions = [Decision(n, Placement.NUMPY, refused[id(n)]) if id(n) in refused else table.decide(n)
                 for n in graph.nodes if n.is_call]
    _keep_projections_beside(decisions)
    while True:         # until no short run is demoted (a demoted write keeps its views on NumPy too)
        _keep_views_of_numpy_writes(graph, decisions)
        merged, demoted = _runs(decisions, min_engine_ops)
        if demoted == decisions:
            break
        decisions = demoted
    if not merged:      # a graph without call nodes (it only returns its inputs or constants)
        merged.append((Placement.NUMPY, []))
    pieces = _cut(graph, merged)
    return LoweringPlan(graph, table.engine, decisions, pieces)


def _runs(decisions: list[Decision], min_engine_ops: int) -> tuple[list[tuple[Placement, list[Node]]],
                                                                  list[Decision]]:
    """Consecutive nodes of one placement, engine runs shorter than `min_engine_ops` merged into NumPy's; and
    the decisions with those demotions."""
    runs: list[tuple[Placement, list[Node]]] = []
    for d in decisions:
        placement = d.placement
        if runs and runs[-1][0] is placement:
            runs[-1][1].append(d.node)
        else:
            runs.append((placement, [d.node]))
    merged: list[tuple[Placement, list[Node]]] = []
    for placement, nodes in runs:
        if placement is Placement.ENGINE and len(nodes) < min_engine_ops:
            decisions = [Decision(d.node, Placement.NUMPY, f"a run of {len(nodes)} lowerable op(s) between "
                                  "ops left on NumPy is too short to pay for the transfer")
                         if d.node in nodes else d for d in decisions]
            placement = Placement.NUMPY
        if merged and merged[-1][0] is placement:
            merged[-1][1].extend(nodes)
        else:
            merged.append((placement, list(nodes)))
    return merged, decisions


def _keep_views_of_numpy_writes(graph: Graph, decisions: list[Decision]) -> None:
    """An op left on NumPy writes into real memory (setitem through an integer array, a loop left to
    NumPy): every view and in-place result of that memory must be NumPy's own too. An engine copy of the
    view would take the write in its place, or go stale after it (the engine threads only its own writes).
    One pass: a demoted view or in-place result writes, if at all, into that same memory."""
    root = alias_root(graph)
    written = {id(root[id(t)]) for d in decisions if d.placement is Placement.NUMPY for t in written_targets(d.node)}
    for k, d in enumerate(decisions):
        base = root[id(d.node)]
        if d.placement is Placement.ENGINE and base is not d.node and id(base) in written:
            decisions[k] = Decision(d.node, Placement.NUMPY, f"shares {base.name}'s memory, which an op left on "
                                    "NumPy writes into")


def _keep_projections_beside(decisions: list[Decision]) -> None:
    """`getitem(t, i)` of several results made on NumPy (svd, histogram, a cond left there) stays on NumPy:
    a piece's inputs are arrays, so the tuple itself cannot cross into an engine piece."""
    on_numpy = {id(d.node) for d in decisions if d.placement is Placement.NUMPY}
    for k, d in enumerate(decisions):
        base = d.node.args[0] if d.node.op == "getitem" and d.node.args else None
        if d.placement is Placement.ENGINE and isinstance(base, Node) and isinstance(base.spec, tuple) and (
                id(base) in on_numpy or base.op == INPUT):
            decisions[k] = Decision(d.node, Placement.NUMPY, f"reads one of the results of {base.name}, "
                                    "which runs on NumPy")
            on_numpy.add(id(d.node))


def _cut(graph: Graph, runs: list[tuple[Placement, list[Node]]]) -> list[Piece]:
    """One Piece per run: reads are nodes defined outside the run, writes are nodes read after it."""
    if len(runs) == 1:   # the whole graph is one piece: no copy, the graph itself
        return [Piece(graph, runs[0][0], list(runs[0][1]), list(graph.inputs), [])]
    read_later: list[set[int]] = [set() for _ in runs]   # per run: ids of its nodes read by later runs/outputs
    owner = {id(n): i for i, (_, nodes) in enumerate(runs) for n in nodes}
    for i, (_, nodes) in enumerate(runs):
        for n in nodes:
            for a in n.inputs():
                j = owner.get(id(a))
                if j is not None and j != i:
                    read_later[j].add(id(a))
    for o in iter_nodes(graph.outputs):
        if id(o) in owner:
            read_later[owner[id(o)]].add(id(o))
    return [_piece(graph, i, placement, nodes, read_later[i]) for i, (placement, nodes) in enumerate(runs)]


def _piece(graph: Graph, index: int, placement: Placement, nodes: list[Node], keep: set[int]) -> Piece:
    sub = Graph(f"{graph.name}_{index}")
    piece = Piece(sub, placement, list(nodes))
    local: dict[int, Node] = {}
    mine = {id(n) for n in nodes}

    def arg(n: Node) -> Node:
        got = local.get(id(n))
        if got is None:
            if n.op == CONST:
                got = sub.add_const(n.value)
            else:
                got = sub.add_input(n.name if n.op == INPUT else f"v{n.name.lstrip('%')}", n.spec)
                piece.reads.append(n)
            local[id(n)] = got
        return got

    for n in nodes:
        args, kwargs = map_nodes(n.args, arg), map_nodes(n.kwargs, arg)
        new = sub.call(n.op, n.target, args, kwargs, n.spec)
        new.meta.update(n.meta)
        local[id(n)] = new
    piece.writes = [n for n in graph.nodes if id(n) in keep and id(n) in mine]
    sub.set_outputs([local[id(n)] for n in piece.writes])
    return piece


def lower_graph(graph: Graph, table: LoweringTable, compile_engine: Callable[[Graph], Callable[..., tuple]],
                *, min_engine_ops: int = 1) -> Callable[..., tuple]:
    """A callable running `graph`: engine pieces compiled by `compile_engine(piece_graph)`, the rest by the
    NumPy code generator, chained in node order. A piece whose compile raises NotLowerable runs on NumPy."""
    refused: dict[int, str] = {}
    while True:
        plan = plan_lowering(graph, table, min_engine_ops=min_engine_ops, refused=refused)
        compiled = _compile_pieces(plan, compile_engine, refused)
        if compiled is not None:
            break
    run = compiled[0] if len(plan.pieces) == 1 else _chain(plan, compiled)
    run.__minidynamo_lowering__ = plan      # type: ignore[attr-defined]
    return run


def _compile_pieces(plan: LoweringPlan, compile_engine: Callable[[Graph], Callable[..., tuple]],
                    refused: dict[int, str]) -> list[Callable[..., tuple]] | None:
    """Compiled pieces, or None after adding to `refused` the outer node an engine named (plan again)."""
    compiled = []
    for piece in plan.pieces:
        fn = None
        if piece.placement is Placement.ENGINE:
            try:
                fn = compile_engine(piece.graph)
            except NotLowerable as e:
                inner = [n for n in piece.graph.nodes if n.is_call]
                if e.node is not None and any(n is e.node for n in inner):
                    outer = piece.nodes[next(i for i, n in enumerate(inner) if n is e.node)]
                    refused[id(outer)] = e.reason
                    return None
                piece.placement = Placement.NUMPY
                inside = {id(n) for n in piece.nodes}
                plan.decisions = [Decision(d.node, Placement.NUMPY, e.reason) if id(d.node) in inside else d
                                  for d in plan.decisions]
        compiled.append(fn if fn is not None else codegen.compile_graph(piece.graph))
    return compiled


def _chain(plan: LoweringPlan, compiled: list[Callable[..., tuple]]) -> Callable[..., tuple]:
    """Run the pieces in order; values cross between them by outer node identity."""
    graph, pieces = plan.graph, plan.pieces
    input_ids = [id(n) for n in graph.inputs]
    steps = [(fn, [id(n) for n in p.reads], [id(n) for n in p.writes]) for p, fn in zip(pieces, compiled)]
    outputs = graph.outputs

    def run(*inputs: Any) -> tuple:
        env: dict[int, Any] = dict(zip(input_ids, inputs))
        for fn, reads, writes in steps:
            env.update(zip(writes, fn(*[env[i] for i in reads])))
        return tuple(map_nodes(o, lambda n: n.value if n.op == CONST else env[id(n)]) for o in outputs)

    run.__name__ = f"lowered_{graph.name}"
    return run


def numpy_surface_not_lowered(registry: dict) -> dict[str, str]:
    """Reasons an engine leaves NumPy's everyday surface (issue 9) to NumPy: ufunc methods, numpy.fft, the
    global random draws, linalg factorizations, statistics and sequence helpers."""
    reasons: dict[str, str] = {}
    for name in registry:
        if "." in name and name.rsplit(".", 1)[1] in ("outer", "reduce", "accumulate", "reduceat", "at"):
            reasons[name] = "a ufunc method (outer/reduce/accumulate/reduceat/at): runs as NumPy"
        elif name.startswith("fft."):
            reasons[name] = "pocketfft's exact rounding is not reproduced by the engine's FFT"
        elif name in ("random.default_rng", "random.RandomState"):
            reasons[name] = "makes a NumPy generator object, which no engine holds"
        elif name.startswith("random."):
            reasons[name] = "draws from NumPy's global RandomState, whose stream the engine does not reproduce"
        elif name.startswith(("Generator.", "RandomState.")):
            reasons[name] = "draws from a NumPy generator object, whose stream the engine does not reproduce"
    for name in ("cholesky", "qr", "svd", "eigh", "eigvalsh", "eig", "eigvals", "slogdet", "pinv",
                 "matrix_power", "lstsq"):
        reasons[name] = "NumPy raises LinAlgError on bad values and returns LAPACK's exact results and types"
    for name in ("cov", "corrcoef", "median", "percentile", "quantile", "histogram", "diff", "convolve",
                 "correlate", "interp", "searchsorted", "indices", "meshgrid", "angle", "real", "imag", "sort",
                 "argsort", "diag"):
        reasons[name] = "not lowered yet: runs as NumPy (issue 9 registered it for capture, not for engines)"
    for name in ("atleast_1d", "atleast_2d", "atleast_3d", "insert", "isclose", "hsplit", "vsplit", "dsplit",
                 "digitize", "sliding_window_view"):
        reasons[name] = "not lowered yet: runs as NumPy (registered for capture of real code, not for engines)"
    reasons["nonzero"] = ("its length is a mask's count, known only when the graph runs: engines get no count "
                          "symbol and break before it")
    for name in ("allclose", "array_equal", "array_equiv"):
        reasons[name] = "answers with a Python bool, which stays in Python (runs as NumPy)"
    for name, opdef in registry.items():
        if getattr(opdef, "checks", False):
            reasons[name] = "a check: returns None or raises, and its exception runs the function eagerly"
    return reasons

