"""Instruction builders over `bytecode` for the running Python: the only code that knows how each version
spells a NULL slot, a jump or a checked local load. Imports pyversion and bytecode (a leaf module)."""

from __future__ import annotations

from bytecode import Instr, Label

from .. import pyversion


def load_fast(name: str, *, checked: bool = False) -> Instr:
    """A local load; `checked` raises UnboundLocalError instead of reading garbage (3.12+)."""
    return Instr("LOAD_FAST_CHECK" if checked and pyversion.NEEDS_LOAD_FAST_CHECK else "LOAD_FAST", name)


def push_null() -> Instr:
    return Instr("PUSH_NULL")


def jump_forward(label: Label) -> Instr:
    return Instr("JUMP_FORWARD", label)


def is_unchecked_load(instr: Instr) -> bool:
    """A local load that reads garbage, or crashes, on an unbound local (3.14: LOAD_FAST_BORROW too)."""
    return instr.name in pyversion.LOCAL_LOADS and instr.name != "LOAD_FAST_CHECK" and isinstance(instr.arg, str)
