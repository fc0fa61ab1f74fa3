"""The most frequent breaks of the public model cases (benchmarks/public_models.py, issue 27), fixed in
general and checked differentially: a real matrix's eig/eigvals assumed real and checked when the graph runs
(ML-From-Scratch's PCA), and an assert on a mask's True count speculated like any other assert (numpy-ml's
`is_stochastic`: `assert len(X[X < 0]) == len(X[X > 1]) == 0`)."""

from __future__ import annotations

import numpy as np
import pytest

import minidynamo as md
from tests.conftest import check
from tests.programs.checks import count_checks, is_stochastic

SYMMETRIC = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]])
ROTATION = np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 2.0]])     # eigenvalues +-i and 2


def _one_graph(res):
    assert res.counter.frame_count == 1, res.records
    assert all(r.reason is None for r in res.records), [r.reason for r in res.records]


# ---- eig / eigvals of a real matrix -------------------------------------------------------------------------

def pca_like(x, k):
    cov = np.cov(x, rowvar=False)
    values, vectors = np.linalg.eig(cov)
    order = values.argsort()[::-1]
    return x @ vectors[:, order][:, :k], values[order]


def eig_then_more(a):
    w, v = np.linalg.eig(a)
    return w * 2, v.sum(axis=0), np.linalg.eigvals(a) + 1


def writes_then_eig(a, out):
    out[:] = a.sum(axis=1)          # written before the check fails: restored before the eager re-run
    return np.linalg.eig(a)


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_a_real_matrix_with_real_eigenvalues_is_one_graph(dtype):
    _one_graph(check(eig_then_more, SYMMETRIC.astype(dtype)))


def test_pca_captures_whole():
    x = np.random.default_rng(0).normal(size=(20, 4))
    _one_graph(check(pca_like, x, 2))


@pytest.mark.parametrize("first,later", [(SYMMETRIC, ROTATION), (ROTATION, SYMMETRIC), (ROTATION, ROTATION)])
def test_complex_eigenvalues_of_a_real_matrix_come_out_as_numpys(first, later):
    """Captured on one matrix, called on another of the same shape: complex results are NumPy's own."""
    check(eig_then_more, first, calls=[(later,), (first,), (later,)])
    check(writes_then_eig, first, np.zeros(3), calls=[(later, np.zeros(3)), (first, np.zeros(3))])


@pytest.mark.parametrize("shape", [(0, 0), (1, 1), (2, 3, 3)])
def test_eig_shapes(shape):
    a = np.arange(float(np.prod(shape))).reshape(shape) % 3
    check(eig_then_more, a, calls=[(a.T.copy() if a.ndim == 2 else a,)])


def test_eig_of_a_complex_matrix_and_bad_values_as_eagerly():
    check(eig_then_more, SYMMETRIC.astype(complex), calls=[(ROTATION.astype(complex),)])
    check(eig_then_more, np.full((3, 3), np.nan), calls=[(np.full((3, 3), np.inf),), (SYMMETRIC,)])
    check(eig_then_more, np.ones((2, 3)), expect_graph=False)       # not square: LinAlgError at capture, as eagerly


def test_eig_keeps_its_check_in_explain():
    out = md.explain(pca_like)(np.random.default_rng(1).normal(size=(10, 3)), 2)
    assert out.graph_break_count == 0 and out.graph_count == 1
    assert "eig" in out.ops_per_graph[0]


# ---- asserts on a mask's True count (the programs live in tests/programs/checks.py: pytest rewrites the
# asserts of test modules) -----------------------------------------------------------------------------------

def _explained_whole(fn, *args):
    """One graph and no break on the default backend (mask counts are graph values there only)."""
    out = md.explain(fn)(*args)
    assert out.graph_count == 1 and out.graph_break_count == 0, out.break_reasons


@pytest.mark.parametrize("x", [np.full((4, 3), 1 / 3), np.array([[0.5, 0.5], [1.0, 0.0]])])
def test_an_assert_on_mask_counts_is_one_graph(x):
    check(is_stochastic, x, backend="numpy")
    _explained_whole(is_stochastic, x)


@pytest.mark.parametrize("bad", [np.array([[-0.5, 1.5], [1.0, 0.0]]), np.array([[-0.5, 0.5], [1.0, 0.0]]),
                                 np.array([[2.0, -1.0], [1.0, 0.0]]), np.array([[0.25, 0.25], [1.0, 0.0]])])
def test_a_failing_count_assert_raises_as_eagerly(bad):
    good = np.array([[0.5, 0.5], [1.0, 0.0]])
    check(is_stochastic, good, calls=[(bad,), (good,), (bad,)], backend="numpy")
    check(is_stochastic, bad, calls=[(good,)], backend="numpy")


@pytest.mark.parametrize("x", [np.array([0.1, 0.9, -0.2]), np.linspace(-1, 1, 9), -np.ones(4), np.zeros(0),
                               np.array([0.7, 0.8, 0.9, 1.0, 0.6])])
def test_raises_on_counts_in_both_directions(x):
    # both checks are check nodes of one graph, each raising as eagerly when it fails; an empty x fails the
    # assert at capture, and raising is left to plain Python: the frame of that assert runs eagerly
    r = check(count_checks, x, calls=[(x[::-1] * 0.5,), (-x,), (x + 1,), (x,)], backend="numpy",
              expect_fallback=None if x.size else "assert len(x[x < 0]) != len(x)")
    assert not x.size or (len(r.graphs) == 1 and not r.reasons)


def test_count_checks_are_one_graph():
    _explained_whole(count_checks, np.linspace(-1, 1, 9))


# ---- np.nonzero and one-argument np.where: index arrays of a count's length ------------------------------

def find_crossing(seq, sub):
    # From Python to NumPy's find_crossing_2: candidates by a correlation, then checked, in one graph
    target = np.dot(sub, sub)
    candidates = np.where(np.correlate(seq, sub, mode="valid") == target)[0]
    check_at = candidates[:, np.newaxis] + np.arange(len(sub))
    mask = np.all((np.take(seq, check_at) == sub), axis=-1)
    return candidates[mask]


def nonzero_uses(x):
    m = x > 0.5
    i, j = np.nonzero(m)
    picked = x[i, j]
    return i * 2 + j, picked + x[m], picked.sum(), m.nonzero()[1], np.where(x)[0] + 1


def nonzero_write(x):
    rows, = np.nonzero(x[:, 0] > 0)
    x[rows, 1] = -1.0
    x[np.where(x[:, 2] < 0)] *= 2
    return x


def nonzero_of_0d(x):
    return np.nonzero(x.sum() > 0)


SEQ = np.random.default_rng(0).choice([-1, 1], 300)


@pytest.mark.parametrize("seq", [SEQ, np.ones(300, int), -np.ones(300, int), SEQ[::-1].copy()])
def test_find_crossing_is_one_graph_and_exact(seq):
    check(find_crossing, SEQ, [1, -1, 1], calls=[(seq, [1, -1, 1]), (seq, [1, 1, 1])], backend="numpy")
    _explained_whole(find_crossing, seq, [1, -1, 1])


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.int8, np.bool_])
@pytest.mark.parametrize("shape", [(4, 5), (1, 1), (3, 0), (0, 2), (6, 1)])
def test_nonzero_over_dtypes_and_shapes(dtype, shape):
    rng = np.random.default_rng(3)
    a, b = (rng.uniform(-1, 2, shape).astype(dtype) for _ in range(2))
    check(nonzero_uses, a, calls=[(b,), (np.zeros(shape, dtype),), (np.ones(shape, dtype),)], backend="numpy")


def test_nonzero_uses_are_one_graph():
    _explained_whole(nonzero_uses, np.random.default_rng(4).uniform(-1, 2, (4, 5)))


@pytest.mark.parametrize("x", [np.random.default_rng(5).normal(size=(6, 3)), np.ones((4, 3)), -np.ones((2, 3)),
                               np.zeros((0, 3))])
def test_writes_through_nonzero_indices(x):
    check(nonzero_write, x, calls=[(-x,), (x * 0,)], backend="numpy")


@pytest.mark.parametrize("x", [np.ones(3), -np.ones(3)])
def test_nonzero_of_a_0d_value_raises_as_eagerly(x):
    check(nonzero_of_0d, x, backend="numpy")
