"""The reference evaluator: run a Graph on concrete arrays, one node at a time.

Imports graph.ir only. `run(graph, inputs)` checks every input against its ArraySpec first and is what tests
compare other backends with; `run_unchecked` skips the checks (the eager backend); `Interpreter` is the
class both use, with one hook per node kind so a subclass can change how ops run (torch.fx's Interpreter).
"""

from __future__ import annotations

import contextlib
import copy
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from .errstate import errstate_of
from .ir import CONST, INPUT, ArraySpec, Graph, Node, map_nodes


def describe(value: Any) -> str:
    """How an input reads in an error message: its spec when it is array-like, else its type."""
    if type(value) is np.ndarray or isinstance(value, np.generic):
        return str(ArraySpec.of(value))
    if isinstance(value, np.ndarray):
        # A subclass (np.matrix, a masked array) carries its own semantics, so it never matches a spec.
        return f"{type(value).__name__} {ArraySpec.of(value)}"
    return type(value).__name__


def check_inputs(graph: Graph, inputs: Sequence[Any] | Mapping[str, Any]) -> list[Any]:
    """The inputs as a list in `graph.inputs` order, after checking names, types, shapes and dtypes.

    Raises ValueError naming the offending input; nothing is converted (a list, a float32 array for an
    f64 input, a 0-d array for a NumPy scalar input are all refused).
    """
    names = graph.input_names
    if isinstance(inputs, Mapping):
        missing = [n for n in names if n not in inputs]
        extra = [n for n in inputs if n not in names]
        if missing or extra:
            parts = ([f"missing {', '.join(map(repr, missing))}"] if missing else []) + \
                    ([f"unexpected {', '.join(map(repr, extra))}"] if extra else [])
            raise ValueError(f"graph {graph.name}: {'; '.join(parts)} (inputs are {names})")
        values = [inputs[n] for n in names]
    else:
        values = list(inputs)
        if len(values) != len(names):
            raise ValueError(f"graph {graph.name}: expected {len(names)} inputs {names}, got {len(values)}")
    for node, value in zip(graph.inputs, values):
        if not node.spec.matches(value):
            raise ValueError(f"input {node.name!r}: expected {node.spec}, got {describe(value)}")
    return values


class Interpreter:
    """Evaluate a graph node by node; subclass and override a hook to change how nodes run.

    `call_op(node, args, kwargs)` runs one op call (args already hold values, not Nodes); by default it
    calls `op_<name>` when the subclass defines one for `node.op`, else `node.target`. `const(node)` and
    `placeholder(node, value)` handle the other node kinds. Example: count calls and replace tanh::

        class Tracing(Interpreter):
            def __init__(self, graph):
                super().__init__(graph)
                self.calls = []

            def call_op(self, node, args, kwargs):
                self.calls.append(node.op)
                return super().call_op(node, args, kwargs)

            def op_tanh(self, node, args, kwargs):     # only nodes whose op is "tanh"
                return np.clip(args[0], -1.0, 1.0)

        it = Tracing(graph)
        outputs = it.run([x, w])          # or it.run({"x": x, "w": w}); a tuple of outputs
        it.calls                          # ['matmul', 'tanh', 'sum']

    Op names that are not identifiers (`add.reduce`) map to hooks with the other characters replaced by
    "_" (`op_add_reduce`).
    """

    def __init__(self, graph: Graph, *, check: bool = True) -> None:
        self.graph = graph
        self.check = check
        self.env: dict[Node, Any] = {}

    # ---- hooks -----------------------------------------------------------------------------------
    def placeholder(self, node: Node, value: Any) -> Any:
        """The value an input node takes (the caller's array, unchanged)."""
        return value

    def const(self, node: Node) -> Any:
        """The value of a const node: the captured object itself, not a copy."""
        return node.value

    def call_op(self, node: Node, args: tuple, kwargs: dict) -> Any:
        """Run one op call; by default `op_<name>` when defined, else `node.target(*args, **kwargs)`."""
        hook = getattr(self, "op_" + _hook_suffix(node.op), None)
        if hook is not None:
            return hook(node, args, kwargs)
        return node.target(*args, **kwargs)

    def op_cond(self, node: Node, args: tuple, kwargs: dict) -> tuple:
        """`cond(pred, *operands)`: bool(pred) once, then only the chosen arm, by this same interpreter."""
        target = node.target
        return self.run_subgraph(target.true_graph if args[0] else target.false_graph, args[1:])

    def op_while_loop(self, node: Node, args: tuple, kwargs: dict) -> tuple:
        """`while_loop(*carried)`: the body runs while the condition's one output is true (maybe never)."""
        target, carried = node.target, tuple(args)
        while self.run_subgraph(target.cond_graph, carried)[0]:
            carried = self.run_subgraph(target.body_graph, carried)
        return carried

    def op_fori_loop(self, node: Node, args: tuple, kwargs: dict) -> tuple:
        """`fori_loop(start, stop, step, *carried, *invariants)`: the body once per index of the range, until
        an iteration's `stop` output is true (graph/control.py)."""
        target, n = node.target, node.target.n_carried
        carried, invariants = tuple(args[3:3 + n]), tuple(args[3 + n:])
        for i in range(*args[:3]):
            out = self.run_subgraph(target.body_graph, (i, *carried, *invariants))
            carried = out[:n]
            if target.breaks and out[n]:
                break
        return carried

    def run_subgraph(self, graph: Graph, values: tuple) -> tuple:
        """Run a subgraph with a shallow copy of this interpreter, so a subclass's hooks (and its state,
        such as a list of calls) apply inside arms and loop bodies too."""
        child = copy.copy(self)
        child.graph, child.check = graph, False
        return child.run(values)

    # ---- driver ----------------------------------------------------------------------------------
    def run(self, inputs: Sequence[Any] | Mapping[str, Any]) -> tuple:
        """Evaluate the graph; `inputs` is a sequence in `graph.inputs` order or a dict by input name."""
        if self.check:
            values: Iterable[Any] = check_inputs(self.graph, inputs)
        elif isinstance(inputs, Mapping):
            values = [inputs[n] for n in self.graph.input_names]
        else:
            values = inputs
            if len(values) != len(self.graph.inputs):
                raise TypeError(f"{self.graph.name}() takes {len(self.graph.inputs)} inputs, "
                                f"got {len(values)}")
        env = self.env = {}
        given = iter(values)
        lookup = env.__getitem__
        for node in self.graph.nodes:
            if node.op == INPUT:
                env[node] = self.placeholder(node, next(given))
            elif node.op == CONST:
                env[node] = self.const(node)
            else:
                args = map_nodes(node.args, lookup)
                kwargs = map_nodes(node.kwargs, lookup) if node.kwargs else {}
                stack = errstate_of(node)
                if stack:       # an op inside a captured `with np.errstate(...)` block
                    with contextlib.ExitStack() as managers:
                        for kw in stack:
                            managers.enter_context(np.errstate(**dict(kw)))
                        env[node] = self.call_op(node, args, kwargs)
                else:
                    env[node] = self.call_op(node, args, kwargs)
        return tuple(map_nodes(o, lookup) for o in self.graph.outputs)


def _hook_suffix(op: str) -> str:
    return "".join(c if c.isalnum() or c == "_" else "_" for c in op)


def run(graph: Graph, inputs: Sequence[Any] | Mapping[str, Any]) -> tuple:
    """Evaluate `graph` on checked inputs and return the tuple of its outputs."""
    if not isinstance(graph, Graph):
        raise TypeError(f"run(graph, inputs): graph must be a Graph (from trace(), LazyRunner or script()), got "
                        f"{type(graph).__name__} {graph!r}")
    return Interpreter(graph).run(inputs)


def run_unchecked(graph: Graph, inputs: Sequence[Any]) -> tuple:
    """`run` without the spec checks: the fast path backends use once guards have checked the inputs."""
    return Interpreter(graph, check=False).run(inputs)
