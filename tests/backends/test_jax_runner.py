"""jax_lowering/runner.py: how results come back (packed small results, large results handed over without a
copy, copies where JAX may return an input's buffer) and the cached read of NumPy's error state.
Every result must be a writeable array that nothing else reads or writes."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from tests.backends.jax_support import Recorder, assert_close, md, run_both
from minidynamo.backends.jax_lowering import choice, engine, runner, staging   # noqa: E402  (after the skip without JAX)

LARGE = (runner.WRAP_BYTES // 8) * 4        # float64 elements well above the zero-copy threshold


def traced_piece(rec: Recorder, unchecked: bool = False):
    """The engine Piece whose trace made the (single) jitted function of the recorded graph (`unchecked`:
    of its variant without finite checks, bounds.py)."""
    graph = rec.plans[0].pieces[0].graph
    return engine._JITTED[engine._key(graph) + (("unchecked",) if unchecked else ())][1]


def test_small_results_of_one_dtype_come_back_packed():
    rec = Recorder()
    compiled = md.compile(lambda x: (np.tanh(x), np.exp(x).sum()), backend=rec)
    x = np.linspace(0, 1, 6).reshape(2, 3)
    got = compiled(x)
    assert traced_piece(rec).pack_dtype == np.float64
    assert_close(got, (np.tanh(x), np.exp(x).sum()))
    assert got[0].flags.owndata and type(got[1]) is np.float64


def test_packed_write_back_into_an_input():
    def scale(x, y):
        x *= 2.0
        return x + y
    got, expected, rec = run_both(scale, np.arange(4.0), np.ones(4))
    assert traced_piece(rec).pack_dtype == np.float64 and rec.fallbacks == 0
    assert_close(got, expected)


def test_large_results_are_writeable_and_independent_between_calls():
    rec = Recorder()
    compiled = md.compile(lambda x: np.sqrt(x) + 1.0, backend=rec)
    x = np.arange(LARGE, dtype=np.float64)
    first = compiled(x)
    assert traced_piece(rec).pack_dtype is None and traced_piece(rec).fresh_outputs == [True]
    first[:] = -1.0                         # the caller owns the buffer now
    second = compiled(x)
    assert_close(second, np.sqrt(x) + 1.0)
    assert np.all(first == -1.0) and not np.shares_memory(first, second)


def test_a_result_jax_may_forward_from_an_input_is_copied(monkeypatch):
    monkeypatch.setattr(choice, "TRIALS", 0)        # every call that can be proved takes that variant
    def passthrough(x):
        return np.copy(x), np.tanh(x)        # np.copy lowers to the traced input itself
    rec = Recorder()
    x = np.arange(LARGE, dtype=np.float64) / LARGE
    got = md.compile(passthrough, backend=rec)(x)
    assert rec.runs[0].proved[0] == 1 and traced_piece(rec, unchecked=True).fresh_outputs[0] is False
    got[0][:] = 7.0
    assert np.array_equal(x, np.arange(LARGE, dtype=np.float64) / LARGE)
    assert not np.shares_memory(got[0], x)


def test_errstate_is_read_again_whenever_numpy_changes_it():
    def f(x):
        return np.exp(x) * 2.0
    rec = Recorder()
    compiled = md.compile(f, backend=rec)
    x = np.array([-1.0])
    compiled(x)
    with np.errstate(under="warn"):
        compiled(x)
        assert rec.fallbacks == 1
    compiled(x)
    old = np.seterr(under="warn")
    try:
        compiled(x)
    finally:
        np.seterr(**old)
    compiled(x)
    assert rec.fallbacks == 2


def test_errstate_of_another_thread_is_its_own():
    seen = []

    def in_thread():
        with np.errstate(under="raise"):
            seen.append(runner.underflow_ignored())
    assert runner.underflow_ignored()
    t = threading.Thread(target=in_thread)
    t.start()
    t.join()
    assert seen == [False] and runner.underflow_ignored()


def test_a_large_result_is_checked_on_the_numpy_side():
    def f(x):
        return np.exp(x) * 2.0
    rec = Recorder()
    compiled = md.compile(f, backend=rec)
    x = np.linspace(0, 1, LARGE)
    assert_close(compiled(x), f(x))
    assert traced_piece(rec).host_checked == [0] and rec.fallbacks == 0
    y = x.copy()
    y[-1] = 1000.0                          # exp overflows in the last element: NumPy warns
    with np.errstate(over="raise"):
        import pytest
        with pytest.raises(FloatingPointError):
            compiled(y)
    assert rec.fallbacks == 1


def test_a_large_result_inside_a_loop_body_is_checked_inside():
    def grow(v):
        while v.sum() < 1e6:
            v = np.exp(v) + 1.0
        return v * 1.0
    rec = Recorder()
    compiled = md.compile(grow, backend=rec)
    compiled(np.full(LARGE, 0.5))
    with np.errstate(over="raise"):
        import pytest
        v = np.full(LARGE, 0.5)
        v[3] = 800.0                        # the first iteration overflows inside the body
        with pytest.raises(FloatingPointError):
            grow(v.copy())
        with pytest.raises(FloatingPointError):
            compiled(v)


# ---- calls proved free of nan/inf by their inputs' magnitudes (bounds.py) ----------------------------------

def warnings_of(fn, *args):
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(*args)
    return result, sorted(str(w.message) for w in caught)


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def gelu(x):
    return 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


def test_a_proved_call_skips_the_finite_checks_and_an_unproved_one_keeps_numpys_warnings(monkeypatch):
    import pytest
    monkeypatch.setattr(choice, "TRIALS", 0)
    rec = Recorder()
    compiled = md.compile(softmax, backend=rec)
    x = np.random.default_rng(0).standard_normal((64, 256)).astype(np.float32)
    assert_close(compiled(x), softmax(x))
    assert rec.runs[0].proved[0] == 1 and rec.fallbacks == 0
    wide = x.copy()
    wide[5, :2] = [-3e38, 3e38]             # x - max overflows in row 5: NumPy warns, the result stays finite
    got, seen = warnings_of(compiled, wide)
    expected, expected_seen = warnings_of(softmax, wide)
    assert np.array_equal(got, expected) and seen == expected_seen and "overflow encountered in subtract" in seen
    with np.errstate(over="raise"), pytest.raises(FloatingPointError):
        compiled(wide)
    nan = x.copy()
    nan[1, 3] = np.nan                      # a nan that comes in: NumPy's nan row, no warning
    got, seen = warnings_of(compiled, nan)
    expected, expected_seen = warnings_of(softmax, nan)
    assert np.array_equal(got, expected, equal_nan=True) and seen == expected_seen
    assert rec.runs[0].proved[0] == 1
    assert_close(compiled(x), softmax(x))   # in bounds again: proved again
    assert rec.runs[0].proved[0] == 2


def test_an_overflow_only_an_intermediate_sees_still_warns(monkeypatch):
    monkeypatch.setattr(choice, "TRIALS", 0)
    rec = Recorder()
    compiled = md.compile(gelu, backend=rec)
    x = np.linspace(-3, 3, LARGE).astype(np.float32)
    assert_close(compiled(x), gelu(x))
    x[7] = 1e13                             # x ** 3 overflows; tanh turns the inf into 1, the result is finite
    got, seen = warnings_of(compiled, x)
    expected, expected_seen = warnings_of(gelu, x)
    assert np.isfinite(expected).all() and expected_seen and seen == expected_seen
    assert np.array_equal(got, expected) and rec.runs[0].proved[0] == 1 and rec.fallbacks == 1


def test_a_negative_infinity_in_a_large_result_is_seen():
    def f(x):
        return np.log(x) * 2.0              # no proof (log of a value that may be 0): the result is checked
    rec = Recorder()
    compiled = md.compile(f, backend=rec)
    x = np.linspace(1, 2, LARGE)
    assert_close(compiled(x), f(x))
    x[4] = 0.0                              # log(0) = -inf: NumPy warns divide by zero
    got, seen = warnings_of(compiled, x)
    expected, expected_seen = warnings_of(f, x)
    assert seen == expected_seen == ["divide by zero encountered in log"] and np.array_equal(got, expected)
    assert rec.runs[0].proved[0] == 0 and rec.fallbacks == 1


# ---- every exact variant choice.py may keep (runner._variants) gives NumPy's results, warnings and errors ----

STAGED_ROWS = staging.STAGE_BYTES // (4 * 256) + 8      # float32 [rows, 256]: inputs the staged variants refill
VARIANTS = [choice.Variant(m, s) for s in (True, False) for m in choice.Magnitudes
            if s or m is not choice.Magnitudes.BEFORE]


def settled_on(rec: Recorder, variant: choice.Variant) -> None:
    pick = rec.runs[0].choice
    assert variant in pick.variants
    pick.settle(variant)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v.magnitudes.name}-{'staged' if v.staged else 'plain'}")
def test_each_variant_keeps_numpys_results_warnings_and_errors(variant, monkeypatch):
    monkeypatch.setattr(choice, "PERIOD", 0)    # no duels: this variant runs every call
    rec = Recorder()
    compiled = md.compile(gelu, backend=rec)
    x = np.linspace(-3, 3, STAGED_ROWS * 256).astype(np.float32)
    assert_close(compiled(x), gelu(x))
    settled_on(rec, variant)
    fallbacks, proved = rec.fallbacks, rec.runs[0].proved[0]
    for seed in range(2):                       # the inputs change between calls
        y = (x + seed).astype(np.float32)
        assert_close(compiled(y), gelu(y))
    wide = x.copy()
    wide[11] = 1e13                             # x ** 3 overflows; tanh turns the inf into 1
    got, seen = warnings_of(compiled, wide)
    expected, expected_seen = warnings_of(gelu, wide)
    assert expected_seen and seen == expected_seen and np.array_equal(got, expected)
    with np.errstate(all="raise"), pytest.raises(FloatingPointError):
        compiled(wide)
    nan = x.copy()
    nan[3] = np.nan
    got, seen = warnings_of(compiled, nan)
    expected, expected_seen = warnings_of(gelu, nan)
    assert np.array_equal(got, expected, equal_nan=True) and seen == expected_seen
    assert_close(compiled(x), gelu(x))          # in bounds again (a speculating variant reads first once)
    assert_close(compiled(x), gelu(x))
    proofs = 4 if variant.magnitudes is not choice.Magnitudes.UNREAD else 0
    assert rec.runs[0].proved[0] - proved == proofs and rec.fallbacks - fallbacks == 3
    assert rec.runs[0].choice.kept == variant


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v.magnitudes.name}-{'staged' if v.staged else 'plain'}")
def test_each_variant_reads_each_calls_inputs_and_leaves_them_alone(variant, monkeypatch):
    monkeypatch.setattr(choice, "PERIOD", 0)

    def mix(x, y):
        return np.tanh(x) * y + np.exp(y - y.max(axis=1, keepdims=True))
    rec = Recorder()
    compiled = md.compile(mix, backend=rec)
    x = np.random.default_rng(0).standard_normal((STAGED_ROWS, 256)).astype(np.float32)
    for seed in range(4):
        y = np.random.default_rng(seed + 5).standard_normal((STAGED_ROWS, 256)).astype(np.float32) * (seed + 1)
        ex, ey = x.copy(), y.copy()
        got = compiled(x, y)
        assert_close(got, mix(ex, ey)) and np.array_equal(x, ex) and np.array_equal(y, ey)
        assert got.flags.writeable and not np.shares_memory(got, x) and not np.shares_memory(got, y)
        if seed == 0:
            settled_on(rec, variant)
        x = x[::-1].copy() if seed % 2 else x       # a new x every other call
    assert rec.fallbacks == 0 and rec.runs[0].stager.large == [0, 1]
    assert rec.runs[0].proved[0] == (4 if variant.magnitudes is not choice.Magnitudes.UNREAD else 1)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"{v.magnitudes.name}-{'staged' if v.staged else 'plain'}")
def test_a_graph_that_checks_intermediates_keeps_numpys_warnings_in_each_variant(variant, monkeypatch):
    monkeypatch.setattr(choice, "PERIOD", 0)
    rec = Recorder()
    compiled = md.compile(softmax, backend=rec)      # the row sums it divides by are checked inside XLA
    x = np.random.default_rng(0).standard_normal((STAGED_ROWS, 256)).astype(np.float32)
    assert_close(compiled(x), softmax(x))
    assert traced_piece(rec).sinks
    settled_on(rec, variant)
    wide = x.copy()
    wide[5, :2] = [-3e38, 3e38]                 # x - max overflows in row 5: NumPy warns
    nan = x.copy()
    nan[1, 3] = np.nan
    for arg in (x, wide, nan, x):
        got, seen = warnings_of(compiled, arg)
        expected, expected_seen = warnings_of(softmax, arg)
        assert seen == expected_seen
        if arg is x:
            assert_close(got, expected)
        else:                                   # NumPy ran: its very results
            assert np.array_equal(got, expected, equal_nan=True)
    assert rec.fallbacks == 2


def test_the_numpy_variant_is_numpys_own_call(monkeypatch):
    """choice.ON_NUMPY, kept where XLA loses: the graph's NumPy code, so results, warnings and errors are
    NumPy's bit for bit, and nothing runs on XLA or is proved."""
    monkeypatch.setattr(runner, "NUMPY_VARIANT", True)
    monkeypatch.setattr(choice, "PERIOD", 0)
    rec = Recorder()
    compiled = md.compile(gelu, backend=rec)
    x = np.linspace(-3, 3, 4096).astype(np.float32)
    assert_close(compiled(x), gelu(x))
    assert list(rec.runs[0].choice.variants)[-1] == choice.ON_NUMPY
    settled_on(rec, choice.ON_NUMPY)
    fallbacks, proved = rec.fallbacks, rec.runs[0].proved[0]
    assert np.array_equal(compiled(x), gelu(x)) and np.array_equal(compiled(x + 1), gelu(x + 1))
    wide = x.copy()
    wide[11] = 1e13                             # x ** 3 overflows: NumPy's warning, from NumPy itself
    got, seen = warnings_of(compiled, wide)
    expected, expected_seen = warnings_of(gelu, wide)
    assert expected_seen and seen == expected_seen and np.array_equal(got, expected)
    with np.errstate(all="raise"), pytest.raises(FloatingPointError):
        compiled(wide)
    # (under errstate(all='raise') underflow is not ignored: NumPy runs before any variant is asked)
    assert rec.runs[0].on_numpy[0] == 3 and rec.runs[0].proved[0] == proved and rec.fallbacks == fallbacks + 1


def test_a_graph_xla_runs_slower_settles_on_numpy(monkeypatch):
    """The choice times ON_NUMPY as every other variant (a fake clock makes XLA's calls slow)."""
    monkeypatch.setattr(runner, "NUMPY_VARIANT", True)
    monkeypatch.setattr(choice, "PERIOD", 0)
    monkeypatch.setattr(choice, "TRIALS", 2)
    now = [0.0]
    monkeypatch.setattr(choice.time, "perf_counter", lambda: now[0])
    rec = Recorder()
    compiled = md.compile(lambda x: np.tanh(x) + 1.0, backend=rec)
    x = np.linspace(0, 1, 8)
    compiled(x)
    pick = rec.runs[0].choice
    for v, run in list(pick.variants.items()):
        def timed(inputs, run=run, cost=1.0 if v == choice.ON_NUMPY else 9.0):
            now[0] += cost
            return run(inputs)
        pick.variants[v] = timed
    while pick.kept is None:
        assert_close(compiled(x), np.tanh(x) + 1.0)
    assert pick.kept == choice.ON_NUMPY and np.array_equal(compiled(x), np.tanh(x) + 1.0)


@pytest.mark.parametrize("staged", [True, False], ids=["staged", "plain"])
def test_a_graph_without_a_proof_chooses_between_staged_and_plain_checked_calls(staged, monkeypatch):
    monkeypatch.setattr(choice, "PERIOD", 0)

    def scale(x, y):
        x *= 0.5                                # an in-place write: no interval rule, the checks stay
        return np.log(x) + y
    rec = Recorder()
    compiled = md.compile(scale, backend=rec)
    for seed in range(3):
        x = np.random.default_rng(seed).uniform(1, 2, (STAGED_ROWS, 256)).astype(np.float32)
        y = np.random.default_rng(seed + 5).standard_normal((STAGED_ROWS, 256)).astype(np.float32)
        ex, ey = x.copy(), y.copy()
        assert_close(compiled(x, y), scale(ex, ey)) and assert_close(x, ex) and np.array_equal(y, ey)
        if seed == 0:
            assert set(rec.runs[0].choice.variants) == {choice.Variant(choice.Magnitudes.UNREAD, s) for s in (True, False)}
            settled_on(rec, choice.Variant(choice.Magnitudes.UNREAD, staged))
    x[7, 3] = 0.0                               # log(0): NumPy warns, and x is still halved once
    ex = x.copy()
    got, seen = warnings_of(compiled, x, y)
    expected, expected_seen = warnings_of(scale, ex, y.copy())
    assert expected_seen and seen == expected_seen and np.array_equal(got, expected) and np.array_equal(x, ex)
    assert rec.fallbacks == 1 and rec.runs[0].stager.large == [0, 1]
