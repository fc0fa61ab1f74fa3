"""The benchmark corpus: NumPy programs written the way real code is written, each with seeded inputs.

A `Model` names a function and says how to build its arguments (`build(size, seed)`, size "small" for
correctness checks, "large" for milliseconds of eager work). Weights come from a fixed seed and only the data
follows `seed`, so "fresh inputs" keep the same weights, as a deployed model would. Branchy models also give
`other(size, seed)`: inputs that take the branch the seed-0 inputs do not. `trace` tells the tracing front end
which positional arguments are traced arrays and which one is the params dict (None: trace cannot call it).

    from benchmarks.corpus import MODELS
    m = MODELS[0]; m.function("small")(*m.build("small", 0))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

SIZES = ("small", "large")


@dataclass(frozen=True)
class TraceSpec:
    """How `trace(fn, {name: shape}, params)` calls a model: `inputs` are the names of the positional arguments
    that become traced arrays; `params` names the dict argument passed as trace's params (or None). Every other
    argument keeps the value it had in the example call (a constant of the trace)."""

    inputs: tuple[str, ...]
    params: str | None = None


@dataclass(frozen=True)
class Model:
    name: str
    fn: Callable
    build: Callable[[str, int], tuple]
    style: str                                            # what kind of real code it stands for
    trace: TraceSpec | None = None                        # None: not applicable (counted as not captured)
    other: Callable[[str, int], tuple] | None = None      # inputs taking the other branch
    make_fn: Callable[[str], Callable] | None = None      # for closures whose captured weights depend on size

    def function(self, size: str = "small") -> Callable:
        """The function to call at this size (the same object on every call, so caches can hit)."""
        return self.make_fn(size) if self.make_fn is not None else self.fn


def registry() -> list[Model]:
    """Every model of every corpus module, in a fixed order."""
    from . import idioms, nets, python_style, physics, real_code, training
    models: list[Model] = []
    for module in (nets, training, physics, python_style, real_code, idioms):
        models += module.MODELS
    names = [m.name for m in models]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"duplicate model names in the corpus: {duplicates}")
    return models


MODELS: list[Model] = registry()
