"""Symbolic shapes for backend="jax": one concrete specialization (one XLA compilation) per input signature.

Imports graph/ only. A graph captured with symbolic sizes (`f64[s0,8]`, graph/symbolic.py) serves every size
its guards admit, but XLA compiles for concrete shapes. `specializing(graph, example_inputs, build,
numpy_plan)` returns `run(*inputs)` that reads each symbol off the input dimension it names, builds a
concrete copy of the graph (every spec and argument with its symbols replaced by their values; subgraphs
too), compiles it with `build` the first time that signature is seen and caches it. No decision on a symbol
is taken (the capture's guards are final; deciding now raises SymbolicDecisionError). A symbol no input
dimension names on its own, or an opaque term (`(s0//3)`), leaves the whole graph to NumPy's code
generator (which evaluates sizes at run time), and explain() says so.
"""

from __future__ import annotations

import math
from typing import Any, Callable

from ...graph import codegen
from ...graph.control import is_control
from ...graph.ir import CONST, INPUT, ArraySpec, Graph, Node
from ...graph.symbolic import Sym

SPECIALIZATIONS_LIMIT = 64     # concrete signatures kept per graph (the oldest is dropped past it)


class Unbound(Exception):
    """A symbol (or opaque term) that no input dimension gives a value to."""


def _has_symbols(value: Any) -> bool:
    if isinstance(value, Sym):
        return True
    if isinstance(value, ArraySpec):
        return value.is_symbolic
    if isinstance(value, (tuple, list)):
        return any(_has_symbols(v) for v in value)
    if isinstance(value, dict):
        return any(_has_symbols(v) for v in value.values())
    if isinstance(value, slice):
        return any(_has_symbols(v) for v in (value.start, value.stop, value.step))
    return False


def is_symbolic(graph: Graph) -> bool:
    """Whether any spec or argument of the graph (or of its subgraphs) holds a symbolic size."""
    for n in graph.nodes:
        if _has_symbols(n.spec) or (n.is_call and (_has_symbols(n.args) or _has_symbols(n.kwargs))):
            return True
        if is_control(n) and any(is_symbolic(g) for _, g in n.target.subgraphs):
            return True
    return False


def _bindings(graph: Graph) -> list[tuple[str, int, int]]:
    """(symbol name, input position, dimension) for each input dimension that is a symbol on its own."""
    found: dict[str, tuple[int, int]] = {}
    for i, n in enumerate(graph.inputs):
        if isinstance(n.spec, ArraySpec):
            for d, dim in enumerate(n.spec.shape):
                if isinstance(dim, Sym) and len(dim.poly) == 1:
                    (mono, coeff), = dim.poly.items()
                    if coeff == 1 and len(mono) == 1:
                        found.setdefault(mono[0], (i, d))
    return [(name, i, d) for name, (i, d) in found.items()]


def _evaluate(sym: Sym, values: dict[str, int]) -> int:
    try:
        return sum(c * math.prod(values[a] for a in mono) for mono, c in sym.poly.items())
    except KeyError as e:
        raise Unbound(f"the symbolic size {sym} uses {e.args[0]}, which no input dimension gives alone") from None


def concrete_graph(graph: Graph, values: dict[str, int]) -> Graph:
    """A copy of `graph` with every symbol replaced by its value in `values` (raises Unbound)."""
    def subst(x: Any) -> Any:
        if isinstance(x, Node):
            return new[id(x)]
        if isinstance(x, Sym):
            return _evaluate(x, values)
        if isinstance(x, ArraySpec):
            return ArraySpec(tuple(subst(d) for d in x.shape), x.dtype, x.scalar) if x.is_symbolic else x
        if isinstance(x, tuple):
            return tuple(subst(v) for v in x)
        if isinstance(x, list):
            return [subst(v) for v in x]
        if isinstance(x, dict):
            return {k: subst(v) for k, v in x.items()}
        if isinstance(x, slice):
            return slice(subst(x.start), subst(x.stop), subst(x.step))
        return x

    out = Graph(graph.name)
    new: dict[int, Node] = {}
    for n in graph.nodes:
        if n.op == INPUT:
            m = out.add_input(n.name, subst(n.spec))
        elif n.op == CONST:
            m = out.add_const(n.value)
        else:
            target = n.target.replace([concrete_graph(g, values) for _, g in n.target.subgraphs]) \
                if is_control(n) else n.target
            m = out.call(n.op, target, subst(n.args), subst(n.kwargs), subst(n.spec))
        m.meta.update(n.meta)
        new[id(n)] = m
    out.set_outputs(subst(graph.outputs))
    return out


class _Fallbacks:
    """`run.fallbacks[0]`: the calls every specialization ran on NumPy (tests read it)."""

    def __init__(self, runs: dict) -> None:
        self.runs = runs

    def __getitem__(self, i: int) -> int:
        return sum(getattr(r, "fallbacks", [0])[0] for r in self.runs.values())


def specializing(graph: Graph, example_inputs: Any, build: Callable[[Graph], Callable[..., tuple]],
                 numpy_plan: Callable[[Graph, str], Any]) -> Callable[..., tuple]:
    """run(*inputs) compiling `build(concrete graph)` once per concrete signature (see the module docstring);
    `numpy_plan(graph, reason)` is the plan explain() shows when the graph cannot be specialized."""
    binds = _bindings(graph)
    runs: dict[tuple, Callable[..., tuple]] = {}

    def specialization(inputs: tuple) -> Callable[..., tuple]:
        key = tuple(inputs[i].shape[d] for _, i, d in binds)
        run = runs.get(key)
        if run is None:
            run = runs[key] = build(concrete_graph(graph, {name: k for (name, _, _), k in zip(binds, key)}))
            if len(runs) > SPECIALIZATIONS_LIMIT:
                runs.pop(next(iter(runs)))
        return run

    try:
        first = specialization(tuple(example_inputs))
    except Unbound as e:
        fallback = codegen.compile_graph(graph)
        fallback.__minidynamo_lowering__ = numpy_plan(graph, str(e))    # type: ignore[attr-defined]
        return fallback

    def run(*inputs: Any) -> tuple:
        return specialization(inputs)(*inputs)

    run.__name__ = f"jax_specializing_{graph.name}"
    run.__minidynamo_lowering__ = first.__minidynamo_lowering__     # type: ignore[attr-defined]
    run.fallbacks = _Fallbacks(runs)        # type: ignore[attr-defined]
    return run
