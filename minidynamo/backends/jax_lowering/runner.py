"""The call path of a lowered graph: host-side checks, the jitted call, the data check, write-backs, results.

Imports jax (for the 64-bit context) and numpy. `make_runner(piece, jitted, traced, fallback)` returns
`run(*inputs)`; `fallback` is the graph compiled for NumPy, run whenever the engine's result could differ
from NumPy's (see engine.py). `traced` is the Piece whose trace made `jitted` (an equal graph's, when the
jitted function is shared): its positions of inputs, outputs and writes match `piece`'s.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import jax

from ...graph.ir import CONST, INPUT, ArraySpec, PyScalarSpec, map_nodes
from ..aliasing import same_object_root

_LIST_RESULTS = frozenset({"split", "array_split"})


def _to_numpy(value: Any, spec: Any, as_list: bool) -> Any:
    """A writeable NumPy array (np.asarray of a JAX array is read-only), a NumPy scalar for a scalar spec."""
    if isinstance(spec, tuple):
        items = [_to_numpy(v, s, False) for v, s in zip(value, spec)]
        return items if as_list else tuple(items)
    if spec is None:
        return None
    if spec.scalar:
        return np.asarray(value)[()]
    return np.array(value)


def _host_checks(piece: Any, traced: Any) -> list[Callable[[tuple], bool]]:
    """Conditions on the inputs, checked in Python before the call; any False runs NumPy instead."""
    checks: list[Callable[[tuple], bool]] = []
    if any(isinstance(n.spec, ArraySpec) and n.spec.dtype.kind == "f" for n in piece.graph.nodes):
        checks.append(lambda inputs: np.geterr()["under"] == "ignore")   # XLA cannot report underflow
    positions = {id(n): i for i, n in enumerate(piece.inputs)}
    arrays = [i for i, n in enumerate(piece.inputs) if isinstance(n.spec, ArraySpec) and not n.spec.scalar]
    for node in piece.written_inputs:
        i = positions[id(node)]
        others = [j for j in arrays if j != i]
        checks.append(lambda inputs, i=i, others=others: inputs[i].flags.writeable and not any(
            np.may_share_memory(inputs[i], inputs[j]) for j in others))
    for i, dtypes in traced.scalar_dtypes.items():
        bounds = [np.iinfo(d) if d.kind in "iu" else np.finfo(d) for d in dtypes if d.kind in "iuf"]
        if bounds:
            lo, hi = max(float(b.min) for b in bounds), min(float(b.max) for b in bounds)
            checks.append(lambda inputs, i=i, lo=lo, hi=hi: lo <= inputs[i] <= hi)
    for i, n in enumerate(piece.inputs):
        if isinstance(n.spec, PyScalarSpec) and n.spec.type is int:
            checks.append(lambda inputs, i=i: -2 ** 63 <= inputs[i] < 2 ** 63)
    return checks


def make_runner(piece: Any, jitted: Callable, traced: Any, fallback: Callable[..., tuple]) -> Callable[..., tuple]:
    """`run(*inputs)` for one graph: see the module docstring."""
    consts = tuple(n.value for n in piece.consts)
    checks = _host_checks(piece, traced)
    x64 = piece.x64
    input_index = {id(n): i for i, n in enumerate(piece.inputs)}
    written = [input_index[id(n)] for n in piece.written_inputs]     # in the order the trace returns them
    out_index = {id(n): k for k, n in enumerate(piece.outputs)}
    as_list = [n.op in _LIST_RESULTS for n in piece.outputs]
    specs = [n.spec for n in piece.outputs]
    roots = same_object_root(piece.graph)

    def lookup(node: Any, inputs: tuple, results: list) -> Any:
        r = roots[id(node)]
        if r.op == INPUT:
            return inputs[input_index[id(r)]]
        if node.op == CONST:
            return node.value
        if node.op == "setitem":
            return None
        return results[out_index[id(r)]]

    outputs = piece.graph.outputs
    # The common case: every output a distinct array the graph computed, nothing written back.
    simple = not written and [id(o) for o in outputs] == [id(n) for n in piece.outputs] and \
        all(isinstance(s, ArraySpec) and not s.scalar for s in specs)

    fallbacks = [0]     # calls that ran on NumPy (tests read it as run.fallbacks)

    def numpy_instead(inputs: tuple) -> tuple:
        fallbacks[0] += 1
        return fallback(*inputs)

    checked, n_out = traced.checked, len(piece.outputs)

    def call(inputs: tuple) -> Any:
        if x64:
            with jax.enable_x64(True):
                return jitted(*inputs, *consts)
        return jitted(*inputs, *consts)

    def run(*inputs: Any) -> tuple:
        for check in checks:
            if not check(inputs):
                return numpy_instead(inputs)
        flat = call(inputs)
        if checked and not np.asarray(flat[-1]):
            return numpy_instead(inputs)
        outs, writes = flat[:n_out], flat[n_out:n_out + len(written)]
        if simple:
            return tuple(np.array(v) for v in outs)
        for i, new in zip(written, writes):
            np.copyto(inputs[i], new)
        results = [_to_numpy(v, s, lst) for v, s, lst in zip(outs, specs, as_list)]
        return tuple(map_nodes(o, lambda n: lookup(n, inputs, results)) for o in outputs)

    run.__name__ = f"jax_{piece.graph.name}"
    run.fallbacks = fallbacks             # type: ignore[attr-defined]
    run.__minidynamo_source__ = getattr(fallback, "__minidynamo_source__", "")
    return run
