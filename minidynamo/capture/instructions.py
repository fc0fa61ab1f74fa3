"""Decode a code object into the flat instruction list the symbolic interpreter walks.

Imports pyversion and `bytecode`. `decode(code)` returns an `Instructions`: real instructions only (labels
resolved to indices, TryBegin/TryEnd turned into a per-instruction "inside a try block" flag), with 3.13's
fused superinstructions split into their two halves so each handler sees one operation. Each split half
keeps the original instruction's location for line numbers and break reports.
"""

from __future__ import annotations

import linecache
import types
from dataclasses import dataclass, field

import bytecode
from bytecode import Instr, Label, TryBegin, TryEnd

from .. import pyversion

# 3.13 superinstructions and the two plain opcodes each one stands for.
_FUSED = {
    "LOAD_FAST_LOAD_FAST": ("LOAD_FAST", "LOAD_FAST"),
    "STORE_FAST_LOAD_FAST": ("STORE_FAST", "LOAD_FAST"),
    "STORE_FAST_STORE_FAST": ("STORE_FAST", "STORE_FAST"),
}
# Opcodes that never reach a handler because decode() rewrites them (the handler coverage test reads this).
SPLIT_OPCODES = frozenset(_FUSED)


@dataclass
class Instructions:
    """A decoded code object: `instrs[i]` with jump targets as indices in `targets[i]`."""

    code: types.CodeType
    instrs: list[Instr]
    targets: dict[int, int] = field(default_factory=dict)    # instruction index -> jump target index
    in_try: list[bool] = field(default_factory=list)          # covered by an exception-table entry
    handler: list[int | None] = field(default_factory=list)   # that entry's handler (instruction index)

    @property
    def loops(self) -> list[tuple[int, int]]:
        """(start, end) index ranges of loops: `start` is the target of backward jumps, the last of which
        (the loop's end; the others are `continue`s) is at `end`. Innermost first."""
        ends: dict[int, int] = {}
        for i, t in self.targets.items():
            if t <= i:
                ends[t] = max(i, ends.get(t, i))
        return sorted(ends.items(), key=lambda span: span[1] - span[0])

    def innermost_loop(self, index: int) -> tuple[int, int] | None:
        return next(((s, e) for s, e in self.loops if s <= index <= e), None)

    def lineno(self, index: int) -> int | None:
        loc = self.instrs[index].location if 0 <= index < len(self.instrs) else None
        return loc.lineno if loc is not None else None

    def source_line(self, index: int) -> str:
        line = self.lineno(index)
        if line is None:
            return ""
        return linecache.getline(self.code.co_filename, line).strip()


def _split(instr: Instr) -> list[Instr]:
    halves = _FUSED.get(instr.name)
    if halves is None:
        return [instr]
    a, b = instr.arg
    return [Instr(halves[0], a, location=instr.location), Instr(halves[1], b, location=instr.location)]


_cache: dict[types.CodeType, Instructions] = {}


def decode(code: types.CodeType) -> Instructions:
    """Decode `code` once (cached per code object)."""
    cached = _cache.get(code)
    if cached is not None:
        return cached
    instrs: list[Instr] = []
    in_try: list[bool] = []
    regions: list[Label | None] = []
    label_at: dict[Label, int] = {}
    depth = 0
    region: Label | None = None
    for item in bytecode.Bytecode.from_code(code):
        if isinstance(item, Label):
            label_at[item] = len(instrs)
        elif isinstance(item, TryBegin):
            depth, region = depth + 1, item.target
        elif isinstance(item, TryEnd):
            depth -= 1
            region = region if depth > 0 else None
        elif isinstance(item, Instr):
            for part in _split(item) if pyversion.HAS_SUPERINSTRUCTIONS else [item]:
                instrs.append(part)
                in_try.append(depth > 0)
                regions.append(region if depth > 0 else None)
    targets = {i: label_at[ins.arg] for i, ins in enumerate(instrs) if isinstance(ins.arg, Label)}
    handler = [None if r is None else label_at[r] for r in regions]
    result = Instructions(code, instrs, targets, in_try, handler)
    _cache[code] = result
    return result
