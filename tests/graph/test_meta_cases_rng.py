"""Argument generators for random generator objects (issue 9): `np.random.default_rng(seed)` and the methods
of a Generator / RandomState instance, whose first argument is an `RngArg` (the meta rule sees its RngSpec,
the real call a fresh generator). Merged into test_meta_cases.CASES.

Array parameters are filled 1, 2, 3, ... and offered only to draws that accept any positive value there:
a meta rule never sees values, and NumPy's value checks run when the graph runs.
"""

from __future__ import annotations

import inspect

import numpy as np
from hypothesis import strategies as st

from minidynamo.graph import meta_generator as GEN
from minidynamo.graph import ops
from minidynamo.graph.ir import RngSpec

from .test_meta_cases import arrays, optional, small_shapes
from .test_meta_cases_lib import random_case, sizes


class RngArg:
    """A generator argument: `spec()` for the meta rule, `real()` for NumPy (a fresh one per call)."""

    def __init__(self, kind: type) -> None:
        self.kind = kind

    def spec(self) -> RngSpec:
        return RngSpec(self.kind)

    def real(self):
        return np.random.default_rng(0) if self.kind is np.random.Generator else np.random.RandomState(0)

    def __repr__(self) -> str:
        return f"<{self.kind.__name__}>"


POSITIVE_PARAMS = {"normal", "exponential", "gamma", "lognormal", "laplace", "logistic", "gumbel",
                   "chisquare", "standard_t", "rayleigh", "weibull", "pareto", "power", "wald", "poisson",
                   "f", "noncentral_chisquare", "vonmises"}
float_params = st.sampled_from([0.5, 1, 2.0, -1.0, 0.25, 3])


@st.composite
def generator_case(draw, name: str):
    rng = RngArg(np.random.Generator)
    if name == "choice":
        a = draw(st.one_of(st.integers(0, 4), arrays(shape=draw(st.sampled_from([(3,), (0,), (2, 2)]))),
                           st.just([1.5, 2.5])))
        return (rng, a), draw(optional(size=sizes, replace=st.booleans(), shuffle=st.booleans()))
    if name in ("permutation", "shuffle"):
        x = draw(st.one_of(st.integers(-1, 4), arrays(shape_st=small_shapes)) if name == "permutation"
                 else arrays(scalar_ok=False))
        return (rng, x), draw(optional(axis=st.integers(-2, 2)))
    if name == "permuted":
        return (rng, draw(arrays(scalar_ok=False))), draw(optional(axis=st.sampled_from([None, 0, 1, -1])))
    if name == "integers":
        return (rng, draw(st.integers(-2, 3))), draw(optional(
            high=st.sampled_from([None, 5, 10]), size=sizes, endpoint=st.booleans(),
            dtype=st.sampled_from([np.int64, np.int8, np.uint16])))
    names = list(inspect.signature(getattr(np.random.Generator, name)).parameters)[1:]
    value = st.one_of(float_params, arrays(shape_st=small_shapes, dtype=np.float64)) \
        if name in POSITIVE_PARAMS else float_params
    kwargs = draw(optional(size=sizes, **{k: value for k in names[:names.index("size")]}))
    if "dtype" in names and draw(st.booleans()):
        kwargs["dtype"] = draw(st.sampled_from([np.float32, np.float64]))
    return (rng,), kwargs


@st.composite
def random_state_case(draw, name: str):
    args, kwargs = draw(random_case(name))
    return (RngArg(np.random.RandomState), *args), kwargs


RNG_CASES = {f"Generator.{n}": generator_case(n) for n in GEN.GENERATOR_DRAWS + GEN.GENERATOR_SPECIAL}
RNG_CASES.update({f"RandomState.{n}": random_state_case(n) for n in GEN.RANDOM_STATE_METHODS})
for _maker in ("random.default_rng", "random.RandomState"):
    RNG_CASES[_maker] = st.tuples(st.sampled_from([(), (None,), (0,), (5,), (-1,)]), st.just({}))
assert all(name in ops.REGISTRY for name in RNG_CASES)
# ~90 ops: a few examples each cover the shared rules.
RNG_EXAMPLES = {name: 12 for name in RNG_CASES}
