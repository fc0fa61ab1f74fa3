"""graph/codegen.py: readable source, linecache registration, and results bit-identical to eager NumPy."""

from __future__ import annotations

import gc
import inspect
import linecache
import operator
import traceback

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from minidynamo.graph import codegen, interp, ops
from minidynamo.graph.ir import ArraySpec, Graph, MethodCall

F64 = np.dtype("float64")


def same(a, b) -> bool:
    """Bit-identical: same type, dtype, shape and bytes (nan payloads and signed zeros included)."""
    if isinstance(a, (tuple, list)):
        return type(b) is type(a) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if not isinstance(a, (np.ndarray, np.generic)):
        return type(a) is type(b) and a == b
    return (type(a) is type(b) and a.dtype == b.dtype and a.shape == b.shape
            and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
            and np.asarray(a).tobytes() == np.asarray(b).tobytes())


def mlp_graph() -> Graph:
    g = Graph("block_0")
    x = g.add_input("x", ArraySpec((4, 3), F64))
    w = g.add_input("w", ArraySpec((3, 5), F64))
    h = g.call("matmul", operator.matmul, (x, w))
    t = g.call("tanh", ops.get("tanh").impl, (h,))
    s = g.call("sum", np.sum, (t,))
    g.set_outputs([t, s])
    return g


def _without_dels(source: str) -> list[str]:
    """Source lines without the `del` statements that free intermediates (tested by the golden test)."""
    return [line for line in source.splitlines() if not line.strip().startswith("del ")]


def test_source_is_readable_and_golden():
    assert codegen.generate(mlp_graph()).source == (
        "def block_0(x, w):\n"
        "    t1 = np.tanh(x @ w)\n"    # a one-use operand is written inline, as eager's source has it
        "    t2 = np.sum(t1)\n"
        "    return (t1, t2)\n"
    )


def test_an_intermediate_read_twice_is_freed_after_its_last_reader():
    g = Graph("twice")
    x = g.add_input("x", ArraySpec((4, 3), F64))
    w = g.add_input("w", ArraySpec((3, 5), F64))
    h = g.call("matmul", operator.matmul, (x, w))
    t = g.call("tanh", ops.get("tanh").impl, (h,))
    g.set_outputs([g.call("add", operator.add, (h, t))])
    assert codegen.generate(g).source == (
        "def twice(x, w):\n"
        "    t0 = x @ w\n"
        "    t2 = t0 + np.tanh(t0)\n"
        "    del t0\n"                 # intermediates are freed after their last reader, as in eager
        "    return (t2,)\n"
    )
    check_against_interp(g, [np.ones((4, 3)), np.ones((3, 5))])


def test_getsource_and_linecache():
    fn = codegen.compile_graph(mlp_graph())
    assert inspect.getsource(fn) == fn.__minidynamo_source__
    assert linecache.getline(fn.__minidynamo_filename__, 2) == "    t1 = np.tanh(x @ w)\n"
    filename = fn.__minidynamo_filename__
    del fn
    gc.collect()
    assert filename not in linecache.cache       # dropped with the function


def test_traceback_points_into_generated_source():
    fn = codegen.compile_graph(mlp_graph())
    with pytest.raises(ValueError) as info:
        fn(np.ones((4, 3)), np.ones((4, 5)))
    frames = traceback.extract_tb(info.value.__traceback__)
    mine = [f for f in frames if f.filename == fn.__minidynamo_filename__]
    assert mine and mine[0].line == "t1 = np.tanh(x @ w)" and mine[0].name == "block_0"


def test_operators_print_infix_and_indexing_inline():
    g = Graph("ops")
    x = g.add_input("x", ArraySpec((4, 4), F64))
    i = g.add_input("i", ArraySpec((), np.int64, scalar=True))
    a = g.call("neg", operator.neg, (x,))
    b = g.call("pow", operator.pow, (-2.0, a))
    c = g.call("getitem", operator.getitem, (b, (slice(i, 3), None, Ellipsis)))
    d = g.call("getitem", operator.getitem, (c, ((0, 1),)))
    e = g.call("getitem", operator.getitem, (x, ()))
    f = g.call("iadd", operator.iadd, (e, 1.0))
    s = g.call("setitem", operator.setitem, (x, (0, slice(None, None, 2)), float("nan")))
    m = g.call("sum", MethodCall("sum"), (d,), {"axis": 0})
    g.set_outputs([m, f, s])
    assert _without_dels(codegen.generate(g).source) == [
        "def ops(x, i):",
        # an operator's or a subscript's one-use operand is written inline (NumPy may reuse it; no local)
        "    t3 = ((-2.0) ** (-x))[i:3, None, ...][(0, 1),]",
        "    t5 = iadd(x[()], 1.0)",
        "    x[0, ::2] = nan",
        "    t6 = None",
        "    t7 = t3.sum(axis=0)",
        "    return (t7, t5, t6)",
    ]
    check_against_interp(g, [np.arange(16.0).reshape(4, 4), np.int64(1)])


def test_a_call_takes_its_one_use_operands_inline():
    # cholesky's inner step: eager writes `np.sqrt(A[i, i])` and `np.dot(A[i, :j], A[j, :j])`, holding each
    # view on the stack only; named, every view cost a store and a `del` (1.05x eager on that loop alone).
    # layernorm's `(x - mu) / np.sqrt(var + eps)`: a named `var + eps` made `x - mu` a local too, and the
    # division could not reuse its buffer (1.4x eager at 512 x 512)
    g = Graph("chol")
    a = g.add_input("A", ArraySpec((4, 4), F64))
    i = g.add_input("i", ArraySpec((), np.int64, scalar=True))
    diag = g.call("getitem", operator.getitem, (a, (i, i)))
    root = g.call("sqrt", ops.get("sqrt").impl, (diag,))
    row = g.call("getitem", operator.getitem, (a, (i, slice(None, i))))
    col = g.call("getitem", operator.getitem, (a, (slice(None, i), i)))
    dot = g.call("dot", np.dot, (row, col))
    e = g.call("exp", ops.get("exp").impl, (a,))
    lg = g.call("log", ops.get("log").impl, (e,))
    g.set_outputs([root, dot, lg])
    source = codegen.generate(g).source
    assert _without_dels(source) == [
        "def chol(A, i):",
        "    t1 = np.sqrt(A[i, i])",
        "    t4 = np.dot(A[i, :i], A[:i, i])",
        "    t6 = np.log(np.exp(A))",
        "    return (t1, t4, t6)",
    ]
    assert "del " not in source
    check_against_interp(g, [np.arange(1.0, 17.0).reshape(4, 4), np.int64(2)])


def test_names_are_safe_identifiers():
    g = Graph("np")
    a = g.add_input("np", ArraySpec((2,), F64))
    b = g.add_input("lambda", ArraySpec((2,), F64))
    c = g.add_input("t0", ArraySpec((2,), F64))
    m = g.call("multiply", np.multiply, (b, c))
    g.set_outputs([g.call("add", np.add, (a, m)), m])      # (an output: m keeps a local of its own)
    code = codegen.generate(g)
    assert code.source.splitlines()[:2] == [
        "def np_1(np, lambda_1, t0):", "    t0_1 = np_2.multiply(lambda_1, t0)"]
    fn = codegen.compile_graph(g)
    assert same(fn(np.ones(2), np.full(2, 2.0), np.full(2, 3.0)), (np.full(2, 7.0), np.full(2, 6.0)))


def test_constants_are_bound_by_readable_names():
    g = Graph("consts")
    x = g.add_input("x", ArraySpec((3,), np.float32))
    c = g.add_const(np.arange(3, dtype=np.float32))
    y = g.call("add", np.add, (x, c))
    z = g.call("astype", MethodCall("astype"), (y, np.dtype("float64")))
    r = g.call("sum", np.sum, (z,), {"dtype": np.float32, "initial": np.float32(0.5)})
    g.set_outputs([r, float("inf"), [x, 1]])
    code = codegen.generate(g)
    assert _without_dels(code.source)[1:] == [
        "    t3 = np.sum(np.add(x, c0).astype(float64), dtype=float32, initial=const)",
        "    return (t3, inf, [x, 1])",
    ]
    assert code.globals["c0"] is c.value and code.globals["float32"] is np.float32
    check_against_interp(g, [np.ones(3, np.float32)])


def check_against_interp(g: Graph, inputs: list) -> tuple:
    """Run codegen and interp on copies; results and mutated inputs must agree bit for bit."""
    a_in = [v.copy() for v in inputs]
    b_in = [v.copy() for v in inputs]
    a = interp.run(g, a_in)
    b = codegen.compile_graph(g)(*b_in)
    assert same(a, b), (a, b)
    assert all(same(u, v) for u, v in zip(a_in, b_in))
    return b


def elementwise_graph(dtype) -> tuple[Graph, callable]:
    g = Graph("ew")
    x = g.add_input("x", ArraySpec((3, 4), dtype))
    y = g.add_input("y", ArraySpec((3, 4), dtype))
    a = g.call("add", operator.add, (x, y))
    b = g.call("multiply", np.multiply, (a, 3))
    c = g.call("divide", ops.get("divide").impl, (b, y))
    d = g.call("lt", operator.lt, (c, 0.5))
    e = g.call("getitem", operator.getitem, (c, d))
    f = g.call("matmul", np.matmul, (a, g.call("transpose", MethodCall("transpose"), (y,))))
    s = g.call("sum", np.sum, (f,), {"axis": 1})
    m = g.call("mean", MethodCall("mean"), (c,))
    g.set_outputs([c, e, s, m])

    def plain(x, y):
        a = x + y
        c = np.multiply(a, 3) / y
        return (c, c[c < 0.5], np.sum(np.matmul(a, y.transpose()), axis=1), c.mean())

    return g, plain


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32, np.uint8])
@pytest.mark.parametrize("seed", range(4))
def test_bit_identical_to_eager_numpy(dtype, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        x, y = (rng.standard_normal((3, 4)).astype(dtype) for _ in range(2))
        y[0, 0] = 0.0        # an inf and a nan on the way
    else:
        x, y = (rng.integers(0, 20, (3, 4)).astype(dtype) for _ in range(2))
    g, plain = elementwise_graph(dtype)
    with np.errstate(all="ignore"):
        expected = plain(x, y)
        got = check_against_interp(g, [x, y])
    assert same(tuple(expected), got)


def test_same_exception_type_as_eager():
    g = Graph("oob")
    x = g.add_input("x", ArraySpec((3,), F64))
    g.set_outputs([g.call("getitem", operator.getitem, (x, 5))])
    fn = codegen.compile_graph(g)
    with pytest.raises(IndexError):
        np.zeros(3)[5]
    with pytest.raises(IndexError):
        interp.run(g, [np.zeros(3)])
    with pytest.raises(IndexError):
        fn(np.zeros(3))


def test_in_place_keeps_ssa_values_of_immutable_scalars():
    # iadd on a NumPy scalar returns a new object; the generated code must not rebind t0 for later readers.
    g = Graph("scal")
    a = g.add_input("a", ArraySpec((), F64, scalar=True))
    b = g.call("iadd", operator.iadd, (a, 1.0))
    g.set_outputs([a, b])
    assert check_against_interp(g, [np.float64(1.0)]) == (1.0, 2.0)


def test_in_place_mutates_the_passed_array_like_eager():
    g = Graph("inplace")
    x = g.add_input("x", ArraySpec((2, 3), np.int64))
    y = g.call("iadd", operator.iadd, (x, 2))
    g.call("setitem", operator.setitem, (y, (slice(None), 0), 9))
    g.set_outputs([y])
    arr = np.arange(6).reshape(2, 3)
    (res,) = codegen.compile_graph(g)(arr)
    eager = np.arange(6).reshape(2, 3)
    eager += 2
    eager[:, 0] = 9
    assert res is arr and same(arr, eager)


def test_numpy_submodules_print_by_path():
    g = Graph("lin")
    x = g.add_input("x", ArraySpec((3, 3), F64))
    g.set_outputs([g.call("inv", np.linalg.inv, (x,)), g.call("add.reduce", np.add.reduce, (x,))])
    src = codegen.generate(g).source
    assert "t0 = np.linalg.inv(x)" in src and "t1 = add_reduce(x)" in src
    check_against_interp(g, [np.eye(3) * 2])


CHAIN_OPS = [
    ("add", operator.add, 2), ("sub", operator.sub, 2), ("mul", operator.mul, 2), ("pow", operator.pow, 2),
    ("truediv", operator.truediv, 2), ("neg", operator.neg, 1), ("maximum", np.maximum, 2),
    ("tanh", np.tanh, 1), ("matmul", operator.matmul, 2), ("ge", operator.ge, 2), ("sum", np.sum, 1),
    ("iadd", operator.iadd, 2), ("cumsum", MethodCall("cumsum"), 1), ("getitem", operator.getitem, 1),
]


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from([np.float32, np.float64, np.int64]),
       steps=st.lists(st.tuples(st.integers(0, len(CHAIN_OPS) - 1), st.integers(0, 99), st.integers(0, 99)),
                      min_size=1, max_size=12),
       seed=st.integers(0, 2**16))
def test_random_chains_match_the_interpreter(dtype, steps, seed):
    """Random op chains over a value pool: codegen agrees with interp in results, errors and mutations."""
    g = Graph("chain")
    pool = [g.add_input("x", ArraySpec((3, 3), dtype)), g.add_input("y", ArraySpec((3, 3), dtype)), 2]
    for op_index, i, j in steps:
        name, target, arity = CHAIN_OPS[op_index]
        a, b = pool[i % len(pool)], pool[j % len(pool)]
        args = (a, b) if arity == 2 else (a, (slice(1, None), 0)) if name == "getitem" else (a,)
        pool.append(g.call(name, target, args))
    g.set_outputs(pool[3:])
    rng = np.random.default_rng(seed)
    inputs = [(rng.standard_normal((3, 3)) * 3).astype(dtype) for _ in range(2)]
    with np.errstate(all="ignore"):
        try:
            expected = interp.run(g, [v.copy() for v in inputs])
        except Exception as e:          # the same exception type must come out of the generated code
            with pytest.raises(type(e)):
                codegen.compile_graph(g)(*[v.copy() for v in inputs])
            return
        assert same(expected, check_against_interp(g, inputs))


def test_an_operand_named_below_the_pending_ones_keeps_them_inline():
    # layernorm: `var` is a local in eager; `x - mu`, computed after it, stays on the stack while `var + eps`
    # reads var, so the division can reuse its buffer (named, it ran 1.36x eager at 512 x 512)
    g = Graph("layernorm")
    x = g.add_input("x", ArraySpec((4, 6), F64))
    mu = g.call("mean", MethodCall("mean"), (x,), {"axis": -1, "keepdims": True})
    sq = g.call("pow", operator.pow, (g.call("sub", operator.sub, (x, mu)), 2))
    var = g.call("mean", MethodCall("mean"), (sq,), {"axis": -1, "keepdims": True})
    centered = g.call("sub", operator.sub, (x, mu))
    root = g.call("sqrt", ops.get("sqrt").impl, (g.call("add", operator.add, (var, 1e-5)),))
    g.set_outputs([g.call("truediv", operator.truediv, (centered, root))])
    assert _without_dels(codegen.generate(g).source) == [
        "def layernorm(x):",
        "    t0 = x.mean(axis=-1, keepdims=True)",
        "    t3 = ((x - t0) ** 2).mean(axis=-1, keepdims=True)",
        "    t7 = (x - t0) / np.sqrt(t3 + 1e-05)",
        "    return (t7,)",
    ]
    check_against_interp(g, [np.arange(24.0).reshape(4, 6)])
