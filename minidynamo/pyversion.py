"""The only reader of sys.version_info: named facts about the running CPython's bytecode.

Imports nothing of the package. Each fact names the version that changed it; handlers register version
ranges (`since=`, `until=`) against `VERSION` instead of testing the version themselves.
"""

from __future__ import annotations

import sys
from typing import Final

VERSION: Final = sys.version_info[:2]
PY311: Final = VERSION == (3, 11)
# The versions whose bytecode this package knows. A newer Python never reaches generated code: compile()
# returns a function running the original eagerly, with one warning (api.py).
OLDEST_SUPPORTED: Final = (3, 11)
NEWEST_SUPPORTED: Final = (3, 15)
# 3.11: PRECALL's specialized forms (PRECALL_NO_KW_METHOD_DESCRIPTOR_NOARGS, ...) make the call themselves
# and then skip the CALL they assume right after them by a fixed offset. Code placed between KW_NAMES/PRECALL
# and their CALL (a raiser's raise block, stitch/resume.py) is jumped into at a wrong offset once PRECALL has
# specialized: that segfaulted CPython 3.11 (first seen as a crash in traceback.clear_frames, whose raiser
# sits at `tb.tb_frame.clear()`; tests/stitch/test_breaks_in_try.py::test_raiser_survives_call_specialization).
# A raise block goes before these instructions instead; they change no stack slot, so the stack layout is
# the CALL's.
CALL_PREFIX_OPS: Final = ("PRECALL", "KW_NAMES") if PY311 else ()
SUPPORTED: Final = OLDEST_SUPPORTED <= VERSION <= NEWEST_SUPPORTED

# 3.13: CALL sees [callable, self_or_null, *args]; 3.11-3.12: [null_or_method, callable_or_self, *args].
NULL_AFTER_CALLABLE: Final = VERSION >= (3, 13)


def call_slots(fn: object, self_or_null: object = None) -> tuple[object, object]:
    """The two stack slots under a call's arguments, bottom first, for `fn` called with `self_or_null`
    (None: a NULL slot, a plain call). A method with its self is [method, self] on every version."""
    if self_or_null is not None or NULL_AFTER_CALLABLE:
        return fn, self_or_null
    return None, fn


def read_call_slots(bottom: object, top: object) -> tuple[object, object]:
    """(callable, self or None) from the two stack slots under a call's arguments (inverse of call_slots)."""
    if bottom is None and not NULL_AFTER_CALLABLE:
        return top, None
    return bottom, top

# Differences the handlers register by version range themselves (capture/handlers: `since=`, `until=`),
# listed here so that every version difference can be read in one place: 3.11's PRECALL before CALL (3.12 dropped it); KW_NAMES + CALL
# (3.13: CALL_KW, the names a stack value); 3.11's LOAD_METHOD (3.12+: LOAD_ATTR with a method flag);
# 3.11's POP_JUMP_FORWARD/BACKWARD_IF_* (3.12+: POP_JUMP_IF_*); 3.13's TO_BOOL before every POP_JUMP_IF_*
# (a numpy.bool_ would be silently "true"); RETURN_CONST in 3.12-3.13 only; 3.12's inlined comprehensions
# (PEP 709); END_FOR from 3.12; 3.13's LOAD_CLOSURE as a pseudo op and SET_FUNCTION_ATTRIBUTE; 3.13's
# superinstructions (LOAD_FAST_LOAD_FAST, STORE_FAST_LOAD_FAST, STORE_FAST_STORE_FAST; 3.14 the borrow pair);
# 3.12's BINARY_SLICE / STORE_SLICE; 3.14's BINARY_SUBSCR as BINARY_OP with NB_SUBSCR.

# An exhausted FOR_ITER pops the iterator and jumps to its target (3.11), or past the END_FOR there (3.12),
# or past END_FOR + POP_TOP (3.13); 3.14+ jumps past END_FOR onto POP_ITER, which pops the iterator: for
# capture the same as 3.13, so loop exits continue 2 past the target. `bytecode` labels the END_FOR itself.
FOR_ITER_EXIT_SKIP: Final = {(3, 11): 0, (3, 12): 1}.get(VERSION, 2)
# 3.15: GET_ITER pushes two slots, the iterator and a NULL (or, in eager code over a list or tuple, the
# sequence and a tagged index no Python code can hold); FOR_ITER reads both, POP_ITER pops both. Capture
# and generated code always use [iterator, NULL], which 3.15's FOR_ITER runs as the plain iterator protocol.
ITER_SLOTS: Final = 2 if VERSION >= (3, 15) else 1
# 3.14: CALL_FUNCTION_EX always has a keyword-arguments slot above the positional tuple (NULL without
# `**`); 3.11-3.13: bit 0 of its oparg says whether a mapping is there.
CALL_EX_HAS_KWARGS_SLOT: Final = VERSION >= (3, 14)
# 3.14: LOAD_FAST_BORROW pushes a borrowed reference (no reference count) where the compiler proved the
# local outlives the stack item; LOAD_FAST_BORROW_LOAD_FAST_BORROW fuses two. Resume code keeps them (eager's
# reference counts, which ndarray.resize checks) and turns one into LOAD_FAST_CHECK only where the local
# may be unbound: an unchecked load of an unbound local crashes the interpreter.
HAS_BORROW_LOADS: Final = VERSION >= (3, 14)
# The opcodes reading one local (3.12 added LOAD_FAST_CHECK, 3.14 LOAD_FAST_BORROW).
LOCAL_LOADS: Final = ("LOAD_FAST", "LOAD_FAST_CHECK") + (("LOAD_FAST_BORROW",) if HAS_BORROW_LOADS else ())
# 3.14: a while loop's test stands only at its top (the back edge jumps to the test, the body follows the
# test's NOT_TAKEN); 3.11-3.13 repeat the test at the bottom and jump back to the body's first instruction.
WHILE_TESTED_AT_TOP: Final = VERSION >= (3, 14)
# 3.15 (PEP 810, lazy imports): IMPORT_NAME's argument is (lazy, eager, name), as `bytecode` decodes it.
IMPORT_NAME_HAS_LAZY_FLAG: Final = VERSION >= (3, 15)
# 3.14: t-strings (PEP 750): BUILD_INTERPOLATION, BUILD_TEMPLATE.
HAS_TEMPLATE_STRINGS: Final = VERSION >= (3, 14)


# 3.12+: a plain LOAD_FAST is not checked for an unbound local (a resume function that reads one it was not
# given would crash the interpreter), so resume code turns such loads into LOAD_FAST_CHECK. 3.11 checks always.
NEEDS_LOAD_FAST_CHECK: Final = VERSION >= (3, 12)


# 3.14: with -X context_aware_warnings (the default of free-threaded builds) the warnings filters live in a
# context variable, and the module's `filters` attribute no longer decides (stitch/held_warnings.py).
CONTEXT_AWARE_WARNINGS: Final = bool(getattr(sys.flags, "context_aware_warnings", False))


def in_range(since: tuple[int, int] | None, until: tuple[int, int] | None) -> bool:
    """True when the running version lies in [since, until] (both ends inclusive, None = open)."""
    return (since is None or VERSION >= since) and (until is None or VERSION <= until)
