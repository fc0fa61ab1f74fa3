"""`trace(fn, input_shapes, params, mode, example)`: call fn once on proxy arrays and keep what it recorded.

Imports graph, errors and the sibling proxy/execute modules. Only array operations reach the graph; the rest of
the Python program runs normally during the one call, so loops unroll, `if`s on Python values and shapes
specialize, and side effects (print, list.append) happen once, at trace time. What happens at an `if` on an
array's value depends on `mode`: "error" raises TraceError, "specialize" follows the example input silently,
"guard" follows it and records a TraceGuard that `check_guards` re-evaluates on new inputs.
"""

from __future__ import annotations

import io
import linecache
import os
import sys
import tokenize
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..errors import TraceError
from ..graph import ops
from ..graph.passes import dce
from ..graph.ir import CONST, ArraySpec, Graph, Node, map_nodes
from .execute import TraceGuard, node_expr, prefix_graph
from .proxy import CONVERSIONS, MISSING, ArrayProxy, Recorder, describe

MODES = ("error", "specialize", "guard")

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_NUMPY_DIR = os.path.dirname(os.path.abspath(np.__file__))
_EXAMPLES_DIR = os.path.join(_PACKAGE_DIR, "examples") + os.sep


@dataclass(frozen=True)
class Location:
    """Where the user's program asked for a value: file, line and that line's source text."""

    filename: str
    lineno: int
    text: str

    def __str__(self) -> str:
        return f"{os.path.basename(self.filename)}:{self.lineno} {self.text}".rstrip()


def user_location() -> Location:
    """The innermost frame outside minidynamo and NumPy: the line of the user's `if` or `float()`."""
    frame = sys._getframe(1)
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        inside = path.startswith((_PACKAGE_DIR + os.sep, _NUMPY_DIR + os.sep))
        if not inside or path.startswith(_EXAMPLES_DIR):   # bundled examples are user code
            break
        frame = frame.f_back
    if frame is None:
        return Location("<unknown>", 0, "")
    text = linecache.getline(frame.f_code.co_filename, frame.f_lineno)
    return Location(frame.f_code.co_filename, frame.f_lineno, _without_comment(text).strip())


def _without_comment(line: str) -> str:
    """The line minus a trailing `# comment` (found with tokenize, so a '#' inside a string stays)."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(line).readline):
            if token.type == tokenize.COMMENT:
                return line[: token.start[1]]
    except (tokenize.TokenError, SyntaxError):   # a line cut out of a bracketed expression
        pass
    return line


class TracedArray(ArrayProxy):
    """The proxy `trace()` passes to the program in place of each input array."""

    __slots__ = ()


class Tracer(Recorder):
    """The Recorder of one `trace()` call; carries concrete example values when the mode may need them."""

    def __init__(self, graph: Graph, mode: str, with_values: bool) -> None:
        super().__init__()
        self.graph = graph
        self.mode = mode
        self.with_values = with_values
        self.values: dict[Node, Any] = {}
        self.finished = False

    def node_for(self, proxy: ArrayProxy) -> Node:
        self._check_open()
        return proxy._node

    def make_proxy(self, node: Node, value: Any) -> TracedArray:
        if value is not MISSING:
            self.values[node] = value
        return TracedArray(self, node, node.spec, value)

    def compute(self, target: Any, args: tuple, kwargs: dict) -> Any:
        if not self.with_values:
            return MISSING
        # The example runs through the same calls, in the same order, as the graph will.
        value_of = lambda n: n.value if n.op == CONST else self.values[n]  # noqa: E731
        return target(*map_nodes(args, value_of), **map_nodes(kwargs, value_of))

    def record(self, opdef: ops.OpDef, args: tuple, kwargs: dict | None = None, target: Any = None) -> Any:
        if opdef.data_dependent_shape:
            # A traced graph has static shapes; np.nonzero or a boolean mask has no shape until it runs.
            where = user_location()
            raise TraceError(f"{opdef.name} at {where.filename}:{where.lineno}: `{where.text}` has an output "
                             "shape that depends on the data, which a traced graph cannot hold; "
                             "use LazyRunner, or compute it outside the traced function")
        return super().record(opdef, args, kwargs, target)

    def decide(self, proxy: ArrayProxy, kind: str) -> Any:
        self._check_open()
        where = user_location()
        expr = node_expr(proxy._node)
        if self.mode == "error":
            what = "branch" if kind == "bool" else f"conversion {kind}()"
            raise TraceError(
                f"data-dependent {what} at {where.filename}:{where.lineno}: `{where.text}` needs the value of "
                f"{expr} ({describe(proxy)}), which tracing does not know (mode='error'). Rewrite it with "
                "np.where, trace with mode='specialize' or mode='guard' and an example, or use LazyRunner.")
        if proxy._value is MISSING:
            raise ValueError(f"trace(mode={self.mode!r}) needs example= arrays to decide {kind}({expr}) "
                             f"at {where}")
        result = CONVERSIONS[kind](proxy._value)
        if self.mode == "guard":
            expected = result.copy() if isinstance(result, np.ndarray) else result   # later ops may write it
            name = f"{self.graph.name}_guard{len(self.graph.guards)}"
            condition = prefix_graph(self.graph, proxy._node, name)
            expr = node_expr(condition.outputs[0])   # in the names of the guard's own graph
            self.graph.guards.append(TraceGuard(condition, kind, expected, expr, str(where)))
        return result

    def _check_open(self) -> None:
        if self.finished:
            raise TraceError("a traced array was used after its trace() returned; traced arrays only "
                             "exist while the traced function runs")


def trace(fn: Callable, input_shapes: dict, params: Any = None, mode: str = "error",
          example: dict | None = None) -> Graph:
    """Trace `fn` into a Graph by calling it once with proxy arrays.

    input_shapes: {name: shape} in fn's argument order, shapes as tuples of non-negative ints.
    params:       passed unchanged as fn's last argument (fn(*inputs, params)); arrays in it become const nodes.
    mode:         what to do at a data-dependent `if` (see the module docstring).
    example:      {name: ndarray} with the same shapes; sets the inputs' dtypes (float64 otherwise) and is
                  the value "specialize" and "guard" follow.

    >>> g = trace(lambda x, p: np.tanh(x @ p["W"]), {"x": (4, 8)}, {"W": np.ones((8, 3))})  # doctest: +SKIP
    """
    if not callable(fn):
        raise TypeError(f"trace(fn, input_shapes): fn must be callable, got {type(fn).__name__} {fn!r}")
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(map(repr, MODES))}, got mode={mode!r}")
    shapes = _check_shapes(input_shapes)
    examples = _check_example(example, shapes)
    if params is not None and not isinstance(params, dict):
        raise TypeError(f"params must be a dict of arrays (or None), got {type(params).__name__}")
    graph = Graph(fn.__name__ if getattr(fn, "__name__", "").isidentifier() else "traced")
    tracer = Tracer(graph, mode, with_values=examples is not None and mode != "error")
    proxies = []
    for name, shape in shapes.items():
        spec = ArraySpec(shape, examples[name].dtype if examples else np.float64)
        value = examples[name].copy() if tracer.with_values else MISSING   # the program may write into it
        proxies.append(tracer.make_proxy(graph.add_input(name, spec), value))
    try:
        result = fn(*proxies, params) if params is not None else fn(*proxies)
        graph.set_outputs(_outputs(tracer, result))
    finally:
        tracer.finished = True
    # Drop what no output needs, such as the `s > 0` a specialized `if` consumed (a guard keeps its own copy).
    graph = dce(graph)
    graph.lint()
    return graph


def _check_shapes(input_shapes: Any) -> dict[str, tuple[int, ...]]:
    if not isinstance(input_shapes, dict):
        raise TypeError(f"input_shapes must be a dict {{name: shape}}, got {type(input_shapes).__name__}")
    shapes = {}
    for name, shape in input_shapes.items():
        if not (isinstance(name, str) and name.isidentifier()):
            raise ValueError(f"input name {name!r} must be a Python identifier")
        ok = isinstance(shape, tuple) and all(
            isinstance(d, (int, np.integer)) and not isinstance(d, (bool, np.bool_)) and d >= 0 for d in shape)
        if not ok:
            raise ValueError(f"input {name!r}: shape must be a tuple of non-negative ints, got {shape!r}")
        shapes[name] = tuple(int(d) for d in shape)
    return shapes


def _check_example(example: Any, shapes: dict[str, tuple[int, ...]]) -> dict[str, np.ndarray] | None:
    if example is None:
        return None
    if not isinstance(example, dict):
        raise TypeError(f"example must be a dict {{name: ndarray}}, got {type(example).__name__}")
    missing = [n for n in shapes if n not in example]
    extra = [n for n in example if n not in shapes]
    if missing or extra:
        raise ValueError(f"example must give exactly the inputs {list(shapes)}: "
                         f"missing {missing}, unknown {extra}")
    for name, shape in shapes.items():
        value = example[name]
        if type(value) is not np.ndarray:
            raise TypeError(f"example input {name!r} must be a numpy.ndarray, got {type(value).__name__}")
        if value.shape != shape:
            raise ValueError(f"example input {name!r}: expected shape {shape}, got {value.shape}")
    return dict(example)


def _outputs(tracer: Tracer, result: Any) -> list:
    """fn's return value as graph outputs: one value, or the items of a returned tuple or list."""
    items = list(result) if isinstance(result, (tuple, list)) else [result]
    outputs = []
    for item in items:
        if isinstance(item, (ArrayProxy, np.ndarray, np.generic)):
            outputs.append(tracer.lift(item, "return value"))
        elif isinstance(item, (bool, int, float, complex, type(None))):
            outputs.append(item)
        else:
            raise TypeError(f"the traced function returned {describe(item)}; return arrays, numbers, "
                            "or a tuple/list of them")
    return outputs
