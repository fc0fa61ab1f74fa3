"""JAX's persistent compilation cache, opt in (`config.patch(jax_cache_dir=path)`): XLA executables the
backend compiles are written to `path` and read back by later processes, so a program run again skips
XLA's compile of graphs it compiled before (the capture itself still runs: it is what decides the graphs).

Imports jax. JAX decides at its first compile whether it has a cache (a later change of its directory
option alone is ignored), so after setting the directory the backend asks JAX to decide again
(compilation_cache.reset_cache, JAX's own way; where a JAX version lacks it, the option takes effect only
before JAX's first compile). A directory the program gave JAX itself stands: the option then has no
effect, and the log says so. With the option on, every executable is cached, not only those that took a
second to compile (JAX's default minimum): the backend's graphs are small and compile in milliseconds.
"""

from __future__ import annotations

import logging

import jax

# the channel report.log names "graph_code" (backends import no report module): a warning shows by default
_log = logging.getLogger("minidynamo.graph_code")

_applied: list[str] = []          # the directories asked for in this process, each handled once


def use(directory: str) -> None:
    """Point JAX's persistent cache at `directory` if it can still take effect (see the module doc)."""
    if not directory or directory in _applied:
        return
    current = jax.config.jax_compilation_cache_dir
    _applied.append(directory)
    if current and current != directory:
        _log.warning("minidynamo: config jax_cache_dir=%r has no effect: JAX's compilation cache "
                     "already uses %r in this process", directory, current)
        return
    jax.config.update("jax_compilation_cache_dir", directory)
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    try:
        from jax._src import compilation_cache
        compilation_cache.reset_cache()
    except (ImportError, AttributeError):    # another JAX: the directory counts from its first compile
        pass
