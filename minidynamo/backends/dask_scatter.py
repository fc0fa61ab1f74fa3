"""NumPy inputs of the dask backend kept on a dask.distributed cluster: scattered once, reused while unchanged.

Imports numpy, hashlib and the fast path's thread pool; never dask or distributed (the backend hands in the
Client and the dask.array module). Without this, each call's `da.from_array` embeds the whole ndarray in the
task graph sent to the scheduler (issue 26: 98 MiB per call). `ScatterCache.array(x, chunks, da)` instead
cuts x into the blocks of `chunks`, scatters them to the workers (`client.scatter`, spread over them) and
builds the dask array from the futures, so the graph holds keys, never data.

Reuse is exact: the same object (a weak reference to it, so a new array at a dead one's id is new), the
same shape, dtype, strides and chunks, and the same contents: each block's SHA-256 over its bytes, computed on
every call (far cheaper than sending the data), so a write into the array between calls is seen, and only
the blocks it changed are scattered again. Released: when the array dies (the weak reference's callback),
when more than `budget` bytes are kept (least recently used first; a call's own arrays are never released
under it), and when the backend sees another client or a closed one (`for_client`).
"""

from __future__ import annotations

import hashlib
import itertools
import threading
import uuid
import weakref
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from .fast_path import pool

# Arrays smaller than this stay embedded in the graph (as before): a scatter is a round trip to the cluster.
SCATTER_MIN_BYTES = 1 << 16


def is_scattered(value: Any) -> bool:
    """True for an array this module would scatter (plain ndarray, no Python objects, not tiny)."""
    return type(value) is np.ndarray and not value.dtype.hasobject and value.nbytes >= SCATTER_MIN_BYTES


@dataclass
class _Entry:
    ref: weakref.ref              # the caller's array
    layout: tuple                 # (shape, dtype, strides, chunks): what the digests were taken of
    digests: list[bytes]          # one per block, in the order of `da.core.slices_from_chunks`
    futures: list[Any]            # the scattered blocks, same order
    array: Any                    # the dask array over `futures`
    nbytes: int
    call: int                     # the last call that used it


class ScatterCache:
    """Scattered NumPy arrays for one distributed Client. Thread-safe; see the module docstring."""

    def __init__(self, client: Any, budget: int) -> None:
        self.client, self.budget = client, budget
        self.entries: dict[int, _Entry] = {}      # id(array) -> entry, least recently used first
        self.lock = threading.Lock()
        self.calls = itertools.count(1)
        self.scattered = 0                        # blocks sent so far (tests and the benchmark read it)

    def new_call(self) -> int:
        """A token for one call of a compiled graph: the arrays it reads are kept until its end."""
        return next(self.calls)

    def array(self, value: np.ndarray, chunks: tuple, da: Any, call: int, threads: int = 1) -> Any:
        """A dask array equal to `value`, chunked as `chunks`, over blocks on the cluster."""
        slices = da.core.slices_from_chunks(chunks)
        blocks, digests = digested([value[s] for s in slices], threads)
        layout = (value.shape, value.dtype, value.strides, chunks)
        key = id(value)
        with self.lock:
            entry = self.entries.pop(key, None)
            if entry is not None and (entry.ref() is not value or entry.layout != layout):
                entry = None                      # another array at a dead one's id, or a reshaped one
            if entry is not None and entry.digests == digests:
                entry.call = call
                self.entries[key] = entry         # most recently used
                return entry.array
            old = entry.futures if entry is not None else [None] * len(blocks)
            stale = [i for i, d in enumerate(digests) if entry is None or entry.digests[i] != d]
        sent = self.client.scatter([blocks[i] for i in stale], hash=False) if stale else []
        futures = list(old)
        for i, future in zip(stale, sent):
            futures[i] = future
        name = f"minidynamo-scattered-{uuid.uuid4().hex}"
        ids = itertools.product(*(range(len(c)) for c in chunks))
        array = da.Array({(name, *i): f for i, f in zip(ids, futures)}, name, chunks, dtype=value.dtype)
        ref = weakref.ref(value, self._forget(key))
        with self.lock:
            self.scattered += len(stale)
            self.entries.pop(key, None)           # another thread's, for the same array: ours is as new
            self.entries[key] = _Entry(ref, layout, digests, futures, array, value.nbytes, call)
            self._evict(call)
        return array

    def _forget(self, key: int) -> Callable[[weakref.ref], None]:
        entries = self.entries

        def forget(ref: weakref.ref) -> None:
            # Runs wherever the array dies, maybe inside this class holding the lock: no lock, one atomic
            # pop, and only of the entry of this very reference. The dropped futures release the blocks.
            entry = entries.get(key)
            if entry is not None and entry.ref is ref:
                entries.pop(key, None)
        return forget

    def _evict(self, call: int) -> None:
        total = sum(e.nbytes for e in self.entries.values())
        for key, entry in list(self.entries.items()):
            if total <= self.budget:
                break
            if entry.call != call and self.entries.pop(key, None) is not None:
                total -= entry.nbytes

    def nbytes(self) -> int:
        """Bytes of the arrays kept scattered now."""
        return sum(e.nbytes for e in list(self.entries.values()))

    def clear(self) -> None:
        with self.lock:
            self.entries.clear()


_cache: list[ScatterCache] = []
_cache_lock = threading.Lock()


def for_client(client: Any, budget: int) -> ScatterCache:
    """The cache of `client`, the current one; the cache of any other client (or a closed one) is dropped."""
    with _cache_lock:
        if _cache and (_cache[0].client is not client or not is_running(client)):
            _cache.pop().clear()
        if not _cache:
            _cache.append(ScatterCache(client, budget))
        _cache[0].budget = budget
        return _cache[0]


def drop_closed() -> None:
    """Release the cache when its client has closed (a call without a client checks this)."""
    with _cache_lock:
        if _cache and not is_running(_cache[0].client):
            _cache.pop().clear()


def release() -> None:
    """Release every scattered array now (before a client closes, at the end of a test)."""
    with _cache_lock:
        if _cache:
            _cache.pop().clear()


def current() -> ScatterCache | None:
    """The cache in use, if any (tests and the benchmark read it)."""
    return _cache[0] if _cache else None


def is_running(client: Any) -> bool:
    return getattr(client, "status", None) == "running"


def digested(blocks: list[np.ndarray], threads: int) -> tuple[list[np.ndarray], list[bytes]]:
    """Each block as a C-contiguous array (a copy where it is not one; that copy is what a scatter sends)
    and the SHA-256 of its bytes. hashlib and the copy release the GIL, so blocks are spread over threads."""
    out: list[Any] = [None] * len(blocks)
    digests: list[bytes] = [b""] * len(blocks)
    todo = iter(range(len(blocks)))           # next() on a shared iterator: each block taken once

    def work() -> None:
        for i in todo:
            block = np.ascontiguousarray(blocks[i])
            out[i], digests[i] = block, hashlib.sha256(block.reshape(-1).view(np.uint8)).digest()

    helpers = [pool.submit(threads, work) for _ in range(min(threads, len(blocks)) - 1)]
    work()
    for helper in helpers:
        helper.result()
    return out, digests
