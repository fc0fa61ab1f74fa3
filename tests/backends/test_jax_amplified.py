"""backend="jax" on code whose later steps would amplify XLA's rounding differences (backends/amplifiers.py):
ML-From-Scratch's PCA.transform style, where a covariance 1e-16 away from NumPy's made `eig`, run after the
graph break, return eigenvectors of the other sign (results 6.6 apart on this input before the fix), and
ties that XLA's order of additions breaks the other way."""

from __future__ import annotations

import numpy as np

from tests.backends.jax_support import assert_close, run_both
from tests.backends.test_amplifiers import pca


def test_pca_after_a_break_at_eig_matches_eager():
    X = np.random.default_rng(1).standard_normal((50, 10))
    got, expected, rec = run_both(pca, X, 3, calls=2)
    assert_close(got, expected)
    first = rec.plans[0]
    assert first.not_lowered and all("handed on to eig" in d.reason for d in first.not_lowered)


def test_ties_resolved_in_the_graph_match_eager():
    def best(x):    # rows are permutations of one another: sums equal up to the order of the additions
        return np.argmax((x * 1.1).sum(axis=1)), np.argsort(x.sum(axis=1) * 3.0)
    for seed in range(6):       # XLA's sums broke these ties otherwise in 5 of them
        r = np.random.default_rng(seed)
        base = r.standard_normal(16)
        got, expected, rec = run_both(best, np.stack([r.permutation(base) for _ in range(6)]))
        assert_close(got, expected, f"seed {seed}")
        assert not any(p.fully_lowered for p in rec.plans)
