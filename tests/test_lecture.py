"""The facts the tracing lecture's demos 1-3 print, checked on our own versions of its programs."""

from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

from minidynamo.errors import TraceError
from minidynamo.graph.ir import CONST
from minidynamo.tracing import LazyRunner, check_guards, run, trace
from tests.programs import lecture_demos as demos


def _branch_line() -> int:
    lines, start = inspect.getsourcelines(demos.sign_flip)
    return start + next(i for i, text in enumerate(lines) if "# BRANCH" in text)


# ---- demo 1: a traced MLP is the eager MLP ---------------------------------------------------------------

@pytest.fixture
def mlp_params():
    rng = np.random.default_rng(0)
    return {"W1": rng.standard_normal((8, 16)) / 3, "W2": rng.standard_normal((16, 8)) / 4}


def test_demo1_graph_equals_eager(mlp_params):
    g = trace(demos.gelu_mlp, {"x": (4, 8)}, mlp_params)
    for seed in range(3):
        x = np.random.default_rng(seed).standard_normal((4, 8))
        np.testing.assert_array_equal(run(g, {"x": x})[0], demos.gelu_mlp(x, mlp_params))


def test_demo1_ops_and_constants(mlp_params):
    g = trace(demos.gelu_mlp, {"x": (4, 8)}, mlp_params)
    assert g.ops() == {"matmul": 2, "multiply": 6, "add": 2, "tanh": 1}
    assert g.count() == 11
    consts = [n for n in g.nodes if n.op == CONST]
    assert [id(c.value) for c in consts] == [id(mlp_params["W1"]), id(mlp_params["W2"])]


def test_demo1_python_math_is_folded_to_a_number(mlp_params):
    g = trace(demos.gelu_mlp, {"x": (4, 8)}, mlp_params)
    scale = math.sqrt(2.0 / math.pi)
    inline = [a for n in g.nodes if n.is_call for a in n.args if isinstance(a, float)]
    assert scale in inline
    assert "sqrt" not in g.ops()
    assert str(scale) in str(g)


# ---- demo 2: what tracing sees and what it does not ------------------------------------------------------

@pytest.fixture
def stack_params():
    return {"W": np.random.default_rng(1).standard_normal((8, 8)) / 3}


@pytest.mark.parametrize("n_layers, residual", [(1, True), (3, True), (3, False)])
def test_demo2_loops_unroll_and_python_ifs_specialize(stack_params, n_layers, residual):
    stack = demos.make_stack([])
    g = trace(lambda x, p: stack(x, p, n_layers, residual), {"x": (4, 8)}, stack_params)
    assert g.count("matmul") == n_layers
    assert g.count("tanh") == n_layers
    assert g.count("add") == (n_layers if residual else 0)
    assert g.count("reshape") + g.count("transpose") == 4
    assert g.count() == 2 * n_layers + (n_layers if residual else 0) + 4 + 1
    assert sum(1 for n in g.nodes if n.op == CONST) == 1     # W, used n_layers times, is one constant
    x = np.random.default_rng(2).standard_normal((4, 8))
    np.testing.assert_array_equal(run(g, {"x": x})[0], stack(x, stack_params, n_layers, residual))


def test_demo2_side_effects_happen_once_at_trace_time(stack_params):
    log = []
    stack = demos.make_stack(log)
    g = trace(lambda x, p: stack(x, p), {"x": (4, 8)}, stack_params)
    assert log == ["body ran"]
    rng = np.random.default_rng(3)
    for _ in range(3):
        run(g, {"x": rng.standard_normal((4, 8))})
    assert log == ["body ran"]


def test_demo2_shapes_are_baked(stack_params):
    stack = demos.make_stack([])
    g = trace(lambda x, p: stack(x, p), {"x": (4, 8)}, stack_params)
    reshapes = [n for n in g.nodes if n.op == "reshape"]
    assert (4, 2, 4) in [a for n in reshapes for a in n.args]
    assert 1.0 / math.sqrt(8) in [a for n in g.nodes if n.is_call for a in n.args]
    with pytest.raises(ValueError, match=r"'x'.*f64\[4,8\].*f64\[5,8\]"):
        run(g, {"x": np.zeros((5, 8))})


# ---- demo 3: a branch on data -----------------------------------------------------------------------------

@pytest.fixture
def signed():
    rng = np.random.default_rng(2)
    return np.abs(rng.standard_normal((3, 4))), -np.abs(rng.standard_normal((3, 4)))


def test_demo3_error_mode_names_the_if_line():
    with pytest.raises(TraceError) as info:
        trace(demos.sign_flip, {"x": (3, 4)}, mode="error")
    message = str(info.value)
    assert f"lecture_demos.py:{_branch_line()}" in message
    assert "if total > 0:" in message


def test_demo3_specialize_is_silently_wrong_off_the_example_path(signed):
    pos, neg = signed
    g = trace(demos.sign_flip, {"x": (3, 4)}, mode="specialize", example={"x": pos})
    assert g.guards == []
    assert g.ops() == {"multiply": 1} and g.nodes[-1].args[1] == 2.0    # only the path the example took
    np.testing.assert_array_equal(run(g, {"x": pos})[0], demos.sign_flip(pos))
    err = np.abs(run(g, {"x": neg})[0] - demos.sign_flip(neg)).max()
    assert err > 0


def test_demo3_guard_mode_records_one_checkable_guard(signed):
    pos, neg = signed
    g = trace(demos.sign_flip, {"x": (3, 4)}, mode="guard", example={"x": pos})
    assert len(g.guards) == 1
    assert g.ops() == {"multiply": 1}
    assert g.guards[0].condition.ops() == {"sum": 2, "greater": 1}
    assert check_guards(g, {"x": pos}) is True
    assert check_guards(g, {"x": neg}) is False
    text = str(g.guards[0])
    assert text.startswith("bool(greater(") and " is True" in text
    assert f"lecture_demos.py:{_branch_line()}" in text and "if total > 0:" in text


def test_demo3_lazy_runner_breaks_into_two_graphs_and_is_right(signed):
    _, neg = signed
    lr = LazyRunner()
    out = lr.materialize(demos.sign_flip(lr.tensor(neg)))
    np.testing.assert_array_equal(out, demos.sign_flip(neg))
    assert lr.graphs == [3, 1]          # sum, sum, greater | multiply
    assert len(lr.graphs) == 2
    assert [list(g.ops()) for g in lr.flushed] == [["sum", "greater"], ["multiply"]]
