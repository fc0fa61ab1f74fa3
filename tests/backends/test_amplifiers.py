"""backends/amplifiers.py through plan_lowering, with a toy engine that would lower every op: the steps
whose answer a rounding difference changes (eig, svd, argsort, argmax, ...) and every node their inputs
are computed from stay on NumPy, in one graph, inside a loop node and across a graph break."""

from __future__ import annotations

from typing import Any, Iterator, Mapping

import numpy as np

import minidynamo as md
from minidynamo.backends.amplifiers import HANDED_ON, amplified_refusals, is_amplifying
from minidynamo.backends.lowering import LoweringTable, OpRule, Placement, plan_lowering
from minidynamo.graph import codegen
from minidynamo.graph.ir import iter_nodes


class _Every(Mapping):
    """A rules table holding a rule for every op name."""

    def __getitem__(self, name: str) -> OpRule:
        return OpRule(None)

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


EVERYTHING = LoweringTable("toy", _Every(), {})


class ToyEngine:
    """A backend that plans with EVERYTHING and runs NumPy."""

    def __init__(self) -> None:
        self.plans: list[Any] = []

    def __call__(self, graph: Any, example_inputs: Any) -> Any:
        self.plans.append(plan_lowering(graph, EVERYTHING))
        return codegen.compile_graph(graph)


def _placements(plan: Any) -> dict[str, list[Placement]]:
    out: dict[str, list[Placement]] = {}
    for d in plan.decisions:
        out.setdefault(d.node.op, []).append(d.placement)
    return out


def _compiled(fn: Any, *args: Any) -> ToyEngine:
    engine = ToyEngine()
    compiled = md.compile(fn, backend=engine, options={"suppress_errors": False})
    expected = fn(*args)
    got = compiled(*args)
    for g, e in zip(got if isinstance(got, tuple) else (got,), expected if isinstance(expected, tuple) else (expected,)):
        assert np.array_equal(g, e)
    return engine


def test_the_inputs_of_a_decomposition_are_computed_by_numpy():
    def f(x, b):
        vals, vecs = np.linalg.eigh(x.T @ x)
        return x @ vecs, np.tanh(b) * 2
    x, b = np.random.default_rng(0).standard_normal((6, 3)), np.linspace(0, 1, 4)
    plan, = _compiled(f, x, b).plans
    where = _placements(plan)
    assert where["transpose"] == [Placement.NUMPY] and where["eigh"] == [Placement.NUMPY]
    assert where["matmul"] == [Placement.NUMPY, Placement.ENGINE]       # x.T @ x, then x @ vecs
    assert where["tanh"] == [Placement.ENGINE] and where["multiply"] == [Placement.ENGINE]
    reason = next(d.reason for d in plan.decisions if d.node.op == "transpose")
    assert "feeds eigh" in reason


def test_an_argmax_and_everything_before_it_stay_on_numpy():
    def f(x):
        return np.argmax(x * 2.0 + 1.0, axis=1), np.sin(x)
    plan, = _compiled(f, np.linspace(0, 1, 12).reshape(3, 4)).plans
    assert _placements(plan) == {"multiply": [Placement.NUMPY], "add": [Placement.NUMPY],
                                 "argmax": [Placement.NUMPY], "sin": [Placement.ENGINE]}


def test_such_a_step_on_values_computed_exactly_stays_with_the_engine():
    def f(x, k):    # moved, selected, compared, integer arithmetic: every engine gets NumPy's values
        return np.argmax(np.maximum(x.T[1:], 0.5), axis=0), np.argsort(k * 3 + 1), np.argmin(x > 0.5)
    plan, = _compiled(f, np.linspace(0, 1, 12).reshape(3, 4), np.arange(5)).plans
    assert all(d.placement is Placement.ENGINE for d in plan.decisions), plan.summary()


def test_a_loop_whose_body_resolves_ties_stays_on_numpy():
    def f(x):   # the carried x feeds the next iteration's argmin
        while x.sum() > 1.0:
            x = x * 0.5 + np.argmin(x)
        return x
    plan, = _compiled(f, np.linspace(0.1, 1, 5)).plans
    where = _placements(plan)
    assert where["while_loop"] == [Placement.NUMPY]
    assert where["sum"] == [Placement.NUMPY] and where["greater"] == [Placement.NUMPY]   # its initial test
    assert "feeds argmin" in next(d.reason for d in plan.decisions if d.node.op == "while_loop")


def pca(X, n):
    cov = (1 / (X.shape[0] - 1)) * (X - X.mean(axis=0)).T.dot(X - X.mean(axis=0))
    print(end="")                            # a graph break: the covariance is handed on to eig after it
    values, vectors = np.linalg.eig(cov)
    idx = values.argsort()[::-1]
    return X.dot(vectors[:, idx][:, :n])


def test_outputs_handed_on_across_a_break_to_eig_are_computed_by_numpy():
    engine = _compiled(pca, np.random.default_rng(1).standard_normal((50, 10)), 3)
    first = engine.plans[0]
    assert [o.meta.get(HANDED_ON) for o in iter_nodes(first.graph.outputs)] == ["eig"]
    assert all(d.placement is Placement.NUMPY for d in first.decisions)
    assert "handed on to eig later in the function" in first.decisions[0].reason


def test_a_break_without_such_a_step_leaves_the_graph_to_the_engine():
    def f(x):
        y = np.tanh(x) * 2.0
        print("between")
        return y + 1.0
    engine = _compiled(f, np.linspace(0, 1, 4))
    assert all(d.placement is Placement.ENGINE for p in engine.plans for d in p.decisions)
    assert not any(o.meta.get(HANDED_ON) for p in engine.plans for o in iter_nodes(p.graph.outputs))


def test_is_amplifying_reads_the_last_name():
    assert is_amplifying("eig") and is_amplifying("linalg.svd") and is_amplifying("argsort")
    assert not is_amplifying("sort") and not is_amplifying("greater") and not is_amplifying("floor")


def test_a_graph_without_such_steps_has_no_refusals():
    engine = _compiled(lambda x: np.sort(x) > 0.5, np.linspace(0, 1, 5))
    assert amplified_refusals(engine.plans[0].graph) == {}
