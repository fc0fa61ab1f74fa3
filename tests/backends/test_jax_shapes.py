"""jax_lowering/shapes.py: a graph with symbolic sizes (dynamic shapes) is specialized per concrete input
signature: one capture, one XLA compilation per signature (cached), no decision on a symbol (no size guard
added by the backend), results as eager's; sizes it cannot evaluate leave the graph to NumPy, with the
reason."""

from __future__ import annotations

import numpy as np

from tests.backends.jax_support import Recorder, assert_close, md
from minidynamo.backends.jax_lowering import engine   # noqa: E402  (after the skip without JAX)


def scaled(x):
    return np.tanh(x) * 2.0 + x.sum(axis=0)


def compiled_dynamic(fn):
    rec = Recorder()
    return md.compile(fn, backend=rec, dynamic=True, options={"suppress_errors": False}), rec


def jitted_graphs(name):
    return [k[0].splitlines()[0] for k in engine._JITTED if k[0].startswith(f"graph {name}(")]


def test_one_capture_and_one_compilation_per_concrete_shape():
    engine._JITTED.clear()
    compiled, rec = compiled_dynamic(scaled)
    shapes = [(3, 4), (5, 4), (7, 9), (5, 4), (3, 4)]
    for shape in shapes:
        x = np.linspace(-1, 1, int(np.prod(shape))).reshape(shape)
        assert_close(compiled(x), scaled(x))
    assert len(rec.runs) == 1                                  # one capture served every shape
    run = rec.runs[0]
    assert len(run.fallbacks.runs) == 3 and rec.fallbacks == 0
    assert sorted(jitted_graphs("scaled")) == ["graph scaled(x: f64[3,4]):", "graph scaled(x: f64[5,4]):",
                                               "graph scaled(x: f64[7,9]):"]
    source = compiled._minidynamo.cache.source()
    assert "== 3" not in source and "<= " not in source      # the backend added no guard on a size


def test_a_symbolic_reshape_argument_is_evaluated_per_signature():
    def halves(x):
        n = x.shape[0]
        return (x.reshape(n, -1) * 3).sum(axis=1)
    compiled, rec = compiled_dynamic(halves)
    for rows in (4, 6, 10):
        x = np.arange(rows * 6, dtype=np.int64).reshape(rows, 2, 3)
        assert_close(compiled(x), halves(x))
    assert rec.fallbacks == 0 and len(rec.runs[-1].fallbacks.runs) >= 2


def test_a_size_no_input_gives_leaves_the_graph_to_numpy_and_says_why():
    def pairs(x):
        return np.tanh(x.reshape(x.shape[0] // 2, -1))
    compiled, rec = compiled_dynamic(pairs)
    for rows in (4, 6, 8):
        x = np.linspace(0, 1, rows * 3).reshape(rows, 3)
        assert_close(compiled(x), pairs(x))
    symbolic = [p for p in rec.plans if "//" in str(p.graph)]     # the capture kept (s0//2) symbolic
    assert len(symbolic) == 1 and not symbolic[0].fully_lowered
    assert "no input dimension gives" in symbolic[0].summary()


def test_a_size_read_as_a_python_int_is_a_constant_of_each_specialization():
    def scale_rows(x):
        n = x.shape[0]          # sym_size(x, 0): a Python int in the graph
        return x * n + x.sum()
    compiled, rec = compiled_dynamic(scale_rows)
    for rows in (3, 5, 9):
        x = np.linspace(0, 1, rows * 2).reshape(rows, 2)
        assert_close(compiled(x), scale_rows(x))
    assert "sym_size" in [n.op for n in rec.plans[0].graph.nodes]
    assert rec.fully_lowered and rec.fallbacks == 0
