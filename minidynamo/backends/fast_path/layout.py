"""Per call: can this region run in blocks with eager's exact bits, and which blocks (a BlockPlan)?

Imports numpy and fast_path.regions/steps. Why each rule (each checked by tests/backends/test_fast_path_*):

- Only inputs whose strides run in C order (positive, each dimension's stride at least the next one's
  extent) and aligned: eager's results of such operands are C-contiguous, which are the arrays the fast path
  allocates; anything else (transposes, negative strides, broadcast views) runs whole.
- NumPy's SIMD loops compute an element in a vector lane or, at the end of a run, in a tail: the two can
  differ in the last bits (which NaN of two a sum returns, `fmax(-0.0, 0.0)`, complex NaN signs). Eager's
  iterator hands a loop either the whole array at once (a *flat* step: every operand a single-stride array
  of the result's shape, or one element) or runs of whole cores (a row, or several: when an operand
  broadcasts or is strided, NumPy buffers up to `bufsize` elements of whole cores). So blocks start at a
  multiple of ALIGN rows (ALIGN elements for a row of one element) and a step that is not flat needs rows
  of a multiple of ALIGN elements: then every run, eager's and a block's, starts at a multiple of ALIGN
  elements and ends at one or at the array's end, and each element meets the same code. var/std broadcast
  their row means inside, so they need such rows too. Blocks have at least ALIGN rows, so NumPy's
  iterator picks the same buffering for a block as for the whole array (its cost model compares the core
  against the buffer size and the number of buffered operands, which a block of >= ALIGN rows leaves alone).
- A region whose steps are all flat over one shape, with contiguous inputs, runs as one long row (its
  arrays viewed as 1-d), so even a few wide rows split into many blocks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .regions import RegionSpec, Role, Slot
from .steps import StepKind

ALIGN = 64                     # elements: at least the lanes of any SIMD loop (AVX-512: 64 int8)
# The widest value's bytes per block. Measured on compute (NPBench S, 4 steps, inputs hot in L3, CPU time on
# one thread, compiled/eager): 256 KiB 1.27, 512 KiB 1.08, 1 MiB 1.01, 2 MiB 0.97. Smaller blocks pay a ufunc
# call per step per block more often than they gain from staying in L2; 1 MiB keeps a block's working set
# inside a core's L2 plus a slice of L3 on the machines measured.
DEFAULT_BLOCK_BYTES = 1 << 20


@dataclass
class BlockPlan:
    """How one call runs: `rows` (the blocked axis, flattened when `flat`), `step` rows per block (the last
    block takes the rest), the full shape of every value, and the inputs as blocks read them."""

    flat: bool
    rows: int
    step: int
    shapes: list[tuple]
    inputs: list[Any]

    @property
    def blocks(self) -> int:
        return max(1, self.rows // self.step)

    def bounds(self, i: int) -> tuple[int, int]:
        return i * self.step, (self.rows if i == self.blocks - 1 else (i + 1) * self.step)


def c_ordered(a: np.ndarray) -> bool:
    """Strides in C order without overlap: each non-unit dimension's stride is positive and at least the
    extent of the dimensions after it (row slices, column steps; not transposes, negative or zero strides)."""
    if not a.flags.aligned:
        return False
    extent = a.itemsize
    for size, stride in zip(reversed(a.shape), reversed(a.strides)):
        if size == 1:
            continue
        if stride < extent:
            return False
        extent = stride * size
    return True


def single_stride(a: Any) -> bool:
    """An array NumPy's iterator can walk with one stride (what it coalesces into one dimension)."""
    if not isinstance(a, np.ndarray):
        return False
    stride = None
    for size, st in zip(reversed(a.shape), reversed(a.strides)):
        if size == 1:
            continue
        if stride is not None and st != stride:
            return False
        stride = st * size
    return True


def plan(spec: RegionSpec, shapes: list[tuple], inputs: Sequence[Any], block_bytes: int, forced: bool,
         flat_region: bool, parts: int = 0) -> BlockPlan | str:
    """The BlockPlan for these inputs, or the reason (a word for the stats) the region runs whole. `parts`:
    cut the rows into that many blocks (one per thread) rather than into blocks of `block_bytes`."""
    n = None
    for value, role in zip(inputs, spec.roles):
        if isinstance(value, np.ndarray):
            if type(value) is not np.ndarray or not c_ordered(value):
                return "layout"
            if role is Role.BLOCKED:
                n = value.shape[0] if n is None else n
                if value.shape[0] != n:
                    return "shape"
        elif role is Role.BLOCKED:
            return "shape"
    if not n or any(0 in s for s in shapes) or np.getbufsize() % ALIGN:
        return "empty"
    dtypes = [s.node.spec.dtype for s in spec.steps]
    if flat_region and all(value.flags.c_contiguous for value, role in zip(inputs, spec.roles) if role is Role.BLOCKED):
        rows = math.prod(shapes[0])
        views = [v.reshape(-1) if role is Role.BLOCKED else _as_scalar(v) for v, role in zip(inputs, spec.roles)]
        return _sized(True, rows, max(d.itemsize for d in dtypes), shapes, views, block_bytes, forced, parts)
    why = _narrow(spec, shapes, inputs)
    if why:
        return why
    widths = [math.prod(s[1:]) * d.itemsize for s, d in zip(shapes, dtypes)]
    widths += [v[0].nbytes for v, r in zip(inputs, spec.roles) if r is Role.BLOCKED]
    return _sized(False, n, max(widths), shapes, list(inputs), block_bytes, forced, parts)


def _as_scalar(value: Any) -> Any:
    """A whole operand of a flat region: an array of one element as a 0-d array (the same dtype, so the same
    promotion and loop), so it broadcasts against 1-d blocks."""
    return value.reshape(()) if isinstance(value, np.ndarray) else value


def _sized(flat: bool, rows: int, row_bytes: int, shapes: list, views: list, block_bytes: int,
           forced: bool, parts: int = 0) -> BlockPlan | str:
    if parts:           # blocks of a multiple of ALIGN rows, the last taking the rest (fewer rows: one block)
        return BlockPlan(flat, rows, max(ALIGN, rows // parts // ALIGN * ALIGN), shapes, views)
    step = max(ALIGN, (block_bytes // max(1, row_bytes)) // ALIGN * ALIGN)
    if rows < 2 * step:
        if not forced:
            return "small"
        step = rows                 # tests: one block, the whole array, still through the fast path
    return BlockPlan(flat, rows, step, shapes, views)


def _narrow(spec: RegionSpec, shapes: list[tuple], inputs: Sequence[Any]) -> str:
    """'narrow' when a step's runs could cross a row somewhere but at a multiple of ALIGN elements."""
    for step, args, shape in zip(spec.steps, spec.args, shapes):
        if step.kind is StepKind.ROWWISE:
            row = shapes_of(args[0], shapes, inputs)
            if step.wide_rows and row[-1] % ALIGN:
                return "narrow"
            continue
        if shape[-1] % ALIGN and not _flat_step(args, shape, shapes, inputs):
            return "narrow"
    return ""


def _flat_step(args: tuple, shape: tuple, shapes: list[tuple], inputs: Sequence[Any]) -> bool:
    """Every operand is a single-stride array of the result's shape or has one element: eager's loop then
    runs over the whole result at once."""
    for a in args:
        if not isinstance(a, Slot):
            continue
        if a.role is None:
            if shapes[a.index] != shape:
                return False
            continue
        value = inputs[a.index]
        if np.size(value) == 1:
            continue
        if value.shape != shape or not single_stride(value):
            return False
    return True


def shapes_of(slot: Slot, shapes: list[tuple], inputs: Sequence[Any]) -> tuple:
    return shapes[slot.index] if slot.role is None else np.shape(inputs[slot.index])
