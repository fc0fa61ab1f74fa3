"""The cyclic garbage collector paused while minidynamo captures (issue 28, capture time).

Imports only the stdlib. A capture allocates tens of thousands of objects that stay alive (symbolic values,
graphs, guards, generated code), so the collector, counting allocations, runs again and again during it:
a gen-2 pass over a process holding NumPy and a few captured programs took 60-190 ms, and fuzz seeds 14
and 28 spent 120-230 ms of their 1 s of capture time collecting, almost all of it inside captures.
`paused()` turns the collector off for the capture's own work and back on as the caller had it; what
the capture left behind is then collected by the next pass, once, in the caller's own time.

Never around the program's code: `unpaused()` opens a hole for what runs the user's code inside a capture
(a backend the user passed, which may run the graph). Threads share the collector: the first pause in
takes note of whether it was on, the last one out (of any thread) turns it on again if so; a program that
itself disables the collector from another thread while a capture runs finds it enabled afterwards.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from typing import Iterator

_lock = threading.Lock()
_holders = 0                  # threads inside paused() (outside any unpaused() hole)
_was_enabled = False          # the collector's state when the first of them came in
_local = threading.local()    # .depth: this thread's nesting of paused()


def _enter() -> None:
    global _holders, _was_enabled
    with _lock:
        if _holders == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _holders += 1


def _leave() -> None:
    global _holders
    with _lock:
        _holders -= 1
        if _holders == 0 and _was_enabled:
            gc.enable()


@contextlib.contextmanager
def paused() -> Iterator[None]:
    """No automatic collection in the block (nested and concurrent blocks share one pause); afterwards the
    collector is as it was before the outermost block, also when the block raises."""
    depth = getattr(_local, "depth", 0)
    if depth == 0:
        _enter()
    _local.depth = depth + 1
    try:
        yield
    finally:
        _local.depth = depth
        if depth == 0:
            _leave()


@contextlib.contextmanager
def unpaused() -> Iterator[None]:
    """Inside paused(): the collector as the caller of the outermost pause had it, for the block (the user's
    code). What the block leaves the collector as (it may disable or enable it) is what the pause restores."""
    depth = getattr(_local, "depth", 0)
    if depth == 0:
        yield
        return
    _local.depth = 0
    _leave()
    try:
        yield
    finally:
        _enter()
        _local.depth = depth


def is_paused() -> bool:
    """Whether this thread is inside paused() (tests, and code that must know)."""
    return getattr(_local, "depth", 0) > 0
