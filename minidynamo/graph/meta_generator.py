"""Meta rules of random generator objects: `np.random.default_rng(seed)` and the methods of a Generator or
RandomState instance (`rng.normal(0, 1, size=(4, 8))`, `rs.randn(3)`).

Imports numpy, graph.meta, graph.meta_random and graph.ir. A rule's first argument is the generator's
RngSpec. Generator draws are bound with the method's own signature: the parameters before `size` broadcast
with it, and the dtype, the trailing axes (none for these draws) and NumPy's errors for constant
parameters come from the same method of a private Generator run on unit probes, so a meta rule never
touches the user's stream. A draw whose result is a Python number (`rng.normal()`) is that number, known
only when the graph runs (PyScalarSpec). RandomState methods reuse the legacy global functions' rules.
"""

from __future__ import annotations

import functools
import inspect
import operator
from typing import Any, Callable

import numpy as np

from . import meta_random as RND
from .ir import ArraySpec, PyScalarSpec, RngSpec
from .meta import MetaError, MetaUnsupported, as_spec, broadcast, is_spec, run_probe
from .symbolic import Sym

# Generator methods of the form draw(*parameters, size=None, [dtype, endpoint, method, out]).
GENERATOR_DRAWS = (
    "random", "standard_normal", "normal", "uniform", "integers", "exponential", "standard_exponential",
    "gamma", "standard_gamma", "beta", "binomial", "poisson", "lognormal", "laplace", "logistic", "gumbel",
    "chisquare", "standard_t", "standard_cauchy", "geometric", "rayleigh", "weibull", "pareto", "power",
    "vonmises", "wald", "triangular", "hypergeometric", "negative_binomial", "noncentral_chisquare",
    "noncentral_f", "f", "logseries", "zipf",
)
GENERATOR_SPECIAL = ("choice", "permutation", "shuffle", "permuted")
# RandomState methods: the legacy global functions' names (np.random.normal is the global instance's).
RANDOM_STATE_METHODS = (*RND.DRAWS, *RND.DIMS_DRAWS, "randint", "choice", "permutation", "shuffle")


@functools.lru_cache(maxsize=None)
def _signature(name: str) -> inspect.Signature:
    return inspect.signature(getattr(np.random.Generator, name))


def _private() -> np.random.Generator:
    return np.random.default_rng(0)


def _unit_shape(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(min(d, 1) for d in shape)


def _bind(name: str, args: tuple, kwargs: dict) -> dict[str, Any]:
    try:
        bound = _signature(name).bind(None, *args, **kwargs)
    except TypeError as e:
        raise MetaError(f"Generator.{name}: {e}") from None
    values = dict(bound.arguments)
    del values["self"]
    if values.get("out") is not None:
        raise MetaUnsupported(f"Generator.{name}: unsupported: out=")
    return values


def _spec_of(what: str, res: Any, shape: tuple) -> ArraySpec:
    if isinstance(res, np.generic) and shape == ():
        return ArraySpec((), res.dtype, scalar=True)
    if type(res) in (int, float) and shape == ():      # a Python number, known only when the graph runs
        return PyScalarSpec(type(res))
    if not isinstance(res, np.ndarray):
        raise MetaUnsupported(f"{what}: unsupported: without a size the draw is a Python number")
    return ArraySpec(shape, res.dtype)


def generator_draw_meta(name: str) -> Callable[..., ArraySpec]:
    """rng.<draw>(*parameters, size=None, ...): the shape is `size` (or the parameters' broadcast shape)."""
    names = list(_signature(name).parameters)[1:]
    params = names[:names.index("size")]

    def rule(rng: RngSpec, *args: Any, **kwargs: Any) -> ArraySpec:
        values = _bind(name, args, kwargs)
        size = RND.size_shape(values.get("size"))
        if size is not None and any(d < 0 for d in size):
            raise MetaError(f"Generator.{name}: negative dimensions are not allowed")
        probe = {k: RND.unit_probe(v) for k, v in values.items()}
        if size is not None:
            probe["size"] = _unit_shape(size)
        res = run_probe(f"Generator.{name}", getattr(_private(), name), **probe)
        shapes = [as_spec(values[k]).shape for k in params
                  if k in values and (is_spec(values[k]) or isinstance(values[k], (list, tuple)))]
        base = broadcast(*shapes) if shapes else ()
        if size is not None:
            if shapes and broadcast(size, *shapes) != size:
                raise MetaError(f"Generator.{name}: shape mismatch: objects cannot be broadcast to the size {size}")
            base = size
        return _spec_of(f"Generator.{name}", res, base + tuple(np.shape(res))[len(base):])

    rule.__name__ = f"Generator_{name}_meta"
    return rule


def generator_choice_meta(rng: RngSpec, *args: Any, **kwargs: Any) -> ArraySpec:
    """choice(a, size): items of a 1-d array, a sequence or arange(n); p must be a constant."""
    values = _bind("choice", args, kwargs)
    a, size = values["a"], RND.size_shape(values.get("size"))
    if is_spec(values.get("p")):
        raise MetaUnsupported("Generator.choice: unsupported: p as an array (its values are checked)")
    if values.get("axis", 0) != 0:
        raise MetaUnsupported("Generator.choice: unsupported: axis other than 0")
    probe = dict(values)
    if size is not None and values.get("replace", True):
        probe["size"] = _unit_shape(size)        # with replacement, only the population decides errors
    if is_spec(a):
        if a.ndim != 1 or a.scalar:
            raise MetaUnsupported("Generator.choice: unsupported: a must be a 1-d array")
        probe["a"] = np.zeros(operator.index(a.shape[0]), a.dtype)    # the population size decides errors
    res = run_probe("Generator.choice", _private().choice, **probe)
    return _spec_of("Generator.choice", res, () if size is None else size)


def generator_permutation_meta(rng: RngSpec, x: Any, axis: int = 0) -> ArraySpec:
    """A shuffled copy of x (an array of at least one dimension) or of arange(n)."""
    if is_spec(x):
        if x.ndim == 0 or x.scalar:
            raise MetaUnsupported("Generator.permutation: unsupported: a 0-d x has a data-dependent length")
        if not -x.ndim <= axis < x.ndim:
            raise MetaError(f"Generator.permutation: axis {axis} is out of bounds for array of dimension {x.ndim}")
        return ArraySpec(x.shape, x.dtype)
    return RND.permutation_meta(x)


def generator_shuffle_meta(rng: RngSpec, x: Any, axis: int = 0) -> None:
    """Shuffles an array in place along `axis`."""
    if not is_spec(x) or x.scalar or x.ndim == 0:
        raise MetaUnsupported("Generator.shuffle: unsupported: only arrays of at least one dimension")
    if not -x.ndim <= operator.index(axis) < x.ndim:
        raise MetaError(f"Generator.shuffle: axis {axis} is out of bounds for array of dimension {x.ndim}")
    return None


def generator_permuted_meta(rng: RngSpec, x: Any, *, axis: Any = None, out: Any = None) -> ArraySpec:
    if out is not None or not is_spec(x) or x.scalar or x.ndim == 0:
        raise MetaUnsupported("Generator.permuted: unsupported: out=, or x not an array of at least one dimension")
    if axis is not None and not -x.ndim <= operator.index(axis) < x.ndim:
        raise MetaError(f"Generator.permuted: axis {axis} is out of bounds for array of dimension {x.ndim}")
    return ArraySpec(x.shape, x.dtype)


GENERATOR_SPECIAL_RULES = {"choice": generator_choice_meta, "permutation": generator_permutation_meta,
                           "shuffle": generator_shuffle_meta, "permuted": generator_permuted_meta}


def random_state_meta(name: str) -> Callable[..., Any]:
    """rs.<name>(...) of a RandomState instance: the legacy global function's rule (same method)."""
    if name in RND.DRAWS:
        legacy = RND.draw_meta(name)
    elif name in RND.DIMS_DRAWS:
        legacy = RND.dims_meta(name)
    else:
        legacy = {"randint": RND.randint_meta, "choice": RND.choice_meta,
                  "permutation": RND.permutation_meta, "shuffle": RND.shuffle_meta}[name]

    def rule(rng: RngSpec, *args: Any, **kwargs: Any) -> Any:
        return legacy(*args, **kwargs)

    rule.__name__ = f"RandomState_{name}_meta"
    return rule


def _maker_meta(name: str, make: Callable[..., Any], made: type) -> Callable[..., RngSpec]:
    """np.random.default_rng(seed) / np.random.RandomState(seed): a new generator each call. A constant
    seed is checked now (a negative one raises); an array or a generator as seed is not modelled."""

    def rule(seed: Any = None) -> RngSpec:
        if is_spec(seed) or isinstance(seed, (np.random.Generator, np.random.BitGenerator,
                                              np.random.SeedSequence, np.random.RandomState)):
            raise MetaUnsupported(f"random.{name}: unsupported: a seed that is an array or a generator")
        if not isinstance(seed, Sym):
            run_probe(f"random.{name}", make, seed)
        return RngSpec(made)

    rule.__name__ = f"{name}_meta"
    return rule


default_rng_meta = _maker_meta("default_rng", np.random.default_rng, np.random.Generator)
random_state_maker_meta = _maker_meta("RandomState", np.random.RandomState, np.random.RandomState)
