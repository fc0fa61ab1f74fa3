"""graph/control.py: cond and while_loop nodes: printing, lint, interpreter, codegen (a real if/while, only the
taken arm runs) and passes that rewrite subgraphs without dropping an op that could raise."""

from __future__ import annotations

import operator
import warnings

import numpy as np
import pytest

from minidynamo.graph import codegen, control, interp, passes
from minidynamo.graph.interp import Interpreter
from minidynamo.graph.ir import ArraySpec, Graph, PyScalarSpec

from .test_codegen import same

F64, I64, B1 = np.dtype("float64"), np.dtype("int64"), np.dtype("bool")
VEC = ArraySpec((4,), F64)
MAT = ArraySpec((2, 2), F64)
SCALAR = ArraySpec((), F64, scalar=True)
PRED = ArraySpec((), B1, scalar=True)
COUNT = ArraySpec((), I64, scalar=True)


def subgraph(name, specs, build):
    """A subgraph with inputs a0, a1, ... of `specs`; `build(g, *inputs)` returns its outputs."""
    g = Graph(name)
    ins = [g.add_input(f"a{i}", s) for i, s in enumerate(specs)]
    g.set_outputs(list(build(g, *ins)))
    return g


def conditional_op(true_build=None, false_build=None):
    """The seed's conditional_op: `x * 2 if x.sum() > threshold else x + 1`, as one graph."""
    g = Graph("conditional_op")
    x, th = g.add_input("x", VEC), g.add_input("threshold", SCALAR)
    s = g.call("sum", np.sum, (x,), spec=SCALAR)
    p = g.call("greater", operator.gt, (s, th), spec=PRED)
    t = subgraph("t", [VEC, SCALAR], true_build or (lambda h, a, b: [h.call("multiply", operator.mul, (a, 2), spec=VEC)]))
    f = subgraph("f", [VEC, SCALAR], false_build or (lambda h, a, b: [h.call("add", operator.add, (a, 1), spec=VEC)]))
    c = control.add_cond(g, p, t, f, (x, th))
    g.set_outputs([g.call("getitem", operator.getitem, (c, 0), spec=VEC)])
    g.lint()
    return g


def doubling_loop(limit):
    """`while n < limit: v = v * 2; n = n + 1`, carried (v, n)."""
    g = Graph("doubling")
    v, n = g.add_input("v", VEC), g.add_input("n", COUNT)
    cg = subgraph("c", [VEC, COUNT], lambda h, a, b: [h.call("less", operator.lt, (b, limit), spec=PRED)])
    bg = subgraph("b", [VEC, COUNT], lambda h, a, b: [h.call("multiply", operator.mul, (a, 2.0), spec=VEC),
                                                      h.call("add", operator.add, (b, 1), spec=COUNT)])
    w = control.add_while_loop(g, cg, bg, (v, n))
    g.set_outputs([g.call("getitem", operator.getitem, (w, i), spec=s) for i, s in enumerate((VEC, COUNT))])
    g.lint()
    return g


def eager_conditional(x, threshold):
    return (x * 2,) if x.sum() > threshold else (x + 1,)


def all_backends(graph, inputs):
    return [interp.run(graph, inputs), codegen.compile_graph(graph)(*inputs),
            codegen.compile_graph(passes.simplify(graph))(*inputs)]


def test_listing_nests_the_arms_like_a_jaxpr():
    text = str(conditional_op())
    assert text == (
        "graph conditional_op(x: f64[4], threshold: f64):\n"
        "  %0 = sum(x)  # f64\n"
        "  %1 = greater(%0, threshold)  # b1\n"
        "  %2 = cond(%1, x, threshold)  # (f64[4])\n"
        "    true(a0: f64[4], a1: f64):\n"
        "      %0 = multiply(a0, 2)  # f64[4]\n"
        "      return (%0)\n"
        "    false(a0: f64[4], a1: f64):\n"
        "      %0 = add(a0, 1)  # f64[4]\n"
        "      return (%0)\n"
        "  %3 = getitem(%2, 0)  # f64[4]\n"
        "  return (%3)")


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_both_arms_match_eager_in_every_evaluator(sign):
    g = conditional_op()
    x = sign * np.arange(4.0)
    for got in all_backends(g, [x, np.float64(0.5)]):
        assert same(got, eager_conditional(x, np.float64(0.5)))


def test_generated_code_is_a_real_if():
    source = codegen.generate(conditional_op()).source
    assert "    if t1:\n" in source and "    else:\n" in source


def test_only_the_taken_arm_runs_warnings_and_exceptions_as_eager():
    # the false arm divides by zero (a RuntimeWarning) and the true arm inverts a singular matrix (raises)
    g = Graph("guarded")
    m, d = g.add_input("m", MAT), g.add_input("d", MAT)
    p = g.call("greater", operator.gt, (g.call("sum", np.sum, (d,), spec=SCALAR), 0.0), spec=PRED)
    t = subgraph("t", [MAT, MAT], lambda h, a, b: [h.call("inv", np.linalg.inv, (a,), spec=MAT)])
    f = subgraph("f", [MAT, MAT], lambda h, a, b: [h.call("true_divide", operator.truediv, (a, b), spec=MAT)])
    c = control.add_cond(g, p, t, f, (m, d))
    g.set_outputs([g.call("getitem", operator.getitem, (c, 0), spec=MAT)])
    singular, ones = np.ones((2, 2)), np.ones((2, 2))
    for run in (lambda i: interp.run(g, i), lambda i: codegen.compile_graph(g)(*i)):
        with pytest.raises(np.linalg.LinAlgError):
            run([singular, ones])                       # true arm taken: inv raises
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = run([singular, -ones])                # false arm only: no LinAlgError
            run([np.eye(2), ones])                      # true arm, invertible: no warning
        assert same(out, (singular / -ones,)) and caught == []
        with pytest.warns(RuntimeWarning):
            run([singular, np.zeros((2, 2)) - 0.0])     # false arm divides by zero: NumPy's warning


@pytest.mark.parametrize("start, runs", [(5, 0), (4, 1), (0, 5)])
def test_while_loop_zero_one_and_many_iterations(start, runs):
    g = doubling_loop(5)
    v = np.arange(4.0)
    expected = (v * 2.0 ** runs, np.int64(5 if runs else start))
    for got in all_backends(g, [v, np.int64(start)]):
        assert same(got, expected)
    assert same(g.nodes[2].target(v, np.int64(start)), expected)   # the target alone runs it too


def test_generated_loop_is_a_real_while():
    source = codegen.generate(doubling_loop(5)).source
    assert "    while True:\n" in source and "        if not " in source and "            break\n" in source


def test_nested_cond_inside_a_while_body():
    g = Graph("nested")
    v, n = g.add_input("v", VEC), g.add_input("n", COUNT)

    def body(h, a, b):
        p = h.call("greater", operator.gt, (h.call("sum", np.sum, (a,), spec=SCALAR), 10.0), spec=PRED)
        t = subgraph("t", [VEC], lambda k, x: [k.call("subtract", operator.sub, (x, 3.0), spec=VEC)])
        f = subgraph("f", [VEC], lambda k, x: [k.call("multiply", operator.mul, (x, 2.0), spec=VEC)])
        c = control.add_cond(h, p, t, f, (a,))
        return [h.call("getitem", operator.getitem, (c, 0), spec=VEC), h.call("add", operator.add, (b, 1), spec=COUNT)]

    cg = subgraph("c", [VEC, COUNT], lambda h, a, b: [h.call("less", operator.lt, (b, 6), spec=PRED)])
    w = control.add_while_loop(g, cg, subgraph("b", [VEC, COUNT], body), (v, n))
    g.set_outputs([g.call("getitem", operator.getitem, (w, 0), spec=VEC)])
    g.lint()

    def eager(v, n):
        while n < 6:
            v = v - 3.0 if v.sum() > 10.0 else v * 2.0
            n = n + 1
        return (v,)

    x = np.arange(4.0)
    for got in all_backends(g, [x, np.int64(0)]):
        assert same(got, eager(x, np.int64(0)))
    assert str(g).count("= cond(") == 1 and "        true(a0: f64[4]):" in str(g)


def test_lint_rejects_arms_with_different_specs():
    with pytest.raises(ValueError, match="arms produce different specs"):
        conditional_op(false_build=lambda h, a, b: [h.call("sum", np.sum, (a,), spec=SCALAR)])


def test_lint_rejects_a_body_that_changes_the_carried_specs():
    g = Graph("bad")
    v = g.add_input("v", VEC)
    cg = subgraph("c", [VEC], lambda h, a: [h.call("all", np.all, (a,), spec=PRED)])
    bg = subgraph("b", [VEC], lambda h, a: [h.call("astype", lambda x, t: x.astype(t), (a, np.float32),
                                                   spec=ArraySpec((4,), np.float32))])
    with pytest.raises(ValueError, match="changes the carried specs"):
        control.add_while_loop(g, cg, bg, (v,))
    assert g.count() == 0     # a rejected node is not left behind


def test_lint_rejects_operands_that_do_not_match_the_arm_inputs():
    g = Graph("bad")
    x, p = g.add_input("x", VEC), g.add_input("p", PRED)
    arm = subgraph("t", [MAT], lambda h, a: [a])
    with pytest.raises(ValueError, match="takes \\(f64\\[2,2\\]\\) but the operands are \\(f64\\[4\\]\\)"):
        control.add_cond(g, p, arm, arm, (x,))


def test_lint_rejects_a_predicate_with_many_values():
    g = Graph("bad")
    x = g.add_input("x", VEC)
    arm = subgraph("t", [VEC], lambda h, a: [a])
    with pytest.raises(ValueError, match="not a single value"):
        control.add_cond(g, x, arm, arm, (x,))


def test_interpreter_hooks_apply_inside_arms_and_bodies():
    class Counting(Interpreter):
        def __init__(self, graph):
            super().__init__(graph)
            self.calls = []

        def call_op(self, node, args, kwargs):
            self.calls.append(node.op)
            return super().call_op(node, args, kwargs)

    it = Counting(doubling_loop(2))
    it.run([np.zeros(4), np.int64(0)])
    assert it.calls.count("multiply") == 2 and it.calls.count("less") == 3


def test_dce_keeps_ops_that_could_raise_inside_an_arm():
    # the true arm computes inv(a) and throws it away; eager code would still raise on a singular matrix
    def arm(h, a, b):
        h.call("inv", np.linalg.inv, (a,), spec=MAT)
        h.add_const(np.ones(3))
        return [b]

    g = Graph("dead_inv")
    m, d = g.add_input("m", MAT), g.add_input("d", MAT)
    p = g.call("greater", operator.gt, (g.call("sum", np.sum, (d,), spec=SCALAR), 0.0), spec=PRED)
    c = control.add_cond(g, p, subgraph("t", [MAT, MAT], arm), subgraph("f", [MAT, MAT], lambda h, a, b: [a]), (m, d))
    g.set_outputs([g.call("getitem", operator.getitem, (c, 0), spec=MAT)])
    out = passes.dce(g)
    out.lint()
    arm_after = out.nodes[4].target.true_graph
    assert arm_after.ops() == {"inv": 1} and len(arm_after.nodes) == 3   # the dead const went, inv stayed
    with pytest.raises(np.linalg.LinAlgError):
        codegen.compile_graph(out)(np.ones((2, 2)), np.ones((2, 2)))


def test_dce_drops_an_unused_cond_only_when_nothing_in_it_can_raise():
    g = conditional_op()
    g.set_outputs([g.inputs[0]])          # the cond's result is unused, but multiply/add may raise
    assert passes.dce(g).count("cond") == 1
    h = Graph("passthrough")
    x, p = h.add_input("x", VEC), h.add_input("p", PRED)
    arm = subgraph("t", [VEC], lambda k, a: [a])
    control.add_cond(h, p, arm, arm, (x,))
    h.set_outputs([x])
    assert passes.dce(h).count("cond") == 0


def test_cse_and_const_fold_rewrite_inside_arms():
    def arm(h, a, b):
        c = h.add_const(np.arange(4.0))
        folded = h.call("multiply", operator.mul, (c, 2.0), spec=VEC)
        s1 = h.call("add", operator.add, (a, folded), spec=VEC)
        s2 = h.call("add", operator.add, (a, folded), spec=VEC)
        return [h.call("multiply", operator.mul, (s1, s2), spec=VEC)]

    g = conditional_op(true_build=arm)
    out = passes.simplify(g)
    out.lint()
    arm_after = out.nodes[4].target.true_graph
    assert arm_after.ops() == {"add": 1, "multiply": 1}
    x = np.arange(4.0)
    assert same(codegen.compile_graph(out)(x, np.float64(0.0)), interp.run(g, [x, np.float64(0.0)]))


def test_an_arm_that_writes_its_operand_is_impure_and_kept():
    def arm(h, a, b):
        h.call("setitem", operator.setitem, (a, 0, 9.0), spec=None)
        return [a]

    g = conditional_op(true_build=arm)
    assert passes.is_impure(g.nodes[4])
    g.set_outputs([g.inputs[0]])
    out = passes.simplify(g)
    assert out.count("cond") == 1
    x = np.ones(4)
    codegen.compile_graph(out)(x, np.float64(0.0))
    assert x[0] == 9.0


# ---- fori_loop ----------------------------------------------------------------------------------------------

INT, BOOL = PyScalarSpec(int), PyScalarSpec(bool)


def prefix_sums(stop_at=None):
    """`for i in range(1, n): x[i] = x[i - 1] + x[i]; total = total + x[i]` (then `if x[i] > stop_at:
    break`), writing into x, carrying total: the graph of a capture's fori_loop."""
    g = Graph("prefix")
    x, total, n = g.add_input("x", VEC), g.add_input("total", SCALAR), g.add_input("n", INT)

    def body(h, i, t, a):
        prev = h.call("subtract", operator.sub, (i, 1), spec=INT)
        s = h.call("add", operator.add, (h.call("getitem", operator.getitem, (a, prev), spec=SCALAR),
                                         h.call("getitem", operator.getitem, (a, i), spec=SCALAR)), spec=SCALAR)
        h.call("setitem", operator.setitem, (a, i, s), spec=None)
        out = [h.call("add", operator.add, (t, s), spec=SCALAR)]
        if stop_at is not None:
            out.append(h.call("truth", operator.truth, (h.call("greater", operator.gt, (s, stop_at), spec=PRED),),
                              spec=BOOL))
        return out

    f = control.add_fori_loop(g, (1, n, 1), subgraph("body", [INT, SCALAR, VEC], body), (total,), (x,),
                              stop_at is not None)
    g.set_outputs([g.call("getitem", operator.getitem, (f, 0), spec=SCALAR)])
    g.lint()
    return g


def eager_prefix(x, total, n, stop_at=None):
    for i in range(1, n):
        x[i] = x[i - 1] + x[i]
        total = total + x[i]
        if stop_at is not None and x[i] > stop_at:
            break
    return (total,)


@pytest.mark.parametrize("n, stop_at", [(0, None), (1, None), (2, None), (4, None), (4, 2.5), (4, 100.0),
                                        (4, -1.0)])
def test_fori_loop_zero_one_and_many_iterations_writing_in_place(n, stop_at):
    g = prefix_sums(stop_at)
    expected_x = np.arange(4.0)
    expected = eager_prefix(expected_x, np.float64(0.5), n, stop_at)
    evaluators = [lambda *a: interp.run(g, list(a)), codegen.compile_graph(g), codegen.compile_graph(passes.simplify(g)),
                  lambda *a: (g.nodes[3].target(1, a[2], 1, a[1], a[0])[0],)]   # the target alone runs it too
    for run in evaluators:
        x = np.arange(4.0)
        assert same(run(x, np.float64(0.5), n), expected)
        assert same(x, expected_x)


def test_generated_fori_loop_is_a_real_for_loop():
    source = codegen.generate(prefix_sums(2.5)).source
    assert "    for " in source and " in range(1, n, 1):\n" in source and "            break\n" in source
    assert "        x[" in source          # the body writes into the caller's array itself


def test_fori_loop_listing_and_purity():
    g = prefix_sums()
    assert "%0 = fori_loop(1, n, 1, total, x)  # (f64)" in str(g)
    assert "    body(a0: py_int, a1: f64, a2: f64[4]):" in str(g)
    assert passes.is_impure(g.nodes[3])                 # the body writes into x
    assert passes.dce(g).count("fori_loop") == 1


def test_lint_rejects_a_fori_body_that_changes_the_carried_specs():
    g = Graph("bad")
    v = g.add_input("v", VEC)
    body = subgraph("b", [INT, VEC], lambda h, i, a: [h.call("sum", np.sum, (a,), spec=SCALAR)])
    with pytest.raises(ValueError, match="the body gives"):
        control.add_fori_loop(g, (0, 3, 1), body, (v,), (), False)
    with pytest.raises(ValueError, match="step 0 is not a nonzero int"):
        control.add_fori_loop(g, (0, 3, 0), subgraph("b", [INT, VEC], lambda h, i, a: [a]), (v,), (), False)
    with pytest.raises(ValueError, match="bound 1.5 is not an int"):
        control.add_fori_loop(g, (0, 1.5, 1), subgraph("b", [INT, VEC], lambda h, i, a: [a]), (v,), (), False)
    assert g.count() == 0
