"""Knobs, read once: one frozen dataclass and a context manager that patches it. Imports nothing.

    from minidynamo import config
    with config.patch(cache_size_limit=2):
        ...
    config.current().suppress_errors
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import os
from typing import Iterator


def _cores() -> int:
    """The CPUs this process may run on (its affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:       # macOS, Windows
        return max(1, os.cpu_count() or 1)


class VerifyAction(enum.StrEnum):
    """What shadow verification does when a compiled call differs from eager (equal to its string)."""

    RAISE = "raise"     # raise minidynamo.VerificationError
    WARN = "warn"       # warn (VerificationWarning) and return the eager call's result


@dataclasses.dataclass(frozen=True)
class Config:
    suppress_errors: bool = True        # an internal error during capture -> run that frame eagerly, log once
    cache_size_limit: int = 8           # captured variants per compiled piece before new variants run eagerly
    inline_depth_limit: int = 8         # nested user-function inlining before breaking at the call
    unroll_limit: int = 64              # Python loop iterations unrolled before the loop is left to Python
    max_instructions: int = 200_000     # symbolic steps per capture: a guard against runaway capture
    dask_chunk_bytes: int = 0           # backend="dask" chunks NumPy inputs to about this size (0: dask's own)
    # ... and on a distributed Client keeps up to this many bytes of them scattered on the workers, reused
    # while unchanged (least recently used released past it; 0: embed them in every call's graph instead)
    dask_scatter_bytes: int = 1 << 34
    # backend="jax": a folder for JAX's persistent compilation cache, shared by later processes ("": off)
    jax_cache_dir: str = ""
    auto_cond: bool = True              # a data-dependent if with pure arms becomes a cond node, not a break
    fori_loops: bool = True             # a for-range loop whose body is graph code becomes a fori_loop node
    # The default backend's exact fast path (backends/fast_path/): large element-wise and row-wise regions run
    # over cache-sized blocks of rows, spread over `threads` threads (1: the calling thread only).
    fast_path: bool = True
    threads: int = dataclasses.field(default_factory=_cores)
    fast_path_min_bytes: int = 1 << 22  # ... for regions whose largest array has this many bytes (0: any, tests)
    fast_path_one_step_bytes: int = 1 << 25  # ... and for a region of one step (fast_path._bar says why)
    fast_path_block_bytes: int = 0      # bytes of the widest value per block (0: the backend's choice)
    fast_path_timed: bool = True        # a graph's first calls time it with and without its regions (trial.py)
    # Shadow verification (verify.py): every Nth warm call also runs eagerly on copies and is compared (0: off).
    # Read when compile() is called (config.patch around it, or compile(..., options={"verify_every": 1})).
    verify_every: int = 0
    verify_action: VerifyAction = VerifyAction.RAISE
    log_channels: frozenset[str] = frozenset(
        c.strip() for c in os.environ.get("MINIDYNAMO_LOGS", "").split(",") if c.strip())

    def __post_init__(self) -> None:
        # A typo'd value (a string limit, a negative depth) would otherwise fail deep inside a capture.
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.type == "bool" and type(value) is not bool:
                raise TypeError(f"config option {f.name} must be True or False, got {value!r}")
            if f.type == "str" and type(value) is not str:
                raise TypeError(f"config option {f.name} must be a str, got {value!r}")
            if f.type == "int" and (type(value) is not int or value < 0):
                raise TypeError(f"config option {f.name} must be an int >= 0, got {value!r}")
        if self.verify_action not in tuple(VerifyAction):
            raise TypeError(f"config option verify_action must be 'raise' or 'warn', got {self.verify_action!r}")
        if self.threads < 1:
            raise TypeError(f"config option threads must be an int >= 1, got {self.threads!r}")


_current = Config()


def current() -> Config:
    return _current


def set_config(**changes: object) -> Config:
    """Replace knobs for the rest of the process; unknown names raise TypeError naming them."""
    global _current
    check_names(changes)
    _current = dataclasses.replace(_current, **changes)
    return _current


def check_names(changes: dict) -> None:
    """Raise TypeError naming every unknown option (and listing the known ones)."""
    names = {f.name for f in dataclasses.fields(Config)}
    unknown = sorted(map(str, set(changes) - names))
    if unknown:
        raise TypeError(f"unknown config option(s): {', '.join(unknown)}; known: {', '.join(sorted(names))}")


def with_options(options: dict) -> Config:
    """The current config with per-function `options` applied, validated (compile(..., options=...))."""
    check_names(options)
    return dataclasses.replace(_current, **options) if options else _current


def patch(**changes: object) -> contextlib.AbstractContextManager[Config]:
    """Temporarily change knobs: `with config.patch(suppress_errors=False): ...`. Unknown names and bad
    values raise TypeError here, at the call (not when the `with` block is entered)."""
    with_options(changes)
    return _patched(changes)


@contextlib.contextmanager
def _patched(changes: dict) -> Iterator[Config]:
    global _current
    saved = _current
    try:
        yield set_config(**changes)
    finally:
        _current = saved
