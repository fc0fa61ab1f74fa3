"""Meta rules of linear algebra: gufuncs (matmul, vecdot, ...), dot, vdot, inner, outer, tensordot, einsum,
linalg.norm, linalg.inv, linalg.solve, linalg.det.

Imports numpy and graph.meta only. Shapes follow NumPy's documented rules, written out; dtypes come from a
probe whose every dimension is 1 (so the probe costs the same for any input size).
"""

from __future__ import annotations

import operator
import re
from typing import Any, Callable

import numpy as np

from .ir import ArraySpec
from .meta import (MetaError, MetaUnsupported, as_spec, broadcast, is_spec, normalize_axes, normalize_axis, probe,
                   reject_keywords, result_dtype, spec_like)


def ones_probe(spec: ArraySpec) -> Any:
    """A probe with the spec's ndim and every dimension 1 (a NumPy scalar for a scalar spec)."""
    return probe(spec, (1,) * spec.ndim)


# ---- generalized ufuncs ------------------------------------------------------------------------------

def _parse_signature(sig: str) -> tuple[list[list[tuple[str, bool]]], list[list[tuple[str, bool]]]]:
    """'(n?,k),(k,m?)->(n?,m?)' -> inputs and outputs as lists of (label, optional) pairs."""
    def side(text: str) -> list[list[tuple[str, bool]]]:
        groups = re.findall(r"\(([^)]*)\)", text)
        return [[(d.rstrip("?"), d.endswith("?")) for d in g.split(",") if d] for g in groups]
    ins, outs = sig.replace(" ", "").split("->")
    return side(ins), side(outs)


def gufunc_meta(uf: np.ufunc) -> Callable[..., Any]:
    """Meta rule of a generalized ufunc: loop dimensions broadcast, core dimensions bind by label."""
    core_in, core_out = _parse_signature(uf.signature)

    def rule(*args: Any, **kwargs: Any) -> Any:
        reject_keywords(uf.__name__, kwargs, ("out", "dtype", "casting", "order", "subok"))
        if len(args) != uf.nin:
            raise MetaError(f"{uf.__name__}: expected {uf.nin} operands")
        specs = [as_spec(a) for a in args]
        sizes: dict[str, int] = {}
        missing: set[str] = set()
        loops = []
        for i, (spec, core) in enumerate(zip(specs, core_in)):
            present = core
            if spec.ndim < len(core):
                present = [c for c in core if not c[1]]
                missing.update(label for label, opt in core if opt)
                if spec.ndim < len(present) or not present or len(present) == len(core):
                    raise MetaError(f"{uf.__name__}: Input operand {i} does not have enough dimensions")
            dims = spec.shape[spec.ndim - len(present):]
            for (label, _), d in zip(present, dims):
                if sizes.setdefault(label, d) != d:
                    raise MetaError(f"{uf.__name__}: Input operand {i} has a mismatch in its core dimension "
                                    f"(size {d} is different from {sizes[label]})")
            loops.append(spec.shape[:spec.ndim - len(present)])
        loop = broadcast(*loops)
        shapes = [loop + tuple(sizes[lab] for lab, _ in core if lab not in missing) for core in core_out]
        out = kwargs.get("out")
        out = out[0] if isinstance(out, tuple) and len(out) == 1 else out
        probes = [probe(s, (1,) * (s.ndim - len(loops[i]))) for i, s in enumerate(specs)]
        extra = {k: v for k, v in kwargs.items() if k != "out"}
        dtype = result_dtype(uf.__name__, uf, *probes, **extra)
        if out is not None:
            ncore = len(shapes[0]) - len(loop)
            out_loop = out.shape[:out.ndim - ncore] if is_spec(out) else ()
            loop_fit = loop
            while len(loop_fit) > len(out_loop) and loop_fit[0] == 1:   # a gufunc drops leading 1s
                loop_fit = loop_fit[1:]
            if not is_spec(out) or out.scalar or out.ndim < ncore or \
                    out.shape[out.ndim - ncore:] != shapes[0][len(loop):] or \
                    len(loop_fit) > len(out_loop) or broadcast(out_loop, loop_fit) != out_loop:
                raise MetaError(f"{uf.__name__}: output operand does not match the result shape {shapes[0]}")
            result_dtype(uf.__name__, uf, *probes, out=np.ones((1,) * out.ndim, out.dtype), **extra)
            return out
        return spec_like(shapes[0], dtype, True)

    rule.__name__ = f"{uf.__name__}_meta"
    return rule


def matmul_meta(a: Any, b: Any, **kwargs: Any) -> ArraySpec:
    """The shape rule of `a @ b` / np.matmul (dtype from the matmul probe)."""
    if not (is_spec(a) and is_spec(b)) or a.ndim == 0 or b.ndim == 0:
        raise MetaError("matmul: Input operand does not have enough dimensions (scalars are not allowed)")
    return _MATMUL(a, b, **kwargs)


_MATMUL = gufunc_meta(np.matmul)


# ---- dot family -----------------------------------------------------------------------------------------

def dot_meta(a: Any, b: Any, out: Any = None) -> ArraySpec:
    if out is not None:
        raise MetaUnsupported("dot: unsupported keyword 'out'")
    a, b = as_spec(a), as_spec(b)
    dtype = result_dtype("dot", np.dot, ones_probe(a), ones_probe(b))
    if a.ndim == 0 or b.ndim == 0:
        return spec_like(broadcast(a.shape, b.shape), dtype, True)
    k = b.shape[-2] if b.ndim >= 2 else b.shape[0]
    if a.shape[-1] != k:
        raise MetaError(f"shapes {a.shape} and {b.shape} not aligned: {a.shape[-1]} (dim {a.ndim - 1}) != {k}")
    shape = a.shape[:-1] + b.shape[:-2] + (b.shape[-1:] if b.ndim >= 2 else ())
    return spec_like(shape, dtype, True)


def vdot_meta(a: Any, b: Any) -> ArraySpec:
    a, b = as_spec(a), as_spec(b)
    if a.size != b.size:
        raise MetaError(f"vdot: vectors have different lengths ({a.size} and {b.size})")
    return ArraySpec((), result_dtype("vdot", np.vdot, probe(a, (1,)), probe(b, (1,))), scalar=True)


def inner_meta(a: Any, b: Any) -> ArraySpec:
    a, b = as_spec(a), as_spec(b)
    dtype = result_dtype("inner", np.inner, ones_probe(a), ones_probe(b))
    if a.ndim == 0 or b.ndim == 0:
        return spec_like(broadcast(a.shape, b.shape), dtype, True)
    if a.shape[-1] != b.shape[-1]:
        raise MetaError(f"inner: shapes {a.shape} and {b.shape} not aligned in their last dimension")
    return spec_like(a.shape[:-1] + b.shape[:-1], dtype, True)


def outer_meta(a: Any, b: Any, out: Any = None) -> ArraySpec:
    if out is not None:
        raise MetaUnsupported("outer: unsupported keyword 'out'")
    a, b = as_spec(a), as_spec(b)
    return ArraySpec((a.size, b.size), result_dtype("outer", np.outer, probe(a, (1,)), probe(b, (1,))))


def _tensordot_axes(axes: Any, a: ArraySpec, b: ArraySpec) -> tuple[tuple[int, ...], tuple[int, ...]]:
    if isinstance(axes, (tuple, list)):
        if len(axes) != 2:
            raise MetaError("tensordot: axes must be an integer or a pair of axis sequences")
        xa, xb = (tuple(x) if isinstance(x, (tuple, list)) else (x,) for x in axes)
        if len(xa) != len(xb):
            raise MetaError("tensordot: shape-mismatch for sum")
        na, nb = tuple(normalize_axis(x, a.ndim) for x in xa), tuple(normalize_axis(x, b.ndim) for x in xb)
        if len(set(na)) != len(na) or len(set(nb)) != len(nb):
            raise MetaError("tensordot: duplicate axes are not allowed in tensordot")
        return na, nb
    try:
        n = operator.index(axes)
    except TypeError:
        raise MetaError(f"tensordot: axes must be an integer, got {axes!r}") from None
    # NumPy takes range(-n, 0) of a and range(n) of b, so n <= 0 sums over nothing.
    return (tuple(normalize_axis(i, a.ndim) for i in range(-n, 0)),
            tuple(normalize_axis(i, b.ndim) for i in range(n)))


def tensordot_meta(a: Any, b: Any, axes: Any = 2) -> ArraySpec:
    a, b = as_spec(a), as_spec(b)
    xa, xb = _tensordot_axes(axes, a, b)
    if any(a.shape[i] != b.shape[j] for i, j in zip(xa, xb)):
        raise MetaError("tensordot: shape-mismatch for sum")
    shape = tuple(d for i, d in enumerate(a.shape) if i not in xa) + \
        tuple(d for j, d in enumerate(b.shape) if j not in xb)
    return ArraySpec(shape, result_dtype("tensordot", np.dot, probe(a, (1,)), probe(b, (1,))))


# ---- einsum ---------------------------------------------------------------------------------------------

def _einsum_terms(subscripts: str, n: int) -> tuple[list[str], str | None]:
    if not isinstance(subscripts, str):
        raise MetaUnsupported("einsum: only the subscripts-string form is supported")
    text = subscripts.replace(" ", "")
    if text.count("->") > 1 or re.search(r"[^a-zA-Z.,\->]", text) or re.search(r"-(?!>)|(?<!-)>", text):
        raise MetaError(f"einsum: invalid subscripts string {subscripts!r}")
    ins, _, out = text.partition("->")
    terms = ins.split(",")
    if len(terms) != n:
        raise MetaError(f"einsum: {len(terms)} subscript terms given for {n} operands")
    for t in terms + [out]:
        if t.replace("...", "", 1).count(".") or t.count("...") > 1:
            raise MetaError(f"einsum: invalid use of '.' in subscripts {subscripts!r}")
    return terms, (out if "->" in text else None)


def einsum_meta(subscripts: Any, *operands: Any, out: Any = None, dtype: Any = None, order: str = "K",
                casting: str = "safe", optimize: Any = False) -> ArraySpec:
    """Labels bind sizes across operands (size 1 broadcasts); a label repeated in one term takes a diagonal;
    implicit output = ellipsis dims, then labels seen once, in character order."""
    if out is not None:
        raise MetaUnsupported("einsum: unsupported keyword 'out'")
    specs = [as_spec(o) for o in operands]
    terms, output = _einsum_terms(subscripts, len(specs))
    sizes: dict[str, int] = {}
    ell_shapes = []
    for i, (term, spec) in enumerate(zip(terms, specs)):
        labels = term.replace("...", "")
        n_ell = spec.ndim - len(labels)
        if n_ell < 0 or (n_ell > 0 and "..." not in term):
            raise MetaError(f"einsum: operand {i} has {spec.ndim} dimensions but subscripts {term!r}")
        start = term.find("...")
        dims = list(spec.shape)
        if start >= 0:
            ell_shapes.append(tuple(dims[start:start + n_ell]))
            del dims[start:start + n_ell]
        own: dict[str, int] = {}
        for label, d in zip(labels, dims):
            if own.setdefault(label, d) != d:
                raise MetaError(f"einsum: dimensions in operand {i} for collapsing index '{label}' don't match")
            if d != 1 and sizes.get(label, 1) not in (1, d):
                raise MetaError(f"einsum: operands could not be broadcast together for label '{label}'")
            sizes[label] = d if d != 1 else sizes.get(label, 1)
    ell = broadcast(*ell_shapes) if ell_shapes else ()
    all_labels = "".join(t.replace("...", "") for t in terms)
    if output is None:
        output = "..." + "".join(sorted(c for c in set(all_labels) if all_labels.count(c) == 1))
    out_labels = output.replace("...", "")
    for c in out_labels:
        if c not in sizes:
            raise MetaError(f"einsum: output subscript '{c}' never appeared in an input")
        if out_labels.count(c) > 1:
            raise MetaError(f"einsum: output subscript '{c}' is included multiple times")
    if ell and "..." not in output and not optimize:     # the optimizing parser sums them instead
        raise MetaError("einsum: output has more dimensions than subscripts given, but no '...' ellipsis")
    head, _, tail = output.partition("...")
    shape = tuple(sizes[c] for c in head) + (ell if "..." in output else ()) + tuple(sizes[c] for c in tail)
    dt = result_dtype("einsum", np.einsum, subscripts, *(ones_probe(s) for s in specs), dtype=dtype,
                      casting=casting, optimize=optimize)
    # The C einsum returns a NumPy scalar for a 0-d result; with optimize= and several operands the last
    # contraction may go through tensordot instead (an array), chosen by NumPy's path search.
    if optimize and len(specs) > 1 and shape == ():
        raise MetaUnsupported("einsum: unsupported keyword 'optimize' for a 0-d result of several operands")
    return spec_like(shape, dt, True)


# ---- numpy.linalg ---------------------------------------------------------------------------------------

def _norm_kind(x: ArraySpec, ord: Any, axis: Any) -> tuple[int, ...] | None:
    """The axes the norm reduces; None for the flattened 2-norm (ord=None, axis=None)."""
    if axis is None:
        if ord is None:
            return None
        if x.ndim not in (1, 2):
            raise MetaError("norm: Improper number of dimensions to norm.")
        return tuple(range(x.ndim))
    axes = normalize_axes(axis, x.ndim)
    if len(axes) not in (1, 2) or (len(axes) == 2 and axes[0] == axes[1]):
        raise MetaError("norm: Improper number of dimensions to norm.")
    return axes


def _norm_empty_check(x: ArraySpec, ord: Any, axes: tuple[int, ...] | None) -> None:
    """Orders computed with a minimum fail on an empty axis (max-based ones start from 0)."""
    if axes is None:
        return
    sizes = [x.shape[a] for a in axes]
    if len(axes) == 1:
        empty = ord == -np.inf and sizes[0] == 0
    else:
        empty = {-np.inf: sizes[0] == 0, -1: sizes[1] == 0, -2: 0 in sizes}.get(ord, False)
    if empty:
        raise MetaError("norm: zero-size array to reduction operation minimum which has no identity")


def norm_meta(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> ArraySpec:
    x = as_spec(x)
    axes = _norm_kind(x, ord, axis)
    if axes is not None and len(axes) == 1 and isinstance(ord, str):
        raise MetaError(f"norm: Invalid norm order '{ord}' for vectors")
    if axes is not None and len(axes) == 2 and ord not in (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
        raise MetaError("norm: Invalid norm order for matrices.")
    reduced = range(x.ndim) if axes is None else axes
    _norm_empty_check(x, ord, axes)
    if keepdims:
        shape = tuple(1 if i in reduced else d for i, d in enumerate(x.shape))
    else:
        shape = tuple(d for i, d in enumerate(x.shape) if i not in reduced)
    p_axis = None if axis is None else tuple(normalize_axes(axis, x.ndim))
    dt = result_dtype("norm", np.linalg.norm, ones_probe(x), ord,
                      p_axis if p_axis is None or len(p_axis) == 2 else p_axis[0])
    return spec_like(shape, dt, True)


def _square(name: str, a: ArraySpec) -> None:
    if a.ndim < 2:
        raise MetaError(f"{name}: {a.ndim}-dimensional array given. Array must be at least two-dimensional")
    if a.shape[-1] != a.shape[-2]:
        raise MetaError(f"{name}: Last 2 dimensions of the array must be square")


def inv_meta(a: Any) -> ArraySpec:
    a = as_spec(a)
    _square("inv", a)
    return ArraySpec(a.shape, result_dtype("inv", np.linalg.inv, np.ones((1, 1), a.dtype)))


def det_meta(a: Any) -> ArraySpec:
    a = as_spec(a)
    _square("det", a)
    return spec_like(a.shape[:-2], result_dtype("det", np.linalg.det, np.ones((1, 1), a.dtype)), True)


def solve_meta(a: Any, b: Any) -> ArraySpec:
    """NumPy 2: b is a vector only when b.ndim == 1, otherwise a stack of (M, K) matrices."""
    a, b = as_spec(a), as_spec(b)
    _square("solve", a)
    m = a.shape[-1]
    dt = result_dtype("solve", np.linalg.solve, np.ones((1, 1), a.dtype), np.ones((1,), b.dtype))
    if b.ndim == 0:
        raise MetaError("solve: Input operand 1 does not have enough dimensions")
    if b.ndim == 1:
        if b.shape[0] != m:
            raise MetaError("solve: Input operand 1 has a mismatch in its core dimension 0")
        return ArraySpec(a.shape[:-1], dt)
    if b.shape[-2] != m:
        raise MetaError("solve: Input operand 1 has a mismatch in its core dimension 0")
    return ArraySpec(broadcast(a.shape[:-2], b.shape[:-2]) + (m, b.shape[-1]), dt)
