"""Higher-order nodes: `cond`, `while_loop` and `fori_loop`, calls whose target holds subgraphs (like jaxpr's).

Imports graph.ir (and graph.interp lazily, when a target is called directly). Every front end builds them
through `add_cond` / `add_while_loop`, which check the specs and return the node; each result is then read
with `getitem(node, i)` projections, as for any op with several results::

    %2 = cond(%1, x, w)  # (f64[4,8],)          node.args = (pred, *operands)
      true(a0: f64[4,8], a1: f64[4,8]):           node.target.true_graph: inputs = operands
        %0 = tanh(a0)  # f64[4,8]
        return (%0)
      false(a0: f64[4,8], a1: f64[4,8]):          node.target.false_graph: same inputs, same output specs
        return (a1)
    %3 = getitem(%2, 0)  # f64[4,8]

    %5 = while_loop(v, n)  # (f64[8], i64)       node.args = carried values (initial)
      cond(c0: f64[8], c1: i64):                  node.target.cond_graph: carried -> (pred,)
        ...
      body(c0: f64[8], c1: i64):                  node.target.body_graph: carried -> carried (same specs)
        ...

    %7 = fori_loop(1, n, 1, v, A)  # (f64[8],)    node.args = (start, stop, step, *carried, *invariants)
      body(a0: py_int, a1: f64[8], a2: f64[9]):  node.target.body_graph: (index, *carried, *invariants)
        ...                                       -> (*carried[, stop]) (same specs; `stop` a py_bool)

Semantics are Python's: `cond` evaluates `bool(pred)` once and runs only the chosen arm; `while_loop`
evaluates `bool(cond_graph(*carried)[0])` before each iteration and runs the body while it is true (zero
times when it is false at once); `fori_loop` runs `for i in range(start, stop, step)` (bounds read once,
as range() reads them), the body on (i, carried, invariants) each time, and leaves the loop after an
iteration whose extra `stop` output is true (a `break`). Its body may write into arrays it is given: those
writes happen in eager's order, iteration by iteration. Subgraphs see only their inputs (no free
variables), so every backend can lower them on their own. The targets are callable (they run the subgraphs
with the reference interpreter), so a backend that knows nothing of control flow still runs them correctly,
just without compiling arms.
"""

from __future__ import annotations

from typing import Any, Iterable

from .ir import ArraySpec, Graph, Node, PyScalarSpec, Spec, format_spec

COND = "cond"
WHILE_LOOP = "while_loop"
FORI_LOOP = "fori_loop"
CONTROL_OPS = (COND, WHILE_LOOP, FORI_LOOP)


def _run(graph: Graph, values: Iterable[Any]) -> tuple:
    from .interp import run_unchecked
    return run_unchecked(graph, tuple(values))


class _ControlOp:
    """What the targets of cond and while_loop share: two named subgraphs, rebuilt by passes (replace)."""

    __slots__ = ()
    NAME = ""
    LABELS: tuple[str, str] = ("", "")      # how printing labels the two subgraphs

    def __init__(self, first: Graph, second: Graph) -> None:
        for slot, graph in zip(self.__slots__, (first, second)):
            setattr(self, slot, graph)

    @property
    def subgraphs(self) -> tuple[tuple[str, Graph], ...]:
        return tuple((label, getattr(self, slot)) for label, slot in zip(self.LABELS, self.__slots__))

    def replace(self, graphs: list[Graph]) -> "_ControlOp":
        return type(self)(*graphs)

    def __repr__(self) -> str:
        return self.NAME


class CondOp(_ControlOp):
    """Target of a `cond` node: `CondOp(t, f)(pred, *operands)` runs t or f on the operands."""

    __slots__ = ("true_graph", "false_graph")
    NAME, LABELS = COND, ("true", "false")

    def __call__(self, pred: Any, *operands: Any) -> tuple:
        return _run(self.true_graph if pred else self.false_graph, operands)

    def check_node(self, node: Node) -> None:
        check_cond(node)


class WhileOp(_ControlOp):
    """Target of a `while_loop` node: `WhileOp(c, b)(*carried)` runs b while c's single output is true."""

    __slots__ = ("cond_graph", "body_graph")
    NAME, LABELS = WHILE_LOOP, ("cond", "body")

    def __call__(self, *carried: Any) -> tuple:
        while _run(self.cond_graph, carried)[0]:
            carried = _run(self.body_graph, carried)
        return tuple(carried)

    def check_node(self, node: Node) -> None:
        check_while(node)


class ForiOp:
    """Target of a `fori_loop` node: `ForiOp(body, n, breaks)(start, stop, step, *carried, *invariants)` runs
    `for i in range(start, stop, step): carried = body(i, *carried, *invariants)[:n]`, leaving the loop
    after an iteration whose output n (there when `breaks`) is true; returns the final carried values."""

    __slots__ = ("body_graph", "n_carried", "breaks")
    NAME, LABELS = FORI_LOOP, ("body",)

    def __init__(self, body_graph: Graph, n_carried: int, breaks: bool) -> None:
        self.body_graph, self.n_carried, self.breaks = body_graph, n_carried, breaks

    @property
    def subgraphs(self) -> tuple[tuple[str, Graph], ...]:
        return (("body", self.body_graph),)

    def replace(self, graphs: list[Graph]) -> "ForiOp":
        return ForiOp(graphs[0], self.n_carried, self.breaks)

    def __call__(self, start: Any, stop: Any, step: Any, *values: Any) -> tuple:
        n = self.n_carried
        carried, invariants = values[:n], values[n:]
        for i in range(start, stop, step):
            out = _run(self.body_graph, (i, *carried, *invariants))
            carried = out[:n]
            if self.breaks and out[n]:
                break
        return tuple(carried)

    def __repr__(self) -> str:
        return self.NAME

    def check_node(self, node: Node) -> None:
        check_fori(node)


def subgraphs(node: Node) -> tuple[tuple[str, Graph], ...]:
    """(label, graph) pairs of a control-flow node; () for every other node."""
    return getattr(node.target, "subgraphs", ()) if node.op in CONTROL_OPS else ()


def is_control(node: Node) -> bool:
    return node.op in CONTROL_OPS and isinstance(node.target, (_ControlOp, ForiOp))


def spec_of(value: Any) -> Spec:
    """The spec of a node argument: a Node's spec, None for anything else (a Python constant)."""
    return value.spec if isinstance(value, Node) else None


def _output_specs(graph: Graph, label: str) -> tuple:
    specs = []
    for o in graph.outputs:
        if not isinstance(o, Node) or not isinstance(o.spec, (ArraySpec, PyScalarSpec)):
            raise ValueError(f"{label} subgraph {graph.name}: output {o!r} is not an array or scalar node")
        specs.append(o.spec)
    return tuple(specs)


def _check_inputs(graph: Graph, values: tuple, label: str, what: str) -> None:
    specs = tuple(n.spec for n in graph.inputs)
    given = tuple(spec_of(v) for v in values)
    if specs != given:
        raise ValueError(f"{label} subgraph takes ({', '.join(map(format_spec, specs))}) but the {what} are "
                         f"({', '.join(map(format_spec, given))})")


def check_cond(node: Node) -> None:
    """Both arms take the operands' specs and produce the same output specs, which are the node's spec."""
    op: CondOp = node.target
    if not node.args:
        raise ValueError(f"{node.name} = cond(...): no predicate")
    pred, operands = node.args[0], node.args[1:]
    if isinstance(pred, Node) and isinstance(pred.spec, ArraySpec) and pred.spec.size != 1:
        raise ValueError(f"{node.name} = cond(...): predicate {pred.name} is {pred.spec}, not a single value")
    _check_subgraphs(node, operands, "operands")
    t, f = _output_specs(op.true_graph, "true"), _output_specs(op.false_graph, "false")
    _same(node, t, f, "the arms produce different specs: true {0}, false {1}")
    _same(node, node.spec, t, "spec {0} but the arms produce {1}")


def check_while(node: Node) -> None:
    """The condition maps the carried specs to one single-value predicate; the body keeps the specs fixed."""
    op: WhileOp = node.target
    carried = node.args
    _check_subgraphs(node, carried, "carried values")
    c = _output_specs(op.cond_graph, "cond")
    if len(c) != 1 or (isinstance(c[0], ArraySpec) and c[0].size != 1):
        raise ValueError(f"{node.name} = while_loop(...): the condition must return one single value, got "
                         f"({', '.join(map(format_spec, c))})")
    b, given = _output_specs(op.body_graph, "body"), tuple(spec_of(v) for v in carried)
    _same(node, given, b, "the body changes the carried specs from {0} to {1}")
    _same(node, node.spec, given, "spec {0} but it carries {1}")


_INT, _BOOL = PyScalarSpec(int), PyScalarSpec(bool)


def check_fori(node: Node) -> None:
    """Bounds are ints (constants or py_int values), the step a nonzero constant; the body takes (py_int,
    carried..., invariants...) and gives the carried specs back (then a py_bool when it breaks)."""
    op: ForiOp = node.target
    if len(node.args) < 3 + op.n_carried:
        raise ValueError(f"{node.name} = fori_loop(...): expected start, stop, step and {op.n_carried} carried")
    start, stop, step = node.args[:3]
    for bound in (start, stop):
        if not (type(bound) is int or isinstance(bound, Node) and bound.spec == _INT):
            raise ValueError(f"{node.name} = fori_loop(...): bound {bound!r} is not an int")
    if type(step) is not int or step == 0:
        raise ValueError(f"{node.name} = fori_loop(...): step {step!r} is not a nonzero int")
    values = node.args[3:]
    specs = (_INT, *(spec_of(v) for v in values))
    given = tuple(n.spec for n in op.body_graph.inputs)
    _same(node, given, specs, "the body takes {0} but it is given (py_int, carried, invariants) {1}")
    op.body_graph.lint()
    carried = specs[1:1 + op.n_carried]
    out = _output_specs(op.body_graph, "body")
    _same(node, out, carried + ((_BOOL,) if op.breaks else ()), "the body gives {0} for {1}")
    _same(node, node.spec, carried, "spec {0} but it carries {1}")


def _check_subgraphs(node: Node, values: tuple, what: str) -> None:
    for label, g in node.target.subgraphs:
        _check_inputs(g, values, f"{node.name} = {node.op}(...): {label}", what)
        g.lint()


def _same(node: Node, a: tuple, b: tuple, message: str) -> None:
    """Raise ValueError(message with both spec tuples) unless a == b."""
    if a != b:
        specs = [f"({', '.join(map(format_spec, x))})" for x in (a, b)]
        raise ValueError(f"{node.name} = {node.op}(...): " + message.format(*specs))


def add_cond(graph: Graph, pred: Any, true_graph: Graph, false_graph: Graph, operands: tuple) -> Node:
    """Append `cond(pred, *operands)` to `graph` and check it; returns the node (a tuple of results)."""
    spec = _output_specs(true_graph, "true")
    node = graph.call(COND, CondOp(true_graph, false_graph), (pred, *operands), spec=spec)
    _checked(graph, node, check_cond)
    return node


def add_while_loop(graph: Graph, cond_graph: Graph, body_graph: Graph, carried: tuple) -> Node:
    """Append `while_loop(*carried)` to `graph` and check it; returns the node (the final carried values)."""
    spec = tuple(spec_of(v) for v in carried)
    node = graph.call(WHILE_LOOP, WhileOp(cond_graph, body_graph), tuple(carried), spec=spec)
    _checked(graph, node, check_while)
    return node


def add_fori_loop(graph: Graph, bounds: tuple, body_graph: Graph, carried: tuple, invariants: tuple,
                  breaks: bool) -> Node:
    """Append `fori_loop(start, stop, step, *carried, *invariants)` to `graph` and check it; returns the node
    (the final carried values)."""
    spec = tuple(spec_of(v) for v in carried)
    op = ForiOp(body_graph, len(carried), breaks)
    node = graph.call(FORI_LOOP, op, (*bounds, *carried, *invariants), spec=spec)
    _checked(graph, node, check_fori)
    return node


def _checked(graph: Graph, node: Node, check: Any) -> None:
    try:
        check(node)
    except ValueError:
        graph.nodes.pop()
        raise
