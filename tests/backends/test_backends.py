"""backends/: the registry, and the eager and numpy backends against plain NumPy."""

from __future__ import annotations

import operator

import numpy as np
import pytest

from minidynamo import backends
from minidynamo.backends import registry
from minidynamo.graph import interp
from minidynamo.graph.ir import ArraySpec, Graph, MethodCall


def same(a, b) -> bool:
    if isinstance(a, tuple):
        return type(b) is tuple and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return (type(a) is type(b) and a.dtype == b.dtype and a.shape == b.shape
            and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
            and np.asarray(a).tobytes() == np.asarray(b).tobytes())


def layer_graph(dtype) -> Graph:
    g = Graph("layer")
    x = g.add_input("x", ArraySpec((5, 4), dtype))
    w = g.add_input("w", ArraySpec((4, 3), dtype))
    h = g.call("matmul", operator.matmul, (x, w))
    a = g.call("tanh", np.tanh, (h,)) if np.dtype(dtype).kind == "f" else g.call("negative", np.negative, (h,))
    b = g.call("getitem", operator.getitem, (a, (slice(1, None), None)))
    s = g.call("sum", MethodCall("sum"), (b,), {"axis": 0})
    m = g.call("maximum", np.maximum, (h, 0))
    g.set_outputs([a, s, m, g.call("mean", np.mean, (m,))])
    return g


def layer_eager(x, w):
    h = x @ w
    a = np.tanh(h) if x.dtype.kind == "f" else np.negative(h)
    m = np.maximum(h, 0)
    return (a, a[1:, None].sum(axis=0), m, np.mean(m))


def test_registry_lists_and_resolves():
    assert {"numpy", "eager"} <= set(backends.list_backends())
    assert backends.DEFAULT_BACKEND == "numpy"
    assert backends.get_backend("numpy") is backends.numpy_codegen
    assert backends.get_backend("eager") is backends.eager


def test_unknown_backend_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown backend 'nope'; known backends: .*'eager'.*'numpy'"):
        backends.get_backend("nope")


def test_user_backend_plugs_in():
    seen = []

    def counting(graph, example_inputs):
        seen.append((graph.name, len(example_inputs)))
        return lambda *inputs: interp.run_unchecked(graph, inputs)

    assert backends.get_backend(counting) is counting
    backends.register_backend("counting_test", counting)
    try:
        fn = backends.get_backend("counting_test")(layer_graph(np.float64), [np.ones((5, 4)), np.ones((4, 3))])
        out = fn(np.ones((5, 4)), np.ones((4, 3)))
        assert seen == [("layer", 2)] and same(out, layer_eager(np.ones((5, 4)), np.ones((4, 3))))
        with pytest.raises(ValueError, match="already registered"):
            backends.register_backend("counting_test", lambda g, e: None)
        backends.register_backend("counting_test", counting)        # the same function again is fine
    finally:
        registry._BACKENDS.pop("counting_test")


@pytest.mark.parametrize("name", ["eager", "numpy"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int16])
@pytest.mark.parametrize("seed", range(3))
def test_bit_identical_to_plain_numpy(name, dtype, seed):
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind == "f":
        x, w = rng.standard_normal((5, 4)).astype(dtype), rng.standard_normal((4, 3)).astype(dtype)
    else:
        x, w = rng.integers(-9, 9, (5, 4)).astype(dtype), rng.integers(-9, 9, (4, 3)).astype(dtype)
    g = layer_graph(dtype)
    fn = backends.get_backend(name)(g, [x, w])
    assert same(fn(x, w), layer_eager(x, w))
    assert same(fn(x, w), interp.run(g, [x, w]))


@pytest.mark.parametrize("name", ["eager", "numpy"])
def test_in_place_graph_mutates_like_eager(name):
    g = Graph("upd")
    x = g.add_input("x", ArraySpec((3, 3), np.float32))
    d = g.add_input("d", ArraySpec((3,), np.float32))
    y = g.call("imul", operator.imul, (x, 2))
    g.call("setitem", operator.setitem, (y, (slice(None), 1), d))
    t = g.call("isub", operator.isub, (y, d))
    g.set_outputs([t])

    def eager(x, d):
        x *= 2
        x[:, 1] = d
        x -= d
        return (x,)

    base, dv = np.arange(9, dtype=np.float32).reshape(3, 3), np.array([1, 2, 3], np.float32)
    mine, theirs = base.copy(), base.copy()
    out = backends.get_backend(name)(g, [mine, dv])(mine, dv)
    ref = eager(theirs, dv)
    assert out[0] is mine and same(mine, theirs) and same(out, ref)


@pytest.mark.parametrize("name", ["eager", "numpy"])
def test_errors_have_eagers_type(name):
    g = layer_graph(np.float64)
    fn = backends.get_backend(name)(g, [])
    with pytest.raises(ValueError):
        np.ones((5, 4)) @ np.ones((3, 3))
    with pytest.raises(ValueError):
        fn(np.ones((5, 4)), np.ones((3, 3)))


def test_numpy_backend_shows_its_source():
    fn = backends.get_backend("numpy")(layer_graph(np.float64), [])
    assert fn.__minidynamo_source__.startswith("def layer(x, w):\n    t0 = x @ w\n    t1 = np.tanh(t0)\n")


def test_a_backend_taking_config_gets_the_functions_options():
    import minidynamo as md
    from minidynamo.backends import eager
    seen = []

    def backend(graph, example_inputs, config):
        seen.append(config.unroll_limit)
        return eager(graph, example_inputs)

    def plain(graph, example_inputs):
        seen.append("plain")
        return eager(graph, example_inputs)
    assert md.compile(lambda x: x + 1, backend=backend, options={"unroll_limit": 5})(np.ones(2))[0] == 2
    assert md.compile(lambda x: x * 2, backend=plain, options={"unroll_limit": 5})(np.ones(2))[0] == 2
    assert seen == [5, "plain"]
