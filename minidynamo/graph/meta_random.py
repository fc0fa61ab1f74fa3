"""Meta rules of the legacy global random functions (np.random.rand, normal, randint, choice, ...).

Imports numpy and graph.meta only. A draw's shape is its `size` (or its dims for rand/randn), else the
broadcast shape of its array parameters; its dtype (and NumPy's errors for a bad parameter, such as a
negative scale or `replace=False` with too small a population) come from the same method of a private
RandomState run on unit probes, so the meta never touches the user's stream. A draw without a size whose
result is a Python float or int (`np.random.rand()`) is a Python number the graph returns (PyScalarSpec).
The ops are flagged random, so passes never fold, merge, drop or reorder them.
"""

from __future__ import annotations

import operator
from typing import Any, Callable

import numpy as np

from .ir import ArraySpec, PyScalarSpec
from .meta import (DataDependentShape, MetaError, MetaUnsupported, as_spec, broadcast, is_spec, reject_value_dims,
                   run_probe)

# name -> names of the array-valued parameters (before `size`), in NumPy's order
DRAWS: dict[str, tuple[str, ...]] = {
    "random": (), "random_sample": (), "standard_normal": (), "standard_exponential": (),
    "normal": ("loc", "scale"), "uniform": ("low", "high"), "exponential": ("scale",),
    "laplace": ("loc", "scale"), "lognormal": ("mean", "sigma"),
    # distributions whose unit probe (every array parameter 1) is a valid call, so the meta's probe
    # refuses only what NumPy refuses (triangular, logseries and zipf refuse 1: not listed)
    "binomial": ("n", "p"), "negative_binomial": ("n", "p"), "poisson": ("lam",), "geometric": ("p",),
    "hypergeometric": ("ngood", "nbad", "nsample"), "beta": ("a", "b"), "gamma": ("shape", "scale"),
    "standard_gamma": ("shape",), "logistic": ("loc", "scale"), "gumbel": ("loc", "scale"),
    "rayleigh": ("scale",), "chisquare": ("df",), "standard_t": ("df",), "standard_cauchy": (),
    "weibull": ("a",), "pareto": ("a",), "power": ("a",), "vonmises": ("mu", "kappa"), "wald": ("mean", "scale"),
    "f": ("dfnum", "dfden"), "noncentral_chisquare": ("df", "nonc"), "noncentral_f": ("dfnum", "dfden", "nonc"),
}
DIMS_DRAWS = ("rand", "randn")


def _private() -> np.random.RandomState:
    return np.random.RandomState(0)


def unit_probe(value: Any) -> Any:
    if is_spec(value):
        return np.ones(tuple(min(d, 1) for d in value.shape), value.dtype)
    return value


def size_shape(size: Any) -> tuple[int, ...] | None:
    if size is None:
        return None
    reject_value_dims(size if isinstance(size, (tuple, list)) else (size,), "size")
    try:
        return (operator.index(size),)
    except TypeError:
        pass
    if not isinstance(size, (tuple, list)):
        raise MetaError(f"random: size must be an integer or a tuple of integers, got {size!r}")
    return tuple(operator.index(d) for d in size)


def _result(name: str, res: Any, shape: tuple[int, ...]) -> ArraySpec:
    if isinstance(res, np.generic) and shape == ():     # an item of an array-like population: a NumPy scalar
        return ArraySpec((), res.dtype, scalar=True)
    if type(res) in (int, float) and shape == ():      # a Python number, known only when the graph runs
        return PyScalarSpec(type(res))
    if not isinstance(res, np.ndarray):
        raise MetaUnsupported(f"random.{name}: unsupported: without a size the draw is a Python number")
    if any(d < 0 for d in shape):
        raise MetaError(f"random.{name}: negative dimensions are not allowed")
    return ArraySpec(shape, res.dtype)


def draw_meta(name: str) -> Callable[..., ArraySpec]:
    """normal(loc=0.0, scale=1.0, size=None) & co: parameters, then size."""
    params = DRAWS[name]

    def rule(*args: Any, **kwargs: Any) -> ArraySpec:
        if len(args) > len(params) + 1:
            raise MetaError(f"random.{name}: too many arguments")
        bound = dict(zip(params + ("size",), args))
        for k, v in kwargs.items():
            if k not in params + ("size",) or k in bound:
                raise MetaError(f"random.{name}: unexpected keyword {k!r}")
            bound[k] = v
        size = size_shape(bound.get("size"))
        values = {k: bound[k] for k in params if k in bound}
        unit_size = None if size is None else tuple(min(d, 1) for d in size)
        probe_kw = {k: unit_probe(v) for k, v in values.items()}
        if unit_size is not None:
            probe_kw["size"] = unit_size
        res = run_probe(f"random.{name}", getattr(_private(), name), **probe_kw)
        shapes = [as_spec(v).shape for v in values.values() if is_spec(v) or isinstance(v, (list, tuple))]
        if size is None:     # all-0-d parameters give a Python float, which _result refuses
            shape = broadcast(*shapes) if shapes else ()
            return _result(name, res if shape == () else np.asarray(res), shape)
        if shapes and broadcast(size, *shapes) != size:
            raise MetaError(f"random.{name}: shape mismatch: objects cannot be broadcast to the size {size}")
        return _result(name, res, size)

    rule.__name__ = f"{name}_meta"
    return rule


def dims_meta(name: str) -> Callable[..., ArraySpec]:
    """rand(d0, d1, ...) / randn(...): the dims are the shape."""

    def rule(*dims: Any) -> ArraySpec:
        reject_value_dims(dims, "a dimension")
        shape = tuple(operator.index(d) for d in dims)
        res = run_probe(f"random.{name}", getattr(_private(), name), *(min(d, 1) for d in shape))
        return _result(name, res, shape)

    rule.__name__ = f"{name}_meta"
    return rule


def randint_meta(low: Any, high: Any = None, size: Any = None, dtype: Any = int) -> ArraySpec:
    shape = size_shape(size)
    if is_spec(low) or is_spec(high):
        raise MetaUnsupported("random.randint: unsupported: array bounds")
    res = run_probe("random.randint", _private().randint, low, high,
                    None if shape is None else tuple(min(d, 1) for d in shape), dtype)
    return _result("randint", res, shape if shape is not None else ())


def choice_meta(a: Any, size: Any = None, replace: bool = True, p: Any = None) -> ArraySpec:
    """choice(a, size): `size` items of a (an int n means arange(n)); p must be a constant. Without a size,
    an item of an array-like `a` is a NumPy scalar (of an int `a`, a Python int: refused)."""
    if is_spec(p):
        raise MetaUnsupported("random.choice: unsupported: p as an array (its values are checked)")
    shape = size_shape(size)
    if is_spec(a):
        if a.ndim != 1:
            raise MetaError("random.choice: a must be 1-dimensional")
        population, probe_a = a.shape[0], np.ones(min(a.shape[0], 1), a.dtype)
    elif isinstance(a, (list, tuple, range)):       # (a range is converted as np.array(range(...)) is)
        population, probe_a = len(a), a
    else:
        population = operator.index(a)
        probe_a = a if p is not None or population <= 0 else 1
    count = 1 if shape is None else int(np.prod(shape))
    if count and population == 0:
        raise MetaError("random.choice: a cannot be empty unless no samples are taken")
    if not replace and count > population:
        raise MetaError("random.choice: Cannot take a larger sample than population when replace is False")
    unit = None if shape is None else tuple(min(d, 1) for d in shape)
    res = run_probe("random.choice", _private().choice, probe_a, unit, True, p)
    return _result("choice", res, shape if shape is not None else ())


def permutation_meta(x: Any) -> ArraySpec:
    if is_spec(x):
        if x.ndim == 0:     # a 0-d integer means arange(x): its length is the value
            raise DataDependentShape("random.permutation: a 0-d x has a data-dependent length")
        return ArraySpec(x.shape, x.dtype)
    n = operator.index(x)
    res = run_probe("random.permutation", _private().permutation, min(n, 1) if n >= 0 else n)
    return ArraySpec((max(n, 0),), res.dtype)     # arange(n): empty for a negative n


def shuffle_meta(x: Any) -> None:
    """Shuffles an array in place along its first axis."""
    if not is_spec(x) or x.scalar or x.ndim == 0:
        raise MetaUnsupported("random.shuffle: unsupported: only arrays of at least one dimension")
    return None


def seed_meta(seed: Any = None) -> None:
    """np.random.seed(seed) resets the global state: the seed's checks (type, range) on a private RandomState."""
    run_probe("random.seed", _private().seed, unit_probe(seed))
    return None
