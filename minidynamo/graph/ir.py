"""The graph IR: a Graph is an SSA list of Nodes over arrays with known specs.

Imports nothing else of the package; every front end (tracing, LazyRunner, compile) builds these and every
backend runs them.

Grammar (what `str(graph)` prints)::

    graph   ::= "graph" name "(" input ("," input)* ")" ":" NL node* "return" "(" arg ("," arg)* ")"
    input   ::= name ":" spec                          -- an array read afresh on every run
    node    ::= "%" int "=" op "(" arg ("," arg)* ("," kw "=" arg)* ")" "#" spec
    arg     ::= "%" int | input-name | python-constant | "(" arg,* ")" | "[" arg,* "]" | slice
    spec    ::= dtype "[" dim ("," dim)* "]"           -- an ndarray of that shape ("f64[]" is 0-d)
              | dtype                                  -- a NumPy scalar (np.float64 ...), what reductions return
              | "(" spec,* ")" | "None"               -- several results (split) / a mutation's None
              | "rng<" type ">"                        -- a Generator / RandomState object (RngSpec)
    dim     ::= int | sym                              -- sym: `s0`, `8*s0`, `s0 + s1`, `(s0//2)` (symbolic.py)

A call node may hold subgraphs (`cond`, `while_loop`: graph/control.py); they print nested under it.
A node is one of four kinds, told apart by `op`: "input" (a graph argument), "const" (a captured array, kept
in `node.value`), anything else is a call of a registered op (`node.target` is the callable, normally the
NumPy function of that name). Scalars (ints, floats, slices, tuples of them) appear inline in `args`.
Outputs are `graph.outputs`, a list of nodes or plain Python values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .symbolic import Sym

INPUT = "input"
CONST = "const"
ERRSTATE = "errstate"   # node.meta key: the np.errstate blocks an op runs inside (graph/errstate.py)
WHERE = "where"         # node.meta key: where the program was when a front end recorded the op (opaque here)


def _dtype_short(dtype: np.dtype) -> str:
    """f64, f32, i64, u8, b1 (bool), c128 ... : the compact names JAX and FX printing use."""
    if dtype == np.bool_:
        return "b1"
    return f"{dtype.kind}{dtype.itemsize * 8}" if dtype.kind in "iufc" else str(dtype)


@dataclass(frozen=True)
class ArraySpec:
    """Shape and dtype of an array value; `scalar` marks a NumPy scalar (np.float64 ...) rather than an ndarray.
    A dimension is an int or a `Sym` of the capture's ShapeEnv (`f64[s0,16]`, see graph/symbolic.py).

    >>> str(ArraySpec((4, 16), np.dtype("float64")))
    'f64[4,16]'
    """

    shape: tuple[int, ...]
    dtype: np.dtype
    scalar: bool = False

    def __post_init__(self) -> None:
        shape = self.shape
        if type(shape) is not tuple or not all(type(d) is int for d in shape):   # (most are ints already)
            object.__setattr__(self, "shape", tuple(d if isinstance(d, Sym) else int(d) for d in shape))
        if not isinstance(self.dtype, np.dtype):          # (np.dtype(d) is d for a dtype d)
            object.__setattr__(self, "dtype", np.dtype(self.dtype))
        if self.scalar and self.shape != ():
            raise ValueError(f"a NumPy scalar has shape (), not {self.shape}")

    def __str__(self) -> str:
        name = _dtype_short(self.dtype)
        return name if self.scalar else f"{name}[{','.join(map(str, self.shape))}]"

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> "int | Sym":
        return math.prod(self.shape)

    @property
    def is_symbolic(self) -> bool:
        return any(isinstance(d, Sym) for d in self.shape)

    @staticmethod
    def of(value: Any) -> "ArraySpec":
        """The spec of a concrete ndarray or NumPy scalar."""
        if isinstance(value, np.ndarray):
            return ArraySpec(value.shape, value.dtype)
        if isinstance(value, np.generic):
            return ArraySpec((), value.dtype, scalar=True)
        raise TypeError(f"ArraySpec.of expects an ndarray or NumPy scalar, got {type(value).__name__}")

    def matches(self, value: Any) -> bool:
        """True when a concrete value has exactly this spec (type, shape and dtype)."""
        if self.scalar:
            return isinstance(value, np.generic) and value.dtype == self.dtype
        if type(value) is not np.ndarray or value.ndim != len(self.shape) or value.dtype != self.dtype:
            return False
        # A symbolic dimension matches any size: the dispatcher's relation guards check what it must be.
        return all(isinstance(d, Sym) or d == v for d, v in zip(self.shape, value.shape))


@dataclass(frozen=True)
class PyScalarSpec:
    """A Python int or float that is a graph input rather than a constant (an unspecialized scalar: a loop
    counter or a value computed in plain Python between graphs). Printed `py_int` / `py_float`."""

    type: type

    def __str__(self) -> str:
        return f"py_{self.type.__name__}"

    def matches(self, value: Any) -> bool:
        return type(value) is self.type


@dataclass(frozen=True)
class RngSpec:
    """A random generator object (np.random.Generator or RandomState) held by the graph: read from the
    caller (an input) or made in it (`np.random.default_rng(seed)`). Ops on it draw from its stream, in
    order; no engine holds one, so those ops stay on NumPy. Printed `rng<Generator>`."""

    type: type

    def __str__(self) -> str:
        return f"rng<{self.type.__name__}>"

    def matches(self, value: Any) -> bool:
        return type(value) is self.type


Spec = ArraySpec | PyScalarSpec | RngSpec | tuple | None


class MethodCall:
    """A node target that calls a method on its first argument: `MethodCall("sum")(x, axis=1)` is
    `x.sum(axis=1)`. Front ends use it for `x.f(...)` so a graph runs exactly the method eager Python runs
    (x.copy() and np.copy(x) differ in memory order, for example)."""

    __slots__ = ("name",)
    _interned: dict[str, "MethodCall"] = {}

    def __new__(cls, name: str) -> "MethodCall":
        inst = cls._interned.get(name)
        if inst is None:
            inst = super().__new__(cls)
            inst.name = name
            cls._interned[name] = inst
        return inst

    def __call__(self, obj: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(obj, self.name)(*args, **kwargs)

    def __repr__(self) -> str:
        return f"MethodCall({self.name!r})"


class Node:
    """One SSA value. `args`/`kwargs` hold Nodes and plain Python values (also nested in tuples/lists/slices).

    >>> g = Graph("f"); x = g.add_input("x", ArraySpec((2, 3), np.float64))
    >>> y = g.call("tanh", np.tanh, (x,), spec=ArraySpec((2, 3), np.float64)); str(y)
    '%0 = tanh(x)  # f64[2,3]'
    """

    __slots__ = ("op", "target", "args", "kwargs", "spec", "name", "value", "index", "meta", "_inputs")

    def __init__(self, op: str, target: Callable | None, args: tuple, kwargs: dict, spec: Spec,
                 name: str, value: Any = None) -> None:
        self.op = op
        self.target = target
        self.args = tuple(args)
        self.kwargs = dict(kwargs)
        self.spec = spec
        self.name = name
        self.value = value          # the array of a const node
        self.index = -1             # position in graph.nodes, set by Graph
        self.meta: dict[str, Any] = {}   # free-form notes (source line, user variable name)
        self._inputs: list[Node] | None = None   # inputs(), found once: args and kwargs never change

    @property
    def is_call(self) -> bool:
        return self.op not in (INPUT, CONST)

    def inputs(self) -> list["Node"]:
        """The Nodes this node reads, in argument order (duplicates included); a new list each time."""
        found = self._inputs
        if found is None:
            found = self._inputs = []
            _collect(self.args, found)
            if self.kwargs:
                _collect(self.kwargs, found)
        return list(found)

    def __repr__(self) -> str:
        return self.name

    def __str__(self) -> str:
        if self.op == INPUT:
            return f"{self.name}: {format_spec(self.spec)}"
        parts = [format_arg(a) for a in self.args] + [f"{k}={format_arg(v)}" for k, v in self.kwargs.items()]
        body = "const" + _const_summary(self.value) if self.op == CONST else f"{self.op}({', '.join(parts)})"
        under = "".join(f"  errstate({', '.join(f'{k}={v!r}' for k, v in kw)})" for kw in self.meta.get(ERRSTATE, ()))
        return f"{self.name} = {body}  # {format_spec(self.spec)}{under}"


def _const_summary(value: Any) -> str:
    if isinstance(value, np.ndarray) and value.size > 4:
        return f"(<{format_spec(ArraySpec.of(value))}>)"
    return f"({value!r})"


def iter_nodes(value: Any) -> list[Node]:
    """Every Node inside a (possibly nested) argument value, in order."""
    out: list[Node] = []
    _collect(value, out)
    return out


def last_reads(graph: "Graph") -> dict[int, int]:
    """id(node) -> the position in graph.nodes of the last node reading it, len(graph.nodes) for a value the
    graph returns: what is read after position i, for every i at once (a scan per question is quadratic)."""
    last: dict[int, int] = {}
    for i, n in enumerate(graph.nodes):
        for a in n.inputs():
            last[id(a)] = i
    end = len(graph.nodes)
    last.update((id(o), end) for o in iter_nodes(graph.outputs))
    return last


_NESTED = (tuple, list, dict, slice)


def _collect(value: Any, out: list[Node]) -> None:
    # A loop over the items, descending only into containers: capture reads the nodes of every argument
    # of every op several times, and a recursive generator per leaf was a fifth of a capture's time.
    if isinstance(value, Node):
        out.append(value)
        return
    if isinstance(value, dict):
        value = value.values()
    elif isinstance(value, slice):
        value = (value.start, value.stop, value.step)
    elif not isinstance(value, (tuple, list)):
        return
    for v in value:
        if isinstance(v, Node):
            out.append(v)
        elif isinstance(v, _NESTED):
            _collect(v, out)


def map_nodes(value: Any, fn: Callable[[Node], Any]) -> Any:
    """Rebuild a nested argument value with every Node replaced by fn(node)."""
    if isinstance(value, Node):
        return fn(value)
    # (list comprehensions, which 3.12+ inline, and no call per leaf: capture maps every op's arguments)
    if isinstance(value, tuple):
        return tuple([fn(v) if isinstance(v, Node) else map_nodes(v, fn) if isinstance(v, _NESTED) else v
                      for v in value])
    if isinstance(value, list):
        return [fn(v) if isinstance(v, Node) else map_nodes(v, fn) if isinstance(v, _NESTED) else v for v in value]
    if isinstance(value, dict):
        return {k: map_nodes(v, fn) for k, v in value.items()}
    if isinstance(value, slice):
        return slice(map_nodes(value.start, fn), map_nodes(value.stop, fn), map_nodes(value.step, fn))
    return value


def format_spec(spec: Spec) -> str:
    if spec is None:
        return "None"
    if isinstance(spec, tuple):
        return "(" + ", ".join(format_spec(s) for s in spec) + ")"
    return str(spec)


def format_arg(value: Any) -> str:
    """How an argument reads in the listing: nodes by name, slices as a:b:c, dtypes by name."""
    if isinstance(value, Node):
        return value.name
    if isinstance(value, slice):
        parts = ["" if p is None else format_arg(p) for p in (value.start, value.stop, value.step)]
        return ":".join(parts[:2]) if value.step is None else ":".join(parts)
    if isinstance(value, tuple):
        inner = ", ".join(format_arg(v) for v in value)
        return f"({inner},)" if len(value) == 1 else f"({inner})"
    if isinstance(value, list):
        return "[" + ", ".join(format_arg(v) for v in value) + "]"
    if isinstance(value, np.dtype):
        return str(value)
    if isinstance(value, type):
        return value.__name__
    if value is Ellipsis:
        return "..."
    return repr(value)


class Graph:
    """An ordered SSA list of nodes plus its outputs.

    >>> g = Graph("demo"); x = g.add_input("x", ArraySpec((4, 8), np.float64))
    >>> t = g.call("tanh", np.tanh, (x,), spec=ArraySpec((4, 8), np.float64)); g.set_outputs([t])
    >>> print(g)
    graph demo(x: f64[4,8]):
      %0 = tanh(x)  # f64[4,8]
      return (%0)
    """

    def __init__(self, name: str = "graph") -> None:
        self.name = name
        self.nodes: list[Node] = []
        self.outputs: list[Any] = []
        self.guards: list[Any] = []     # front ends attach their guards here (tracing's mode="guard")
        self._next_id = 0
        self._names: set[str] = set()
        self.on_call: Callable[[Node], None] | None = None    # a front end's hook: each new call node

    # ---- building ------------------------------------------------------------------------------
    def _append(self, node: Node) -> Node:
        node.index = len(self.nodes)
        self.nodes.append(node)
        return node

    def add_input(self, name: str, spec: "ArraySpec | PyScalarSpec") -> Node:
        if not name.isidentifier() or name in self._names:
            raise ValueError(f"input name {name!r} must be a fresh Python identifier")
        self._names.add(name)
        return self._append(Node(INPUT, None, (), {}, spec, name))

    def add_const(self, value: Any) -> Node:
        spec = ArraySpec.of(value) if isinstance(value, (np.ndarray, np.generic)) else None
        return self._append(Node(CONST, None, (), {}, spec, self._fresh(), value=value))

    def holds(self, node: Node) -> bool:
        """Whether `node` is one of this graph's nodes (its index says where it stands: no scan)."""
        return 0 <= node.index < len(self.nodes) and self.nodes[node.index] is node

    def call(self, op: str, target: Callable, args: tuple = (), kwargs: dict | None = None,
             spec: Spec = None) -> Node:
        """Append a call of `target` (registered as `op`) and return its node."""
        for n in iter_nodes((args, kwargs or {})):
            if not self.holds(n):
                raise ValueError(f"{op}: argument {n.name} is not a node of graph {self.name}")
        node = self._append(Node(op, target, args, kwargs or {}, spec, self._fresh()))
        if self.on_call is not None:
            self.on_call(node)
        return node

    def set_outputs(self, outputs: list | tuple) -> None:
        self.outputs = list(outputs)

    def _fresh(self) -> str:
        name = f"%{self._next_id}"
        self._next_id += 1
        return name

    # ---- reading --------------------------------------------------------------------------------
    @property
    def inputs(self) -> list[Node]:
        return [n for n in self.nodes if n.op == INPUT]

    @property
    def input_names(self) -> list[str]:
        return [n.name for n in self.nodes if n.op == INPUT]

    def count(self, op: str | None = None) -> int:
        """Number of op-call nodes (inputs and constants excluded), or of one op when `op` is given."""
        return sum(1 for n in self.nodes if n.is_call and (op is None or n.op == op))

    def ops(self) -> dict[str, int]:
        """Histogram of op names, in first-seen order."""
        hist: dict[str, int] = {}
        for n in self.nodes:
            if n.is_call:
                hist[n.op] = hist.get(n.op, 0) + 1
        return hist

    def users(self) -> dict[Node, list[Node]]:
        out: dict[Node, list[Node]] = {n: [] for n in self.nodes}
        for n in self.nodes:
            for a in n.inputs():
                out[a].append(n)
        return out

    def lint(self) -> None:
        """Check SSA form: unique names, every argument defined earlier, specs present; raise ValueError."""
        seen: set[int] = set()
        names: set[str] = set()
        for i, n in enumerate(self.nodes):
            if n.index != i:
                raise ValueError(f"{n.name}: index {n.index} but stands at position {i}")
            if n.name in names:
                raise ValueError(f"{n.name}: defined twice")
            names.add(n.name)
            for a in n.inputs():
                if id(a) not in seen:
                    raise ValueError(f"{n.name} = {n.op}(...): uses {a.name} before it is defined")
            if n.op == INPUT and not isinstance(n.spec, (ArraySpec, PyScalarSpec, RngSpec)):
                raise ValueError(f"input {n.name} has no ArraySpec")
            if n.is_call and n.target is None:
                raise ValueError(f"{n.name} = {n.op}(...) has no target")
            if n.op == CONST and n.spec is not None and not n.spec.matches(n.value):
                raise ValueError(f"const {n.name}: spec {n.spec} does not match its value")
            check = getattr(n.target, "check_node", None) if n.is_call else None
            if check is not None:       # a cond / while_loop node checks its subgraphs (graph/control.py)
                check(n)
            seen.add(id(n))
        for o in iter_nodes(self.outputs):
            if id(o) not in seen:
                raise ValueError(f"output {o.name} is not a node of this graph")

    def body_lines(self, indent: str = "  ") -> list[str]:
        """The listing without its header; a node holding subgraphs (cond, while_loop) prints them nested
        under it, one level deeper, like a jaxpr."""
        lines = []
        for n in self.nodes:
            if n.op == INPUT:
                continue
            lines.append(f"{indent}{n}")
            nested = getattr(n.target, "subgraphs", None) if n.is_call else None
            for label, g in nested or ():
                lines.append(f"{indent}  {label}(" + ", ".join(str(i) for i in g.inputs) + "):")
                lines += g.body_lines(indent + "    ")
        lines.append(f"{indent}return (" + ", ".join(format_arg(o) for o in self.outputs) + ")")
        return lines

    def __str__(self) -> str:
        header = ", ".join(str(n) for n in self.inputs)
        return "\n".join([f"graph {self.name}({header}):"] + self.body_lines())

    __repr__ = __str__
