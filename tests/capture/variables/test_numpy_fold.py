"""NumPy calls on capture-time constants (variables/numpy_ns.py fold_on_constants): evaluated at capture,
guarded like constants, so int()/range() of the result does not break."""

from __future__ import annotations

import numpy as np

import minidynamo as md
from tests.conftest import captured, check


def pooled(x, d):
    H, W = x.shape
    half = int(np.ceil(H / 2))
    n = np.prod(x.shape)
    out = x[:half] / np.sqrt(d)
    for j in range(int(np.floor(W / 2))):
        out = out + x[:half, j:j + 1]
    return out * n + np.finfo(x.dtype).eps + np.iinfo(np.int8).max + int(np.log2(W))


def test_shape_arithmetic_through_numpy_folds_and_feeds_int_and_range():
    x = np.arange(20.0).reshape(5, 4)
    r = check(pooled, x, 16, calls=[(x + 1, 16), (np.ones((6, 8), np.float32), 16)]).assert_no_breaks()
    assert r.stats.captures == 2                    # new shape: new capture; same shape: a hit


def test_folded_values_are_guarded_through_their_inputs():
    compiled = md.compile(pooled)
    x = np.ones((5, 4))
    for d in (16, 16, 25, 4):
        np.testing.assert_array_equal(compiled(x, d), pooled(x, d))
    captured(compiled).assert_no_breaks().assert_graph_ran()
    stats = md.stats(compiled)                  # each new d fails the guard on d: a capture per d
    assert (stats.captures, stats.hits) == (3, 1)
    assert [f.split(":")[0] for failed in stats.guard_failures for f in failed] == ["d", "d", "d"]


def test_folded_results_keep_numpy_types():
    def f(x):
        n = np.prod(x.shape)             # np.int64, as eagerly
        s = np.sqrt(np.float32(4))       # np.float32
        return n, s, x * n, np.result_type(x.dtype, np.float32), np.ndim(3), np.shape([[1, 2]])
    check(f, np.ones((2, 3), np.float32)).assert_no_breaks()


def test_arange_of_a_constant_is_a_fresh_array_each_call():
    def f(x):
        idx = np.arange(4)
        idx[0] = 3                       # mutating it must not change the next call's index
        return x[idx]
    r = check(f, np.arange(10.0), calls=[(np.arange(10.0),)])
    r.assert_no_breaks()


def test_a_warning_or_error_at_fold_time_is_left_to_numpy():
    def f(x):
        return x * np.log(0.0), x + np.sqrt(-1.0)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(f, np.ones(2))


def test_a_scalar_type_call_that_warns_warns_on_every_call():
    # np.float16(763230.0) overflows with a RuntimeWarning: folded at capture, the warning came once, at
    # capture, and never again from the calls reusing it (NumPy's TestUfunc.test_sum counts them).
    import warnings

    def f(x, v):
        return np.float16(v * (v + 1) / 2), x + 1.0

    compiled = md.compile(f)
    for v in (1235, 1235, 1235):
        for fn in (f, compiled):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always", RuntimeWarning)
                fn(np.ones(2), v)
            assert [str(m.message) for m in w] == ["overflow encountered in cast"]
    result = captured(compiled).assert_graph_ran()        # the call runs as plain Python, not folded
    assert any("float16 warns (RuntimeWarning: overflow encountered in cast)" in str(r) for r in result.reasons)
