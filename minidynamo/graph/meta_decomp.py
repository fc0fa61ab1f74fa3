"""Meta rules of numpy.linalg's factorizations and friends: cholesky, qr, svd, eigh, eigvalsh, eig, eigvals,
slogdet, lstsq, pinv, matrix_power.

Imports numpy, graph.meta and graph.meta_checks only. Shapes follow NumPy's documented rules over the last two axes (the
leading ones are a stack); dtypes (and NumPy's errors for a bad mode, UPLO or exponent) come from running the
real function on a 1x1 probe. Results NumPy returns as a named tuple (QRResult, SVDResult, EighResult,
EigResult, SlogdetResult) are NamedSpecs here (a tuple of specs that knows the class), so front ends rebuild the
same type. A factorization that fails on the values (a matrix that is not positive definite, a
singular one) raises LinAlgError when the graph runs, and the caller re-runs eagerly. A real matrix's
eig/eigvals are assumed real and checked when the graph runs (eig_real: a checking op), since whether they
come out real or complex depends on the values.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from .ir import ArraySpec
from .meta import MetaError, MetaUnsupported, as_spec, run_probe, spec_like
from .meta_checks import CheckFailed


class NamedSpecs(tuple):
    """The specs of a result NumPy returns as a named tuple (QRResult, SVDResult, ...); `cls` is that class,
    read off the probe's result, so front ends rebuild the very same type."""

    cls: type

    def __new__(cls, specs: tuple, result_cls: type) -> "NamedSpecs":
        self = super().__new__(cls, specs)
        self.cls = result_cls
        return self


def _matrix(name: str, a: Any, square: bool = False) -> ArraySpec:
    x = as_spec(a)
    if x.ndim < 2:
        raise MetaError(f"{name}: {x.ndim}-dimensional array given. Array must be at least two-dimensional")
    if square and x.shape[-1] != x.shape[-2]:
        raise MetaError(f"{name}: Last 2 dimensions of the array must be square")
    return x


def _probe(x: ArraySpec) -> np.ndarray:
    """Every dimension 1, or 0 where the operand's is 0 (NumPy special-cases empty stacks and matrices)."""
    return np.ones(tuple(min(d, 1) for d in x.shape) or (1, 1), x.dtype)


class _Dtypes(tuple):
    """The probe's result dtypes; `cls` is the named-tuple class it came back as (None: a plain value)."""

    cls: type | None = None


def _dtypes(name: str, fn: Any, x: ArraySpec, *args: Any, **kwargs: Any) -> _Dtypes:
    res = run_probe(name, fn, _probe(x), *args, **kwargs)
    parts = res if isinstance(res, tuple) else (res,)
    dts = _Dtypes(np.asarray(p).dtype for p in parts)
    dts.cls = type(res) if isinstance(res, tuple) and type(res) is not tuple else None
    return dts


def _named(dts: _Dtypes, specs: tuple) -> tuple:
    """specs as NamedSpecs when the probe returned a named tuple."""
    return NamedSpecs(specs, dts.cls) if dts.cls is not None else specs


def cholesky_meta(a: Any, /, *, upper: bool = False) -> ArraySpec:
    x = _matrix("cholesky", a, square=True)
    return ArraySpec(x.shape, _dtypes("cholesky", np.linalg.cholesky, x, upper=upper)[0])


def qr_meta(a: Any, mode: str = "reduced") -> Any:
    x = _matrix("qr", a)
    dts = _dtypes("qr", np.linalg.qr, x, mode)
    stack, (m, n) = x.shape[:-2], x.shape[-2:]
    k = min(m, n)
    if mode == "r":
        return ArraySpec(stack + (k, n), dts[0])
    if mode == "raw":
        return _named(dts, (ArraySpec(stack + (n, m), dts[0]), ArraySpec(stack + (k,), dts[1])))
    q_cols = m if mode == "complete" else k
    r_rows = m if mode == "complete" else k
    return _named(dts, (ArraySpec(stack + (m, q_cols), dts[0]), ArraySpec(stack + (r_rows, n), dts[1])))


def svd_meta(a: Any, full_matrices: bool = True, compute_uv: bool = True, hermitian: bool = False) -> Any:
    x = _matrix("svd", a, square=bool(hermitian))
    dts = _dtypes("svd", np.linalg.svd, x, full_matrices, compute_uv, hermitian)
    stack, (m, n) = x.shape[:-2], x.shape[-2:]
    k = min(m, n)
    if not compute_uv:
        return ArraySpec(stack + (k,), dts[0])
    u_cols, v_rows = (m, n) if full_matrices else (k, k)
    return _named(dts, (ArraySpec(stack + (m, u_cols), dts[0]), ArraySpec(stack + (k,), dts[1]),
                          ArraySpec(stack + (v_rows, n), dts[2])))


def eigh_meta(a: Any, UPLO: str = "L") -> tuple[ArraySpec, ArraySpec]:
    x = _matrix("eigh", a, square=True)
    dts = _dtypes("eigh", np.linalg.eigh, x, UPLO)
    return _named(dts, (ArraySpec(x.shape[:-1], dts[0]), ArraySpec(x.shape, dts[1])))


def eigvalsh_meta(a: Any, UPLO: str = "L") -> ArraySpec:
    x = _matrix("eigvalsh", a, square=True)
    return ArraySpec(x.shape[:-1], _dtypes("eigvalsh", np.linalg.eigvalsh, x, UPLO)[0])


def eig_real(a: Any) -> Any:
    """np.linalg.eig(a), whose results must be real when `a` is: the op's spec assumes so (a real matrix's
    eigenvalues are real or complex depending on its values), and a complex result fails this check, so the
    function runs again eagerly and the program gets NumPy's complex arrays (a checking op: OpDef.checks)."""
    out = np.linalg.eig(a)
    _real_as_assumed("eig", a, out[0])
    return out


def eigvals_real(a: Any) -> Any:
    """np.linalg.eigvals(a), checked as eig_real is."""
    out = np.linalg.eigvals(a)
    _real_as_assumed("eigvals", a, out)
    return out


def _real_as_assumed(name: str, a: Any, values: np.ndarray) -> None:
    if np.asarray(a).dtype.kind != "c" and values.dtype.kind == "c":
        raise CheckFailed(f"{name}: this real matrix has complex eigenvalues (the graph assumed real ones)")


def eig_meta(a: Any) -> tuple[ArraySpec, ArraySpec]:
    """A real matrix's results are assumed real (NumPy's dtype for real eigenvalues), checked by eig_real
    when the graph runs; a complex matrix's are complex."""
    x = _matrix("eig", a, square=True)
    dts = _dtypes("eig", np.linalg.eig, x)
    return _named(dts, (ArraySpec(x.shape[:-1], dts[0]), ArraySpec(x.shape, dts[1])))


def eigvals_meta(a: Any) -> ArraySpec:
    x = _matrix("eigvals", a, square=True)
    return ArraySpec(x.shape[:-1], _dtypes("eigvals", np.linalg.eigvals, x)[0])


def slogdet_meta(a: Any) -> tuple[ArraySpec, ArraySpec]:
    x = _matrix("slogdet", a, square=True)
    dts = _dtypes("slogdet", np.linalg.slogdet, x)
    return _named(dts, (spec_like(x.shape[:-2], dts[0], True), spec_like(x.shape[:-2], dts[1], True)))


def pinv_meta(a: Any, rcond: Any = None, hermitian: bool = False, **kwargs: Any) -> ArraySpec:
    x = as_spec(a)
    if x.ndim < 2:
        raise MetaError(f"pinv: {x.ndim}-dimensional array given. Array must be at least two-dimensional")
    if hermitian and x.shape[-1] != x.shape[-2] and 0 not in x.shape:   # NumPy returns empty arrays first
        raise MetaError("pinv: Last 2 dimensions of the array must be square")
    dt = _dtypes("pinv", np.linalg.pinv, x, rcond, hermitian, **kwargs)[0]
    return ArraySpec(x.shape[:-2] + (x.shape[-1], x.shape[-2]), dt)


def matrix_power_meta(a: Any, n: Any) -> ArraySpec:
    x = _matrix("matrix_power", a, square=True)
    try:
        operator.index(n)
    except TypeError:
        raise MetaError("matrix_power: exponent must be an integer") from None
    return ArraySpec(x.shape, _dtypes("matrix_power", np.linalg.matrix_power, x, n)[0])


def lstsq_meta(a: Any, b: Any, rcond: Any = None) -> tuple[ArraySpec, ...]:
    """(x, residuals, rank, s). The residuals' length is data-dependent (empty unless the rank is full and
    M > N), so only M <= N, where they are always empty, is captured."""
    x, y = as_spec(a), as_spec(b)
    if x.ndim != 2:
        raise MetaError(f"lstsq: {x.ndim}-dimensional array given. Array must be two-dimensional")
    if y.ndim not in (1, 2):
        raise MetaError(f"lstsq: {y.ndim}-dimensional array given. Array must be one or two-dimensional")
    m, n = x.shape
    if y.shape[0] != m:
        raise MetaError("lstsq: Incompatible dimensions")
    dts = _dtypes("lstsq", np.linalg.lstsq, x, np.ones(tuple(min(d, 1) for d in y.shape), y.dtype), rcond)
    if m > n:
        raise MetaUnsupported("lstsq: unsupported: with more rows than columns the residuals' length depends on the "
                        "rank (data-dependent)")
    cols = y.shape[1:]
    return (ArraySpec((n,) + cols, dts[0]), ArraySpec((0,), dts[1]), ArraySpec((), dts[2], scalar=True),
            ArraySpec((min(m, n),), dts[3]))
