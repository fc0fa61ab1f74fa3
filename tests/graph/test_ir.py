"""graph/ir.py: printing (golden text, the same on every Python version), lint, specs."""

from __future__ import annotations

import operator

import numpy as np
import pytest

from minidynamo.graph import ops
from minidynamo.graph.ir import ArraySpec, Graph

F64 = np.dtype("float64")


def mlp_graph() -> Graph:
    g = Graph("block_0")
    x = g.add_input("x", ArraySpec((4, 3), F64))
    w = g.add_input("w", ArraySpec((3, 5), F64))
    h = g.call("matmul", ops.get("matmul").impl, (x, w), spec=ArraySpec((4, 5), F64))
    t = g.call("tanh", ops.get("tanh").impl, (h,), spec=ArraySpec((4, 5), F64))
    s = g.call("sum", np.sum, (t,), spec=ArraySpec((), F64, scalar=True))
    g.set_outputs([t, s])
    return g


def test_graph_text_is_golden():
    assert str(mlp_graph()) == (
        "graph block_0(x: f64[4,3], w: f64[3,5]):\n"
        "  %0 = matmul(x, w)  # f64[4,5]\n"
        "  %1 = tanh(%0)  # f64[4,5]\n"
        "  %2 = sum(%1)  # f64\n"
        "  return (%1, %2)"
    )


def test_arguments_print_like_python():
    g = Graph("idx")
    x = g.add_input("x", ArraySpec((6, 4), np.float32))
    c = g.add_const(np.arange(3))
    y = g.call("getitem", operator.getitem, (x, (slice(1, 3), None, Ellipsis)),
               spec=ArraySpec((2, 1, 4), np.float32))
    z = g.call("sum", np.sum, (y,), {"axis": -1, "dtype": np.dtype("float64")})
    g.set_outputs([z, c, 2.5])
    assert str(g).splitlines()[1:] == [
        "  %0 = const(array([0, 1, 2]))  # i64[3]",
        "  %1 = getitem(x, (1:3, None, ...))  # f32[2,1,4]",
        "  %2 = sum(%1, axis=-1, dtype=float64)  # None",
        "  return (%2, %0, 2.5)",
    ]


def test_lint_accepts_a_well_formed_graph():
    mlp_graph().lint()


def test_lint_catches_use_before_define():
    g = mlp_graph()
    g.nodes[2], g.nodes[3] = g.nodes[3], g.nodes[2]      # tanh now stands before the matmul it reads
    for i, n in enumerate(g.nodes):
        n.index = i
    with pytest.raises(ValueError, match=r"%1 = tanh\(\.\.\.\): uses %0 before it is defined"):
        g.lint()


def test_lint_catches_duplicate_names():
    g = mlp_graph()
    g.nodes[3].name = "%0"
    with pytest.raises(ValueError, match="%0: defined twice"):
        g.lint()


def test_lint_catches_a_foreign_output():
    g, other = mlp_graph(), mlp_graph()
    g.set_outputs([other.nodes[-1]])
    with pytest.raises(ValueError, match="not a node of this graph"):
        g.lint()


def test_call_refuses_nodes_of_another_graph():
    g, other = mlp_graph(), mlp_graph()
    with pytest.raises(ValueError, match="is not a node of graph"):
        g.call("tanh", np.tanh, (other.nodes[0],))


def test_input_names_must_be_fresh_identifiers():
    g = Graph()
    g.add_input("x", ArraySpec((1,), F64))
    for bad in ("x", "1x", "a-b"):
        with pytest.raises(ValueError):
            g.add_input(bad, ArraySpec((1,), F64))


def test_spec_matches_exact_type_shape_dtype():
    spec = ArraySpec((2, 3), F64)
    assert spec.matches(np.zeros((2, 3)))
    assert not spec.matches(np.zeros((2, 3), np.float32))
    assert not spec.matches(np.zeros((3, 2)))
    assert not spec.matches(np.zeros((2, 3)).tolist())
    assert not spec.matches(np.ma.zeros((2, 3)))
    scalar = ArraySpec((), F64, scalar=True)
    assert scalar.matches(np.float64(1.0)) and not scalar.matches(np.array(1.0)) and not scalar.matches(1.0)
    assert str(scalar) == "f64" and str(ArraySpec((), F64)) == "f64[]" and str(ArraySpec((2,), bool)) == "b1[2]"


def test_counts_and_users():
    g = mlp_graph()
    assert g.count() == 3 and g.count("tanh") == 1
    assert g.ops() == {"matmul": 1, "tanh": 1, "sum": 1}
    users = g.users()
    assert [u.op for u in users[g.nodes[0]]] == ["matmul"]


def test_a_graph_holds_its_own_nodes_only():
    g, other = Graph("g"), Graph("other")
    x = g.add_input("x", ArraySpec((2,), np.float64))
    y = g.call("neg", np.negative, (x,), spec=ArraySpec((2,), np.float64))
    z = other.add_input("z", ArraySpec((2,), np.float64))
    assert g.holds(x) and g.holds(y) and not g.holds(z) and not other.holds(x)
    del g.nodes[1:]                     # cut, as a refused branch fold cuts its arm (index kept, stale)
    w = g.call("neg", np.negative, (x,), spec=ArraySpec((2,), np.float64))
    assert not g.holds(y) and g.holds(w) and w.index == y.index
