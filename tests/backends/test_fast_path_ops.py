"""The fast path, op family by op family: compiled (regions forced on small arrays, blocks of 64 rows)
against eager, bit for bit (bytes, dtype, shape, strides), warnings and exceptions included
(fast_path_support.check_fast), on values that tell NumPy's code paths apart (NaN payloads and signs,
signed zeros, infinities) and on several memory layouts."""

from __future__ import annotations

import numpy as np
import pytest

from .fast_path_support import check_fast, layouts, tricky

FLOATS = ["float16", "float32", "float64", "complex64", "complex128"]
INTS = ["int8", "int32", "int64", "uint8", "uint16"]
ALL = FLOATS + INTS + ["bool"]


def chain(x, y):
    return np.sqrt(np.abs(x * y + x) - y) / (y - 2.5)


def broadcast_rows(x, b):
    return (x * b + b) * x


def broadcast_column(x, c):
    return (x - c) * (c + x)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(300,), (1000,), (257, 64), (130, 37), (3, 70, 64)])
def test_element_wise_chain_floats(dtype, shape):
    check_fast(chain, tricky(dtype, shape, 1), tricky(dtype, shape, 2))


@pytest.mark.parametrize("dtype", INTS + ["bool"])
def test_element_wise_ints_and_bools(dtype):
    def f(x, y):
        return (x & y) | (x ^ (y == x))

    def g(x, y):
        return (x + y) * (y - x)

    x, y = tricky(dtype, (300, 64), 1), tricky(dtype, (300, 64), 2)
    check_fast(f, x, y)
    if dtype != "bool":
        check_fast(g, x, y)
        check_fast(lambda a, b: (a // (b + 7)) + a % 3 - (a >> 1) + (b << 2), x, y)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("width", [64, 128, 37, 100])
def test_broadcasting(dtype, width):
    x = tricky(dtype, (300, width), 1)
    expect = "fast" if width % 64 == 0 else "narrow"    # a broadcast over rows of 37 runs whole
    check_fast(broadcast_rows, x, tricky(dtype, (width,), 2), expect=expect)
    check_fast(broadcast_column, x, tricky(dtype, (300, 1), 3), expect=expect)
    check_fast(broadcast_rows, x, tricky(dtype, (1, width), 4), expect=expect)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128", "int32", "float16"])
def test_scalars_python_numpy_and_zero_d(dtype):
    x = tricky(dtype, (400, 64), 1)

    def f(x, s, z):
        return ((x * 2) + s) * z - 1

    check_fast(f, x, np.dtype(dtype).type(3), np.array(2, dtype))
    check_fast(lambda x: (x + 1.5) * 2 - 3j if x.dtype.kind == "c" else (x + 1.5) * 2, x)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int8", "complex128"])
def test_power_operator_takes_numpys_own_shortcuts(dtype):
    x = tricky(dtype, (300, 64), 1)
    for f in (lambda x: x ** 2 + x, lambda x: x ** 3 + x, lambda x: x ** 0.5 + x, lambda x: x ** -1 + x,
              lambda x: x ** 1.5 + x, lambda x: 2 ** x + x):
        check_fast(f, x, expect=None)


def test_power_with_negative_integer_exponent_raises_as_eager():
    x = np.arange(300 * 64).reshape(300, 64)
    e = np.ones(64, np.int64)
    e[5] = -2
    check_fast(lambda x, e: np.power(x + 1, e), x, e, expect="error: ValueError")   # raised in a block


@pytest.mark.parametrize("dtype", ["float32", "int16", "complex64"])
def test_mixed_dtypes_promote_as_eager(dtype):
    x = tricky(dtype, (256, 64), 1)
    y = tricky("float64", (256, 64), 2)
    check_fast(lambda a, b: (a + b) * a, x, y)
    check_fast(lambda a, b: (a * 2) > b, x, y)


@pytest.mark.parametrize("name", ["C", "row slice", "column step", "fortran", "reversed"])
@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_memory_layouts(name, dtype):
    x = layouts(tricky(dtype, (300, 64), 1))[name]
    y = tricky(dtype, (300, 64), 2)
    expect = "layout" if name in ("fortran", "reversed") else "fast"
    check_fast(chain, x, y, expect=expect)
    check_fast(broadcast_rows, x, y[0], expect=expect)


def test_broadcast_views_and_transposes_run_whole():
    b = tricky("float64", (64,), 1)
    check_fast(chain, np.broadcast_to(b, (300, 64)), tricky("float64", (300, 64), 2), expect="layout")
    check_fast(chain, tricky("float64", (64, 300), 3).T, tricky("float64", (300, 64), 2), expect="layout")


REDUCTIONS = ["sum", "prod", "max", "min", "mean", "var", "std", "argmax", "argmin", "any", "all"]


@pytest.mark.parametrize("method", REDUCTIONS)
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex128", "int32", "uint8", "bool"])
@pytest.mark.parametrize("keepdims", [True, False])
def test_row_wise_reductions(method, dtype, keepdims):
    def f(x):
        y = x + x
        return getattr(y, method)(axis=-1, keepdims=keepdims), y * 2

    for width in (64, 37):
        x = tricky(dtype, (300, width), 1)
        expect = "narrow" if method in ("var", "std") and width == 37 else None
        check_fast(f, x, expect=expect)


@pytest.mark.parametrize("name", ["C", "row slice", "column step"])
def test_reductions_of_inputs_in_every_layout(name):
    x = layouts(tricky("float32", (300, 100), 1))[name]
    check_fast(lambda x: x.sum(axis=-1) + x.max(-1), x)
    check_fast(lambda x: np.mean(x, axis=1, keepdims=True) * np.std(x, -1, ddof=1, keepdims=True),
               layouts(tricky("float32", (300, 128), 2))[name])


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def layernorm(x, g, b):
    mu = x.mean(axis=-1, keepdims=True)
    xc = x - mu
    var = (xc * xc).mean(axis=-1, keepdims=True)
    return xc / np.sqrt(var + 1e-5) * g + b


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_softmax_and_layernorm(dtype):
    x = tricky(dtype, (300, 128), 1)
    check_fast(softmax, x)
    check_fast(layernorm, x, tricky(dtype, (128,), 2), tricky(dtype, (128,), 3))
    x3 = tricky(dtype, (5, 70, 64), 4)
    check_fast(softmax, x3)
    check_fast(layernorm, x3, tricky(dtype, (64,), 2), tricky(dtype, (64,), 3))


def test_reduction_over_another_axis_ends_the_region():
    rec = check_fast(lambda x: (x * 2).sum(axis=0) + 1, tricky("float64", (300, 64), 1), expect=None)
    assert all(r.spec.steps[-1].node.op != "sum" for r in rec.regions)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_large_temporaries_that_eager_computes_in_place(dtype):
    # above 256 KiB eager NumPy reuses a one-use temporary's buffer for the next operator's result (temporary
    # elision: in place, in1 is out); the blocks write into their own buffers: same bits, NaN payloads too
    x, y = tricky(dtype, (640, 512), 1), tricky(dtype, (640, 512), 2)
    check_fast(lambda a, b: ((a * b + a) - b) * (a + 1.5) / (b - 0.5), x, y)
    check_fast(lambda a, b: -(np.abs(a - b) + b) * a, x, y, fast_path_block_bytes=0)   # default block size
