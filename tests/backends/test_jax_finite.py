"""jax_lowering/finite.py: which float values the JAX backend checks for nan/inf (pure graph analysis, no JAX).

The analysis is what makes NumPy's floating-point warnings reproducible: every nan/inf a graph creates must
reach a checked value. These tests pin the sinks of small graphs built by capture.
"""

from __future__ import annotations

import numpy as np

import minidynamo as md
from minidynamo.backends.jax_lowering.finite import finite_sinks, poisoned


def graph_of(fn, *args):
    return md.explain(fn)(*args).graphs[0]


def names(graph, ids):
    return sorted(n.name for n in graph.nodes if id(n) in ids)


def test_gelu_needs_one_check_on_its_output():
    g = graph_of(lambda x: 0.5 * x * (1 + np.tanh(0.79788456 * (x + 0.044715 * x ** 3))), np.ones(4))
    tanh = next(n for n in g.nodes if n.op == "tanh")
    assert [a.op for a in poisoned(g)[id(tanh)]] == ["multiply"]    # tanh's argument is folded into it
    assert names(g, finite_sinks(g)) == [g.outputs[0].name]


def test_values_read_by_comparisons_and_slices_are_checked():
    g = graph_of(lambda x: ((np.exp(x) > 1.0), np.log(x)[1:] * 2.0), np.ones(4))
    exp = next(n for n in g.nodes if n.op == "exp")
    log = next(n for n in g.nodes if n.op == "log")
    sinks = finite_sinks(g)
    assert id(exp) in sinks and id(log) in sinks       # a bool result and a slice can drop a nan/inf


def test_an_unused_float_value_is_still_checked():
    def f(x):
        np.log(x)          # NumPy warns for log(0) even though nothing reads the result
        return x + 1.0
    g = graph_of(f, np.ones(3))
    log = next(n for n in g.nodes if n.op == "log")
    assert id(log) in finite_sinks(g)


def test_integer_values_are_never_sinks():
    g = graph_of(lambda x: (x * 2).sum(), np.arange(4))
    assert finite_sinks(g) == set()
