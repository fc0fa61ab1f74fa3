"""trace / run / check_guards / F / LazyRunner: behaviour against eager NumPy, and the errors on bad input."""

from __future__ import annotations

import operator

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minidynamo.errors import TraceError
from minidynamo.graph import ops
from minidynamo.graph.ir import CONST, ArraySpec, MethodCall
from minidynamo.tracing import F, LazyArray, LazyRunner, TracedArray, check_guards, run, trace

RNG = np.random.default_rng(7)
X = RNG.standard_normal((4, 8))
W = RNG.standard_normal((8, 3))


def ops_of(g):
    return [n.op for n in g.nodes if n.is_call]


# ---- argument checking -----------------------------------------------------------------------------------

@pytest.mark.parametrize("mode", ["Error", "strict", None, ""])
def test_unknown_mode_is_refused(mode):
    with pytest.raises(ValueError, match=r"mode.*'error', 'specialize', 'guard'"):
        trace(lambda x: x, {"x": (2,)}, mode=mode)


@pytest.mark.parametrize("shape", [[4, 8], (4, -1), (4.0, 8), (True, 8), "48", 4, (4, None)])
def test_bad_shapes_are_refused_naming_the_input(shape):
    with pytest.raises(ValueError, match=r"input 'x'.*tuple of non-negative ints"):
        trace(lambda x: x, {"x": shape})


def test_input_shapes_must_be_a_dict_of_identifiers():
    with pytest.raises(TypeError, match="input_shapes must be a dict"):
        trace(lambda x: x, [("x", (2,))])
    with pytest.raises(ValueError, match="identifier"):
        trace(lambda x: x, {"not a name": (2,)})


def test_numpy_integer_dims_are_accepted():
    g = trace(lambda x: x * 2.0, {"x": (np.int64(2), 3)})
    assert g.inputs[0].spec.shape == (2, 3)


def test_params_must_be_a_dict():
    with pytest.raises(TypeError, match="params must be a dict"):
        trace(lambda x, p: x, {"x": (2,)}, [W])


@pytest.mark.parametrize("example, error, pattern", [
    ({}, ValueError, r"missing \['x'\]"),
    ({"x": X, "y": X}, ValueError, r"unknown \['y'\]"),
    ({"x": np.zeros((5, 8))}, ValueError, r"'x': expected shape \(4, 8\), got \(5, 8\)"),
    ({"x": X.tolist()}, TypeError, r"'x' must be a numpy.ndarray, got list"),
    ([X], TypeError, r"example must be a dict"),
])
def test_bad_examples_are_refused(example, error, pattern):
    with pytest.raises(error, match=pattern):
        trace(lambda x: x * 2.0, {"x": (4, 8)}, mode="specialize", example=example)


@pytest.mark.parametrize("mode", ["specialize", "guard"])
def test_missing_example_is_reported_where_a_value_is_needed(mode):
    def f(x):
        return x if x.sum() > 0 else -x

    with pytest.raises(ValueError, match=rf"mode='{mode}'.*example=.*test_tracing.py:\d+ return x if x.sum\(\) > 0"):
        trace(f, {"x": (4, 8)}, mode=mode)
    # without a data-dependent decision no example is needed
    g = trace(lambda x: x * 2.0, {"x": (4, 8)}, mode=mode)
    np.testing.assert_array_equal(run(g, {"x": X})[0], X * 2.0)


def test_example_sets_the_input_dtype():
    x32 = X.astype(np.float32)
    g = trace(lambda x: x * 2.0, {"x": (4, 8)}, mode="error", example={"x": x32})
    assert str(g.inputs[0].spec) == "f32[4,8]"
    out = run(g, {"x": x32})[0]
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, x32 * 2.0)
    assert str(trace(lambda x: x, {"x": (4, 8)}).inputs[0].spec) == "f64[4,8]"


# ---- run() input checks ----------------------------------------------------------------------------------

@pytest.fixture
def tanh_graph():
    return trace(lambda x, p: F.tanh(x @ p["W"]), {"x": (4, 8)}, {"W": W})


def test_run_matches_eager(tanh_graph):
    out = run(tanh_graph, {"x": X})
    assert len(out) == 1
    np.testing.assert_array_equal(out[0], np.tanh(X @ W))


@pytest.mark.parametrize("inputs, pattern", [
    ({}, r"missing 'x'"),
    ({"x": X, "y": X}, r"unexpected 'y'"),
    ({"x": np.zeros((5, 8))}, r"'x'.*expected f64\[4,8\].*got f64\[5,8\]"),
    ({"x": X.astype(np.float32)}, r"'x'.*expected f64\[4,8\].*got f32\[4,8\]"),
    ({"x": X.tolist()}, r"'x'.*expected f64\[4,8\].*got list"),
])
def test_run_refuses_wrong_inputs(tanh_graph, inputs, pattern):
    with pytest.raises(ValueError, match=pattern):
        run(tanh_graph, inputs)


# ---- what gets recorded ---------------------------------------------------------------------------------

def test_operators_record_registered_ops_in_python_order():
    def f(x):
        return (0.5 * x) + (x - 1.0) / 2.0

    g = trace(f, {"x": (4, 8)})
    assert ops_of(g) == ["multiply", "subtract", "divide", "add"]
    first = g.nodes[1]
    assert first.args[0] == 0.5 and first.args[1] is g.inputs[0]     # multiply(0.5, x): reflected order
    assert first.target is operator.mul
    np.testing.assert_array_equal(run(g, {"x": X})[0], f(X))


def test_ndarray_on_the_left_and_numpy_functions_dispatch_to_the_proxy():
    g = trace(lambda x: np.tanh(W.T @ x.T), {"x": (4, 8)})
    assert ops_of(g) == ["transpose", "matmul", "tanh"]
    consts = [n for n in g.nodes if n.op == CONST]
    assert len(consts) == 1 and consts[0].value.shape == (3, 8)        # W.T is evaluated eagerly
    np.testing.assert_array_equal(run(g, {"x": X})[0], np.tanh(W.T @ X.T))


def test_methods_use_method_targets_and_shape_is_a_python_tuple():
    seen = {}

    def f(x):
        seen.update(shape=x.shape, dtype=x.dtype, ndim=x.ndim, size=x.size, len=len(x))
        return x.reshape(2, 16).sum(axis=0), x.T, x[1:, ::2]

    g = trace(f, {"x": (4, 8)})
    assert seen == {"shape": (4, 8), "dtype": np.dtype("float64"), "ndim": 2, "size": 32, "len": 4}
    assert type(seen["shape"]) is tuple
    reshape = next(n for n in g.nodes if n.op == "reshape")
    assert reshape.target == MethodCall("reshape") and reshape.args[1] == (2, 16)
    assert ops_of(g) == ["reshape", "sum", "transpose", "getitem"]
    for got, want in zip(run(g, {"x": X}), f(X)):
        np.testing.assert_array_equal(got, want)


def test_iterating_a_traced_array_unrolls_over_its_first_axis():
    g = trace(lambda x: [row * 2.0 for row in x], {"x": (3, 2)})
    assert g.count("getitem") == 3 and g.count("multiply") == 3
    x = RNG.standard_normal((3, 2))
    for got, want in zip(run(g, {"x": x}), [row * 2.0 for row in x]):
        np.testing.assert_array_equal(got, want)


def test_params_become_one_const_node_each():
    p = {"W": W, "b": np.ones(3), "unused": np.zeros(2)}
    g = trace(lambda x, p: (x @ p["W"] + p["b"]) * (x @ p["W"]), {"x": (4, 8)}, p)
    assert [id(n.value) for n in g.nodes if n.op == CONST] == [id(W), id(p["b"])]
    np.testing.assert_array_equal(run(g, {"x": X})[0], (X @ W + p["b"]) * (X @ W))


def test_several_outputs_and_constant_outputs():
    g = trace(lambda x: (x * 2.0, 3, np.ones(2)), {"x": (4, 8)})
    out = run(g, {"x": X})
    np.testing.assert_array_equal(out[0], X * 2.0)
    assert out[1] == 3
    np.testing.assert_array_equal(out[2], np.ones(2))


def test_inplace_operator_matches_eager():
    def f(x):
        y = x * 2.0
        y += 1.0
        return y

    g = trace(f, {"x": (4, 8)})
    np.testing.assert_array_equal(run(g, {"x": X})[0], f(X))


def test_python_side_effects_run_once_at_trace_time(capsys):
    def f(x):
        print("tracing f")
        return x + 1.0

    g = trace(f, {"x": (4, 8)})
    for _ in range(3):
        run(g, {"x": X})
    assert capsys.readouterr().out == "tracing f\n"


def test_shapes_are_baked_into_the_graph():
    g = trace(lambda x: x.reshape(x.shape[0] * x.shape[1]) / x.shape[0], {"x": (4, 8)})
    assert g.nodes[1].args[1] == 32 and g.nodes[2].args[1] == 4
    with pytest.raises(ValueError, match="'x'"):
        run(g, {"x": np.zeros((2, 16))})


# ---- unsupported values ----------------------------------------------------------------------------------

@pytest.mark.parametrize("bad, name", [("a", "str"), ([1.0, 2.0], "list"), ({"k": 1}, "dict"), (object(), "object")])
def test_operator_with_unsupported_operand_raises_type_error(bad, name):
    with pytest.raises(TypeError, match=name):
        trace(lambda x: x + bad, {"x": (2,)})


def test_unregistered_numpy_function_raises_type_error_naming_it():
    with pytest.raises(TypeError, match="array2string"):
        trace(lambda x: np.array2string(x), {"x": (2,)})


def test_unknown_method_raises_attribute_error_naming_it():
    with pytest.raises(AttributeError, match="frobnicate"):
        trace(lambda x: x.frobnicate(), {"x": (2,)})


def test_ufunc_out_argument_is_refused():
    with pytest.raises(TypeError, match="out="):
        trace(lambda x: np.tanh(x, out=np.empty(2)), {"x": (2,)})


def test_unsupported_return_value():
    with pytest.raises(TypeError, match="returned dict"):
        trace(lambda x: {"y": x}, {"x": (2,)})


def test_a_traced_array_dies_with_its_trace():
    kept = []
    trace(lambda x: kept.append(x) or x, {"x": (2,)})
    assert isinstance(kept[0], TracedArray)
    with pytest.raises(TraceError, match="after its trace"):
        kept[0] + 1.0


def test_arrays_of_two_traces_do_not_mix():
    def outer(x):
        return trace(lambda y: x + y, {"y": (2,)})

    with pytest.raises(TypeError, match="another trace"):
        trace(outer, {"x": (2,)})


# ---- data-dependent decisions ---------------------------------------------------------------------------

@pytest.mark.parametrize("convert", [bool, float, int, lambda s: s.item(), lambda s: np.asarray(s)])
def test_error_mode_refuses_every_value_conversion(convert):
    with pytest.raises(TraceError, match="mode='error'"):
        trace(lambda x: convert(x.sum()), {"x": (2,)})


def test_specialize_bakes_a_converted_value():
    def f(x):
        return x * float(x.sum())

    pos = np.array([1.0, 2.0])
    g = trace(f, {"x": (2,)}, mode="specialize", example={"x": pos})
    assert 3.0 in g.nodes[-1].args
    np.testing.assert_array_equal(run(g, {"x": pos})[0], f(pos))
    assert not np.array_equal(run(g, {"x": pos * 2})[0], f(pos * 2))   # silently stale


def test_guard_mode_guards_every_decision_and_checks_them():
    def f(x):
        scale = float(x.sum())
        if x.max() > 1.0:
            return x * scale
        return x - scale

    ex = np.array([0.5, 2.0])
    g = trace(f, {"x": (2,)}, mode="guard", example={"x": ex})
    assert [guard.kind for guard in g.guards] == ["float", "bool"]
    assert str(g.guards[0]).startswith("float(sum(x)) == 2.5  # test_tracing.py:")
    assert check_guards(g, {"x": ex.copy()}) is True
    assert check_guards(g, {"x": np.array([2.0, 0.5])}) is True       # same sum, same branch
    assert check_guards(g, {"x": np.array([0.5, 0.5])}) is False
    assert check_guards(g, {"x": np.array([0.5, 2.0, 0.0])}) is False  # another shape: trace again
    with pytest.raises(ValueError, match="missing 'x'"):
        check_guards(g, {})


def test_data_dependent_output_shapes_cannot_be_traced_but_run_lazily(monkeypatch):
    nonzero = ops.OpDef("nonzero", np.nonzero, lambda a: (ArraySpec((-1,), np.intp),), data_dependent_shape=True)
    monkeypatch.setitem(ops.BY_FUNCTION, id(np.nonzero), nonzero)
    with pytest.raises(TraceError, match=r"nonzero at .*test_tracing.py:\d+.*depends on the data"):
        trace(lambda x: np.nonzero(x), {"x": (2,)}, mode="specialize", example={"x": np.array([0.0, 1.0])})
    lr = LazyRunner()
    x = lr.tensor(np.array([0.0, 3.0, 1.0]))
    (where,) = np.nonzero(x * 1.0)          # flushes the product, then runs nonzero eagerly
    assert lr.graphs == [1]
    np.testing.assert_array_equal(lr.materialize(where), [1, 2])


def test_specialize_leaves_the_example_untouched():
    def f(x):
        y = x * 1.0
        y += 5.0
        return y if y.sum() > 0 else -y

    ex = np.array([1.0, 2.0])
    before = ex.copy()
    trace(f, {"x": (2,)}, mode="guard", example={"x": ex})
    np.testing.assert_array_equal(ex, before)


# ---- F -------------------------------------------------------------------------------------------------

F_CASES = [
    ("tanh", (X,), {}), ("exp", (X,), {}), ("log", (np.abs(X),), {}), ("sqrt", (np.abs(X),), {}),
    ("sin", (X,), {}), ("cos", (X,), {}), ("abs", (X,), {}), ("maximum", (X, 0.0), {}),
    ("minimum", (X, 0.0), {}), ("where", (X > 0, X, 0.0), {}), ("clip", (X, -0.5, 0.5), {}),
    ("sum", (X,), {}), ("sum", (X,), {"axis": 0}), ("mean", (X,), {"axis": -1}), ("max", (X,), {}),
    ("min", (X,), {"axis": 1}), ("matmul", (X, W), {}), ("reshape", (X, (8, 4)), {}),
    ("transpose", (X,), {}),
]


@pytest.mark.parametrize("name, args, kwargs", F_CASES, ids=[c[0] for c in F_CASES])
def test_F_is_numpy_on_arrays(name, args, kwargs):
    got, want = getattr(F, name)(*args, **kwargs), getattr(np, name)(*args, **kwargs)
    assert type(got) is type(want)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("name, args, kwargs", F_CASES, ids=[c[0] for c in F_CASES])
def test_F_records_on_traced_arrays(name, args, kwargs):
    g = trace(lambda x: getattr(F, name)(x, *args[1:], **kwargs), {"x": args[0].shape},
              mode="error", example={"x": args[0]})
    assert ops_of(g)[-1] == name or ops_of(g)[-1] == getattr(np, name).__name__
    got, want = run(g, {"x": args[0]})[0], getattr(np, name)(*args, **kwargs)
    assert type(got) is type(want)
    np.testing.assert_array_equal(got, want)


def test_F_names_and_repr():
    assert "tanh" in F.names and F.tanh.__qualname__ == "F.tanh"
    assert "F:" in repr(F)
    # the bytecode front end resolves F.tanh through the registry, like np.tanh
    assert {name: ops.lookup_function(getattr(F, name)) for name in F.names} == \
        {name: ops.lookup_function(getattr(np, name)) for name in F.names}


# ---- LazyRunner ------------------------------------------------------------------------------------------

def test_lazy_runner_is_bit_identical_to_eager():
    def mlp(x, w):
        h = np.tanh(x @ w)
        return (h * 0.5 + 1.0).sum(axis=0)

    lr = LazyRunner()
    out = lr.materialize(mlp(lr.tensor(X), lr.tensor(W)))
    np.testing.assert_array_equal(out, mlp(X, W))
    assert lr.graphs == [5]


def test_lazy_values_flush_on_conversion_and_chain_into_new_graphs():
    lr = LazyRunner()
    x = lr.tensor(X)
    s = x.sum()
    assert lr.graphs == []
    assert float(s) == float(X.sum())                 # flush 1: just the sum
    y = x * s                                          # s is concrete now: an input of graph 2
    assert int(y.shape[0]) == 4 and lr.graphs == [1]   # shapes need no flush
    text = repr(y)                                     # flush 2
    assert text.startswith("LazyArray(array(") and lr.graphs == [1, 1]
    np.testing.assert_array_equal(np.asarray(y), X * X.sum())
    assert isinstance(y, LazyArray) and lr.materialize(x) is X
    assert lr.graphs == [1, 1]                         # nothing pending: no empty graphs


def test_lazy_graph_outputs_are_only_live_values():
    lr = LazyRunner()
    x = lr.tensor(X)
    y = np.tanh(x * 2.0)                               # the product is a dead temporary
    lr.materialize(y)
    assert lr.flushed[0].outputs == [lr.flushed[0].nodes[-1]]


def test_every_live_lazy_value_survives_a_flush():
    lr = LazyRunner()
    doubled = lr.tensor(X) * 2.0
    total = doubled.sum()
    assert float(total) == float((X * 2.0).sum())     # flushes both: both are still referenced
    assert len(lr.flushed[0].outputs) == 2
    np.testing.assert_array_equal(lr.materialize(doubled + total), X * 2.0 + (X * 2.0).sum())
    assert lr.graphs == [2, 1]


def test_lazy_runner_refuses_foreign_values():
    lr, other = LazyRunner(), LazyRunner()
    with pytest.raises(TypeError, match="numpy.ndarray"):
        lr.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match="LazyArray of this runner"):
        lr.materialize(X)
    with pytest.raises(TypeError, match="another trace or LazyRunner"):
        lr.tensor(X) + other.tensor(X)
    with pytest.raises(TypeError, match="str"):
        lr.tensor(X) * "2"


# ---- property: traced chains of elementwise ops equal eager NumPy --------------------------------------------

STEPS = {
    "add": lambda v: v + 0.25, "rsub": lambda v: 1.5 - v, "mul": lambda v: v * v, "rdiv": lambda v: 2.0 / (v * v + 1.0),
    "tanh": F.tanh, "exp": lambda v: np.exp(-v * v), "neg": operator.neg,
}


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple),
       steps=st.lists(st.sampled_from(sorted(STEPS)), min_size=1, max_size=6), seed=st.integers(0, 2**16))
def test_traced_and_lazy_chains_equal_eager(shape, steps, seed):
    def chain(v):
        for name in steps:
            v = STEPS[name](v)
        return v

    x = np.random.default_rng(seed).standard_normal(shape)
    want = chain(x)
    got = run(trace(chain, {"x": shape}), {"x": x})[0]
    assert type(got) is type(want)
    np.testing.assert_array_equal(got, want)
    lr = LazyRunner()
    np.testing.assert_array_equal(lr.materialize(chain(lr.tensor(x))), want)
