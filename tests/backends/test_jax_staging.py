"""jax_lowering/staging.py: large inputs reach XLA through aligned buffers each graph keeps (JAX takes them
without a copy), refilled on every call. Differential: results within tolerance after the inputs change,
NumPy's warnings and FloatingPointError when the magnitudes prove nothing at run time (the checked variant
or NumPy runs), in-place writes into the caller's arrays; and a call never refills buffers XLA still reads."""

from __future__ import annotations

import threading
import time
import warnings

import numpy as np
import pytest

from tests.backends.jax_support import Recorder, assert_close, jax, md
from minidynamo.backends.jax_lowering import choice, staging   # noqa: E402  (after the skip without JAX)

ROWS = staging.STAGE_BYTES // (4 * 256) + 8        # float32 [ROWS, 256]: above the staging threshold
BIG = staging.THREAD_BYTES // (4 * 256) + 8         # float32 [BIG, 256]: the helper reads the magnitudes
SIZES = pytest.mark.parametrize("rows", [ROWS, BIG], ids=["magnitudes-first", "helper"])


@pytest.fixture(autouse=True)
def always_proved(monkeypatch):
    monkeypatch.setattr(choice, "TRIALS", 0)        # every call that can be proved takes that variant


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def gelu(x):
    return 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


def f32(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def caught(fn, *args):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = fn(*args)
    return result, sorted(str(w.message) for w in seen)


def stager_of(rec):
    return rec.runs[0].stager


def test_an_aligned_buffer_is_taken_by_jax_without_a_copy():
    x = f32(ROWS, 256)
    buffer, array = staging.aliased(x)
    assert buffer.ctypes.data % staging.ALIGN == 0 and buffer.flags.c_contiguous
    assert array.unsafe_buffer_pointer() == buffer.ctypes.data and array.dtype == np.float32
    buffer[...] = x
    assert np.array_equal(np.asarray(jax.jit(lambda v: v * 2)(array)), x * 2)
    assert staging.aliased(np.ones(ROWS * 64)) is None     # float64 outside jax.enable_x64: JAX converts


@SIZES
def test_the_buffers_are_refilled_on_every_call_and_the_callers_arrays_are_untouched(rows):
    rec = Recorder()
    compiled = md.compile(softmax, backend=rec)
    for seed in range(3):
        x = f32(rows, 256, seed=seed)
        before = x.copy()
        got, seen = caught(compiled, x)
        assert_close(got, softmax(before)) and seen == []
        assert np.array_equal(x, before) and not np.shares_memory(got, x)
    stager = stager_of(rec)
    assert stager.large == [0] and stager.staged[0] is not None
    assert rec.runs[0].proved[0] == 3 and rec.fallbacks == 0


def test_a_proved_layernorm_on_large_inputs_matches_numpy():
    def layernorm(x, g, b):
        mu = x.mean(axis=1, keepdims=True)
        var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
        return (x - mu) / np.sqrt(var + 1e-5) * g + b
    rec = Recorder()
    compiled = md.compile(layernorm, backend=rec)
    args = (f32(ROWS, 256), f32(256, seed=1), f32(256, seed=2))
    for _ in range(2):
        assert_close(compiled(*args), layernorm(*args))
    assert rec.runs[0].proved[0] == 2 and rec.fallbacks == 0


def test_float64_inputs_are_staged_as_float64():
    rec = Recorder()
    compiled = md.compile(gelu, backend=rec)
    x = np.random.default_rng(0).standard_normal(staging.STAGE_BYTES // 8 + 5)
    got = compiled(x)
    assert got.dtype == np.float64 and rec.runs[0].proved[0] == 1 and stager_of(rec).staged[0] is not None
    np.testing.assert_allclose(got, gelu(x), rtol=1e-12, atol=1e-12)


def test_a_non_contiguous_input_is_copied_with_its_values():
    rec = Recorder()
    compiled = md.compile(softmax, backend=rec)
    x = f32(256, ROWS).T                     # a transposed view
    assert_close(compiled(x), softmax(x))
    assert rec.runs[0].proved[0] == 1


@SIZES
def test_when_the_magnitudes_prove_nothing_the_call_keeps_numpys_warnings_and_errors(rows):
    rec = Recorder()
    compiled = md.compile(gelu, backend=rec)
    x = np.linspace(-3, 3, rows * 256).astype(np.float32)
    assert_close(compiled(x), gelu(x))
    wide = x.copy()
    wide[11] = 1e13                          # x ** 3 overflows; tanh turns the inf into 1: the result is finite
    got, seen = caught(compiled, wide)
    expected, expected_seen = caught(gelu, wide)
    assert expected_seen and seen == expected_seen and np.array_equal(got, expected)
    with np.errstate(all="raise"), pytest.raises(FloatingPointError):
        compiled(wide)
    assert rec.runs[0].proved[0] == 1 and rec.fallbacks == 2
    assert_close(compiled(x), gelu(x))       # in bounds again: proved again
    assert rec.runs[0].proved[0] == 2


@SIZES
def test_a_nan_that_comes_in_gives_numpys_result_without_a_warning(rows):
    rec = Recorder()
    compiled = md.compile(softmax, backend=rec)
    x = f32(rows, 256)
    x[3, 5] = np.nan
    got, seen = caught(compiled, x)
    expected, expected_seen = caught(softmax, x)
    assert seen == expected_seen == [] and np.isnan(expected[3]).all()
    assert np.array_equal(got, expected, equal_nan=True)     # the checks saw the nan row: NumPy ran
    assert rec.runs[0].proved[0] == 0 and rec.fallbacks == 1


def test_in_place_writes_reach_the_callers_array_not_the_buffer():
    def scale(x, y):
        x *= 0.5
        return np.tanh(x) + y
    rec = Recorder()
    compiled = md.compile(scale, backend=rec)
    for seed in range(2):
        x, y = f32(ROWS, 256, seed=seed), f32(ROWS, 256, seed=seed + 5)
        ex, ey = x.copy(), y.copy()
        expected = scale(ex, ey)
        got = compiled(x, y)
        assert_close(got, expected) and assert_close(x, ex)
    assert stager_of(rec).large == [0, 1] and rec.fallbacks == 0


def test_a_call_never_refills_buffers_another_call_is_using():
    stager = staging.Stager([0])
    x, other = f32(ROWS, 256), f32(ROWS, 256, seed=1)
    inside, release, seen = threading.Event(), threading.Event(), []

    def slow(args, inputs, proved):         # holds the buffers, as a call does until XLA is done
        inside.set()
        release.wait(30)
        return np.asarray(args[0]).copy()

    def fast(args, inputs, proved):
        seen.append(args[0] is inputs[0])   # the other call's inputs went to JAX as they are
        return None
    first = threading.Thread(target=lambda: seen.append(stager.run((x,), slow)))
    first.start()
    inside.wait(30)
    stager.run((other,), fast)
    release.set()
    first.join()
    assert seen[0] is True and np.array_equal(seen[1], x)
    assert stager.run((other,), lambda args, inputs, proved: np.asarray(args[0]).copy()).tolist() == other.tolist()


def test_the_calling_thread_never_waits_for_a_busy_helper():
    release = threading.Event()
    blocker = staging._helper().submit(release.wait, 30)     # the helper is busy until released
    try:
        rec = Recorder()
        compiled = md.compile(softmax, backend=rec)
        x = f32(BIG, 256)
        for _ in range(2):
            assert_close(compiled(x), softmax(x))
        assert rec.runs[0].proved[0] == 2 and not blocker.done()
        wide = x.copy()
        wide[5, :2] = [-3e38, 3e38]         # x - max overflows in row 5: NumPy warns
        got, seen = caught(compiled, wide)
        expected, expected_seen = caught(softmax, wide)
        assert seen == expected_seen and "overflow encountered in subtract" in seen
        assert np.array_equal(got, expected) and not blocker.done()
    finally:
        release.set()
    blocker.result()


def test_the_helpers_answer_is_used_when_it_has_one(monkeypatch):
    asked = []

    def holds(inputs):
        asked.append(threading.current_thread().name)
        return True
    copyto = np.copyto

    def slow_copy(*args):                   # a copy slow enough for the helper to have answered by its end
        time.sleep(0.2)
        copyto(*args)
    monkeypatch.setattr(np, "copyto", slow_copy)
    x = f32(BIG, 256)
    got = staging.Stager([0]).run((x,), lambda args, inputs, proved: (proved, np.asarray(args[0]).copy()), holds)
    assert got[0] is True and np.array_equal(got[1], x)
    assert len(asked) == 1 and asked[0].startswith("minidynamo-jax-magnitudes")


def test_an_input_jax_would_copy_is_passed_to_it_as_it_is(monkeypatch):
    def refuse(*args, **kwargs):
        raise TypeError("no such device")
    monkeypatch.setattr(staging.jax, "device_put", refuse)
    assert staging.aliased(f32(ROWS, 256)) is None
    monkeypatch.undo()
    monkeypatch.setattr(choice, "TRIALS", 0)
    monkeypatch.setattr(staging, "aliased", lambda like: None)
    rec = Recorder()
    compiled = md.compile(softmax, backend=rec)
    x = f32(ROWS, 256)
    for _ in range(2):
        assert_close(compiled(x), softmax(x))
        assert stager_of(rec).staged == {0: None}     # tried once, then JAX copies it, as without staging
    assert rec.runs[0].proved[0] == 2
