"""Region: the callable a shortcut calls: run one region over blocks of rows, or hand back None.

Imports numpy, contextvars, threading and fast_path.*. A call plans its blocks (layout.py), allocates the
region's outputs as eager would (`np.empty`, C order), and runs the blocks on the calling thread and the
pool's threads (pool.py; NumPy's loops release the GIL). Each thread keeps its own scratch buffers for the
values that stay inside the region, reused across calls. Floating-point errors: every category the caller's
`np.errstate` does not ignore is set to 'raise' for the blocks (in a copy of the caller's context, so
threads see the caller's buffer size too); a FloatingPointError, or any other exception, in any block makes
the call return None, and the generated code runs the region's own lines eagerly: the warnings, their count,
the callbacks and the exception are then eager's own, since the region wrote nothing but its own buffers.
A region handed back by errors GIVE_UP calls in a row is given up: its calls hand back None at once, its
threads' scratch buffers are dropped, and it tries its blocks again at the RETRY_AFTER-th call of the run of
failing calls, then, while the tries fail, after twice as many calls each time (calls 32, 96, 224, ...;
a fast call ends the run), so a program that warns on every call runs at eager's speed rather than paying
for both. A failed call keeps none of its arrays: its outputs are freed before the plain lines run (which
then get that memory back), and the exception is not kept (its traceback would hold the blocks' frames, and
their views of the outputs, in a cycle until the collector ran).

Outputs: a fresh array of megabytes costs its page faults on first touch (an 8 MB np.empty written once:
about 2x the add that fills it), where eager's operators write into a dying temporary's buffer instead
(NumPy's temporary elision: `np.linalg.cholesky(A) + np.triu(A, k=1)` allocates no result). So a region
keeps each output it returned, and the next call writes into it again where nothing else refers to it any
more (`_spare`: its only reference is the region's, no weak reference, no view, the shape, dtype and flags
np.empty would give): the program dropped it, as eager's temporary was dying. Every element is written
again by the blocks, so the bits are the blocks' own; an array the program still holds is never touched.
"""

from __future__ import annotations

import collections
import contextvars
import math
import sys
import threading
import weakref
from typing import Any

import numpy as np

from ...graph.ir import ArraySpec
from ...graph.symbolic import same_size
from . import layout, pool
from .regions import RegionSpec, Role, Slot
from .steps import StepKind


GIVE_UP = 3         # after this many calls in a row handed back by an error, the region is given up:
RETRY_AFTER = 32    # ... it tries blocks again after this many calls ('skip' the others: plain lines at once),
                    # and after twice as many after each try that fails again


class _Const:
    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class Region:
    """Runs one RegionSpec; `stats` counts calls by outcome ('fast', 'small', 'layout', 'narrow',
    'error: FloatingPointError', ...), for tests, benchmarks and curious users."""

    def __init__(self, spec: RegionSpec, threads: int, block_bytes: int, min_bytes: int) -> None:
        self.spec = spec
        self.min_bytes = min_bytes      # checked per call when sizes are symbolic (else at compile time)
        self.threads = threads
        self.block_bytes = block_bytes or layout.DEFAULT_BLOCK_BYTES
        # A region of one step keeps no value in cache from one step to the next, which is what blocks of cache
        # size are for; they would only cost their dispatch (a 32 MB multiply in 256 KiB blocks: 1.3x eager's
        # time). So it runs one block per thread (the reused output and the threads are what it gains), unless
        # the config asks for a block size.
        self.parts = threads if len(spec.steps) == 1 and not block_bytes else 0
        self.forced = min_bytes == 0
        # a region of symbolic sizes first reads one row-blocked input's bytes (a small call: one compare)
        self.gate = next((i for i, r in enumerate(spec.roles) if r is Role.BLOCKED), None) \
            if any(s.node.spec.is_symbolic for s in spec.steps) and min_bytes else None
        self.stats: collections.Counter = collections.Counter()
        self.dtypes = [s.node.spec.dtype for s in spec.steps]
        self.static_shapes = None if any(s.node.spec.is_symbolic for s in spec.steps) else \
            [tuple(s.node.spec.shape) for s in spec.steps]
        self.flat_region = _flat_region(spec)
        n_in = len(spec.inputs)
        self.program = [(s.kind, s.fn, tuple(_Const(a) if not isinstance(a, Slot) else
                                             (a.index if a.role is not None else n_in + a.index) for a in args),
                         s.kwargs, n_in + i) for i, (s, args) in enumerate(zip(spec.steps, spec.args))]
        self.out_of = {v: j for j, v in enumerate(spec.outputs)}
        self.local = threading.local()
        self.failing = 0                # calls handed back by an error in a row
        self.idle = 0                   # given up: calls to hand back at once before the next try
        self.wait = RETRY_AFTER         # ... and how many the next failing try waits
        self.kept: list = [None] * len(spec.outputs)   # the outputs last handed out (see _spare)
        self.kept_lock = threading.Lock()
        self.reused = 0                 # outputs written into a kept array (tests, benchmarks)


    def __repr__(self) -> str:
        return f"<fast path {self.spec}>"

    def __call__(self, *inputs: Any) -> tuple | None:
        if self.idle > 0:               # given up (a program that warns on every call pays eager's time)
            self.idle -= 1
            self.stats["skip"] += 1
            return None
        try:
            if self.gate is not None and inputs[self.gate].nbytes * 8 < self.min_bytes:
                self.stats["small"] += 1        # (a cheap first look: its rows hold too little)
                return None
            shapes = self.static_shapes or _shapes(self.spec, inputs)
            if self.static_shapes is None and max(math.prod(s) * d.itemsize for s, d in zip(shapes, self.dtypes)) \
                    < self.min_bytes:
                found = "small"
            else:
                found = layout.plan(self.spec, shapes, inputs, self.block_bytes, self.forced, self.flat_region,
                                    self.parts)
        except Exception as e:   # noqa: BLE001 -- a shape or layout the rules do not know: run whole
            found = f"error: {type(e).__name__}"
        if isinstance(found, str):
            self.stats[found] += 1
            return None
        return self._run(found)

    def _run(self, plan: layout.BlockPlan) -> tuple | None:
        outs = [self._output(j, plan.shapes[v], self.dtypes[v]) for j, v in enumerate(self.spec.outputs)]
        views = [o.reshape(-1) for o in outs] if plan.flat else outs
        mode = {k: ("ignore" if v == "ignore" else "raise") for k, v in np.geterr().items()}
        job = _Job(self, plan, views, mode)
        workers = min(self.threads, plan.blocks) - 1
        futures = [pool.submit(workers + 1, contextvars.copy_context().run, job.work) for _ in range(workers)]
        job.work()
        for f in futures:       # every block is taken: a copy not yet started (a busy pool) is not waited for
            if not f.cancel():
                f.result()
        job.plan = job.views = None     # a cancelled copy waits in the pool's queue: let it hold no array
        if job.failed is not None:      # (its outputs die here: the plain lines reuse their memory)
            self.stats[f"error: {job.failed.__name__}"] += 1
            self._failed()
            return None
        self.kept = list(outs)
        self.stats["fast"] += 1
        self.failing, self.wait = 0, RETRY_AFTER
        return tuple(outs)

    def _failed(self) -> None:
        """A call handed back by an error: the GIVE_UP-th in a row gives the region up until the RETRY_AFTER-th
        call of the run; a try that fails again waits twice as long as the last (see the module's docstring)."""
        self.failing += 1
        if self.failing < GIVE_UP:
            return
        if self.failing == GIVE_UP:
            self.idle = RETRY_AFTER - GIVE_UP - 1
        else:
            self.wait *= 2
            self.idle = self.wait - 1
        self.release()

    def release(self) -> None:
        """Drop the arrays kept for later calls: the outputs last handed out and every thread's scratch
        buffers (a thread using them keeps its own until it is done)."""
        with self.kept_lock:
            self.kept = [None] * len(self.kept)
        self.local = threading.local()

    def _output(self, j: int, shape: tuple, dtype: np.dtype) -> np.ndarray:
        """Output j's array: the one this region handed out last time where the program has dropped it
        (_spare), else np.empty as eager allocates its result."""
        with self.kept_lock:
            old = self.kept[j]
            self.kept[j] = None
        if old is not None and _refs(old) <= _ALONE and _spare(old, shape, dtype):
            self.reused += 1
            return old
        return np.empty(shape, dtype)

    def scratch(self, plan: layout.BlockPlan) -> dict[int, np.ndarray]:
        """This thread's buffers for the region's inner values, large enough for the plan's blocks."""
        bufs = getattr(self.local, "bufs", None)
        if bufs is None:
            bufs = self.local.bufs = {}
        rows = plan.rows - (plan.blocks - 1) * plan.step      # the last block is the largest
        n_in = len(self.spec.inputs)
        for i, (kind, *_rest) in enumerate(self.program):
            if kind is not StepKind.UFUNC or i in self.out_of:
                continue
            shape = (rows,) + (() if plan.flat else plan.shapes[i][1:])
            buf = bufs.get(n_in + i)
            if buf is None or buf.shape[0] < rows or buf.shape[1:] != shape[1:] or buf.dtype != self.dtypes[i]:
                bufs[n_in + i] = np.empty(shape, self.dtypes[i])
        return bufs

    def block(self, plan: layout.BlockPlan, r0: int, r1: int, views: list, bufs: dict) -> None:
        """Compute rows r0:r1 of every value: the steps in order, as eager runs them on those rows."""
        vals = list(plan.inputs) + [None] * len(self.program)
        for i, role in enumerate(self.spec.roles):
            if role is Role.BLOCKED:
                vals[i] = vals[i][r0:r1]
        for i, (kind, fn, args, kwargs, slot) in enumerate(self.program):
            operands = [a.value if type(a) is _Const else vals[a] for a in args]
            out = self.out_of.get(i)
            if kind is StepKind.UFUNC:
                dst = views[out][r0:r1] if out is not None else bufs[slot][:r1 - r0]
                fn(*operands, out=dst)
                vals[slot] = dst
                continue
            res = fn(*operands, **kwargs)
            want = (r1 - r0,) + plan.shapes[i][1:]
            if type(res) is not np.ndarray or res.dtype != self.dtypes[i] or res.shape != want:
                raise TypeError(f"row-wise step gave {type(res).__name__}, expected {want}")
            if out is not None:
                views[out][r0:r1] = res
            vals[slot] = res


class _Job:
    """One call's blocks, handed out one at a time to whichever thread asks next."""

    def __init__(self, region: Region, plan: layout.BlockPlan, views: list, mode: dict) -> None:
        self.region, self.plan, self.views, self.mode = region, plan, views, mode
        self.next = 0
        self.lock = threading.Lock()
        self.failed: type | None = None    # the type only: the exception's traceback would hold the frames

    def take(self) -> int | None:
        with self.lock:
            i = self.next
            if i >= self.plan.blocks or self.failed is not None:
                return None
            self.next = i + 1
            return i

    def work(self) -> None:
        region, plan = self.region, self.plan
        try:
            bufs = region.scratch(plan)
            with np.errstate(**self.mode):
                while (i := self.take()) is not None:
                    r0, r1 = plan.bounds(i)
                    region.block(plan, r0, r1, self.views, bufs)
        except Exception as e:   # noqa: BLE001 -- FloatingPointError, or whatever eager would raise too
            self.failed = type(e)


def _refs(a: Any) -> int:
    return sys.getrefcount(a)


def _spare(a: Any, shape: tuple, dtype: np.dtype) -> bool:
    """Whether `a`, referred to by nothing but its caller's local (_refs: no name, no view, as a view
    refers to its base), has no weak reference (it would see the array live on) and is what
    np.empty(shape, dtype) would make: a base ndarray of C order, owning and writeable."""
    return type(a) is np.ndarray and not weakref.getweakrefcount(a) and a.shape == shape and \
        a.dtype == dtype and a.base is None and a.flags.c_contiguous and a.flags.writeable and a.flags.owndata


def _alone_count() -> int:
    """What _refs says of an object its caller holds in one local only, called as Region._output calls it
    (the call's own references differ between Python versions: measured the same way, once)."""
    held = [np.empty(0)]
    obj = held[0]
    held[0] = None
    return _refs(obj) if obj is not None else 0


_ALONE = _alone_count()


def _shapes(spec: RegionSpec, inputs: tuple) -> list[tuple]:
    """Every value's shape from the inputs' (a region with symbolic sizes), by NumPy's own broadcasting."""
    shapes: list[tuple] = []
    for step, args in zip(spec.steps, spec.args):
        ops = [layout.shapes_of(a, shapes, inputs) if isinstance(a, Slot) else () for a in args]
        if step.kind is StepKind.UFUNC:
            shapes.append(np.broadcast_shapes(*ops))
        else:
            shapes.append(ops[0][:-1] + ((1,) if step.kwargs.get("keepdims") else ()))
    return shapes


def _flat_region(spec: RegionSpec) -> bool:
    """All steps element-wise over one shape, every outside array of that shape (BLOCKED) or of one element:
    with contiguous inputs the region is one long row (layout.py)."""
    if any(s.kind is not StepKind.UFUNC for s in spec.steps):
        return False
    shape = spec.steps[0].node.spec.shape

    def same(other: tuple) -> bool:
        return len(other) == len(shape) and all(same_size(a, b) for a, b in zip(other, shape))
    if not all(same(s.node.spec.shape) for s in spec.steps):
        return False
    for node, role in zip(spec.inputs, spec.roles):
        sp = node.spec
        if role is Role.BLOCKED and not same(sp.shape):
            return False
        if role is Role.WHOLE and isinstance(sp, ArraySpec) and not sp.scalar and \
                not all(type(d) is int and d == 1 for d in sp.shape):
            return False
    return True
