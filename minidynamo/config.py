"""Knobs, read once: one frozen dataclass and a context manager that patches it. Imports nothing.

    from minidynamo import config
    with config.patch(cache_size_limit=2):
        ...
    config.current().suppress_errors
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from typing import Iterator


@dataclasses.dataclass(frozen=True)
class Config:
    suppress_errors: bool = True        # an internal error during capture -> run that frame eagerly, log once
    cache_size_limit: int = 8           # captured variants per code object before falling back to eager
    inline_depth_limit: int = 8         # nested user-function inlining before breaking at the call
    unroll_limit: int = 64              # Python loop iterations unrolled before the loop is left to Python
    max_instructions: int = 200_000     # symbolic steps per capture: a guard against runaway capture
    log_channels: frozenset[str] = frozenset(
        c.strip() for c in os.environ.get("MINIDYNAMO_LOGS", "").split(",") if c.strip())


_current = Config()


def current() -> Config:
    return _current


def set_config(**changes: object) -> Config:
    """Replace knobs for the rest of the process; unknown names raise TypeError naming them."""
    global _current
    names = {f.name for f in dataclasses.fields(Config)}
    unknown = sorted(set(changes) - names)
    if unknown:
        raise TypeError(f"unknown config option(s): {', '.join(unknown)}; known: {', '.join(sorted(names))}")
    _current = dataclasses.replace(_current, **changes)
    return _current


@contextlib.contextmanager
def patch(**changes: object) -> Iterator[Config]:
    """Temporarily change knobs: `with config.patch(suppress_errors=False): ...`."""
    global _current
    saved = _current
    try:
        yield set_config(**changes)
    finally:
        _current = saved
