"""Compile one fully-lowerable Graph to a jax.jit function and wrap it so a call behaves as NumPy's.

Imports jax. `compile_piece(graph)` traces the graph once (its specs are concrete: guards fix shapes and
dtypes, and a graph with symbolic sizes reaches here once per concrete signature, see shapes.py; so each
graph is one XLA compilation, shared by structurally equal graphs) and returns `run(*inputs)`, which

1. runs the graph on NumPy (`codegen.compile_graph`, NumPy's exact semantics) instead when a host-side check
   fails: underflow not ignored by np.seterr, an input the graph writes that is read-only or shares memory
   with another input, an unspecialized Python int out of range for the dtype it meets;
2. calls the jitted function, 64-bit graphs under `jax.enable_x64(True)` for that call only;
3. runs the graph on NumPy when a data check computed inside the function fails: a float value that is
   not finite (NumPy would have warned, or raised under np.errstate), an index out of bounds, an integer
   division by zero (see ufuncs.py, indexing.py). Nothing was written yet, so NumPy reproduces exactly
   the warnings, exceptions and partial writes eager code gives. A graph with large results has a second
   jitted variant without the finite checks (`_unchecked`), run for calls whose float inputs' magnitudes
   prove that no value can become nan/inf (bounds.py), when timing finds it the faster
   (choice.py);
4. writes new values of the inputs the graph writes into (np.copyto), and returns writeable NumPy arrays
   (NumPy scalars for scalar specs); an output that is an input written in place is the input itself.

The result layout is chosen once per graph (`Piece.pack_dtype`, see runner.py): small results of one dtype
come back packed into one buffer with the check flag as its last element (one device-to-host read, one
copy per result), larger ones as separate arrays whose buffers the caller gets as writeable NumPy arrays
without a copy when the jitted function made them (`fresh_outputs`: not an input or constant JAX forwards).
"""

from __future__ import annotations

import contextlib
from typing import Any, Callable

import numpy as np
import jax
import jax.numpy as jnp
from jax.extend.core import Literal

from ...graph import codegen
from ...graph.control import subgraphs
from ...graph.ir import CONST, INPUT, ArraySpec, Graph, Node, PyScalarSpec, iter_nodes, map_nodes
from ..aliasing import same_object_root, sliced_views, written_target, written_targets
from ..lowering import NotLowerable
from .bounds import Proof
from .finite import finite_sinks, poisoned
from .pynumbers import check_cast
from .runner import make_runner
from .table import TABLE

_JITTED_LIMIT = 256
PACK_BYTES = 1 << 15    # results up to this size (together) come back in one packed buffer
# structural key -> (jitted function, the Piece it traces), shared by equal graphs
_JITTED: dict[tuple, tuple] = {}


class Trace:
    """Traced values of one graph while its lowering runs inside jax.jit (the `cx` of the rules)."""

    def __init__(self, graph: Graph, scalar_inputs: dict[int, int]) -> None:
        self.graph = graph
        self.root = same_object_root(graph)     # in-place results are their operand
        self.views = sliced_views(graph)        # writes go through these functionally (aliasing.py)
        self.owner = memory_owners(graph, self.root, self.views)
        self.env: dict[int, Any] = {}
        self.current: dict[int, Any] = {}       # owner id -> its newest value, once something wrote into it
        self.checks: list[Any] = []
        self.scalar_inputs = scalar_inputs      # id(traced Python scalar) -> input position
        self.scalar_dtypes: dict[int, set] = {}  # input position -> dtypes that scalar is cast to
        self.py_values: set[int] = set()        # ids of traced values that are computed Python numbers
        self.bounded_trig = False               # float32 sin/cos arguments proved within trig.TRIG_LIMIT

    def val(self, arg: Any) -> Any:
        return map_nodes(arg, self._node_value)

    def _node_value(self, node: Node) -> Any:
        node = self.root[id(node)]
        owner = self.owner[id(node)]
        if id(owner) not in self.current:
            return self.env.get(id(node))
        if node is owner:
            return self.current[id(owner)]
        parent, index = self.views[id(node)]      # a view of memory written since: slice its newest value
        return self._node_value(parent)[self.val(index)]     # (a loop index in it: its traced value)

    def write(self, target: Node, value: Any) -> None:
        """`value` is the new content of `target`: update the array owning its memory."""
        node = self.root[id(target)]
        while id(node) in self.views:
            parent, index = self.views[id(node)]
            value = self._node_value(parent).at[self.val(index)].set(value)
            node = self.root[id(parent)]
        self.current[id(node)] = value

    def check(self, ok: Any) -> None:
        self.checks.append(ok)

    def as_dtype(self, value: Any, dtype: np.dtype) -> Any:
        if id(value) in self.scalar_inputs:
            self.scalar_dtypes.setdefault(self.scalar_inputs[id(value)], set()).add(np.dtype(dtype))
        elif id(value) in self.py_values:
            check_cast(self, value, dtype)
        if isinstance(value, (bool, int, float, np.generic)):
            return jnp.asarray(value, dtype=dtype)
        return value if value.dtype == dtype else value.astype(dtype)


def memory_owners(graph: Graph, same: dict[int, Node], views: dict[int, tuple]) -> dict[int, Node]:
    """node id -> the node owning its memory, following in-place results and `views` (sliced_views)."""
    owner: dict[int, Node] = {}
    for n in graph.nodes:
        r = same[id(n)]
        owner[id(n)] = owner[id(views[id(r)][0])] if id(r) in views else owner.get(id(r), r)
    return owner


def _key(graph: Graph) -> tuple:
    """Graphs that print alike and call the same targets lower alike (constants are arguments)."""
    return (str(graph), tuple(id(n.target) for n in graph.nodes if n.is_call))


def _needs_x64(graph: Graph) -> bool:
    for n in graph.nodes:
        if isinstance(n.spec, PyScalarSpec):
            return True
        specs = n.spec if isinstance(n.spec, tuple) else (n.spec,)
        if any(isinstance(s, ArraySpec) and s.dtype.itemsize == 8 for s in specs):
            return True
        if any(_needs_x64(sub) for _, sub in subgraphs(n)):
            return True
    return False


def _all_finite(value: Any) -> Any:
    """True when no element is nan/inf: `v - v` is exactly 0 where v is finite and nan where it is not, and
    a sum of zeros cannot overflow. The sum runs over the leading axes only (adding whole rows vectorizes
    and XLA fuses it with the loop computing v; a boolean isfinite-all over a large result costs a second,
    scalar pass), the short rest is checked as booleans."""
    values = value if isinstance(value, (list, tuple)) else [value]
    return jnp.all(jnp.stack([jnp.all(jnp.isfinite(jnp.sum(v - v, axis=tuple(range(v.ndim - 1)) or None)))
                              for v in values]))


def _check_spec(node: Node, value: Any) -> None:
    spec = node.spec
    if isinstance(spec, tuple):
        for s, v in zip(spec, value):
            _check_one(node, s, v)
    elif isinstance(spec, ArraySpec):
        _check_one(node, spec, value)


def _check_one(node: Node, spec: ArraySpec, value: Any) -> None:
    if tuple(value.shape) != spec.shape or value.dtype != spec.dtype:
        raise NotLowerable(f"JAX gives {value.dtype}{list(value.shape)} where NumPy gives {spec}", node)


class Piece:
    """What compile_piece knows about one graph: inputs, constants, writes, outputs and the traced rule."""

    def __init__(self, graph: Graph, host_checks: bool = True, finite_checks: bool = True) -> None:
        """`host_checks=False` for a subgraph (control.py): all its checks are computed inside XLA.
        `finite_checks=False` for the variant a bounds.Proof lets run: no float value is checked or poisoned
        (the other data checks, bounds and integer division, stay), and float32 sin/cos, whose arguments
        the proof keeps within trig.TRIG_LIMIT, are trig.py's polynomials."""
        self.graph = graph
        self.inputs = graph.inputs
        self.consts = [n for n in graph.nodes if n.op == CONST]
        self.calls = [n for n in graph.nodes if n.is_call]
        root = same_object_root(graph)
        owner = memory_owners(graph, root, sliced_views(graph))
        written = [owner[id(t)] for n in self.calls for t in written_targets(n)]
        self.written_inputs = list({id(r): r for r in written if r.op == INPUT}.values())
        # one result per object: an in-place result and its operand are the same array
        self.outputs = list({id(root[id(o)]): root[id(o)] for o in iter_nodes(graph.outputs)
                             if o.is_call and o.op != "setitem" and root[id(o)].op not in (INPUT, CONST)}.values())
        self.poison = poisoned(graph) if finite_checks else {}
        self.bounded_trig = not finite_checks
        self.sinks = finite_sinks(graph, self.poison) if finite_checks else set()
        self.x64 = _needs_x64(graph)
        self.scalar_dtypes: dict[int, set] = {}
        self.checked = False            # whether the traced function returns a check flag last
        self.pack_dtype = _pack_dtype([n.spec for n in self.outputs + self.written_inputs])
        # Large float results the graph must check are checked by the runner on the NumPy side (a SIMD max
        # of the result NumPy hands back anyway, inf turned into nan in XLA's fused loop: trace); inside XLA
        # the check is a second, slower pass.
        self.host_checked = [] if self.pack_dtype is not None or not host_checks else [
            k for k, n in enumerate(self.outputs) if id(n) in self.sinks and isinstance(n.spec, ArraySpec)
            and not n.spec.scalar and n.spec.dtype.kind == "f"]
        self.sinks = self.sinks - {id(self.outputs[k]) for k in self.host_checked}
        self.fresh_outputs: list[bool] = []     # per output: a buffer the call made (set by compile_piece)

    def run(self, args: list, scalars: dict[int, int] | None = None, outer: Trace | None = None) -> Trace:
        """Trace every node on `args` (values of inputs, then constants); the Trace holds values and checks.
        A loop body's trace shares `outer`'s records of Python numbers: an outer Python-number input or
        computed number the body casts is checked like one the graph casts itself."""
        cx = Trace(self.graph, scalars or {})
        cx.bounded_trig = self.bounded_trig
        if outer is not None:
            cx.scalar_inputs, cx.scalar_dtypes, cx.py_values = outer.scalar_inputs, outer.scalar_dtypes, outer.py_values
        for node, value in zip(self.inputs + self.consts, args):
            cx.env[id(node)] = value
            if id(node) in self.sinks:
                cx.check(_all_finite(value))
        for node in self.calls:
            value = _lower_node(cx, node)
            for arg in self.poison.get(id(node), ()):
                a = cx.val(arg)
                value = value - (a - a).astype(value.dtype)    # exact when arg is finite, nan where it is not
            target = written_target(node)
            if target is not None:
                cx.write(target, value)
                value = None if node.op == "setitem" else value
            _check_spec(node, value)
            cx.env[id(node)] = value
            if id(node) in self.sinks:
                cx.check(_all_finite(value))
        return cx

    def trace(self, *args: Any) -> Any:
        scalars = {id(a): i for i, (a, n) in enumerate(zip(args, self.inputs)) if isinstance(n.spec, PyScalarSpec)}
        cx = self.run(list(args), scalars)
        self.scalar_dtypes = cx.scalar_dtypes
        # Results, new values of written inputs, then the check flag if there are checks: packed into one
        # array when small and of one dtype, else one flat tuple (the cheapest structures for jit's call path).
        self.checked = bool(cx.checks)
        flat = [cx.val(n) for n in self.outputs] + [cx.val(n) for n in self.written_inputs]
        for k in self.host_checked:     # inf becomes nan, finite values (also -0.0) stay: see runner.all_finite
            flat[k] = flat[k] - (flat[k] - flat[k])
        flag = (jnp.all(jnp.stack(cx.checks)),) if cx.checks else ()
        if self.pack_dtype is not None:
            return jnp.concatenate([jnp.ravel(v).astype(self.pack_dtype) for v in flat + list(flag)])
        return tuple(flat) + flag


def _pack_dtype(specs: list) -> np.dtype | None:
    """The one dtype of small array results, or None when they must come back as separate arrays."""
    if not specs or not all(isinstance(s, ArraySpec) for s in specs):
        return None
    dtypes = {s.dtype for s in specs}
    if len(dtypes) != 1 or sum(s.size for s in specs) * specs[0].dtype.itemsize > PACK_BYTES:
        return None
    return dtypes.pop()


def _fresh_outputs(jitted: Any, abstract: list, count: int) -> list[bool]:
    """Per output: True when its buffer is one the call allocated, False when JAX may hand back an input,
    a constant or another output's buffer (those must be copied before the caller may write into them)."""
    jaxpr = jitted.trace(*abstract).jaxpr.jaxpr
    outs = list(jaxpr.outvars)[:count]
    taken = {id(v) for v in list(jaxpr.invars) + list(jaxpr.constvars)}
    return [not isinstance(v, Literal) and id(v) not in taken and sum(o is v for o in outs) == 1
            for v in outs]


def _lower_node(cx: Trace, node: Node) -> Any:
    rule = TABLE.rules[node.op]
    try:
        return rule.lower(cx, node)
    except (TypeError, ValueError, IndexError, NotImplementedError) as e:
        raise NotLowerable(f"JAX could not lower it: {type(e).__name__}: {e}", node) from e


def _abstract(node: Node) -> Any:
    spec = node.spec
    if isinstance(spec, PyScalarSpec):
        return jax.ShapeDtypeStruct((), np.dtype(spec.type), weak_type=True)
    if isinstance(spec, tuple):     # several results of a NumPy op (np.histogram, np.linalg.svd)
        raise NotLowerable("an input holding several results is not an array", node)
    return jax.ShapeDtypeStruct(spec.shape, spec.dtype)


def compile_piece(graph: Graph) -> Callable[..., tuple]:
    """The run function of a graph every op of which the table lowers (see the module docstring)."""
    piece = Piece(graph)
    jitted, traced = _jitted(piece, _key(graph))
    return make_runner(piece, jitted, traced, codegen.compile_graph(graph), _unchecked(piece))


def _jitted(piece: Piece, key: tuple) -> tuple:
    """(jax.jit of piece.trace, the Piece traced), shared by structurally equal graphs."""
    cached = _JITTED.get(key)
    if cached is None:
        jitted = jax.jit(piece.trace)
        abstract = [_abstract(n) for n in piece.inputs + piece.consts]
        with _context(piece.x64):
            jitted.lower(*abstract)                 # raises NotLowerable early
            if piece.pack_dtype is None:
                piece.fresh_outputs = _fresh_outputs(jitted, abstract, len(piece.outputs))
        cached = _JITTED[key] = (jitted, piece)
        if len(_JITTED) > _JITTED_LIMIT:           # the oldest goes (it keeps its graph and constants alive)
            _JITTED.pop(next(iter(_JITTED)))
    return cached


def _unchecked(piece: Piece) -> tuple | None:
    """(jitted, traced, proof) of the graph without finite checks, for the calls whose inputs' magnitudes
    prove that no nan/inf can appear (bounds.py); None when there is no finite check to drop, when the
    results are small (their checks are part of the one packed read) or when some op has no interval rule."""
    if piece.pack_dtype is not None or not (piece.sinks or piece.poison or piece.host_checked):
        return None
    proof = Proof(piece.graph)
    if proof.reason is not None:
        return None
    bare = Piece(piece.graph, finite_checks=False)
    return _jitted(bare, _key(piece.graph) + ("unchecked",)) + (proof,)


def _context(x64: bool) -> Any:
    return jax.enable_x64(True) if x64 else contextlib.nullcontext()
