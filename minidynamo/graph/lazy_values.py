"""Lazy array values (a dask array) as capture sees them: a hook the engine's backend fills when it loads,
so the front end never imports a backend. Imports nothing of the package.

backends/dask_lowering.py registers its engine (the backends package imports it, and api imports the
backends before anything is captured): `is_lazy(value)` tells a graph input that is such an array, and
`refusal(op, target, args, kwargs)` why an op on one would not compute what NumPy computes (None: it does),
so capture records only ops the engine runs faithfully and breaks on the others.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable


@dataclass(frozen=True)
class LazyEngine:
    name: str
    is_lazy: Callable[[Any], bool]
    refusal: Callable[[str, Any, tuple, dict], "str | None"]


_engine: list[LazyEngine] = []        # at most one: the engine whose arrays capture takes as lazy inputs


def register(engine: LazyEngine) -> None:
    _engine[:] = [engine]


def is_lazy(value: Any) -> bool:
    return bool(_engine) and _engine[0].is_lazy(value)


def refusal(op: str, target: Any, args: tuple, kwargs: dict) -> str | None:
    """Why the registered engine cannot run `op` faithfully on its arrays (only asked for a lazy operand)."""
    return _engine[0].refusal(op, target, args, kwargs)
