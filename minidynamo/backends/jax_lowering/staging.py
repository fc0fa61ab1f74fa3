"""Large inputs handed to XLA through buffers a graph keeps, instead of fresh copies JAX makes per call.

Imports jax and numpy. JAX copies every NumPy argument of a jitted call into a buffer it allocates for that
call, unless the array's data is 64-byte aligned, which its CPU client takes as it is; NumPy puts a large
array 16 bytes past a page boundary, so every call copies every large input into memory allocated for it
(about 1.3-1.6 ms per 16 MB, holding the GIL). `Stager` keeps, per large input of one graph, a
64-byte aligned NumPy buffer and the JAX array over that very memory (jax.device_put(may_alias=True),
checked to alias once); each call copies the input into its buffer (np.copyto into memory already mapped:
about 0.85 ms per 16 MB) and passes the JAX array. At a few MB, JAX's own copy costs about as much (its
allocator reuses memory), so staged and unstaged calls are both variants choice.py times (runner._variants).
A proved call that reads its inputs' magnitudes (bounds.py: two NumPy passes, about 0.5 ms per 16 MB) before
XLA starts (choice.Magnitudes.BEFORE: when XLA's loops run on both cores, a read beside them would steal a
core, and a preempted XLA worker stalls its whole parallel loop) gets them with `holds`: when the copies
are large (THREAD_BYTES) a helper thread reads them meanwhile on the other core (np.copyto and NumPy's
reductions release the GIL); the calling thread never waits for it: when the helper has not answered by the
end of the copies (it got no core on a loaded machine), the calling thread reads them itself (reads only:
the helper's late answer is dropped). When they prove nothing, the checked variant runs on the same copies.

Writing into memory a JAX array aliases is safe only while no computation reads it: a call holds the
graph's lock from the copy until every output of its XLA computation is ready (the runner blocks on them
before it returns), and a call made meanwhile by another thread passes its inputs to JAX as they are. The
buffers are private (the JAX arrays over them are never handed out; XLA writes no input buffer) and cost
one copy of the graph's large inputs in memory, freed with the compiled graph.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, Callable

import numpy as np
import jax

ALIGN = 64                  # the alignment at which JAX's CPU client takes a NumPy array without a copy
STAGE_BYTES = 1 << 20       # graphs with inputs from this size up get staged variants (smaller: JAX copies)
THREAD_BYTES = 1 << 23      # copies from this size up (together) let a helper thread read the magnitudes

_pool: list[ThreadPoolExecutor] = []


def aligned_empty(like: np.ndarray) -> np.ndarray:
    """An uninitialized C-contiguous array of `like`'s shape and dtype whose data starts at a multiple of
    ALIGN bytes."""
    raw = np.empty(like.nbytes + ALIGN, np.uint8)
    start = -raw.ctypes.data % ALIGN
    return raw[start:start + like.nbytes].view(like.dtype).reshape(like.shape)


def aliased(like: np.ndarray) -> tuple[np.ndarray, Any] | None:
    """(an aligned buffer shaped like `like`, the JAX array over that memory), or None when JAX copies it
    instead (another device, another JAX version, a float64 buffer outside jax.enable_x64)."""
    buffer = aligned_empty(like)
    try:
        array = jax.device_put(buffer, may_alias=True)
        same = array.unsafe_buffer_pointer() == buffer.ctypes.data and array.dtype == buffer.dtype
    except Exception:       # noqa: BLE001  (a dtype or device JAX does not take so: JAX copies the input)
        return None
    return (buffer, array) if same else None


def _helper() -> ThreadPoolExecutor:
    """The one helper thread (created on first use, and again in a forked child, whose threads are gone)."""
    if not _pool:
        _pool.append(ThreadPoolExecutor(max_workers=1, thread_name_prefix="minidynamo-jax-magnitudes"))
    return _pool[0]


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_pool.clear)


class Stager:
    """`stager.run(inputs, call, holds)` is `call(args, inputs, proved)`: `args` the inputs where each large
    NumPy input is replaced by the JAX array over this graph's buffer, freshly filled with the input's
    values; `proved` is `holds(inputs)` (None without `holds`). `call` must return only once every output
    of its XLA computation is ready. `large`: positions of inputs of at least STAGE_BYTES (by their specs)."""

    def __init__(self, large: list[int]) -> None:
        self.large = large
        self.lock = threading.Lock()
        self.staged: dict[int, tuple[np.ndarray, Any] | None] = {}    # position -> aliased(...), once

    def run(self, inputs: tuple, call: Callable[[tuple, tuple, Any], Any],
            holds: Callable[[tuple], bool] | None = None) -> Any:
        if not self.lock.acquire(blocking=False):       # another thread's call is using the buffers
            return call(inputs, inputs, holds(inputs) if holds else None)
        try:
            refill = [i for i in self.large if type(inputs[i]) is np.ndarray and self._buffer(i, inputs[i])]
            job = None
            if holds is not None and sum(inputs[i].nbytes for i in refill) >= THREAD_BYTES:
                job = _helper().submit(holds, inputs)
            args = list(inputs)
            for i in refill:
                buffer, args[i] = self.staged[i]
                np.copyto(buffer, inputs[i])
            proved = None if holds is None else _result(job, holds, inputs)
            return call(tuple(args), inputs, proved)
        finally:
            self.lock.release()

    def _buffer(self, i: int, value: np.ndarray) -> bool:
        """Whether input i goes through a buffer (made on first use: its shape and dtype are the spec's)."""
        if i not in self.staged:
            self.staged[i] = aliased(value)
        staged = self.staged[i]
        return staged is not None and staged[0].shape == value.shape and staged[0].dtype == value.dtype


def _result(job: Future | None, holds: Callable[[tuple], bool], inputs: tuple) -> bool:
    """The helper's answer when it has one; else the calling thread's own (it never waits: the helper may
    have had no core; it only reads, so its late answer is simply dropped)."""
    if job is not None and job.done():
        return job.result()
    if job is not None:
        job.cancel()
    return holds(inputs)


def large_inputs(piece: Any) -> list[int]:
    """Positions of the piece's array inputs of at least STAGE_BYTES."""
    return [i for i, n in enumerate(piece.inputs) if hasattr(n.spec, "dtype") and not n.spec.scalar
            and n.spec.size * n.spec.dtype.itemsize >= STAGE_BYTES]
