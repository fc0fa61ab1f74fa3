"""The fast path's worker threads: one shared pool per thread count, made on first use.

Imports concurrent.futures and os only. A call hands `threads - 1` copies of its work to the pool and does
one itself, so it always progresses, even when the pool is busy with another caller's blocks; a pool task
never waits for another. After a fork the child's pools are dropped (their threads did not come along).
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable

_pools: dict[int, ThreadPoolExecutor] = {}
_lock = threading.Lock()


def submit(threads: int, fn: Callable[..., Any], *args: Any) -> Future:
    """Run fn(*args) on the pool serving callers of `threads` threads (threads - 1 workers)."""
    executor = _pools.get(threads)
    if executor is None:
        with _lock:
            executor = _pools.get(threads)
            if executor is None:
                executor = _pools[threads] = ThreadPoolExecutor(max_workers=max(1, threads - 1),
                                                                thread_name_prefix="minidynamo-fast-path")
    return executor.submit(fn, *args)


def _forget_after_fork() -> None:
    _pools.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)
