"""Meta rules of linear algebra, padding, tiling, splitting and einsum with symbolic sizes, against NumPy on
several sizes (0, 1 and 2 included, split indices that clip), for the default policy and dynamic=True; and
graphs that keep the sizes symbolic (relations guarded, no size pinned)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minidynamo as md
from tests.conftest import CompileCounter, check

SIZES = (4, 6, 5, 9, 1, 2, 0, 3, 7)


def _compiled(fn, dynamic):
    return md.compile(fn, backend=CompileCounter(), dynamic=dynamic, options={"suppress_errors": False})


def linalg_rules(a, b):
    return (np.linalg.solve(a, b), np.linalg.solve(a, b[:, 0]), np.linalg.inv(a), np.linalg.det(a),
            np.linalg.norm(b, axis=1), np.linalg.norm(b), np.linalg.norm(a, ord=1), np.outer(b[:, 0], b[0]),
            np.tensordot(a, b, 1), np.tensordot(b, b, axes=([1], [1])), np.einsum("ij,jk->ik", a, b),
            np.einsum("ii->i", a), np.einsum("ij->", b), np.inner(b, b), np.vdot(b, b), a @ b,
            np.linalg.slogdet(a), np.linalg.qr(b), np.linalg.eigh(a + a.T), np.linalg.pinv(b),
            np.linalg.matrix_power(a, 3))


def shape_rules(x, k):
    return (np.pad(x, ((1, 2), (0, 1))), np.pad(x, 1), np.tile(x, (2, 1)), np.tile(x[:, 0], 3),
            np.split(x, 2, axis=1), np.array_split(x, 3), np.split(x, [1, 3]), np.split(x, [2, 5, 9]),
            np.array_split(x, [k, 2 * k]), np.array_split(x[:, 0], 4), np.split(x, [-2, 7]))


def sequence_rules(x, k):
    v = x[:, 0]
    return (np.sort(x, axis=0), np.argsort(v), np.sort(x, axis=None), np.flip(x, 0), np.roll(x, 2, axis=0),
            np.triu(x), np.tril(x, -1), np.diff(v), np.diff(x, n=3, axis=0), np.diff(v, prepend=0.0),
            np.real(x + 1j), np.imag(x * 1j), np.angle(x), np.repeat(v, 2), np.repeat(x, k, axis=0),
            np.diag(v), np.diag(x), np.diag(x, k=2), np.convolve(v, [1.0, 2.0, 3.0]),
            np.convolve(v, x[:, 1], mode="same"), np.correlate(v, [1.0, 0.5]), np.broadcast_to(x[:, :1], x.shape))


def halves(x):
    return np.split(x, 2)            # an odd number of rows: NumPy's ValueError, also when compiled


def _square(n):
    rng = np.random.default_rng(n)
    return np.eye(n) * 3.0 + rng.random((n, n)) * 0.1, rng.random((n, 3))


@pytest.mark.parametrize("dynamic", [None, True])
def test_linalg_rules_with_symbols_match_numpy(dynamic):
    cfn = _compiled(linalg_rules, dynamic)
    calls = [_square(n) for n in SIZES]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(linalg_rules, *calls[0], calls=calls[1:], compiled=cfn)
    assert md.stats(cfn).captures <= 5       # 4, then symbolic; 0, 1 and 2 are their own sizes (2 is not 3 here)


@pytest.mark.parametrize("dynamic", [None, True])
def test_shape_rules_with_symbols_match_numpy(dynamic):
    cfn = _compiled(shape_rules, dynamic)
    calls = [(np.arange(n * 4.0).reshape(n, 4), k) for n in SIZES for k in (1, 3)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(shape_rules, *calls[0], calls=calls[1:], compiled=cfn)
    cfn = _compiled(sequence_rules, dynamic)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(sequence_rules, *calls[0], calls=calls[1:], compiled=cfn)
    cfn = _compiled(halves, dynamic)
    check(halves, np.ones((4, 2)), calls=[(np.ones((n, 2)),) for n in SIZES], compiled=cfn)


def solve_and_pad(a, b):
    return np.pad(np.linalg.solve(a, b), ((0, 1), (2, 0))), np.einsum("ij,jk->ik", np.linalg.inv(a), b), \
        np.tile(np.linalg.norm(b, axis=1), 2)


def test_sizes_stay_symbolic_through_linalg_pad_tile_and_einsum():
    cfn = _compiled(solve_and_pad, True)
    check(solve_and_pad, *_square(5), calls=[_square(n) for n in (7, 12, 30)], compiled=cfn)
    assert md.stats(cfn).captures == 1
    record, = cfn._minidynamo.records
    specs = [str(n.spec) for n in record.graph.outputs]
    assert specs == ["f64[s1 + 1,s3 + 2]", "f64[s0,s3]", "f64[2*s2]"], specs
    relations = record.shape_env.relations
    assert not any("==" in r and r.split("==")[1].strip().isdigit() for r in relations), relations


def test_explain_words_a_symbolic_shape_with_stars():
    text = str(md.explain(md.compile(solve_and_pad, dynamic=True))(*_square(5)))
    assert "`a` is an ndarray of shape (*, *) and dtype float64" in text
    assert "(None" not in text and ", None" not in text      # no open size printed as None


def test_sort_diff_repeat_convolve_and_broadcast_to_keep_sizes_symbolic():
    cfn = _compiled(sequence_rules, True)
    rows = lambda n: (np.arange(n * 4.0).reshape(n, 4), 3)         # noqa: E731
    check(sequence_rules, *rows(5), calls=[rows(7), rows(9), rows(12)], compiled=cfn)
    assert md.stats(cfn).captures == 1
    record, = cfn._minidynamo.records
    assert [str(o.spec) for o in record.graph.outputs][-4:] == ["f64[s0 + 2]", "f64[s0]", "f64[s0 - 1]", "f64[s0,s1]"]
