"""Argument generators for NumPy's everyday surface beyond the core ops (issue 9): numpy.fft, numpy.linalg
factorizations, statistics, sequence helpers and ufunc methods. Merged into test_meta_cases.CASES.

Index-like arrays (quantile's q, histogram's bins, searchsorted's sorter, reduceat's indices) are filled
with zeros, so their values are valid: a meta rule cannot know values, and NumPy's value checks run when
the graph runs.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from minidynamo.graph import ops

from .test_meta_cases import (A, arrays, axis_for, dtype_args, operands, optional, pyscalars, small_shapes,
                              square_case)

vec_shapes = st.tuples(st.integers(0, 4))


@st.composite
def fft_case(draw, name: str):
    x = draw(arrays(shape_st=small_shapes))
    if name in ("fftfreq", "rfftfreq"):
        return (draw(st.integers(-3, 5)), draw(st.sampled_from([1.0, 0.5, 2, 1j]))), {}
    if name in ("fftshift", "ifftshift"):
        return (x,), draw(optional(axes=st.one_of(st.none(), st.integers(-3, 2),
                                                  st.lists(st.integers(-3, 2), max_size=2).map(tuple))))
    norm = st.sampled_from([None, "ortho", "forward", "backward"])
    if name.endswith(("2", "n")):
        k = draw(st.integers(0, 3))
        kw = draw(optional(axes=st.lists(st.integers(-3, 2), min_size=k, max_size=k).map(tuple),
                           s=st.lists(st.integers(-1, 4), min_size=k, max_size=k).map(tuple), norm=norm))
        return (x,), kw
    return (x,), draw(optional(n=st.one_of(st.none(), st.integers(-1, 4)), axis=st.integers(-3, 2), norm=norm))


@st.composite
def matrix_case(draw, name: str):
    (a,), _ = draw(square_case())
    if name == "cholesky" and a.dtype.kind not in "fc":   # a bool or int "eye" is not positive definite
        a = A(a.shape, np.dtype(np.float64), fill="eye")
    if draw(st.integers(0, 3)) == 0 and name not in ("cholesky",) or a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        a = draw(arrays(shape_st=small_shapes))     # any shape ("eye" fills only square ones)
    if name == "qr":
        return (a,), draw(optional(mode=st.sampled_from(["reduced", "complete", "r", "raw"])))
    if name == "svd":
        return (a,), draw(optional(full_matrices=st.booleans(), compute_uv=st.booleans()))
    if name in ("eigh", "eigvalsh"):
        return (a,), draw(optional(UPLO=st.sampled_from(["L", "U"])))
    if name == "matrix_power":
        return (a, draw(st.integers(-2, 3))), {}
    if name == "pinv":
        return (a,), draw(optional(hermitian=st.booleans()))
    if name == "lstsq":
        m, n = draw(st.integers(0, 3)), draw(st.integers(0, 3))
        a = draw(arrays(shape=(m, n), dtype=draw(st.sampled_from([np.float64, np.float32, np.complex128]))))
        b = draw(arrays(shape=draw(st.sampled_from([(m,), (m, 2), (3,)])), scalar_ok=False))
        return (a, b, None), {}
    return (a,), {}


@st.composite
def cov_case(draw, name: str):
    m = draw(arrays(shape_st=small_shapes, dtype=draw(st.sampled_from([np.float64, np.float32, np.int64,
                                                                      np.complex128]))))
    kw = draw(optional(rowvar=st.booleans(), dtype=st.sampled_from([None, np.float64, np.float32])))
    if draw(st.booleans()):
        kw["y"] = draw(arrays(shape_st=small_shapes, dtype=np.float64))
    if name == "cov":
        kw.update(draw(optional(bias=st.booleans(), ddof=st.sampled_from([None, 0, 1, 2]))))
    return (m,), kw


@st.composite
def quantile_case(draw, name: str):
    x = draw(arrays(dtype=draw(st.sampled_from([np.float64, np.float32, np.int64, np.int32]))))
    kw = draw(optional(axis=axis_for(x.ndim), keepdims=st.booleans()))
    if name == "median":
        return (x,), kw
    top = 100 if name == "percentile" else 1
    q = draw(st.one_of(st.sampled_from([0, top, top / 2, [0, top], [[top / 4]], -1, top * 2]),
                       arrays(shape_st=small_shapes, dtype=np.float64, fill="zeros")))
    kw.update(draw(optional(method=st.sampled_from(["linear", "lower", "nearest", "midpoint", "bogus"]))))
    return (x, q), kw


@st.composite
def histogram_case(draw):
    x = draw(arrays(dtype=draw(st.sampled_from([np.float64, np.float32, np.int64]))))
    bins = draw(st.one_of(st.integers(-1, 5), st.just([0.0, 1.0, 2.5]), st.just([2, 1]),
                          arrays(shape=draw(vec_shapes), dtype=np.float64, fill="zeros")))
    kw = draw(optional(range=st.sampled_from([None, (0, 4), (2, 1)]), density=st.booleans()))
    if draw(st.integers(0, 3)) == 0:
        kw["weights"] = draw(arrays(shape=draw(st.sampled_from([x.shape, (2,)])), scalar_ok=False,
                                    dtype=np.float64))
    return (x, bins), kw


@st.composite
def diff_case(draw):
    x = draw(arrays())
    kw = draw(optional(n=st.integers(-1, 3), axis=st.integers(-3, 2),
                       prepend=st.one_of(pyscalars, arrays(shape_st=small_shapes)),
                       append=st.just(0)))
    return (x,), kw


@st.composite
def sliding_case(draw):
    a, v = (draw(arrays(shape=draw(st.sampled_from([(), (0,), (1,), (3,), (2,), (2, 2)])))) for _ in range(2))
    return (a, v), draw(optional(mode=st.sampled_from(["full", "same", "valid", "v", 1, "bogus"])))


@st.composite
def interp_case(draw):
    x = draw(st.one_of(arrays(dtype=np.float64), st.sampled_from([1.5, 2])))
    n = draw(st.integers(0, 3))
    xp = draw(arrays(shape=(n,), dtype=np.float64))
    fp = draw(arrays(shape=draw(st.sampled_from([(n,), (n + 1,), (n, 1)])),
                     dtype=draw(st.sampled_from([np.float64, np.complex128, np.int64]))))
    return (x, xp, fp), draw(optional(left=st.sampled_from([0.0, 1j]), period=st.sampled_from([None, 2.0])))


@st.composite
def searchsorted_case(draw):
    a = draw(arrays(shape=draw(st.sampled_from([(3,), (0,), (), (2, 2)])), dtype=np.float64))
    v = draw(st.one_of(pyscalars.filter(lambda s: not isinstance(s, complex)), arrays(dtype=np.float64)))
    kw = draw(optional(side=st.sampled_from(["left", "right"])))
    if draw(st.integers(0, 3)) == 0 and a.shape:
        kw["sorter"] = A(a.shape[:1], np.dtype(np.intp), fill="zeros")
    return (a, v), kw


@st.composite
def indices_case(draw):
    dims = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
    return (dims,), draw(optional(dtype=st.sampled_from([int, np.float32, np.int8]), sparse=st.booleans()))


@st.composite
def meshgrid_case(draw):
    xs = [draw(arrays(shape_st=small_shapes)) for _ in range(draw(st.integers(0, 3)))]
    return tuple(xs), draw(optional(sparse=st.booleans(), indexing=st.sampled_from(["xy", "ij", "yx"]),
                                    copy=st.booleans()))


@st.composite
def component_case(draw, name: str):
    x = draw(arrays())
    return (x,), (draw(optional(deg=st.booleans())) if name == "angle" else {})


@st.composite
def sort_case(draw):
    x = draw(arrays())
    return (x,), draw(optional(axis=st.one_of(st.none(), st.integers(-x.ndim - 1, x.ndim)),
                               kind=st.sampled_from([None, "stable", "quicksort"])))


@st.composite
def diag_case(draw):
    return (draw(arrays(shape_st=small_shapes)),), draw(optional(k=st.integers(-3, 3)))


# ---- ufunc methods --------------------------------------------------------------------------------------

@st.composite
def ufunc_method_case(draw, uf: np.ufunc, method: str):
    x = draw(arrays())
    if method == "outer":
        return (x, draw(st.one_of(arrays(shape_st=small_shapes), pyscalars))), draw(optional(dtype=dtype_args))
    if method == "reduce":
        kw = draw(optional(axis=axis_for(x.ndim), keepdims=st.booleans(), dtype=dtype_args,
                           initial=st.sampled_from([0, 1, 2.5])))
        return (x,), kw
    if method == "accumulate":
        return (x,), draw(optional(axis=st.one_of(st.none(), st.integers(-x.ndim - 1, x.ndim)), dtype=dtype_args))
    if method == "reduceat":
        idx = draw(st.one_of(st.lists(st.integers(-1, 3), max_size=3),
                             arrays(shape=draw(vec_shapes), dtype=np.intp, fill="zeros")))
        return (x, idx), draw(optional(axis=st.integers(-x.ndim - 1, x.ndim), dtype=dtype_args))
    x = draw(arrays(scalar_ok=False))
    idx = draw(st.one_of(st.integers(-2, 2), st.lists(st.integers(-2, 2), max_size=3),
                         st.tuples(st.integers(0, 1), st.integers(0, 1)), st.just(slice(None)),
                         arrays(shape_st=small_shapes, dtype=np.intp, fill="zeros")))
    if uf.nin == 1:
        return (x, idx), {}
    return (x, idx, draw(st.one_of(pyscalars, arrays(shape_st=small_shapes)))), {}


# ---- the legacy global random functions ------------------------------------------------------------------

sizes = st.one_of(st.none(), st.integers(-1, 3), st.lists(st.integers(0, 3), max_size=3).map(tuple))
VALUE_CHECKED_DRAWS = {"binomial", "negative_binomial", "geometric", "hypergeometric"}


@st.composite
def random_case(draw, name: str):
    from minidynamo.graph.meta_random import DRAWS
    if name in ("rand", "randn"):
        return tuple(draw(st.lists(st.integers(-1, 3), max_size=3))), {}
    if name == "randint":
        return (draw(st.integers(-2, 3)),), draw(optional(high=st.sampled_from([None, 5, 10]), size=sizes,
                                                          dtype=st.sampled_from([int, np.int8, np.uint16])))
    if name == "choice":
        a = draw(st.one_of(st.integers(0, 4), arrays(shape=draw(st.sampled_from([(3,), (0,), (2, 2)]))),
                           st.just([1.5, 2.5])))
        return (a,), draw(optional(size=sizes, replace=st.booleans()))
    if name == "permutation":
        return (draw(st.one_of(st.integers(-1, 4), arrays(shape_st=small_shapes))),), {}
    if name == "shuffle":
        return (draw(arrays(scalar_ok=False)),), {}
    if name == "seed":
        return (draw(st.one_of(st.none(), st.integers(-1, 2**32), st.just(1.5), st.lists(st.integers(0, 9)),
                               arrays(shape_st=small_shapes, dtype=np.int64))),), {}
    constants = st.sampled_from([0.5, 1, 2.0, -1.0])
    # a probability or an integer count in an array is checked by value when the graph runs: constants only
    value = constants if name in VALUE_CHECKED_DRAWS else st.one_of(
        constants, arrays(shape_st=small_shapes, dtype=np.float64))
    params = {k: value for k in DRAWS[name]}
    return (), draw(optional(size=sizes, **params))


@st.composite
def checks_case(draw, name: str):
    """np.isclose & co and np.testing's assertions on two operands (an assertion's AssertionError depends on
    the values: test_meta accepts any exception of a checking op); `check` on a truth value."""
    if name == "check":
        return (draw(arrays(shape_st=small_shapes)), draw(st.booleans())), {}
    a, b = draw(operands(2))
    tolerance = st.sampled_from([0, 1e-5, 0.5, 2])
    kw = {}
    if name in ("isclose", "allclose", "testing.assert_allclose"):
        kw = draw(optional(rtol=tolerance, atol=tolerance, equal_nan=st.booleans()))
    elif name == "array_equal":
        kw = draw(optional(equal_nan=st.booleans()))
    elif "almost" in name:
        kw = draw(optional(decimal=st.integers(0, 7)))
    if name.startswith("testing."):
        kw.update(draw(optional(err_msg=st.sampled_from(["", "rows"]), verbose=st.booleans())))
    return (a, b), kw


@st.composite
def binning_case(draw, name: str):
    """np.digitize's x and edges, np.bincount's labels (zeros: valid counts) with weights and minlength,
    sliding_window_view's windows and axes."""
    x = draw(arrays(shape_st=small_shapes))
    if name == "digitize":
        edges = draw(arrays(shape_st=st.sampled_from([(0,), (1,), (2,), (), (1, 1)]), fill="zeros"))
        return (x, edges), draw(optional(right=st.booleans()))
    if name == "bincount":
        labels = draw(arrays(shape_st=st.sampled_from([(0,), (3,), (), (2, 1)]), fill="zeros"))
        kw = draw(optional(minlength=st.integers(-1, 3)))
        if draw(st.booleans()):
            kw["weights"] = draw(arrays(shape=draw(st.sampled_from([labels.shape, (1,)])), scalar_ok=False))
        return (labels,), kw
    window = st.one_of(st.integers(-1, 3), st.lists(st.integers(0, 3), max_size=3).map(tuple))
    return (x, draw(window)), draw(optional(axis=st.one_of(st.integers(-3, 2),
                                                           st.lists(st.integers(-3, 2), max_size=2).map(tuple))))


LIB_CASES = {f"fft.{name}": fft_case(name) for name in (
    "fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "fftn", "ifftn", "rfft2", "irfft2",
    "rfftn", "irfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift")}
LIB_CASES.update({name: matrix_case(name) for name in (
    "cholesky", "qr", "svd", "eigh", "eigvalsh", "eig", "eigvals", "slogdet", "pinv", "matrix_power", "lstsq")})
LIB_CASES.update({"cov": cov_case("cov"), "corrcoef": cov_case("corrcoef"), "median": quantile_case("median"),
                  "percentile": quantile_case("percentile"), "quantile": quantile_case("quantile"),
                  "histogram": histogram_case(), "diff": diff_case(), "convolve": sliding_case(),
                  "correlate": sliding_case(), "interp": interp_case(), "searchsorted": searchsorted_case(),
                  "indices": indices_case(), "meshgrid": meshgrid_case(), "angle": component_case("angle"),
                  "real": component_case("real"), "imag": component_case("imag"),
                  "sort": sort_case(), "argsort": sort_case(), "diag": diag_case()})
LIB_CASES.update({name: binning_case(name) for name in ("digitize", "bincount", "sliding_window_view")})
# np.nonzero's rule needs the count capture hands it (mask_count=): without one it refuses, as here; with
# NumPy's own count it is checked in test_meta.py::test_nonzero_rule_with_the_count_agrees_with_numpy
LIB_CASES["nonzero"] = arrays(shape_st=small_shapes).map(lambda x: ((x,), {}))
LIB_CASES.update({op.name: checks_case(op.name) for op in ops.REGISTRY.values()
                  if op.checks and op.name not in ("bincount", "eig", "eigvals")
                  or op.name in ("isclose", "allclose", "array_equal",
                                                                         "array_equiv")})
LIB_CASES.update({op.name: ufunc_method_case(op.impl.__self__, method)
                  for (_, method), op in ops.UFUNC_METHODS.items()})
LIB_CASES.update({op.name: random_case(op.name.split(".", 1)[1]) for op in ops.REGISTRY.values()
                  if op.name.startswith("random.")})
# Ufunc methods share five rules over ~100 ufuncs: a few examples each cover them.
LIB_EXAMPLES = {op.name: 6 for op in ops.UFUNC_METHODS.values()}
