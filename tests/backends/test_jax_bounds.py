"""jax_lowering/bounds.py: proofs from the inputs' magnitudes that a graph creates no nan/inf (pure graph
analysis, no JAX). A proof lets the engine drop NumPy's finite checks, so each test here is about soundness:
whenever a proof holds, NumPy itself must run the function warning-free on any data within the bound, at the
extremes too; and the proof must fail where NumPy would warn.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minidynamo as md
from minidynamo.backends.jax_lowering.bounds import Proof, magnitude_exponent


def proof_of(fn, *args):
    return Proof(md.explain(fn)(*args).graphs[0])


def gelu(x):
    return 0.5 * x * (1 + np.tanh(0.7978845608 * (x + 0.044715 * x ** 3)))


def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def softmax_wrong_axis(x):      # shifted by the column maxima, normalized along rows: no peak per row
    e = np.exp(x - x.max(axis=0, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def layernorm(x, g, b):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + 1e-5) * g + b


def chain(x):
    y = np.sin(x * 1.5 + 0.5)
    y = np.exp(y * y - 0.25) / 3.0
    return np.tanh(np.sqrt(y) + x)


def mlp(x, w1, w2):
    return np.maximum(x @ w1, 0.0) @ w2


def rational(x):
    return np.log(x * x + 1.0) / (x * x + 2.0) + np.abs(x) ** 0.5 - np.where(x > 0, x, -x)


def f32(*shape):
    return np.random.default_rng(0).standard_normal(shape).astype(np.float32)


CASES = [(gelu, (f32(64),)), (softmax, (f32(4, 16),)), (softmax_wrong_axis, (f32(4, 16),)),
         (layernorm, (f32(4, 16), f32(16), f32(16))), (chain, (f32(64),)), (mlp, (f32(4, 8), f32(8, 8), f32(8, 3))),
         (rational, (np.linspace(-2, 2, 9),))]


def adversarial(args, e, rng):
    """Inputs with every magnitude below 2**e, the extremes included: +-the largest value, 0, spread values."""
    out = []
    for a in args:
        top = np.nextafter(a.dtype.type(2.0 ** e), a.dtype.type(0))
        v = rng.uniform(-1, 1, a.shape) * float(top)
        flat = v.reshape(-1)
        flat[::3], flat[1::5], flat[2::7] = top, -top, 0.0
        out.append(v.astype(a.dtype))
    return out


@pytest.mark.parametrize("fn,args", CASES, ids=[c[0].__name__ for c in CASES])
def test_a_proof_means_numpy_warns_nothing_at_the_bound(fn, args):
    proof = proof_of(fn, *args)
    assert proof.reason is None
    rng = np.random.default_rng(1)
    proved = 0
    for e in range(-30, 130, 3):
        if not proof.proves((e,) * len(proof.runtime)):
            continue
        proved += 1
        for _ in range(3):
            with np.errstate(all="raise", under="ignore"):
                fn(*adversarial(args, e, rng))
    assert proved


def test_gelu_is_proved_until_the_cube_can_overflow():
    proof = proof_of(gelu, f32(64))
    assert proof.proves((30,)) and not proof.proves((50,))
    x = np.full(4, 2.0 ** 44, np.float32)
    with pytest.raises(FloatingPointError), np.errstate(over="raise"):
        gelu(x)


def test_softmax_is_proved_at_any_finite_magnitude_a_subtraction_cannot_overflow():
    proof = proof_of(softmax, f32(4, 16))
    assert proof.proves((10,)) and proof.proves((125,)) and not proof.proves((127,))
    wrong = proof_of(softmax_wrong_axis, f32(4, 16))
    assert wrong.proves((2,)) and not wrong.proves((10,))    # its row sums may underflow to 0
    x = np.zeros((1, 4), np.float32)
    x[0, :2] = [-3e38, 3e38]                                 # x - max overflows although the result is finite
    with pytest.raises(FloatingPointError), np.errstate(over="raise"):
        softmax(x)


def test_domains_and_divisors_that_may_reach_zero_are_not_proved():
    assert not proof_of(lambda x: np.log(x), np.ones(3)).proves((0,))
    assert not proof_of(lambda x: np.sqrt(x - 1.0), np.ones(3)).proves((0,))
    assert not proof_of(lambda x: 1.0 / (x - 1.0), np.full(3, 0.5)).proves((1,))      # |x| < 2: x - 1 may be 0
    assert proof_of(lambda x: 1.0 / (x - 1.0), np.full(3, 0.5)).proves((-1,))
    assert not proof_of(lambda x: np.exp(x), np.ones(3)).proves((10,))
    assert not proof_of(lambda x: x.astype(np.float32), np.ones(3)).proves((200,))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")         # NumPy warns for the mean of an empty slice
        assert not proof_of(lambda x: x.mean(axis=1) * 2.0, np.ones((3, 0))).proves((0,))
    assert proof_of(lambda x: x.sum(axis=1) * 2.0, np.ones((3, 0))).proves((0,))


def test_ops_without_a_rule_and_other_dtypes_are_not_proved():
    assert "cumsum" in proof_of(lambda x: np.cumsum(x) * 2.0, np.ones(3)).reason
    assert proof_of(lambda x: x * 2.0, np.ones(3, np.float16)).reason is not None
    assert proof_of(lambda x: np.sum(x, dtype=np.float64) * 2.0, np.ones(3)).proves((0,)) is False


def test_magnitude_exponent_bounds_every_element_and_sees_nan_and_inf():
    assert magnitude_exponent(np.array([3.0, -1.0])) == 2            # 3 < 2**2
    assert magnitude_exponent(np.array([1.0, -4.0], np.float32)) == 3
    assert magnitude_exponent(np.zeros((0, 3))) == 0
    assert magnitude_exponent(np.float64(-0.5)) == 0
    for bad in (np.nan, np.inf, -np.inf):
        assert magnitude_exponent(np.array([1.0, bad, 2.0])) is None
