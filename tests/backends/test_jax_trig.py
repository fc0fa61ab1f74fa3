"""jax_lowering/trig.py: the float32 sin/cos polynomials of the proved variant, against NumPy's np.sin/np.cos.

Checked once offline on every float32 with |x| <= TRIG_LIMIT (about 2.2e9 values): at most 1.41e-7
relative to NumPy's result (1-2 ulp), signed zeros equal. Here: the values closest to each multiple of pi/2
in range (where the reduction cancels most), their neighbours, a random sample, tiny and subnormal values,
and the backend's use of them: only calls the proof keeps within the limit take the polynomials.
"""

from __future__ import annotations

import numpy as np

from minidynamo.backends.jax_lowering import bounds, choice
from tests.backends.jax_support import Recorder, assert_close, jax, md

from minidynamo.backends.jax_lowering import trig      # noqa: E402  (after the skip without JAX)

ULP_RTOL = 2.5e-7       # about 2 ulp of float32: the offline exhaustive maximum is 1.41e-7


def hard_cases() -> np.ndarray:
    """Float32 values nearest to k*pi/2 for every k in range, each with its two neighbours on each side."""
    k = np.arange(-int(bounds.TRIG_LIMIT * 2 / np.pi), int(bounds.TRIG_LIMIT * 2 / np.pi) + 1)
    near = (k * (np.pi / 2)).astype(np.float32)
    up, down = near, near
    out = [near]
    for _ in range(2):
        up, down = np.nextafter(up, np.float32(np.inf)), np.nextafter(down, np.float32(-np.inf))
        out += [up, down]
    x = np.concatenate(out)
    return x[np.abs(x) <= bounds.TRIG_LIMIT]


def samples() -> np.ndarray:
    rng = np.random.default_rng(7)
    tiny = np.array([0.0, -0.0, 1e-45, -1e-45, 1e-38, 3e-8, -2.5e-5, np.pi / 4, -np.pi / 4], np.float32)
    return np.concatenate([hard_cases(), rng.uniform(-bounds.TRIG_LIMIT, bounds.TRIG_LIMIT, 200_000)
                           .astype(np.float32), rng.standard_normal(50_000).astype(np.float32), tiny,
                           np.float32([bounds.TRIG_LIMIT, -bounds.TRIG_LIMIT])])


def test_sin_and_cos_match_numpy_within_two_ulp_where_the_reduction_cancels_most():
    x = samples()
    for fast, ref in ((trig.sin_f32, np.sin), (trig.cos_f32, np.cos)):
        got, want = np.asarray(jax.jit(fast)(x)), ref(x)
        assert got.dtype == np.float32
        np.testing.assert_allclose(got, want, rtol=ULP_RTOL, atol=0)
        zeros = want == 0
        assert np.array_equal(np.signbit(got[zeros]), np.signbit(want[zeros]))


def chain(x):
    y = np.sin(x * 1.5 + 0.5)
    return np.sqrt(np.exp(y * y - 0.25) / 3.0) + np.cos(x)


def test_a_proved_call_uses_the_polynomials_and_keeps_numpys_results(monkeypatch):
    monkeypatch.setattr(choice, "TRIALS", 0)
    rec = Recorder()
    compiled = md.compile(chain, backend=rec)
    x = np.random.default_rng(0).uniform(-100, 100, 1 << 15).astype(np.float32)
    got = compiled(x)
    assert rec.runs[0].proved[0] == 1 and rec.fallbacks == 0
    np.testing.assert_allclose(got, chain(x), rtol=1e-5, atol=1e-5 * np.abs(chain(x)).max())
    from minidynamo.backends.jax_lowering import engine
    graph = rec.plans[0].pieces[0].graph
    unchecked, checked = (str(engine._JITTED[engine._key(graph) + extra][0].trace(x).jaxpr)
                          for extra in (("unchecked",), ()))
    assert " sin " not in unchecked and " cos " not in unchecked and "round" in unchecked
    assert " sin " in checked and " cos " in checked


def test_an_argument_beyond_the_limit_runs_xlas_own_sin(monkeypatch):
    monkeypatch.setattr(choice, "TRIALS", 0)
    rec = Recorder()
    compiled = md.compile(chain, backend=rec)
    x = np.random.default_rng(1).uniform(-100, 100, 1 << 15).astype(np.float32)
    x[17] = 3e4                             # sin's argument exceeds TRIG_LIMIT: not proved, checked variant
    got = compiled(x)
    assert rec.runs[0].proved[0] == 0
    assert_close(got, chain(x))
    x[17] = 1.0
    assert_close(compiled(x), chain(x))
    assert rec.runs[0].proved[0] == 1


def test_the_proof_bounds_float32_trig_arguments_only():
    def proof(fn, arg):
        return bounds.Proof(md.explain(fn)(arg).graphs[0])
    assert proof(np.sin, np.ones(4, np.float32)).proves((12,))          # |x| < 4096
    assert not proof(np.sin, np.ones(4, np.float32)).proves((13,))
    assert not proof(np.cos, np.ones(4, np.float32)).proves((13,))
    assert proof(np.sin, np.ones(4)).proves((40,))                      # float64 keeps XLA's sin
