"""backends/lowering.py: decisions, pieces and chaining, with a toy engine (no engine library needed).

The toy engine "lowers" add/multiply/tanh/iadd by running them through the reference interpreter and
records which piece graphs it was given; `inv` is listed as not lowered, `sum` refuses `keepdims`.
"""

from __future__ import annotations

import operator

import numpy as np
import pytest

import minidynamo as md
from minidynamo.backends.lowering import (LoweringTable, NotLowerable, OpRule, Placement, lower_graph,
                                          plan_lowering)
from minidynamo.graph import interp
from minidynamo.graph.ir import ArraySpec, Graph, MethodCall

F64 = np.dtype(np.float64)


def toy_table() -> LoweringTable:
    keepdims = OpRule(None, refuse=lambda n: "keepdims is not supported" if "keepdims" in n.kwargs else None)
    rules = {name: OpRule(None) for name in ("add", "multiply", "tanh", "iadd")}
    rules["sum"] = keepdims
    return LoweringTable("toy", rules, {"inv": "singular matrices must raise LinAlgError"})


class ToyEngine:
    def __init__(self, refuse: bool = False) -> None:
        self.graphs: list[Graph] = []
        self.refuse = refuse

    def __call__(self, graph: Graph):
        if self.refuse:
            raise NotLowerable("the toy engine gave up")
        self.graphs.append(graph)
        return lambda *inputs: interp.run_unchecked(graph, inputs)


def mixed_graph() -> Graph:
    g = Graph("mixed")
    x = g.add_input("x", ArraySpec((3, 3), F64))
    a = g.call("tanh", np.tanh, (x,), spec=ArraySpec((3, 3), F64))
    b = g.call("add", operator.add, (a, 1.0), spec=ArraySpec((3, 3), F64))
    c = g.call("inv", np.linalg.inv, (b,), spec=ArraySpec((3, 3), F64))
    d = g.call("multiply", operator.mul, (c, a), spec=ArraySpec((3, 3), F64))
    s = g.call("sum", MethodCall("sum"), (d,), {"keepdims": True}, spec=ArraySpec((1, 1), F64))
    g.set_outputs([d, s, 7])
    return g


def mixed_eager(x):
    a = np.tanh(x)
    d = np.linalg.inv(a + 1.0) * a
    return d, d.sum(keepdims=True), 7


def test_decisions_say_which_op_and_why():
    plan = plan_lowering(mixed_graph(), toy_table())
    where = {d.node.op: d.placement for d in plan.decisions}
    assert where == {"tanh": Placement.ENGINE, "add": Placement.ENGINE, "inv": Placement.NUMPY,
                     "multiply": Placement.ENGINE, "sum": Placement.NUMPY}
    reasons = {d.node.op: d.reason for d in plan.not_lowered}
    assert reasons == {"inv": "singular matrices must raise LinAlgError", "sum": "keepdims is not supported"}
    assert [p.placement for p in plan.pieces] == [Placement.ENGINE, Placement.NUMPY, Placement.ENGINE,
                                                  Placement.NUMPY]
    assert not plan.fully_lowered
    text = plan.summary()
    assert text.startswith("toy: 3 of 5 op(s) lowered, 4 piece(s)")
    assert "%2 = inv(%1)  # f64[3,3] -- not lowered: singular matrices must raise LinAlgError" in text


def test_an_op_in_no_table_is_reported_missing():
    g = Graph("g")
    x = g.add_input("x", ArraySpec((2,), F64))
    g.set_outputs([g.call("exp", np.exp, (x,), spec=ArraySpec((2,), F64))])
    (d,) = plan_lowering(g, toy_table()).decisions
    assert d.placement is Placement.NUMPY and d.reason == "no toy lowering for op 'exp'"


def test_pieces_read_and_write_only_what_crosses():
    plan = plan_lowering(mixed_graph(), toy_table())
    first, second, third, fourth = plan.pieces
    assert [n.name for n in first.reads] == ["x"]
    assert [n.op for n in first.writes] == ["tanh", "add"]     # a is read again by multiply, b by inv
    assert [n.op for n in second.reads] == ["add"] and [n.op for n in second.writes] == ["inv"]
    assert sorted(n.op for n in third.reads) == ["inv", "tanh"]
    assert [n.op for n in third.writes] == ["multiply"]          # an output and read by sum
    for p in plan.pieces:
        p.graph.lint()


def test_chained_pieces_compute_what_numpy_does():
    engine = ToyEngine()
    run = lower_graph(mixed_graph(), toy_table(), engine)
    x = np.random.default_rng(0).random((3, 3))
    got, expected = run(x), mixed_eager(x)
    assert len(got) == 3 and got[2] == 7
    for a, b in zip(got[:2], expected[:2]):
        assert a.dtype == b.dtype and np.array_equal(a, b)
    assert [sorted(n.op for n in g.nodes if n.is_call) for g in engine.graphs] == [["add", "tanh"],
                                                                                 ["multiply"]]
    assert run.__minidynamo_lowering__.engine == "toy"


def test_a_fully_lowerable_graph_is_one_engine_piece_of_the_graph_itself():
    g = Graph("whole")
    x = g.add_input("x", ArraySpec((2,), F64))
    g.set_outputs([g.call("tanh", np.tanh, (x,), spec=ArraySpec((2,), F64))])
    engine = ToyEngine()
    run = lower_graph(g, toy_table(), engine)
    assert engine.graphs == [g] and run.__minidynamo_lowering__.fully_lowered


def test_short_engine_runs_stay_on_numpy():
    plan = plan_lowering(mixed_graph(), toy_table(), min_engine_ops=2)
    assert [p.placement for p in plan.pieces] == [Placement.ENGINE, Placement.NUMPY]
    assert "too short" in {d.node.op: d.reason for d in plan.not_lowered}["multiply"]


def test_an_engine_that_gives_up_leaves_the_piece_on_numpy_with_its_reason():
    run = lower_graph(mixed_graph(), toy_table(), ToyEngine(refuse=True))
    x = np.random.default_rng(1).random((3, 3))
    assert np.array_equal(run(x)[0], mixed_eager(x)[0])
    plan = run.__minidynamo_lowering__
    assert {d.reason for d in plan.not_lowered} >= {"the toy engine gave up"}
    assert all(p.placement is Placement.NUMPY for p in plan.pieces)


def test_in_place_write_on_numpy_is_seen_by_a_later_engine_piece():
    """Values cross pieces as the same objects, so a NumPy piece's in-place write is what the next reads."""
    g = Graph("inplace")
    x = g.add_input("x", ArraySpec((3,), F64))
    w = g.call("setitem", operator.setitem, (x, 0, 5.0), spec=None)
    t = g.call("tanh", np.tanh, (x,), spec=ArraySpec((3,), F64))
    g.set_outputs([t])
    assert w is not None
    run = lower_graph(g, toy_table(), ToyEngine())
    x_val = np.zeros(3)
    (out,) = run(x_val)
    assert x_val[0] == 5.0 and out[0] == np.tanh(5.0)


def test_the_backend_contract_holds_through_compile():
    """A lowering backend plugs into compile() like any other: (graph, example_inputs) -> run."""
    def toy_backend(graph, example_inputs):
        return lower_graph(graph, toy_table(), ToyEngine())

    f = md.compile(mixed_eager, backend=toy_backend)
    x = np.random.default_rng(2).random((3, 3))
    got, expected = f(x), mixed_eager(x)
    assert np.array_equal(got[0], expected[0]) and got[2] == 7


@pytest.mark.parametrize("outputs", [[], ["x"]])
def test_graphs_without_calls(outputs):
    g = Graph("empty")
    x = g.add_input("x", ArraySpec((2,), F64))
    g.set_outputs([x] if outputs else [])
    run = lower_graph(g, toy_table(), ToyEngine())
    val = np.ones(2)
    assert run(val) == ((val,) if outputs else ())


def test_explain_says_which_op_was_not_lowered_and_why():
    def toy_backend(graph, example_inputs):
        return lower_graph(graph, toy_table(), ToyEngine())

    out = md.explain(md.compile(mixed_eager, backend=toy_backend))(np.eye(3))
    assert len(out.lowering) == 1
    text = str(out)
    assert "lowering:\n  graph mixed_eager: toy: 3 of 5 op(s) lowered" in text
    assert "-- not lowered: singular matrices must raise LinAlgError" in text


def test_graph_level_refusals_come_first():
    table = toy_table()
    g = mixed_graph()
    tanh = next(n for n in g.nodes if n.op == "tanh")
    table = LoweringTable("toy", table.rules, table.not_lowered, refuse_graph=lambda graph: {id(tanh): "aliased"})
    d = plan_lowering(g, table).decisions[0]
    assert d.node is tanh and d.placement is Placement.NUMPY and d.reason == "aliased"


def test_a_list_of_graph_values_as_an_operand_stays_on_numpy():
    # numpy-ml's `log_probs - _max` over a list of NumPy scalars: NumPy converts the list with np.asarray,
    # which an engine's own functions do not; joins (np.stack) take theirs by their API and lower
    g = Graph("sequence")
    x = g.add_input("x", ArraySpec((), F64, scalar=True))
    y = g.add_input("y", ArraySpec((), F64, scalar=True))
    a = g.call("add", operator.add, ([x, y], 1.0), spec=ArraySpec((2,), F64))
    b = g.call("tanh", np.tanh, ((x, y),), spec=ArraySpec((2,), F64))
    c = g.call("add", operator.add, (a, b), spec=ArraySpec((2,), F64))
    g.set_outputs([c])
    plan = plan_lowering(g, toy_table())
    assert [d.placement for d in plan.decisions] == [Placement.NUMPY, Placement.NUMPY, Placement.ENGINE]
    assert "np.asarray" in plan.decisions[0].reason
