"""graph/interp.py: input validation, evaluation order and identity, the Interpreter hooks."""

from __future__ import annotations

import operator

import numpy as np
import pytest

from minidynamo.graph import interp, ops
from minidynamo.graph.ir import ArraySpec, Graph

F64 = np.dtype("float64")


def mlp_graph() -> Graph:
    g = Graph("block_0")
    x = g.add_input("x", ArraySpec((4, 3), F64))
    w = g.add_input("w", ArraySpec((3, 5), F64))
    h = g.call("matmul", ops.get("matmul").impl, (x, w))
    t = g.call("tanh", ops.get("tanh").impl, (h,))
    s = g.call("sum", np.sum, (t,))
    g.set_outputs([t, s])
    return g


def test_run_matches_numpy_bit_for_bit():
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((4, 3)), rng.standard_normal((3, 5))
    t, s = interp.run(mlp_graph(), [x, w])
    assert t.tobytes() == np.tanh(x @ w).tobytes()
    assert type(s) is np.float64 and s == np.sum(np.tanh(x @ w))


def test_inputs_by_name():
    x, w = np.ones((4, 3)), np.ones((3, 5))
    a = interp.run(mlp_graph(), {"w": w, "x": x})
    b = interp.run(mlp_graph(), (x, w))
    assert np.array_equal(a[0], b[0]) and a[1] == b[1]


@pytest.mark.parametrize("inputs, message", [
    ({"x": np.ones((4, 3))}, r"missing 'w'"),
    ({"x": np.ones((4, 3)), "w": np.ones((3, 5)), "z": 1}, r"unexpected 'z'"),
    ([np.ones((4, 3))], r"expected 2 inputs \['x', 'w'\], got 1"),
    ([np.ones((5, 3)), np.ones((3, 5))], r"input 'x': expected f64\[4,3\], got f64\[5,3\]"),
    ([np.ones((4, 3)), np.ones((3, 5), np.float32)], r"input 'w': expected f64\[3,5\], got f32\[3,5\]"),
    ([np.ones((4, 3)).tolist(), np.ones((3, 5))], r"input 'x': expected f64\[4,3\], got list"),
    ([np.ma.ones((4, 3)), np.ones((3, 5))], r"input 'x': expected f64\[4,3\], got MaskedArray f64\[4,3\]"),
])
def test_bad_inputs_are_named(inputs, message):
    with pytest.raises(ValueError, match=message):
        interp.run(mlp_graph(), inputs)


def test_scalar_input_is_not_a_0d_array():
    g = Graph("s")
    a = g.add_input("a", ArraySpec((), F64, scalar=True))
    g.set_outputs([g.call("negative", np.negative, (a,))])
    assert interp.run(g, [np.float64(2.0)]) == (-2.0,)
    with pytest.raises(ValueError, match=r"input 'a': expected f64, got f64\[\]"):
        interp.run(g, [np.array(2.0)])
    with pytest.raises(ValueError, match=r"input 'a': expected f64, got float"):
        interp.run(g, [2.0])


def test_outputs_keep_identity_and_plain_values_pass_through():
    g = Graph("ident")
    x = g.add_input("x", ArraySpec((3,), F64))
    c = g.add_const(np.arange(3.0))
    g.set_outputs([x, c, (x, 7), None])
    arr = np.zeros(3)
    out = interp.run(g, [arr])
    assert out[0] is arr and out[1] is c.value and out[2][0] is arr and out[2][1] == 7 and out[3] is None


def test_in_place_ops_mutate_the_callers_array():
    g = Graph("inplace")
    x = g.add_input("x", ArraySpec((2, 3), F64))
    y = g.call("iadd", operator.iadd, (x, 1.0))
    g.call("setitem", operator.setitem, (x, (0, slice(None, 2)), -5.0))
    g.set_outputs([y])
    arr = np.zeros((2, 3))
    (res,) = interp.run(g, [arr])
    assert res is arr
    assert arr.tolist() == [[-5.0, -5.0, 1.0], [1.0, 1.0, 1.0]]


def test_errors_propagate_with_numpys_type():
    g = Graph("bad")
    x = g.add_input("x", ArraySpec((2, 3), F64))
    g.set_outputs([g.call("matmul", np.matmul, (x, x))])
    with pytest.raises(ValueError, match="matmul"):
        interp.run(g, [np.ones((2, 3))])


def test_run_unchecked_skips_validation_but_not_arity():
    g = mlp_graph()
    t, _ = interp.run_unchecked(g, [np.ones((4, 3), np.float32), np.ones((3, 5), np.float32)])
    assert t.dtype == np.float32
    with pytest.raises(TypeError, match="takes 2 inputs, got 1"):
        interp.run_unchecked(g, [np.ones((4, 3))])


def test_interpreter_hooks():
    class Recording(interp.Interpreter):
        def __init__(self, graph):
            super().__init__(graph)
            self.calls = []

        def call_op(self, node, args, kwargs):
            self.calls.append(node.op)
            return super().call_op(node, args, kwargs)

        def op_tanh(self, node, args, kwargs):
            return np.clip(args[0], -1.0, 1.0)

    x, w = np.full((4, 3), 2.0), np.ones((3, 5))
    it = Recording(mlp_graph())
    t, s = it.run([x, w])
    assert it.calls == ["matmul", "tanh", "sum"]
    assert np.all(t == 1.0) and s == 20.0
    assert len(it.env) == 5      # x, w and three calls, kept for inspection after the run


def test_hook_names_for_dotted_ops():
    g = Graph("red")
    x = g.add_input("x", ArraySpec((3,), F64))
    g.set_outputs([g.call("add.reduce", np.add.reduce, (x,))])

    class Doubling(interp.Interpreter):
        def op_add_reduce(self, node, args, kwargs):
            return 2 * node.target(*args)

    assert Doubling(g).run([np.ones(3)]) == (6.0,)
    assert interp.run(g, [np.ones(3)]) == (3.0,)
