"""float32 sine and cosine as polynomials XLA vectorizes, for arguments a bounds.Proof keeps small.

Imports jax. XLA's CPU `sin`/`cos` on float32 cost about 15 ns per element (NumPy's SIMD loops about 1.3), so
a graph calling them ran slower than NumPy even as hand-written jax.jit. For |x| <= TRIG_LIMIT these give
NumPy's results within a few ulp (tests/backends/test_jax_trig.py compares them with np.sin/np.cos on every
float32 of a range and on the values closest to multiples of pi/2), at the speed of XLA's exp:

* Cody-Waite reduction: k = round(x * 2/pi), r = x - k*pi/2 with pi/2 split in four float32 parts, the first
  three short enough that k * part is exact for |k| <= 2**12 (so |r|'s error stays far below its ulp even
  where x is closest to a multiple of pi/2);
* Taylor polynomials of sin and cos on |r| <= pi/4 (degree 9 and 10: truncation below 2**-28 relative);
* the quadrant k mod 4 picks +-sin(r) or +-cos(r); sin(+-0) keeps its sign.

Only the proved variant of a graph uses them (engine.Piece(finite_checks=False) sets `Trace.bounded_trig`):
its proof (bounds.py) also requires every float32 sin/cos argument to be within TRIG_LIMIT, so a call with a
larger one runs the checked variant, which keeps XLA's own sin/cos.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import jax.numpy as jnp

from .bounds import TRIG_LIMIT

_F = np.float32
_TWO_OVER_PI = _F(2 / np.pi)
# pi/2 = _C1 + _C2 + _C3 + _C4 (+ about 1e-19): _C1.._C3 hold at most 12 significant bits each
_C1, _C2, _C3, _C4 = _F(1.5703125), _F(0.0004837512969970703), _F(7.549533620476723e-08), _F(2.563344151594519e-12)
_SIN = tuple(_F(c) for c in (-1 / 6, 1 / 120, -1 / 5040, 1 / 362880))
_COS = tuple(_F(c) for c in (-1 / 2, 1 / 24, -1 / 720, 1 / 40320, -1 / 3628800))
assert TRIG_LIMIT * 2 / np.pi < 2 ** 12


def _horner(r2: Any, coefficients: tuple) -> Any:
    acc = coefficients[-1]
    for c in coefficients[-2::-1]:
        acc = c + r2 * acc
    return acc


def _reduced(x: Any) -> tuple[Any, Any, Any]:
    """(sin r, cos r, k mod 4) with x = k*pi/2 + r, |r| <= pi/4 (a little more where x*2/pi rounds)."""
    k = jnp.round(x * _TWO_OVER_PI)
    r = (((x - k * _C1) - k * _C2) - k * _C3) - k * _C4
    r2 = r * r
    s = r + r * r2 * _horner(r2, _SIN)
    c = _F(1) + r2 * _horner(r2, _COS)
    return s, c, k.astype(jnp.int32) & 3


def sin_f32(x: Any) -> Any:
    s, c, q = _reduced(x)
    v = jnp.where(q & 1, c, s)
    v = jnp.where(q & 2, -v, v)
    return jnp.where(x == 0, x, v)      # sin(-0.0) is -0.0


def cos_f32(x: Any) -> Any:
    s, c, q = _reduced(x)
    v = jnp.where(q & 1, -s, c)
    return jnp.where(q & 2, -v, v)


FAST = {"sin": sin_f32, "cos": cos_f32}
