"""The "dask" backend: captured graphs lowered to dask.array, computed on the current dask.distributed
Client when there is one (dask's own default), else on dask's local scheduler.

Imports graph, config, backends.lowering (the engine-neutral driver) and backends.dask_lowering (the table);
dask itself only when a graph is compiled (`pip install minidynamo[dask]`). Two modes, fixed per graph by its
inputs' types (which the guards pin):

- dask inputs: each op on a dask value runs as its dask.array lowering, each op on NumPy values only stays
  NumPy (as in eager dask code), and array results stay lazy: `.compute()`/`.persist()` is the caller's.
- NumPy inputs only: each lowered piece chunks its ndarray inputs (`config.dask_chunk_bytes`), runs on dask
  and is computed in one `dask.compute` call, so results are NumPy values again. On a distributed Client,
  inputs are scattered to the workers once and reused while unchanged (dask_scatter.py), never embedded in
  each call's graph; on dask's local scheduler they are wrapped in place (`da.from_array`). A result that NumPy returns
  as a view of an input (x.T, x[1:]) stays on NumPy, so it still aliases the input as in eager code.

Ops without a faithful lowering run on NumPy (the driver splits the graph); explain() prints which and why.
A lowered result whose shape, dtype or type differs from the captured spec raises LoweringMismatch, and the
compiled entry then runs the function eagerly instead: never a silently different result.
"""

from __future__ import annotations

import sys
from typing import Any, Callable, Sequence

import numpy as np

from .. import config as _config
from ..graph.interp import Interpreter
from ..graph.ir import INPUT, ArraySpec, Graph, Node, iter_nodes
from ..graph.symbolic import bind_symbols, evaluate, hint_of
from . import dask_lowering as DL
from . import dask_scatter
from .aliasing import alias_refusals, is_view
from .engine_rng import kept_global_rng, keeping_global_rng
from .lowering import LoweringTable, NotLowerable, OpRule, lower_graph

INSTALL_HINT = "backend='dask' needs dask[array,distributed]: pip install minidynamo[dask]"


class LoweringMismatch(RuntimeError):
    """A dask result does not have the shape, dtype or type the captured graph promised."""


def require_dask() -> Any:
    """The dask.array module, or ImportError saying how to install it."""
    try:
        with kept_global_rng():     # the engine's import leaves the program's random streams alone
            import dask.array as da
    except ImportError as e:
        raise ImportError(INSTALL_HINT) from e
    return da


@keeping_global_rng     # the engine's import and setup leave the program's random streams alone (engine_rng.py)
def dask_backend(graph: Graph, example_inputs: Sequence[Any], config: Any = None) -> Callable[..., tuple]:
    """Backend "dask": lower `graph` to dask.array (see the module docstring for the two modes). `config` is
    the compiled function's Config (its compile(..., options=) applied; registry.call_backend)."""
    da = require_dask()
    lazy = any(DL.is_lazy(v) for v in example_inputs)
    cfg = config or _config.current()

    def refuse_node(node: Node) -> str | None:
        if lazy and "lazy" not in node.meta:
            return "reads no dask value: stays NumPy, as in eager dask code"
        return None

    def refuse_graph(graph: Graph) -> dict[int, str]:
        if lazy:
            return {}
        why = "returns a view of an input (NumPy aliases it; dask would copy)"
        # and a view written through, or read after a write into its base: NumPy's, or the write is lost
        return {**{i: why for i in _views_of_inputs(graph)}, **alias_refusals(graph)}

    table = LoweringTable("dask", _RULES, DL.NOT_LOWERED, refuse_node, refuse_graph)
    return lower_graph(graph, table, lambda piece: _compile_piece(piece, da, lazy, cfg))


dask_backend.__minidynamo_requires__ = require_dask       # type: ignore[attr-defined]


def _refuse(node: Node) -> str | None:
    return DL.refusal(node.op, node.target, node.args, node.kwargs)


_RULES = {name: OpRule(DL.lower, _refuse) for name in DL.lowered_op_names()}


class _DaskRun(Interpreter):
    """Runs one piece node by node with the lowered callables; chunks ndarray inputs in NumPy mode."""

    def __init__(self, graph: Graph, lowered: dict[Node, Callable], chunk: Callable | None) -> None:
        super().__init__(graph, check=False)
        self.lowered, self.chunk = lowered, chunk

    def placeholder(self, node: Node, value: Any) -> Any:
        return self.chunk(value) if self.chunk is not None and type(value) is np.ndarray else value

    def call_op(self, node: Node, args: tuple, kwargs: dict) -> Any:
        return self.lowered[node](*args, **kwargs)


def _compile_piece(graph: Graph, da: Any, lazy: bool, cfg: Any) -> Callable[..., tuple]:
    chunk_bytes = cfg.dask_chunk_bytes
    lowered = {n: DL.lower(n, da) for n in graph.nodes if n.is_call}
    specs = [o.spec if isinstance(o, Node) else None for o in graph.outputs]
    expected = _expected_shapes(graph, specs)

    def chunks_for(shape: tuple, dtype: np.dtype) -> Any:
        return da.core.normalize_chunks("auto", shape, limit=chunk_bytes, dtype=dtype) if chunk_bytes else "auto"

    def chunk(value: np.ndarray) -> Any:
        # name=False: no hashing of the data
        return da.from_array(value, chunks=chunks_for(value.shape, value.dtype), name=False)

    if lazy:
        def run_lazy(*inputs: Any) -> tuple:
            outs = _DaskRun(graph, lowered, None).run(inputs)
            for value, spec, shape in zip(outs, specs, expected(inputs)):
                _check_lazy(value, spec, shape)
            return outs
        return run_lazy

    import dask
    _probe(graph, lowered, da, chunks_for)
    passed = {i: graph.inputs.index(o) for i, o in enumerate(graph.outputs) if isinstance(o, Node) and o.op == INPUT}
    first = True

    def run(*inputs: Any) -> tuple:
        nonlocal first
        if first:       # the engine's first use (a scheduler starting) inside kept_global_rng
            first = False
            with kept_global_rng():
                return run(*inputs)
        outs = list(_DaskRun(graph, lowered, _chunker(chunk, da, dask, cfg)).run(inputs))
        for i, k in passed.items():     # an input returned as it is: the caller's own object, not a copy
            outs[i] = inputs[k]
        where = [i for i, v in enumerate(outs) if DL.is_lazy(v)]
        for i, value in zip(where, dask.compute(*[outs[i] for i in where])):
            outs[i] = value
        owners = [v for v in inputs if isinstance(v, np.ndarray)]
        return tuple(_as_spec(v, s, owners, shape) for v, s, shape in zip(outs, specs, expected(inputs)))

    return run


def _chunker(chunk: Callable, da: Any, dask: Any, cfg: Any) -> Callable:
    """This call's way to make a dask array of an ndarray input: `chunk` (embedded in the graph) on dask's
    local scheduler, a scattered copy (dask_scatter.py) where dask.compute will run on a distributed Client."""
    client = _distributed_client(dask) if cfg.dask_scatter_bytes else None
    if client is None:
        dask_scatter.drop_closed()
        return chunk
    cache = dask_scatter.for_client(client, cfg.dask_scatter_bytes)
    call = cache.new_call()

    def chunk_or_scatter(value: np.ndarray) -> Any:
        if not dask_scatter.is_scattered(value):
            return chunk(value)
        # the chunks `chunk` gives (limit None: dask's own chunk size), so the probe's verdicts hold
        chunks = da.core.normalize_chunks("auto", value.shape, limit=cfg.dask_chunk_bytes or None,
                                          dtype=value.dtype)
        return cache.array(value, chunks, da, call, cfg.threads)
    return chunk_or_scatter


def _distributed_client(dask: Any) -> Any:
    """The running distributed Client dask.compute would use now, or None (dask's local scheduler)."""
    distributed = sys.modules.get("distributed")
    if distributed is None:         # never imported: no client can be active
        return None
    client = getattr(dask.base.get_scheduler(), "__self__", None)
    return client if isinstance(client, distributed.Client) and dask_scatter.is_running(client) else None


class _Probe(_DaskRun):
    """Builds (never computes) the dask graph once, on zeros of the inputs' specs and chunks: dask refuses
    some calls while building (a reshape that splits chunks unevenly), and such a node must run on NumPy
    rather than fail, and fall back to eager, on every call. A node reading no dask value is not run: its
    result is a placeholder of its spec, so the probe never computes anything (nor warns)."""

    def __init__(self, graph: Graph, lowered: dict[Node, Callable], placeholder: Callable) -> None:
        super().__init__(graph, lowered, None)
        self.make = placeholder

    def placeholder(self, node: Node, value: Any) -> Any:
        return self.make(node.spec)

    def call_op(self, node: Node, args: tuple, kwargs: dict) -> Any:
        if not any(DL.is_lazy(v) for v in _leaves((args, kwargs))):
            return self.make(node.spec)
        try:
            return super().call_op(node, args, kwargs)
        except (NotImplementedError, ValueError, TypeError, IndexError) as e:
            first = (str(e).strip().splitlines() or [""])[0]
            raise NotLowerable(f"dask.array refuses this call: {type(e).__name__}: {first}", node) from None


def _probe(graph: Graph, lowered: dict[Node, Callable], da: Any, chunks_for: Callable) -> None:
    def make(spec: Any) -> Any:
        if isinstance(spec, tuple):
            return tuple(make(s) for s in spec)
        if isinstance(spec, ArraySpec):     # symbolic sizes at their capture-time values
            shape = tuple(hint_of(d) for d in spec.shape)
            return da.zeros(shape, dtype=spec.dtype, chunks=chunks_for(shape, spec.dtype))
        return spec.type(1) if spec is not None else None     # an unspecialized Python int/float
    _Probe(graph, lowered, make).run([None] * len(graph.inputs))


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, (tuple, list)):
        return [v for item in value for v in _leaves(item)]
    if isinstance(value, dict):
        return _leaves(list(value.values()))
    return [value]


def _expected_shapes(graph: Graph, specs: list[Any]) -> Callable[[Sequence[Any]], list[Any]]:
    """Per call, the shape each output must have. A symbolic size is evaluated for this call's inputs (the
    graph serves many sizes); one that no input determines is None, and left unchecked."""
    shapes = [s.shape if isinstance(s, ArraySpec) else None for s in specs]
    if not any(isinstance(s, ArraySpec) and s.is_symbolic for s in specs):
        return lambda inputs: shapes

    def at(inputs: Sequence[Any]) -> list[Any]:
        values: dict[str, int] = {}
        for node, value in zip(graph.inputs, inputs):
            if isinstance(node.spec, ArraySpec) and node.spec.is_symbolic:
                bind_symbols(node.spec.shape, np.shape(value), values)
            elif "sym" in node.meta:
                bind_symbols((node.meta["sym"],), (value,), values)
        return [None if shape is None else tuple(evaluate(d, values) for d in shape) for shape in shapes]
    return at


def _shape_ok(shape: tuple, expected: tuple) -> bool:
    return len(shape) == len(expected) and all(e is None or a == e for a, e in zip(shape, expected))


def _check_lazy(value: Any, spec: Any, shape: Any) -> None:
    if isinstance(spec, ArraySpec) and DL.is_lazy(value):
        if not _shape_ok(value.shape, shape) or value.dtype != spec.dtype:
            raise LoweringMismatch(f"dask gave {value.dtype}{list(value.shape)}, the graph promised {spec}")


def _as_spec(value: Any, spec: Any, inputs: list[np.ndarray], shape: Any) -> Any:
    """A computed value in the type NumPy gives (a NumPy scalar for reductions, a 0-d array otherwise), a
    fresh writeable array (dask may hand back an input's own buffer or a read-only broadcast)."""
    if not isinstance(spec, ArraySpec):
        return value
    if spec.scalar:
        value = value[()] if isinstance(value, np.ndarray) and value.ndim == 0 else value
        if type(value) is not spec.dtype.type:
            raise LoweringMismatch(f"dask gave {type(value).__name__}, the graph promised {spec}")
        return value
    value = np.asarray(value) if isinstance(value, np.generic) else value
    if type(value) is not np.ndarray or not _shape_ok(value.shape, shape) or value.dtype != spec.dtype:
        raise LoweringMismatch(f"dask gave {type(value).__name__} {getattr(value, 'dtype', '')}"
                               f"{list(np.shape(value))}, the graph promised {spec}")
    if not value.flags.writeable or any(np.may_share_memory(value, i) for i in inputs):
        value = value.copy()
    return value


def _views_of_inputs(graph: Graph) -> set[int]:
    """ids of the nodes on a chain of view ops (aliasing.is_view) from a graph input to a graph output:
    returned, such a chain must stay on NumPy to keep aliasing the caller's array."""
    from_input: dict[int, list[Node]] = {}
    for n in graph.nodes:
        if n.op == INPUT:
            from_input[id(n)] = []
        elif is_view(n) and n.args and isinstance(n.args[0], Node) and id(n.args[0]) in from_input:
            from_input[id(n)] = from_input[id(n.args[0])] + [n]
    return {id(m) for o in iter_nodes(graph.outputs) for m in from_input.get(id(o), [])}
