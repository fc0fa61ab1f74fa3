"""Generator and RandomState objects: their draws are ordered graph ops, and the stream each generator is
left in after a call is exactly eager's (tests/conftest.py::check compares generator states, also of the
arguments and of returned generators)."""

from __future__ import annotations

import types

import numpy as np
import pytest

import minidynamo as md
from minidynamo.graph import passes

from tests.backends.dask_helpers import lowering_plans
from tests.conftest import check, rng_state
from tests.extras import require

X = np.linspace(-1.0, 1.0, 12).reshape(4, 3)


def _gen(seed: int = 7) -> np.random.Generator:
    return np.random.default_rng(seed)


def many_draws(x, rng):
    a = rng.normal(0.0, 0.5, size=x.shape)
    b = rng.standard_normal(x.shape)
    rng.random(5)                               # unused: still consumes the stream
    u = rng.uniform(-1.0, 1.0, size=x.shape)
    k = rng.integers(0, 10, size=4)
    pick = rng.choice(6, size=3, replace=False)
    perm = rng.permutation(x.shape[0])
    y = x + a * b + u
    rng.shuffle(y)                              # in place, along the first axis
    n = rng.binomial(5, 0.3, size=(2, 2))
    return y, k, pick, perm, n, rng.poisson(2.0, size=3), rng.exponential(1.5, size=2)


def test_generator_methods_are_ordered_ops_in_one_graph():
    result = check(many_draws, X, _gen(), calls=[(X * 2, _gen(8))]).assert_no_breaks()
    names = [n.op for n in result.graphs[0].nodes if n.op.startswith("Generator.")]
    assert names == ["Generator.normal", "Generator.standard_normal", "Generator.random", "Generator.uniform",
                     "Generator.integers", "Generator.choice", "Generator.permutation", "Generator.shuffle",
                     "Generator.binomial", "Generator.poisson", "Generator.exponential"]
    assert result.stats.captures == 1          # a new generator object of the same type reuses the capture


def test_passes_keep_identical_and_unused_draws():
    def twice(x, rng):
        a = rng.normal(size=3)
        b = rng.normal(size=3)
        rng.normal(size=3)
        return x[:3] * 0 + a - b
    result = check(twice, np.ones(5), _gen())
    graph = result.graphs[0]
    for rewrite in (passes.dce, passes.cse):
        assert sum(n.op == "Generator.normal" for n in rewrite(graph).nodes) == 3


def built_inside(x, seed):
    rng = np.random.default_rng(seed)
    w = rng.normal(scale=0.1, size=(3, 2))
    return x @ w + rng.random((1, 2))


def test_default_rng_built_in_the_function():
    result = check(built_inside, X, 3, calls=[(X, 4), (X, 5)])
    assert result.reasons == []
    assert any(n.op == "random.default_rng" for n in result.graphs[0].nodes)


def test_default_rng_returned_and_kept_alive_across_a_break():
    def make(x):
        rng = np.random.default_rng(11)
        y = x * rng.standard_normal(x.shape)
        print("drawn")
        return y + rng.uniform(size=x.shape), rng
    check(make, X, calls=[(X + 1,)])
    assert md.explain(make)(X).graph_count == 2     # the generator is a graph output, then an input


GLOBAL_RNG = np.random.default_rng(0)


def uses_global(x):
    return x + GLOBAL_RNG.normal(size=x.shape)


def test_a_module_global_generator():
    check(uses_global, X, calls=[(X,)], globals_to_check=["GLOBAL_RNG"]).assert_no_breaks()


def test_a_generator_attribute_of_a_layer():
    class Dropout:
        def __init__(self, p, seed):
            self.p, self.rng = p, np.random.default_rng(seed)

        def __call__(self, x):
            keep = self.rng.random(x.shape) >= self.p
            return x * keep / (1.0 - self.p)
    check(lambda layer, x: layer(x), Dropout(0.25, 1), X, calls=[(Dropout(0.25, 2), X)]).assert_no_breaks()


def test_the_same_generator_under_two_names():
    def two(x, r1, r2):
        return x + r1.normal(size=x.shape) - r2.normal(size=x.shape)
    g = _gen()
    check(two, X, g, g)        # check deep-copies the arguments together, so both names stay one object


def test_random_state_instances():
    def legacy(x, rs):
        a = rs.randn(*x.shape)
        b = rs.normal(1.0, 2.0, size=x.shape)
        k = rs.randint(0, 4, size=3)
        perm = rs.permutation(4)
        rs.shuffle(perm)
        return x + a * b, k, perm, rs.choice(5, 2)
    check(legacy, X, np.random.RandomState(3), calls=[(X, np.random.RandomState(4))]).assert_no_breaks()


def random_state_made_inside(x, seed):
    rs = np.random.RandomState(seed)
    return x + rs.randn(*x.shape), rs, isinstance(rs, np.random.RandomState)


def test_a_random_state_made_in_the_function():
    result = check(random_state_made_inside, X, 4, calls=[(X, 5), (X, 6)])
    assert result.reasons == []
    assert any(n.op == "random.RandomState" for n in result.graphs[0].nodes)


def inverts_after_drawing(x, a, rng):
    return x + rng.normal(size=x.shape), np.linalg.inv(a)


def draws_then_writes_then_raises(x, a, rng):
    x[0] = rng.random(3)
    return np.linalg.inv(a)


@pytest.mark.parametrize("fn", [inverts_after_drawing, draws_then_writes_then_raises])
def test_a_graph_raising_after_draws_leaves_the_stream_as_eager_does(fn):
    check(fn, X, np.zeros((3, 3)), _gen(), calls=[(X, np.eye(3), _gen(1)), (X, np.ones((3, 3)), _gen(2))])


def test_bad_parameters_raise_as_eagerly():
    def const_scale(x, rng):
        return x + rng.normal(scale=-1.0, size=x.shape)

    def array_scale(x, s, rng):
        return x + rng.normal(scale=s, size=x.shape)
    check(const_scale, X, _gen(), expect_graph=False)
    check(array_scale, X, -np.ones(3), _gen(), calls=[(X, np.ones(3), _gen(3))])


def test_a_draw_of_a_python_number_is_a_number_the_graph_returns():
    def scalar(x, rng):
        r = rng.normal()
        return x * r + rng.integers(5, size=2).sum(), r, rng.integers(3), rng.random()
    result = check(scalar, X, _gen(), calls=[(X, _gen(1))]).assert_no_breaks()
    assert [n.op for n in result.graphs[0].nodes if n.op.startswith("Generator.")] == \
        ["Generator.normal", "Generator.integers", "Generator.integers", "Generator.random"]

    def branch(x, rng):
        if rng.random() < 0.5:              # a decision on the number: a break, after the draw
            return x + 1
        return x - 1
    result = check(branch, X, _gen(), calls=[(X, _gen(s)) for s in range(1, 6)])
    assert result.reasons and all(r.category == "data_dependent" for r in result.reasons)


def test_draws_in_a_driven_loop_with_a_print():
    def train(x, rng, steps):
        for i in range(steps):
            x = x - 0.01 * rng.standard_normal(x.shape)
            if i % 50 == 0:
                print("step", i)
        return x
    check(train, np.zeros(3), _gen(), 120)


def test_an_unsupported_generator_method_breaks_in_order():
    def spawn_then_draw(x, rng):
        a = rng.normal(size=3)
        child = rng.spawn(1)[0]
        return x[:3] + a + child.normal(size=3) + rng.normal(size=3)
    result = check(spawn_then_draw, np.ones(4), _gen())
    assert any("spawn" in r.message for r in result.reasons)


def test_a_subclass_of_generator_is_not_treated_as_one():
    class Loud(np.random.Generator):
        def normal(self, *args, **kwargs):
            print("normal")
            return super().normal(*args, **kwargs)
    check(lambda x, rng: x + rng.normal(size=x.shape), X, Loud(np.random.PCG64(1)))


@pytest.mark.parametrize("backend", ["jax", "dask"])
def test_engines_keep_generator_draws_on_numpy_in_order(backend):
    require(backend)

    def f(x, rng):
        y = np.tanh(x) * 2.0
        z = y + rng.normal(size=x.shape)
        return np.exp(z) + rng.uniform(size=x.shape), rng.integers(0, 9, size=3)
    cfn = md.compile(f, backend=backend, options={"suppress_errors": False})
    for seed in (1, 2):
        eager_rng, compiled_rng = _gen(seed), _gen(seed)
        e, c = f(X, eager_rng), cfn(X, compiled_rng)
        np.testing.assert_allclose(c[0], e[0], rtol=1e-12)
        np.testing.assert_array_equal(c[1], e[1])
        assert rng_state(compiled_rng) == rng_state(eager_rng)
    plan, = lowering_plans(cfn)
    assert [d.node.op for d in plan.not_lowered] == ["Generator.normal", "Generator.uniform",
                                                      "Generator.integers"], plan.summary()
    assert all("draws from a NumPy generator object" in d.reason for d in plan.not_lowered)
    assert len(plan.decisions) > len(plan.not_lowered)          # the rest is the engine's


def test_generator_sources_and_types_are_guarded():
    f = md.compile(lambda x, rng: x + rng.normal(size=x.shape))
    f(X, _gen())
    f(X, np.random.Generator(np.random.MT19937(1)))    # another bit generator: the same Generator type
    assert md.stats(f).captures == 1
    ns = types.SimpleNamespace(rng=np.random.RandomState(0))
    g = md.compile(lambda x, o: x + o.rng.normal(size=x.shape))
    g(X, ns)
    ns.rng = _gen()
    e = X + _gen().normal(size=X.shape)
    assert np.array_equal(g(X, ns), e)                  # the RandomState capture's type guard failed
    assert md.stats(g).captures == 2
