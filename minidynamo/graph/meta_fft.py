"""Meta rules of numpy.fft: fft, ifft, rfft, irfft, fft2, ifft2, fftn, ifftn, rfftn, irfftn, fftfreq,
rfftfreq, fftshift, ifftshift.

Imports numpy and graph.meta only. Output lengths follow NumPy's documented rules, written out; dtypes (and
NumPy's errors for a bad axis, norm or length) come from running the real function on a probe with the
operand's ndim and every dimension 1, so the probe costs the same for any input size.
"""

from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np

from .ir import ArraySpec
from .meta import MetaError, MetaUnsupported, as_spec, normalize_axis, reject_keywords, run_probe, spec_like

_ONE_AXIS = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")


def _points(n: Any, what: str) -> int:
    try:
        n = operator.index(n)
    except TypeError:
        raise MetaError(f"{what}: the number of FFT data points must be an integer, got {n!r}") from None
    if n < 1:
        raise MetaError(f"Invalid number of FFT data points ({n}) specified.")
    return n


def _out_length(name: str, n_in: int) -> int:
    """The output length along a transformed axis of n_in points (after cropping or zero-padding)."""
    if name in ("rfft", "ihfft"):
        return n_in // 2 + 1
    return n_in


def _unit(x: ArraySpec) -> np.ndarray:
    return np.ones((1,) * x.ndim, x.dtype)


def one_axis_meta(fn: Callable) -> Callable[..., ArraySpec]:
    """fft(a, n=None, axis=-1, norm=None): the axis becomes n (or stays) points; rfft keeps n//2+1, irfft
    makes n (default 2*(m-1)) real points."""
    name = fn.__name__

    def rule(a: Any, n: Any = None, axis: Any = -1, norm: Any = None, out: Any = None) -> ArraySpec:
        if out is not None:
            raise MetaUnsupported(f"{name}: unsupported keyword 'out'")
        x = as_spec(a)
        # The probe checks axis and norm and gives the dtype (two points: irfft of one point is empty).
        probe_n = 2 if name in ("irfft", "hfft") else None
        dtype = np.asarray(run_probe(name, fn, _unit(x), probe_n, axis, norm)).dtype
        ax = normalize_axis(axis, x.ndim)
        m = x.shape[ax]
        if n is None:
            n_in = 2 * (m - 1) if name in ("irfft", "hfft") else m
            n_in = _points(n_in, name)
        else:
            n_in = _points(n, name)
        shape = x.shape[:ax] + (_out_length(name, n_in),) + x.shape[ax + 1:]
        return ArraySpec(shape, dtype)

    rule.__name__ = f"{name}_meta"
    return rule


def _nd_axes(x: ArraySpec, s: Any, axes: Any, default_2d: bool) -> tuple[list[int], list[int] | None]:
    if s is not None and not isinstance(s, (tuple, list)):
        raise MetaError("fftn: s must be a sequence of integers")
    if s is not None and any(v is None for v in s):
        raise MetaUnsupported("fftn: unsupported None in s (deprecated by NumPy)")
    if axes is None:
        if default_2d:
            axes = (-2, -1)
        else:
            axes = tuple(range(-len(s), 0)) if s is not None else tuple(range(x.ndim))
    elif not isinstance(axes, (tuple, list)):
        raise MetaError("fftn: axes must be a sequence of integers")
    if s is not None and len(s) != len(axes):
        raise MetaError("Shape and axes have different lengths.")
    ax = [normalize_axis(a, x.ndim) for a in axes]
    if len(set(ax)) != len(ax):     # repeated axes: NumPy's result depends on which pass runs last
        raise MetaUnsupported("fftn: unsupported: repeated axes")
    return ax, (None if s is None else list(s))


def many_axes_meta(fn: Callable, default_2d: bool) -> Callable[..., ArraySpec]:
    """fftn(a, s=None, axes=None, norm=None) and the 2-d forms, as NumPy runs them: one 1-d transform per
    listed axis (so a repeated axis is transformed twice), c2c in reverse order, rfftn the last axis first,
    irfftn the last axis last. s[i] == -1 means the axis' own length; irfftn's default last length is
    2*(m-1)."""
    name = fn.__name__
    real_in, real_out = name.startswith("rfft"), name.startswith("irfft")

    def rule(a: Any, s: Any = None, axes: Any = None if not default_2d else (-2, -1), norm: Any = None,
             out: Any = None) -> ArraySpec:
        if out is not None:
            raise MetaUnsupported(f"{name}: unsupported keyword 'out'")
        x = as_spec(a)
        ax, sizes = _nd_axes(x, s, axes, default_2d)
        if not ax:
            if real_in or real_out:
                raise MetaError(f"{name}: at least one axis must be transformed")
            dtype = np.asarray(run_probe(name, fn, _unit(x), None, (), norm)).dtype
            return ArraySpec(x.shape, dtype)
        probe_s = [2 if real_out and i == len(ax) - 1 else 1 for i in range(len(ax))]
        dtype = np.asarray(run_probe(name, fn, _unit(x), probe_s, ax, norm)).dtype
        if sizes is None:
            sizes = [x.shape[a_] for a_ in ax]
            if real_out:
                sizes[-1] = 2 * (x.shape[ax[-1]] - 1)
        else:
            sizes = [x.shape[a_] if n == -1 else n for a_, n in zip(ax, sizes)]
        shape = list(x.shape)
        last = len(ax) - 1
        if real_in:
            order = [last] + list(range(last))
        elif real_out:
            order = list(range(last)) + [last]
        else:
            order = list(reversed(range(len(ax))))
        for i in order:
            n_in = _points(sizes[i], name)
            shape[ax[i]] = n_in // 2 + 1 if real_in and i == last else n_in
        return ArraySpec(tuple(shape), dtype)

    rule.__name__ = f"{name}_meta"
    return rule


def fftfreq_meta(n: Any, d: Any = 1.0, device: Any = None) -> ArraySpec:
    """The sample frequencies of an n-point fft: n values (the probe takes at most one point, which also
    raises NumPy's own errors for n <= 0 or d == 0)."""
    count = operator.index(n)
    dtype = np.asarray(run_probe("fftfreq", np.fft.fftfreq, min(count, 1), d)).dtype
    return ArraySpec((count,), dtype)


def rfftfreq_meta(n: Any, d: Any = 1.0, device: Any = None) -> ArraySpec:
    """n//2 + 1 values (NumPy builds them with arange, so a negative n gives an empty array)."""
    count = operator.index(n)
    dtype = np.asarray(run_probe("rfftfreq", np.fft.rfftfreq, min(count, 1), d)).dtype
    return ArraySpec((max(count // 2 + 1, 0),), dtype)


def shift_meta(fn: Callable) -> Callable[..., ArraySpec]:
    """fftshift(x, axes=None) / ifftshift: a roll, so the spec of x (as an ndarray)."""
    name = fn.__name__

    def rule(x: Any, axes: Any = None, **kwargs: Any) -> ArraySpec:
        reject_keywords(name, kwargs)
        spec = as_spec(x)
        res = run_probe(name, fn, np.ones((1,) * spec.ndim, spec.dtype), axes)
        return spec_like(spec.shape, np.asarray(res).dtype, False)

    rule.__name__ = f"{name}_meta"
    return rule


ONE_AXIS = {name: getattr(np.fft, name) for name in _ONE_AXIS}
MANY_AXES = {name: (getattr(np.fft, name), name.endswith("2"))
             for name in ("fft2", "ifft2", "fftn", "ifftn", "rfft2", "irfft2", "rfftn", "irfftn")}
