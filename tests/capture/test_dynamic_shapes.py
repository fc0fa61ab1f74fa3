"""Dynamic shapes end to end (capture/dynamic_shapes.py, graph/symbolic.py): each policy against eager on
many sizes (0 and 1 included), mark_dynamic/mark_static, symbolic ints, and relation guards that must fail."""

import warnings

import numpy as np
import pytest

import minidynamo as md
from tests.conftest import CompileCounter, captured, check

SIZES = [5, 6, 1, 7, 0, 2, 13, 3]


def _compiled(fn, dynamic):
    counter = CompileCounter()
    return md.compile(fn, backend=counter, dynamic=dynamic, options={"suppress_errors": False}), counter


def _calls(make, sizes=SIZES):
    return [make(n) for n in sizes]


def block(x, w):
    return np.tanh(x @ w) + x.sum(axis=0)


def elementwise(x, y):
    return np.tanh(x) * y + 1.0


def shapes_and_slices(x, y):
    n = x.shape[0]
    h = n // 2
    out = x[:h] * 2.0
    if n > 8:
        out = out + 1.0
    return out, len(x), x.shape, x[-2:], x[1:-1], x[::-2], np.tanh(x) + y


def _pair(n):
    rng = np.random.default_rng(n)
    return rng.random((n, 4)), rng.random((n, 4))


@pytest.mark.parametrize("dynamic", [None, True, False])
@pytest.mark.parametrize("fn", [elementwise, shapes_and_slices])
def test_policies_agree_with_eager(fn, dynamic):
    cfn, counter = _compiled(fn, dynamic)
    calls = _calls(_pair)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)    # dynamic=False may reach the cache limit
        check(fn, *calls[0], calls=calls[1:], compiled=cfn)


def test_default_policy_makes_a_changed_size_dynamic():
    cfn, counter = _compiled(elementwise, None)
    for n in range(2, 40):
        x, y = _pair(n)
        np.testing.assert_array_equal(cfn(x, y), elementwise(x, y))
    stats = md.stats(cfn)
    assert stats.captures == 2
    assert stats.dynamic_dims == {"x.shape[0]": "size changed from 2 to 3", "y.shape[0]": "size changed from 2 to 3"}
    assert str(counter.graphs[-1]).startswith("graph elementwise(x: f64[s0,4], y: f64[s1,4]):")


def test_dynamic_false_specializes_every_size():
    cfn, _ = _compiled(elementwise, False)
    for n in range(2, 6):
        cfn(*_pair(n))
    assert md.stats(cfn).captures == 4 and md.stats(cfn).dynamic_dims == {}


def test_dynamic_true_is_symbolic_from_the_start_and_guards_relations():
    cfn, counter = _compiled(elementwise, True)
    cfn(*_pair(5))
    text = str(md.explain(cfn)(*_pair(5)))
    assert "x: f64[s0,s1]" in text and "y.shape[0] == x.shape[0]" in text and "x.shape[0] >= 2" in text
    assert "shape environment:" in text and "s0 = x.shape[0] (was 5, dynamic=True)" in text


def test_matmul_block_over_batch_sizes():
    w = np.random.default_rng(0).random((4, 4))
    cfn, _ = _compiled(block, None)
    calls = [(np.random.default_rng(n).random((n, 4)), w) for n in [3, 4, 1, 9, 0, 16, 2]]
    check(block, *calls[0], calls=calls[1:], compiled=cfn)


# ---- relation guards that must fail --------------------------------------------------------------------

def branch_on_size(x):
    if x.shape[0] > 4:
        return x * 2.0
    return x - 1.0


def test_a_size_that_changes_the_branch_recaptures():
    cfn, _ = _compiled(branch_on_size, True)
    calls = [(np.ones((n, 3)),) for n in [3, 4, 5, 9, 2]]
    check(branch_on_size, *calls[0], calls=calls[1:], compiled=cfn)
    assert md.stats(cfn).captures == 2
    assert any("x.shape[0] > 4" in r for rs in md.stats(cfn).guard_failures for r in rs)


def test_two_sizes_that_stop_being_equal():
    cfn, _ = _compiled(elementwise, True)
    x, y = _pair(5)
    cfn(x, y)
    # y now broadcasts along axis 0 (size 1), then is incompatible (size 3): eager's result / exception
    check(elementwise, x, y[:1], calls=[(x, y[:3]), (x, y)], compiled=cfn)
    assert md.stats(cfn).captures >= 2


def test_a_size_that_becomes_one_or_zero():
    cfn, counter = _compiled(elementwise, True)
    for n in [5, 1, 0, 6]:
        x, y = _pair(n)
        np.testing.assert_array_equal(cfn(x, y), elementwise(x, y))
        assert cfn(x, np.ones((1, 4))).shape == (n, 4)
    # sizes 1 and 0 are never symbolic (they broadcast, or make an empty array): each is captured as a
    # constant; size 6 reuses the first, symbolic graph
    assert [str(g).splitlines()[0] for g in counter.graphs] == [
        "graph elementwise(x: f64[s0,s1], y: f64[s2,s3]):", "graph elementwise(x: f64[s0,s1], y: f64[1,s2]):",
        "graph elementwise(x: f64[1,s0], y: f64[1,s1]):", "graph elementwise(x: f64[0,s0], y: f64[0,s1]):",
        "graph elementwise(x: f64[0,s0], y: f64[1,s1]):"]
    assert md.stats(cfn).hits == 3


# ---- mark_dynamic / mark_static -----------------------------------------------------------------------

def test_mark_dynamic_makes_the_first_capture_symbolic():
    cfn, counter = _compiled(elementwise, False)
    x, y = _pair(5)
    md.mark_dynamic(x, 0)
    md.mark_dynamic(y, 0)
    cfn(x, y)
    assert "x: f64[s0,4]" in str(counter.graphs[0])
    for n in (6, 7, 9):
        np.testing.assert_array_equal(cfn(*_pair(n)), elementwise(*_pair(n)))
    assert md.stats(cfn).captures == 1


def test_mark_static_wins_over_dynamic_true():
    cfn, counter = _compiled(elementwise, True)
    x, y = _pair(5)
    md.mark_static(x, 1)
    cfn(x, y)
    assert str(counter.graphs[0]).startswith("graph elementwise(x: f64[s0,4], y: f64[s1,s2]):")


@pytest.mark.parametrize("bad", [(np.ones(3), 1), ([1, 2], 0), (np.ones(3), "0")])
def test_mark_dynamic_rejects_bad_arguments(bad):
    with pytest.raises((TypeError, ValueError), match="mark_dynamic"):
        md.mark_dynamic(*bad)


def test_compile_rejects_a_bad_dynamic_value():
    with pytest.raises(TypeError, match="dynamic"):
        md.compile(elementwise, dynamic="yes")


# ---- symbolic ints and loops ----------------------------------------------------------------------------

def triangular(C, beta):
    n = C.shape[0]
    for i in range(n):
        C[i, :i + 1] *= beta
    return C


def test_triangular_loop_body_is_captured_once():
    counter = CompileCounter()
    cfn = md.compile(triangular, backend=counter, options={"suppress_errors": False})
    C = np.random.default_rng(0).random((200, 200))
    check(triangular, C, 0.5, compiled=cfn)
    assert counter.frame_count <= 3      # the function, the loop body once, the return


def unspecialized_int_as_size(x, n):
    y = np.zeros(n) + 1.0
    return y.shape, x + 1.0, y[: n // 2]


def test_unspecialized_int_used_as_a_size_is_never_stale():
    """An int that automatic dynamic unspecialized and that becomes a size: the shape must follow it."""
    cfn, _ = _compiled(unspecialized_int_as_size, None)
    x = np.ones(3)
    check(unspecialized_int_as_size, x, 2, calls=[(x, n) for n in (3, 4, 5, 0, 1)], compiled=cfn)


# ---- meta rules with symbols, against NumPy on several sizes (0 and 1 included) -------------------------

def many_rules(x, w):
    n = x.shape[0]
    return (x.reshape(-1), x.reshape(n, -1, 2), np.concatenate([x, x[:2]], axis=0),
            np.stack([x, x]).sum(axis=(0, 2)), (x @ w).mean(axis=1), np.arange(n) * 2, np.zeros((n, 3)) + 1,
            x.T @ x, x.max(axis=0), np.cumsum(x, axis=0), np.arange(1, n, 2), np.hstack([x, x]).std(axis=1),
            np.full((n, 2), 3.0), x.squeeze(), np.expand_dims(x, 1).swapaxes(0, 2), np.dot(x, w))


def slicing(x, n):
    k = len(x)
    return (x[:n], x[n:], x[-n:], x[:-n], x[n:k - 1], x[::2], x[n::-1], x[:n // 2 + 1], x[k // 2],
            x[1:n, :n], x[n - 1] if n > 0 else x[0])


@pytest.mark.parametrize("dynamic", [None, True])
def test_meta_rules_with_symbols_match_numpy(dynamic):
    cfn, counter = _compiled(many_rules, dynamic)
    w = np.random.default_rng(1).random((4, 3))
    calls = [(np.random.default_rng(n).random((n, 4)), w) for n in (4, 6, 5, 9, 1, 2, 0, 3)]
    check(many_rules, *calls[0], calls=calls[1:], compiled=cfn)
    assert md.stats(cfn).captures <= 5


@pytest.mark.parametrize("dynamic", [None, True])
def test_slices_with_symbolic_bounds_clip_as_numpy(dynamic):
    cfn, _ = _compiled(slicing, dynamic)
    calls = [(np.arange(k * 3.0).reshape(k, 3), n) for k in (5, 7, 2, 6, 1, 9) for n in (0, 1, 2, 3, 6, 8, 11)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(slicing, *calls[0], calls=calls[1:], compiled=cfn)


def test_a_graph_prints_symbolic_specs():
    cfn, counter = _compiled(lambda x: x.reshape(x.shape[0] * 4), True)
    cfn(np.ones((5, 4)))
    assert "%3 = reshape(x, %2)  # f64[4*s0]" in str(counter.graphs[0])


# ---- state that grows ------------------------------------------------------------------------------------

class Layer:
    def __init__(self):
        self.w = np.linspace(-1, 1, 16).reshape(4, 4)
        self.h = np.zeros((1, 4))
        self.state = {"n_timesteps": 0, "C": []}
        self.log = []

    def step(self, x):
        self.h = np.tanh(x @ self.w + self.h)
        self.state["C"].append(self.h)
        self.state["n_timesteps"] += 1
        self.log.append(self.state["n_timesteps"])
        return self.h


def _assert_same_layer(a, b):
    np.testing.assert_array_equal(a.h, b.h)
    assert a.state["n_timesteps"] == b.state["n_timesteps"] and a.log == b.log and list(a.state) == list(b.state)
    assert len(a.state["C"]) == len(b.state["C"])
    for u, v in zip(a.state["C"], b.state["C"]):
        np.testing.assert_array_equal(u, v)


def test_lists_appended_every_call_and_counters_settle():
    eager, compiled = Layer(), Layer()
    cstep = md.compile(Layer.step, options={"suppress_errors": False})
    for i in range(12):
        x = np.full((1, 4), 0.1 * i)
        np.testing.assert_array_equal(cstep(compiled, x), Layer.step(eager, x))
        _assert_same_layer(eager, compiled)
    assert md.stats(cstep).captures <= 3
    captured(cstep).assert_no_breaks().assert_graph_ran()


def reads_the_list(layer, x):
    layer.state["C"].append(x)
    return len(layer.state["C"]), layer.state["C"][0]


def test_a_list_whose_length_is_read_is_still_guarded():
    eager, compiled = Layer(), Layer()
    cfn = md.compile(reads_the_list, options={"suppress_errors": False})
    for i in range(4):
        x = np.full((1, 4), float(i))
        a, b = reads_the_list(eager, x), cfn(compiled, x)
        assert a[0] == b[0]
        np.testing.assert_array_equal(a[1], b[1])
    assert md.stats(cfn).captures >= 2


def test_dynamic_guard_reads_each_shape_once_and_explains_failures():
    cfn, _ = _compiled(block, True)
    w = np.ones((4, 4))
    cfn(np.ones((5, 4)), w)
    source = cfn.__minidynamo_source__
    assert source.count("x.shape") == 1 and source.count("w.shape") == 1
    cfn(np.ones((1, 4)), w)        # size 1: a relation guard fails, with a readable reason
    assert any("x.shape[0] >= 2: does not hold" in r for rs in md.stats(cfn).guard_failures for r in rs)
    assert md.stats(cfn).dynamic_dims["x.shape[0]"] == "dynamic=True"


def truthy_size(x, n):
    if n:
        return x[:n] * 2.0
    return x


def test_branch_on_a_symbolic_int_guards_its_truth():
    cfn, _ = _compiled(truthy_size, True)
    x = np.arange(12.0).reshape(6, 2)
    check(truthy_size, x, 3, calls=[(x, 4), (x, 0), (x, 5), (x, -2), (x, -4)], compiled=cfn)
    assert md.stats(cfn).captures == 3       # n > 0, n == 0, n < 0 (a negative bound counts from the end)


class Cell:
    """numpy-ml's RNNCell style: the state lives in lists; len() and [-1] read them."""

    def __init__(self):
        self.w = np.linspace(-1, 1, 12).reshape(3, 4)
        self.derived = {"A": [], "n": 0}

    def forward(self, x):
        self.derived["n"] += 1
        As = self.derived["A"]
        if len(As) == 0:
            As.append(np.zeros((x.shape[0], 4)))
        a = np.tanh(As[-1] + x @ self.w)
        As.append(a)
        return a, len(As), As[0].shape


def test_list_length_and_last_item_are_read_without_pinning_the_length():
    eager, compiled = Cell(), Cell()
    fwd = md.compile(Cell.forward, options={"suppress_errors": False})
    for i in range(10):
        x = np.full((2, 3), 0.1 * i)
        a, b = Cell.forward(eager, x), fwd(compiled, x)
        np.testing.assert_array_equal(a[0], b[0])
        assert a[1:] == b[1:]
    assert len(compiled.derived["A"]) == len(eager.derived["A"]) and compiled.derived["n"] == eager.derived["n"]
    assert md.stats(fwd).captures <= 3
    assert md.stats(fwd).dynamic_dims.get("len(self.derived['A'])") == "list length"
    compiled.derived["A"].clear()          # the `len(As) == 0` branch again: a relation guard fails
    eager.derived["A"].clear()
    x = np.ones((2, 3))
    np.testing.assert_array_equal(Cell.forward(eager, x)[0], fwd(compiled, x)[0])


def writes_some_keys(d, x):
    d["b"] = d["b"] + 1
    d["a"] = x * 2.0
    return d


def test_dict_keys_assigned_are_written_back_in_place_keeping_order():
    cfn, _ = _compiled(writes_some_keys, None)
    calls = [({"a": np.ones(2), "b": i, "c": [1]}, np.full(2, float(i))) for i in range(4)]
    check(writes_some_keys, *calls[0], calls=calls[1:], compiled=cfn)


def test_a_squared_loop_counter_stops_being_a_symbol():
    # Shrunk from a fuzz program that took 20 s of CPU to capture: `n = n * (n + n)` in a loop doubles the
    # degree of n's polynomial (and triples its text) per step; past MAX_TERMS/MAX_DEGREE it is a plain
    # runtime value, and a branch on it guards the input values instead.
    def f(x, n):
        for i in range(x.shape[0]):
            n = n * (n + i)
            if n % 3 == 0:
                x = x + 1
        return x * 2, n

    compiled = md.compile(f, dynamic=True)
    check(f, np.ones(14), 2, calls=[(np.ones(14), 3), (np.ones(14), 2), (np.ones(9), 5)], compiled=compiled)


def test_an_unspecialized_int_used_as_an_axis_is_guarded():
    # The loop body is a resume function called with a new `ax` each iteration: the int becomes an
    # unspecialized graph input, but as an axis it decides the result's shape, so the capture must
    # specialize it (NumPy's test_stack got the shape of the first axis for every later one).
    def f(x):
        out = []
        for ax, _ in zip([0, 1, 0, 1, -1, 2], "abcdef"):
            print(ax)
            for r in (x.sum(axis=ax), np.stack([x, x], ax), np.expand_dims(x, ax),
                      np.concatenate([x, x], ax), np.cumsum(x, ax), np.moveaxis(x, ax, 0)):
                out.append((r, r.shape))        # the shape read from the capture's spec
        return out
    check(f, np.arange(24.0).reshape(2, 3, 4))


def test_an_unspecialized_int_operand_stays_unguarded():
    def f(x):
        out = []
        for n, _ in zip([1, 2, 3, 4], "abcd"):
            print(n)
            out.append((x + n, np.clip(x, 0, n), np.where(x > 1, x, n)))
        return out
    res = check(f, np.arange(6.0))
    assert res.counter.frame_count <= 4


def covariance(X):
    # ML-From-Scratch's covariance helper: 1 / (n - 1) over np.shape(X)[0]
    n_samples = np.shape(X)[0]
    return (1 / (n_samples - 1)) * (X - X.mean(axis=0)).T.dot(X - X.mean(axis=0)), np.size(X) / 2, \
        np.size(X, 0) * 1.5, np.size(X, -1), str(np.shape(X)), np.ndim(X)


def test_np_shape_and_size_of_symbolic_sizes_are_symbolic_ints_never_symbols():
    # A size that became symbolic once reached generated code as the symbol itself (1 / s0: TypeError)
    calls = [(np.random.default_rng(n).random((n, 3)),) for n in (7, 9, 4, 12)]
    check(covariance, np.random.default_rng(0).random((5, 3)), calls=calls)
    r = check(lambda X: X.sum() / (np.shape(X)[0] - 1) + np.size(X, 0), np.ones((5, 2)), calls=calls)
    assert r.stats.captures == 2             # the second capture is symbolic in the first size


def test_a_symbol_read_as_a_python_constant_is_specialized():
    from minidynamo.graph.symbolic import ShapeEnv
    from minidynamo.capture.variables.const import ConstVar
    env = ShapeEnv()
    s = env.create_symbol(7, "x.shape[0]", "x")
    assert ConstVar(s).as_constant() == 7 and ConstVar((s, 3)).as_constant() == (7, 3)


def sized(x):
    flat = x.reshape(x.size) * 2.0
    buf = np.zeros(x.nbytes // x.itemsize)
    if x.size > 20:                 # a branch on the product of symbolic sizes: a relation guard
        flat = flat + 1.0
    return flat, buf, x.size, x.nbytes, np.size(x), x.size / 2


def test_size_and_nbytes_of_symbolic_shapes_stay_symbolic():
    # x.size used to be specialized (one capture per size); it is the product of x.shape's symbolic ints
    calls = [(np.ones((n, 3)),) for n in (4, 5, 9, 0, 1, 12, 2)]
    every, every_counter = _compiled(sized, True)
    check(sized, np.ones((3, 3)), calls=calls, compiled=every)
    assert every_counter.frame_count <= 4          # 0 and 1 are specialized, as in Dynamo
    compiled, counter = _compiled(sized, True)
    for n in (4, 5, 6):                 # x.size 12, 15, 18: one capture, its branch guarded
        assert np.array_equal(compiled(np.ones((n, 3)))[0], sized(np.ones((n, 3)))[0])
    assert counter.frame_count == 1
    for n in (7, 8):                    # x.size 21, 24: the guard `size <= 20` fails, the branch flips
        assert np.array_equal(compiled(np.ones((n, 3)))[0], sized(np.ones((n, 3)))[0])
    assert counter.frame_count == 2
