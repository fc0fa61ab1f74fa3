"""Every element-wise NumPy ufunc of one or two operands through the fast path, dtype by dtype, against
eager bit for bit (fast_path_support.check_fast): as one long flat row split into blocks of 64 elements and
an odd tail, over rows that broadcast a vector (a step that is not flat), and over a strided input; values
that tell SIMD lanes from tails apart (NaN payloads and signs, signed zeros, infinities)."""

from __future__ import annotations

import numpy as np
import pytest

from .fast_path_support import check_fast, compile_fast, tricky

DTYPES = ["float16", "float32", "float64", "complex64", "complex128", "int8", "int64", "uint8", "bool"]
UFUNCS = sorted((u for u in vars(np).values() if isinstance(u, np.ufunc) and u.nout == 1 and u.nin in (1, 2)
                 and u.signature is None), key=lambda u: u.__name__)


def _applies(uf: np.ufunc, dtype: str) -> bool:
    try:
        resolved = uf.resolve_dtypes((np.dtype(dtype),) * uf.nin + (None,))
    except Exception:   # noqa: BLE001 -- no loop for this dtype
        return False
    return resolved[-1].kind in "biufc"


CASES = [(u, d) for u in UFUNCS for d in DTYPES if _applies(u, d)]


def _layouts(dtype: str, nin: int):
    flat = [tricky(dtype, (64 * 20 + 37,), i) for i in range(nin)]
    rows = [tricky(dtype, (300, 128), 1)] + [tricky(dtype, (128,), 2 + i) for i in range(nin - 1)]
    wide = tricky(dtype, (200, 256), 3)
    strided = [wide[:, ::2]] + [tricky(dtype, (200, 128), 4 + i) for i in range(nin - 1)]
    return {"flat": flat, "rows": rows, "strided": strided}


@pytest.mark.parametrize("uf,dtype", CASES, ids=[f"{u.__name__}-{d}" for u, d in CASES])
def test_ufunc_is_bit_identical(uf, dtype):
    def f(*args):
        return uf(*args)

    if dtype == "bool" and uf in (np.negative, np.subtract):
        pytest.skip("NumPy refuses it for bool")
    ran = 0
    for name, args in _layouts(dtype, uf.nin).items():
        rec = check_fast(f, *args, expect=None)
        ran += rec.stats().get("fast", 0) + sum(v for k, v in rec.stats().items() if k.startswith("error"))
    assert ran, f"{uf.__name__} on {dtype} never reached the fast path"


def test_every_ufunc_family_takes_the_fast_path():
    # which ufuncs are steps is NumPy's own dtype resolution: the common ones must be among them
    for uf in (np.add, np.exp, np.tanh, np.sqrt, np.maximum, np.greater, np.logical_and, np.arctan2, np.isnan):
        _, rec = compile_fast(lambda *a: uf(*a))
        x = tricky("float64", (300, 64), 1)
        with np.errstate(all="ignore"):
            _(*[x] * uf.nin)
        assert rec.stats().get("fast"), uf.__name__
