"""graph/passes.py: dce, cse, const_fold keep results, never touch their input, respect mutation."""

from __future__ import annotations

import operator

import numpy as np
import pytest

from minidynamo.graph import interp, passes
from minidynamo.graph.ir import ArraySpec, Graph, MethodCall

F64 = np.dtype("float64")
SPEC = ArraySpec((3,), F64)


def body(g: Graph) -> list[str]:
    return str(g).splitlines()[1:]


def run_both(before: Graph, after: Graph, *inputs):
    """Outputs and final inputs of both graphs on fresh copies; they must agree exactly."""
    a_in, b_in = [v.copy() for v in inputs], [v.copy() for v in inputs]
    a, b = interp.run(before, a_in), interp.run(after, b_in)
    for u, v in zip(a + tuple(a_in), b + tuple(b_in)):
        assert type(u) is type(v) and np.array_equal(u, v, equal_nan=True)
    return b


@pytest.mark.parametrize("pass_", [passes.dce, passes.cse, passes.const_fold, passes.simplify])
def test_input_graph_is_not_mutated(pass_):
    g = Graph("f")
    x = g.add_input("x", SPEC)
    c = g.add_const(np.arange(3.0))
    a = g.call("tanh", np.tanh, (c,))
    b = g.call("tanh", np.tanh, (x,))
    g.call("tanh", np.tanh, (x,))
    g.set_outputs([g.call("add", np.add, (a, b))])
    before = str(g)
    nodes = list(g.nodes)
    new = pass_(g)
    assert str(g) == before and g.nodes == nodes and new is not g
    new.lint()


def test_dce_drops_unused_pure_nodes_and_constants():
    g = Graph("f")
    x = g.add_input("x", SPEC)
    unused_in = g.add_input("y", SPEC)
    g.add_const(np.ones(3))
    dead = g.call("exp", np.exp, (x,))
    g.call("tanh", np.tanh, (dead,))
    g.set_outputs([g.call("negative", np.negative, (x,))])
    out = passes.dce(g)
    assert body(out) == ["  %0 = negative(x)  # None", "  return (%0)"]
    assert out.input_names == ["x", "y"] and unused_in.name == "y"


def test_dce_keeps_mutations_and_random_draws():
    g = Graph("f")
    x = g.add_input("x", SPEC)
    t = g.call("exp", np.exp, (x,))
    g.call("iadd", operator.iadd, (t, 1.0))               # result unused, but it writes t ...
    g.call("setitem", operator.setitem, (x, 0, 5.0))      # ... and this writes the caller's x
    g.call("random", np.random.random, ((3,),))
    g.call("exp", np.exp, (x,), {"out": t})
    g.set_outputs([])
    out = passes.dce(g)
    assert [n.op for n in out.nodes if n.is_call] == ["exp", "iadd", "setitem", "random", "exp"]


def test_cse_merges_identical_pure_calls():
    g = Graph("f")
    x = g.add_input("x", SPEC)
    a = g.call("tanh", np.tanh, (x,))
    b = g.call("tanh", np.tanh, (x,))
    c = g.call("sum", np.sum, (a,), {"axis": 0})
    d = g.call("sum", np.sum, (b,), {"axis": 0})
    e = g.call("sum", np.sum, (b,), {"axis": -1})       # different argument: kept apart
    g.set_outputs([g.call("add", np.add, (c, d)), g.call("negative", np.negative, (e,))])
    out = passes.dce(passes.cse(g))
    assert [n.op for n in out.nodes if n.is_call] == ["tanh", "sum", "sum", "add", "negative"]
    run_both(g, out, np.linspace(-1, 1, 3))


def test_cse_keeps_float_arguments_apart_by_sign_and_type():
    g = Graph("f")
    x = g.add_input("x", SPEC)
    outs = [g.call("multiply", np.multiply, (x, v)) for v in (0.0, -0.0, 0, False, 0.0)]
    g.set_outputs([g.call("add", np.add, (o, 1)) for o in outs])
    out = passes.cse(g)
    assert out.count("multiply") == 4
    run_both(g, out, np.array([-1.0, 0.0, 1.0]))


def test_cse_does_not_merge_across_a_mutation():
    g = Graph("f")
    x = g.add_input("x", SPEC)
    a = g.call("tanh", np.tanh, (x,))
    g.call("iadd", operator.iadd, (x, 1.0))
    b = g.call("tanh", np.tanh, (x,))                     # reads x after it changed
    g.set_outputs([g.call("subtract", np.subtract, (a, b))])
    out = passes.cse(g)
    assert out.count("tanh") == 2
    run_both(g, out, np.zeros(3))


def test_cse_does_not_merge_a_value_that_is_written_later():
    g = Graph("f")
    x = g.add_input("x", SPEC)
    a = g.call("tanh", np.tanh, (x,))
    b = g.call("tanh", np.tanh, (x,))
    g.call("iadd", operator.iadd, (a, 1.0))               # b must not see this
    g.set_outputs([g.call("subtract", np.subtract, (a, b))])
    out = passes.cse(g)
    assert out.count("tanh") == 2
    (res,) = run_both(g, out, np.zeros(3))
    assert np.all(res == 1.0)


def test_cse_does_not_alias_distinct_outputs():
    g = Graph("f")
    x = g.add_input("x", SPEC)
    a = g.call("tanh", np.tanh, (x,))
    b = g.call("tanh", np.tanh, (x,))
    v1 = g.call("getitem", operator.getitem, (x, slice(1, None)))
    v2 = g.call("getitem", operator.getitem, (x, slice(1, None)))
    g.set_outputs([a, b, v1, v2])
    out = passes.cse(g)
    assert out.count() == 4
    r = interp.run(out, [np.zeros(3)])
    assert r[0] is not r[1] and r[2] is not r[3]


def test_cse_merges_views_that_do_not_escape():
    g = Graph("f")
    x = g.add_input("x", ArraySpec((3, 2), F64))
    v1 = g.call("getitem", operator.getitem, (x, (slice(1, None), 0)))
    v2 = g.call("getitem", operator.getitem, (x, (slice(1, None), 0)))
    v3 = g.call("getitem", operator.getitem, (x, [slice(1, None), 0]))   # a list index is another thing
    g.set_outputs([g.call("add", np.add, (v1, v2)), v3])
    out = passes.dce(passes.cse(g))
    assert out.count("getitem") == 2


def test_const_fold_evaluates_constant_subgraphs():
    g = Graph("f")
    x = g.add_input("x", SPEC)
    c = g.add_const(np.arange(3.0))
    t = g.call("exp", np.exp, (c,))
    s = g.call("multiply", np.multiply, (t, 2.0))
    g.set_outputs([g.call("add", np.add, (x, s))])
    out = passes.dce(passes.const_fold(g))
    assert body(out)[1:] == ["  %1 = add(x, %0)  # None", "  return (%1)"]
    assert out.nodes[1].value.tobytes() == np.multiply(np.exp(np.arange(3.0)), 2.0).tobytes()
    assert out.count() == 1 and out.nodes[1].meta["folded_from"] == "multiply"
    run_both(g, out, np.ones(3))


def test_const_fold_leaves_outputs_errors_random_and_written_values():
    g = Graph("f")
    x = g.add_input("x", SPEC)
    c = g.add_const(np.arange(3.0))
    z = g.add_const(np.zeros(3))
    returned = g.call("exp", np.exp, (c,))                    # fresh on every eager call
    warns = g.call("divide", np.divide, (c, z))               # warns at run time, not at fold time
    raises = g.call("matmul", np.matmul, (c, g.add_const(np.ones((2, 2)))))
    rnd = g.call("random", np.random.random, ((3,),))
    written = g.call("tanh", np.tanh, (c,))
    g.call("iadd", operator.iadd, (written, x))
    view = g.call("reshape", MethodCall("reshape"), (c, (3, 1)))   # a view: its base must stay fresh too
    g.set_outputs([returned, warns, raises, rnd, written, view])
    out = passes.const_fold(g)
    assert [n.op for n in out.nodes if n.is_call] == [n.op for n in g.nodes if n.is_call]


def test_const_fold_skips_constants_that_are_written():
    g = Graph("f")
    x = g.add_input("x", SPEC)
    c = g.add_const(np.arange(3.0))
    t = g.call("exp", np.exp, (c,))
    g.call("iadd", operator.iadd, (c, 1.0))
    g.set_outputs([g.call("add", np.add, (x, t))])
    assert passes.const_fold(g).count("exp") == 1


def test_simplify_on_a_larger_graph_keeps_results():
    g = Graph("f")
    x = g.add_input("x", ArraySpec((4, 4), F64))
    w = g.add_const(np.eye(4) * 3)
    wt = g.call("transpose", np.transpose, (w,))
    h1 = g.call("matmul", np.matmul, (x, wt))
    h2 = g.call("matmul", np.matmul, (x, wt))
    g.call("exp", np.exp, (h1,))
    y = g.call("add", operator.add, (h1, h2))
    g.call("iadd", operator.iadd, (x, 1.0))
    y2 = g.call("matmul", np.matmul, (x, wt))
    g.set_outputs([y, y2])
    out = passes.simplify(g)
    assert out.ops() == {"matmul": 2, "add": 1, "iadd": 1}
    run_both(g, out, np.arange(16.0).reshape(4, 4))


def test_is_impure():
    g = Graph("f")
    x = g.add_input("x", SPEC)
    cases = {
        g.call("tanh", np.tanh, (x,)): False,
        g.call("add", np.add, (x, x, x)): True,                       # positional out
        g.call("add", np.add, (x, x), {"out": x}): True,
        g.call("iadd", operator.iadd, (x, 1)): True,
        g.call("sort", MethodCall("sort"), (x,)): True,
        g.call("copy", MethodCall("copy"), (x,)): False,
        g.call("copyto", np.copyto, (x, 1.0)): True,
        g.call("sort", np.sort, (x,)): False,
        g.call("inv", np.linalg.inv, (x,)): False,
        g.call("normal", np.random.normal, ()): True,
        g.call("user", lambda v: v, (x,)): True,                      # unknown effects
    }
    assert {n.name: passes.is_impure(n) for n in cases} == {n.name: v for n, v in cases.items()}
    assert not passes.is_impure(x)
