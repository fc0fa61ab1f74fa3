"""NumPy's everyday surface (issue 9, item 8): each family captured whole and checked against eager NumPy
with `check` (results bit for bit, types such as QRResult, exceptions), plus the data-dependent cases that
must break rather than fail."""

from __future__ import annotations

import numpy as np
import pytest

import minidynamo as md
from minidynamo.capture.breaks import BreakCategory
from tests.conftest import captured, check

X = np.linspace(-1.0, 2.0, 12)
M = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]])
R = np.arange(12.0).reshape(3, 4) % 5 + 0.5


def _one_graph(fn, *args):
    res = check(fn, *args)
    assert res.counter.frame_count == 1, res.records
    assert all(r.reason is None for r in res.records), [r.reason for r in res.records]
    return res


def spec_functions(x, a):
    n = np.shape(a)[0] + np.ndim(x) + np.size(a, 1) + np.size(x)
    dt = np.result_type(x, a, 1.5)
    return x[: int(n) % 7] * 2, dt, np.iscomplexobj(a), np.isrealobj(x), list(range(np.shape(x)[0] // 4))


def test_shape_functions_fold_to_constants():
    _one_graph(spec_functions, X, M)


def fft_family(x, a):
    f = np.fft.fft(x)
    return (f, np.fft.ifft(f), np.fft.rfft(x, n=16), np.fft.irfft(np.fft.rfft(x)), np.fft.fft2(a),
            np.fft.fftn(a, s=(4, 2)), np.fft.fftfreq(12, d=0.1), np.fft.rfftfreq(12), np.fft.fftshift(x),
            np.fft.ifftshift(a, axes=0), np.fft.ifft2(a, norm="ortho"))


def test_fft_family():
    _one_graph(fft_family, X, R)


def linalg_family(a, b):
    c = np.linalg.cholesky(a)
    qr = np.linalg.qr(b)
    u, s, vh = np.linalg.svd(b, full_matrices=False)
    w, v = np.linalg.eigh(a)
    sign, logdet = np.linalg.slogdet(a)
    return (c, qr, qr.Q @ qr.R, u * s @ vh, w, v, sign, logdet, np.linalg.svd(a), np.linalg.pinv(b),
            np.linalg.matrix_power(a, 3), np.linalg.matrix_power(a, -1), np.linalg.solve(a, b[:, 0]),
            np.linalg.det(a), np.linalg.norm(b, "fro"), np.linalg.eigvalsh(a), np.linalg.qr(b, mode="r"),
            np.linalg.lstsq(b, a[:, 0], rcond=None))


def test_linalg_family_keeps_numpys_result_types():
    res = _one_graph(linalg_family, M, R)
    out = res.compiled(M, R)
    assert type(out[1]) is type(np.linalg.qr(R)) and type(out[8]) is type(np.linalg.svd(M))


def not_positive_definite(a):
    return np.linalg.cholesky(a) * 2


def test_a_factorization_failing_on_values_raises_as_eagerly():
    check(not_positive_definite, -M)


def statistics(x, a):
    h, edges = np.histogram(x, bins=4)
    h2, _ = np.histogram(x, bins=[-1.0, 0.0, 0.5, 3.0], density=True)
    return (h, edges, h2, np.cov(a), np.cov(a, rowvar=False, bias=True), np.corrcoef(a), np.corrcoef(x, x ** 2),
            np.percentile(x, [10, 90]), np.quantile(a, 0.5, axis=1), np.median(a, axis=0), np.median(x),
            np.percentile(a, 25, method="lower", keepdims=True))


def test_statistics():
    _one_graph(statistics, X, R)


def sequences(x, a):
    return (np.cumsum(x), np.diff(x), np.diff(a, n=2, axis=0), np.diff(x, prepend=0.0),
            np.convolve(x, x[:3]), np.convolve(x, x[:3], mode="valid"), np.correlate(x, x[:4], "same"),
            np.interp(x, [0.0, 1.0, 2.0], [1.0, -1.0, 3.0]), np.interp(0.5, [0.0, 1.0], [1.0, 2.0]),
            np.searchsorted(np.sort(x), [0.0, 1.5]), np.sort(x).searchsorted(0.3, side="right"),
            np.indices((2, 3)), np.indices((2, 3), sparse=True), np.meshgrid(x[:3], x[:2]),
            np.meshgrid(x[:3], x[:2], indexing="ij", sparse=True))


def test_sequence_helpers():
    _one_graph(sequences, X, R)


def complex_parts(x):
    z = x * (1 + 2j)
    return z.real, z.imag, np.real(z), np.imag(x), z.conj(), z.conjugate(), np.conj(z), np.angle(z),
    np.angle(z, deg=True), x.conj()


def test_real_imag_conj_angle():
    _one_graph(complex_parts, X)


def ufunc_methods(x, a, y):
    np.add.at(y, [0, 2, 2], 1.5)
    np.negative.at(y, 1)
    return (np.add.outer(x[:3], x[:4]), np.multiply.outer(a, 2.0), np.add.reduce(a), np.maximum.reduce(a, axis=1),
            np.add.reduce(a, axis=None, keepdims=True), np.add.accumulate(x), np.multiply.accumulate(a, axis=1),
            np.add.reduceat(x, [0, 4, 8]), np.minimum.reduceat(a, [0, 2], axis=1), np.add.nin)


def test_ufunc_methods_and_at_writes_in_place():
    _one_graph(ufunc_methods, X, R, np.zeros(4))


def unique_then_more(x):
    u = np.unique(np.round(x))
    return u * 2


def overdetermined_lstsq(a, b):
    return np.linalg.lstsq(a, b, rcond=None)[0] + 1


def real_eig(a):
    w, v = np.linalg.eig(a)
    return w + 1, v


@pytest.mark.parametrize("fn,args", [(unique_then_more, (X,)), (overdetermined_lstsq, (R.T, X[:4]))])
def test_data_dependent_results_break_and_stay_correct(fn, args):
    res = check(fn, *args)
    reasons = [r.reason for r in res.records if r.reason is not None]
    assert reasons, "expected a graph break"
    explained = md.explain(fn)(*args)
    assert explained.graph_break_count >= 1


def test_unique_break_names_the_data_dependent_shape():
    explained = md.explain(unique_then_more)(X)
    assert any("depends on the values" in str(r) for r in explained.break_reasons), explained.break_reasons


def test_complex_eig_is_captured():
    _one_graph(real_eig, M.astype(complex))


def test_real_eig_is_captured_and_checked():
    """Assumed real, checked when the graph runs (tests/capture/test_public_model_breaks.py has the rest)."""
    _one_graph(real_eig, M)


# ---- the legacy global random functions: ordered stateful ops -------------------------------------------

def draws(x, a):
    noise = np.random.normal(0.0, 0.1, size=x.shape)
    u = np.random.rand(*x.shape)
    np.random.rand(2)                   # an unused draw still consumes the stream
    k = np.random.randint(0, 5, size=4)
    perm = np.random.permutation(x.shape[0])
    pick = np.random.choice(5, 3, replace=False)
    y = x + noise * u
    np.random.shuffle(y)
    return y, k, perm, pick, np.linalg.inv(a)     # inv raises for a singular `a` after the draws


def draws_in_a_long_loop(x, steps):
    for _ in range(steps):
        x = x + np.random.standard_normal(x.shape) * 0.01
        if x.sum() > 1e6:
            break
    return x


def _eager_and_compiled(fn, *args, expect_graph=True):
    """Run fn eagerly and compiled from the same seed: results (or exception types) and the global RNG
    state after the call must be identical; a graph ran (or, with `expect_graph=False`, capture broke)."""
    cfn = md.compile(fn, options={"suppress_errors": False})
    outcomes = []
    for f in (fn, cfn):
        np.random.seed(1234)
        try:
            out, exc = f(*[a.copy() if isinstance(a, np.ndarray) else a for a in args]), None
        except Exception as e:      # compared by type below
            out, exc = None, type(e)
        st = np.random.get_state(legacy=False)
        outcomes.append((out, exc, (st["state"]["key"].copy(), st["state"]["pos"], st["has_gauss"], st["gauss"])))
    (e_out, e_exc, e_state), (c_out, c_exc, c_state) = outcomes
    assert e_exc is c_exc
    assert np.array_equal(e_state[0], c_state[0]) and e_state[1:] == c_state[1:], \
        "the global RNG stream was consumed differently"
    if e_exc is None:
        for e, c in zip(e_out if isinstance(e_out, tuple) else (e_out,), c_out if isinstance(c_out, tuple) else (c_out,)):
            assert np.array_equal(e, c)
    if expect_graph:
        captured(cfn).assert_graph_ran()
    else:
        assert captured(cfn).reasons, "expected a break"
    return cfn


def test_random_draws_are_ordered_graph_ops_and_the_stream_matches():
    cfn = _eager_and_compiled(draws, np.ones((4, 2)), np.eye(3))
    explained = md.explain(draws)(np.ones((4, 2)), np.eye(3))
    assert explained.graph_count == 1 and explained.graph_break_count == 0
    names = [n.op for n in explained.graphs[0].nodes if n.op.startswith("random.")]
    assert names == ["random.normal", "random.rand", "random.rand", "random.randint", "random.permutation",
                     "random.choice", "random.shuffle"]
    assert cfn is not None


def draws_then_invert(x, a):
    return x + np.random.normal(size=x.shape), np.linalg.inv(a)


@pytest.mark.parametrize("fn", [draws, draws_then_invert])
def test_a_graph_raising_after_draws_reruns_eagerly_from_the_saved_state(fn):
    # draws_then_invert's graph writes nothing, so its exception re-runs the function eagerly: the global
    # state must be restored first (draws raises straight out of the graph, as eagerly)
    _eager_and_compiled(fn, np.ones((4, 2)), np.zeros((3, 3)))


def test_draws_in_a_driven_loop():
    _eager_and_compiled(draws_in_a_long_loop, np.zeros(3), 150)


def test_a_draw_without_size_is_a_python_number_the_graph_returns():
    def scalar_draw(x):
        r1, r2 = np.random.uniform(), np.random.randint(5)     # particle swarm's r1, r2
        return x * np.random.rand() + r1 * r2, r1, r2
    cfn = _eager_and_compiled(scalar_draw, np.ones(3))
    explained = md.explain(scalar_draw)(np.ones(3))
    assert explained.graph_break_count == 0
    assert [type(v) for v in cfn(np.ones(3))[1:]] == [float, int]


def dropout_and_other_distributions(x, p_keep, lam, a):
    # hipsternet's dropout mask, then distributions with array parameters
    u = np.random.binomial(1, p_keep, size=x.shape) / p_keep
    counts = np.random.poisson(lam, size=(2,) + lam.shape)
    return x * u, counts, np.random.beta(a, a + 1), np.random.gamma(a, size=(3,) + a.shape), \
        np.random.standard_cauchy(2), np.random.hypergeometric(5, 3, 4, size=2)


def test_more_legacy_distributions_are_ordered_ops():
    args = np.ones((4, 3)), 0.7, np.array([1.0, 4.0]), np.array([[0.5, 2.0]])
    _eager_and_compiled(dropout_and_other_distributions, *args)
    explained = md.explain(dropout_and_other_distributions)(*args)
    assert explained.graph_count == 1 and explained.graph_break_count == 0
    names = [n.op for n in explained.graphs[0].nodes if n.op.startswith("random.")]
    assert names == ["random.binomial", "random.poisson", "random.beta", "random.gamma", "random.standard_cauchy",
                     "random.hypergeometric"]


def test_a_draw_refusing_its_array_parameter_raises_as_eagerly():
    # p > 1, a Python number, is found at capture (a break before the draw: NumPy's error, as eagerly); a
    # negative lam only when the graph runs: the eager re-run restores the stream and raises NumPy's error
    _eager_and_compiled(dropout_and_other_distributions, np.ones((4, 3)), 1.5, np.array([1.0]), np.ones((1, 2)),
                        expect_graph=False)
    _eager_and_compiled(dropout_and_other_distributions, np.ones((4, 3)), 0.5, np.array([-1.0]), np.ones((1, 2)))


def seeded_dropout(x, param):
    # cs231n's dropout_forward: a seed in the parameters resets the global stream before the mask
    if "seed" in param:
        np.random.seed(param["seed"])
    return x * (np.random.rand(*x.shape) < param["p"]) / param["p"], np.random.randint(9)


def test_seed_is_an_ordered_op_and_the_stream_matches():
    for param in ({"p": 0.5, "seed": 3}, {"p": 0.5}, {"p": 0.5, "seed": -1}, {"p": 0.5, "seed": 2**32}):
        # -1 and 2**32: ValueError as eagerly, found at capture (a break)
        _eager_and_compiled(seeded_dropout, np.ones((3, 4)), param, expect_graph=0 <= param.get("seed", 0) < 2**32)
    explained = md.explain(seeded_dropout)(np.ones((3, 4)), {"p": 0.5, "seed": 3})
    assert explained.graph_break_count == 0
    assert [n.op for n in explained.graphs[0].nodes if n.op.startswith("random.")] == \
        ["random.seed", "random.rand", "random.randint"]


def draws_from_a_range(x, n):
    # k-means / random-subset style: an item of range(n), subsets of it, a pick from a literal list
    i = np.random.choice(range(n))
    rows = np.random.choice(range(n), size=np.shape(range(3)), replace=True)
    return x[i], x[rows], np.random.choice([3, 4, 5]), type(i) is np.int64, np.shape(range(n)), np.sum(range(n))


def test_choice_of_a_range_or_a_list_is_an_op_whose_item_is_a_numpy_scalar():
    cfn = _eager_and_compiled(draws_from_a_range, np.arange(12.0).reshape(6, 2), 6)
    explained = md.explain(draws_from_a_range)(np.arange(12.0).reshape(6, 2), 6)
    assert explained.graph_break_count == 0
    assert [n.op for n in explained.graphs[0].nodes].count("random.choice") == 3
    assert cfn(np.ones((6, 2)), 6)[3] is True


def insert_and_atleast(x, w, k):
    X = np.insert(x, 0, 1, axis=1)              # a column of ones for the bias
    Y = np.insert(x, [0, k], x[0] * 2, axis=0)
    Z = np.insert(x, slice(0, 2), 7.5)
    return X @ w, Y, Z, np.atleast_1d(np.linalg.norm(x, 2, -1)), np.atleast_2d(w), np.atleast_3d(x), \
        np.atleast_1d(x) is x


def test_insert_and_atleast_nd_are_ops():
    x, w = np.arange(6.0).reshape(2, 3), np.arange(4.0)
    r = check(insert_and_atleast, x, w, 1, calls=[(x, w, 2), (x[:, :2].copy(), w[:3].copy(), 0)])
    ops = [n.op for n in r.graphs[0].nodes]
    assert ops.count("insert") == 3 and {"atleast_1d", "atleast_2d", "atleast_3d"} <= set(ops)
    assert all(reason.opname == "IS_OP" for reason in r.reasons)     # only `is`, unknown at capture


def test_insert_out_of_bounds_raises_as_eagerly():
    check(lambda x, k: np.insert(x, k, 0.0), np.ones(3), 5, calls=[(np.ones(3), 3), (np.ones(3), -4)],
          expect_graph=False).assert_broke("insert: index 5 is out of bounds for axis 0 with size 3")


def reductions_of_lists(x, n):
    losses, rows = [], []
    for i in range(n):
        losses.append(np.mean((x[i] - 1.0) ** 2))
        rows.append(x[i] * i)
    return np.mean(losses), np.array(rows), np.sum(tuple(losses)), np.asarray(rows), np.std(losses, ddof=1)


def test_a_list_of_graph_arrays_read_as_an_array_is_stacked():
    x = np.arange(12.0).reshape(4, 3)
    r = check(reductions_of_lists, x, 3, calls=[(x, 4)]).assert_no_breaks()
    assert all(g.ops().get("stack") == 5 for g in r.graphs)


def test_a_list_mixing_shapes_or_numbers_is_not_stacked():
    def f(x):
        return np.mean([x[0], x[1:3]]), np.mean([x[0], 1.0])
    check(f, np.arange(4.0))          # ragged: ValueError, as eagerly
    check(lambda x: np.mean([x[0], 1.0]), np.arange(4.0))


def test_a_conversion_with_other_keywords_is_not_stacked():
    def f(x):
        rows = [x[0], x[1]]
        return np.array(rows, dtype=np.float32), np.array(rows, copy=False)   # copy=False: ValueError
    check(f, np.arange(6.0).reshape(2, 3))
    check(lambda x: np.array([x[0], x[1]], ndmin=3), np.arange(6.0).reshape(2, 3))


def test_a_size_from_array_values_is_a_data_dependent_break():
    def one_hot(y):
        out = np.zeros((y.shape[0], np.amax(y) + 1))     # to_categorical: the class count is data
        out[np.arange(y.shape[0]), y] = 1
        return out
    r = check(one_hot, np.array([0, 2, 1]), calls=[(np.array([3, 0]),)])
    assert [reason.category for reason in r.reasons] == ["data_dependent"] * len(r.reasons) and r.reasons


def cross_entropy_and_lstm_input(a, y, h, x_one_hot, v):
    # Nielsen's CrossEntropyCost.fn, hipsternet's LSTM input: column_stack of 2-d and 1-d arrays
    cost = np.sum(np.nan_to_num(-y * np.log(a) - (1 - y) * np.log(1 - a)))
    clipped = np.nan_to_num(a / (a - a), nan=-1.0, posinf=9.0), np.nan_to_num(np.float64(np.inf))
    return cost, clipped, np.column_stack((h, x_one_hot)), np.column_stack([v, v * 2]), np.column_stack((v,))


def test_nan_to_num_and_column_stack_are_ops():
    a, y = np.array([[0.5], [1.0], [0.0]]), np.array([[1.0], [1.0], [0.0]])
    args = a, y, np.ones((1, 4)), np.arange(3.0).reshape(1, 3), np.arange(1, 4)
    with np.errstate(all="ignore"):
        r = check(cross_entropy_and_lstm_input, *args)
    ops = [n.op for n in r.graphs[0].nodes]
    assert not r.reasons and ops.count("nan_to_num") == 2 and ops.count("column_stack") == 3


def test_column_stack_of_mismatched_rows_raises_as_eagerly():
    check(cross_entropy_and_lstm_input, np.ones((2, 1)) / 2, np.ones((2, 1)), np.ones((2, 4)), np.ones((1, 3)),
          np.ones(3))


def weights_for_the_labels(X, y):
    # cs231n's LinearClassifier.train: the class count is the labels' maximum plus one
    W = 0.001 * np.random.randn(X.shape[1], np.max(y) + 1)
    return X @ W, np.random.normal(size=(2, np.max(y) + 1))


def test_random_dims_from_array_values_are_a_data_dependent_break():
    _eager_and_compiled(weights_for_the_labels, np.ones((4, 3)), np.array([0, 1, 2, 1]))
    reasons = md.explain(weights_for_the_labels)(np.ones((4, 3)), np.array([0, 1, 2, 1])).break_reasons
    assert reasons and all(r.category == BreakCategory.DATA_DEPENDENT and "comes from array values" in r.message
                           for r in reasons), reasons


def kept_copies(x, da):
    # ILearnDeepLearning's layers: `self._a_prev = np.array(a_prev, copy=True)`
    a = np.array(x, copy=True)
    a[0] = 5.0
    return a, np.array(da, copy=True) * 2, x


def test_array_with_copy_true_is_an_op():
    r = check(kept_copies, np.arange(4.0), np.ones(3))
    assert not r.reasons and [n.op for n in r.graphs[0].nodes].count("array") == 2
    r = check(lambda x: np.array(x, copy=False) is x, np.arange(4.0),
              expect_graph=False)       # may be x itself: a break
    assert r.reasons


def batches_by_take(x, y, bs):
    # ILearnDeepLearning's generate_batches, consumed by enumerate as its SequentialModel.train does
    def generate_batches(x, y, batch_size):
        for i in range(0, x.shape[0], batch_size):
            yield (x.take(indices=range(i, min(i + batch_size, x.shape[0])), axis=0),
                   y.take(indices=range(i, min(i + batch_size, y.shape[0])), axis=0))
    sums = [a.sum() * idx + b.sum() for idx, (a, b) in enumerate(generate_batches(x, y, bs))]
    return sums, np.take(x, 3), np.take(x, [[0, 1]], axis=1), x.take(-1, axis=0), np.take(x[0], np.zeros(2, int))


def test_take_is_an_op():
    x, y = np.arange(30.0).reshape(10, 3), np.arange(10.0)
    r = check(batches_by_take, x, y, 4, calls=[(x[:7].copy(), y[:7].copy(), 3)])
    assert not r.reasons and r.graphs[0].ops().get("take") == 10
    check(lambda x: x.take(12), x)                                   # out of range: IndexError as eagerly
    check(lambda x, i: np.take(x, i, axis=0), x, np.array([0, 11]))  # found when the graph runs
    assert check(lambda x: np.take(x, [True, False]), y,
                 expect_graph=False).reasons      # bools are 0/1 to take: a break


def test_ndarray_constructor_is_an_empty_array_in_the_graph():
    """np.ndarray(shape, dtype) (NPBench's nbody allocates so) makes the array np.empty makes, in the graph;
    over a buffer it breaks, and a bad shape raises eager's exception."""
    def alloc(x, n):
        out = np.ndarray(n + 1, dtype=np.float64)
        out[:] = x.sum()
        b = np.ndarray((2, n), np.int32, order="F")
        b[...] = 3
        return out, b

    def layout(n):
        b = np.ndarray((2, n), np.int32, order="F")
        return b.strides, type(b) is np.ndarray

    def over_a_buffer(x):
        return np.ndarray((2,), dtype=x.dtype, buffer=x) * 2.0
    x = np.arange(4.0)
    check(alloc, x, 4, calls=[(x, 0), (x[:2], 7), (x, -3)])
    check(over_a_buffer, x)
    check(layout, 3)
    explained = md.explain(alloc)(x, 4)
    assert explained.graph_count == 1 and explained.graph_break_count == 0
    assert "empty" in str(explained)
    assert md.explain(over_a_buffer)(x).graph_break_count == 1
