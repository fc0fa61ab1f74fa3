"""Decode a code object into the flat instruction list the symbolic interpreter walks.

Imports `bytecode` only. `decode(code)` returns an `Instructions`: real instructions only (labels
resolved to indices, TryBegin/TryEnd turned into a per-instruction "inside a try block" flag), canonical:
superinstructions (3.13, 3.14) split into their two halves so each handler sees one operation, 3.14's
LOAD_SMALL_INT and constant LOAD_COMMON_CONSTANT read as LOAD_CONST, and a cell's LOAD_DEREF always has
a CellVar/FreeVar argument. Every
rewrite is bytecode valid on the running Python, and resume functions (stitch/resume.py) are built from the
same canonical items (`canonical_items`), so the list capture analyses is the list that is re-emitted. Each
rewritten instruction keeps the original's location for line numbers and break reports.
"""

from __future__ import annotations

import dis
import linecache
import types
from dataclasses import dataclass, field

import bytecode
from bytecode import Instr, Label, TryBegin, TryEnd


# Superinstructions (3.13; the borrow pair 3.14) and the two plain opcodes each one stands for.
_FUSED = {
    "LOAD_FAST_LOAD_FAST": ("LOAD_FAST", "LOAD_FAST"),
    "STORE_FAST_LOAD_FAST": ("STORE_FAST", "LOAD_FAST"),
    "STORE_FAST_STORE_FAST": ("STORE_FAST", "STORE_FAST"),
    "LOAD_FAST_BORROW_LOAD_FAST_BORROW": ("LOAD_FAST_BORROW", "LOAD_FAST_BORROW"),
}
# 3.14: LOAD_SMALL_INT n pushes the same object as LOAD_CONST n (LOAD_FAST_BORROW stays itself: resume code
# keeps eager's borrowed references, see pyversion.HAS_BORROW_LOADS).
_RENAMED = {"LOAD_SMALL_INT": "LOAD_CONST"}
# 3.15 loads these constants with LOAD_COMMON_CONSTANT (`bytecode` names them); the others it loads (builtin
# types and functions, AssertionError) keep their own opcode and handler.
_COMMON_LITERALS = {"CONSTANT_NONE": None, "CONSTANT_EMPTY_STR": "", "CONSTANT_TRUE": True,
                    "CONSTANT_FALSE": False, "CONSTANT_MINUS_ONE": -1}
# Opcodes that never reach a handler because decode() rewrites them (the handler coverage test reads this).
SPLIT_OPCODES = frozenset(_FUSED) | frozenset(_RENAMED)


@dataclass
class Instructions:
    """A decoded code object: `instrs[i]` with jump targets as indices in `targets[i]`."""

    code: types.CodeType
    instrs: list[Instr]
    targets: dict[int, int] = field(default_factory=dict)    # instruction index -> jump target index
    in_try: list[bool] = field(default_factory=list)          # covered by an exception-table entry
    handler: list[int | None] = field(default_factory=list)   # that entry's handler (instruction index)
    # that entry's stack depth at the handler and whether it pushes the raising instruction's offset (lasti)
    handler_depth: list[tuple[int, bool] | None] = field(default_factory=list)

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


def canonical(instr: Instr, code: types.CodeType) -> list[Instr]:
    """`instr` (of `code`) as the instructions capture reads and resume code re-emits (usually itself)."""
    halves = _FUSED.get(instr.name)
    if halves is not None:
        a, b = instr.arg
        return [Instr(halves[0], a, location=instr.location), Instr(halves[1], b, location=instr.location)]
    renamed = _RENAMED.get(instr.name)
    if renamed is not None:
        return [Instr(renamed, instr.arg, location=instr.location)]
    if instr.name == "LOAD_COMMON_CONSTANT" and instr.arg.name in _COMMON_LITERALS:
        return [Instr("LOAD_CONST", _COMMON_LITERALS[instr.arg.name], location=instr.location)]
    if instr.name == "LOAD_DEREF" and isinstance(instr.arg, str):
        # 3.14 lists LOAD_DEREF among the local opcodes (dis.haslocal), and `bytecode` 0.19.1 then names a
        # cell that is also a parameter by a plain str; STORE_DEREF still gets a CellVar (both encode alike)
        kind = bytecode.CellVar if instr.arg in code.co_cellvars else bytecode.FreeVar
        return [Instr("LOAD_DEREF", kind(instr.arg), location=instr.location)]
    return [instr]


class InterpolationInstr(Instr):
    """3.14's BUILD_INTERPOLATION with CPython's own oparg (`2 | has_spec | conversion << 2`). `bytecode`
    0.19.1 reads that oparg as (has_spec, FormatValue(oparg >> 1)): a wrong conversion, a ValueError for
    `!r`/`!a`, and an AssertionError when writing the code back. An int argument is written as it is and
    gives `dis.stack_effect` its real oparg, so the code round-trips."""

    def _check_arg(self, name: str, opcode: int, arg: object) -> None:
        if not isinstance(arg, int):
            raise TypeError(f"{name} takes CPython's int oparg here, not {arg!r}")

    @property
    def has_spec(self) -> bool:
        return bool(self.arg & 1)

    @property
    def conversion(self) -> int:
        """0 none, 1 !s, 2 !r, 3 !a (as CONVERT_VALUE's FormatValue numbers them)."""
        return self.arg >> 2


def from_code(code: types.CodeType, conserve_depths: bool = False) -> bytecode.Bytecode:
    """`bytecode.Bytecode.from_code`, with BUILD_INTERPOLATION read as an InterpolationInstr."""
    opcode = dis.opmap.get("BUILD_INTERPOLATION")
    if opcode is None or opcode not in code.co_code[::2]:
        return bytecode.Bytecode.from_code(code, conserve_exception_block_stackdepth=conserve_depths)
    concrete = bytecode.ConcreteBytecode.from_code(code)
    raw = []
    for c in concrete:
        if isinstance(c, bytecode.ConcreteInstr) and c.name == "BUILD_INTERPOLATION":
            raw.append(c.arg)
            c.arg = 2 | (c.arg & 1)          # one `bytecode` reads without error (same stack effect)
    decoded = concrete.to_bytecode(conserve_exception_block_stackdepth=conserve_depths)
    args = iter(raw)
    for i, item in enumerate(decoded):
        if isinstance(item, Instr) and item.name == "BUILD_INTERPOLATION":
            decoded[i] = InterpolationInstr("BUILD_INTERPOLATION", next(args), location=item.location)
    return decoded


_items: dict[types.CodeType, tuple[list, bytecode.Bytecode]] = {}


def canonical_items(code: types.CodeType) -> tuple[list, bytecode.Bytecode]:
    """The bytecode items of `code` (exception depths as the code has them) with every instruction
    canonical, in decode()'s order, and the Bytecode they came from (for its attributes). Decoded once
    per code object (a function broken in many places has a resume function per place); each caller
    gets its own list, and callers replace items, never edit one (bytecode's to_code works on copies)."""
    cached = _items.get(code)
    if cached is None:
        decoded = from_code(code, conserve_depths=True)
        items = []
        for item in decoded:
            items.extend(canonical(item, code) if isinstance(item, Instr) else [item])
        cached = _items[code] = (items, decoded)
    return list(cached[0]), cached[1]


_cache: dict[types.CodeType, Instructions] = {}


def assembled(code: types.CodeType, items: list, source: bytecode.Bytecode) -> None:
    """`code` was just assembled from `items` (canonical, as canonical_items gives them, and `source`'s
    attributes): a resume function's code is decoded from them, not disassembled again (issue 28)."""
    _items.setdefault(code, (list(items), source))


def decode(code: types.CodeType) -> Instructions:
    """Decode `code` once (cached per code object)."""
    cached = _cache.get(code)
    if cached is not None:
        return cached
    instrs: list[Instr] = []
    in_try: list[bool] = []
    regions: list[TryBegin | None] = []
    label_at: dict[Label, int] = {}
    depth = 0
    region: TryBegin | None = None
    for item in canonical_items(code)[0]:
        if isinstance(item, Label):
            label_at[item] = len(instrs)
        elif isinstance(item, TryBegin):
            depth, region = depth + 1, item
        elif isinstance(item, TryEnd):
            depth -= 1
            region = region if depth > 0 else None
        elif isinstance(item, Instr):
            instrs.append(item)
            in_try.append(depth > 0)
            regions.append(region if depth > 0 else None)
    targets = {i: label_at[ins.arg] for i, ins in enumerate(instrs) if isinstance(ins.arg, Label)}
    handler = [None if r is None else label_at[r.target] for r in regions]
    depths = [None if r is None else (r.stack_depth, r.push_lasti) for r in regions]
    result = Instructions(code, instrs, targets, in_try, handler, depths)
    _cache[code] = result
    return result
