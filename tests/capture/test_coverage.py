"""Every real opcode of the running Python has a handler or an UNSUPPORTED entry with a reason, and
handler names follow the registry's rule (snake_case opcode name, optional `_3_11`-style suffix)."""

from __future__ import annotations

import dis
import re

from minidynamo import pyversion
from minidynamo.capture.handlers import HANDLERS, REGISTRATIONS, UNSUPPORTED, handler
from minidynamo.capture.instructions import SPLIT_OPCODES


def real_opcodes() -> set[str]:
    """dis.opmap without INSTRUMENTED_* and pseudo ops (pseudo ops have values >= 256 on 3.12+)."""
    return {name for name, op in dis.opmap.items() if op < 256 and not name.startswith("INSTRUMENTED_")}


def test_every_real_opcode_is_handled_or_listed():
    missing = sorted(real_opcodes() - set(HANDLERS) - set(UNSUPPORTED) - SPLIT_OPCODES)
    assert missing == [], f"opcodes with neither a handler nor an UNSUPPORTED reason: {missing}"


def test_no_opcode_is_both_handled_and_unsupported():
    assert sorted(set(HANDLERS) & set(UNSUPPORTED)) == []


def test_unsupported_entries_have_reasons():
    assert all(isinstance(r, str) and len(r) > 10 for r in UNSUPPORTED.values())


def test_handlers_registered_for_this_python_exist_here():
    # A handler registered for an opcode this Python does not have is dead code (a wrong version range).
    # Pseudo ops (JUMP, JUMP_NO_INTERRUPT) may appear in `bytecode`'s output, so they count as real here.
    known = set(dis.opmap) | {"JUMP", "JUMP_NO_INTERRUPT"}
    # Aliases registered on every version because they share a handler (LOAD_FAST_CHECK is 3.12+).
    allowed_extra = {"LOAD_FAST_CHECK", "CACHE", "EXTENDED_ARG"}
    assert sorted(set(HANDLERS) - known - allowed_extra) == []


SUPPORTED_VERSIONS = [(3, minor) for minor in range(pyversion.OLDEST_SUPPORTED[1], pyversion.NEWEST_SUPPORTED[1] + 1)]


def test_registrations_cover_the_five_supported_versions_without_overlap():
    """From any Python: every version range lies within the supported versions (no dead registration),
    and on each supported version an opcode has at most one handler."""
    assert SUPPORTED_VERSIONS == [(3, 11), (3, 12), (3, 13), (3, 14), (3, 15)]
    bad = [f"{fn.__name__}: {since}..{until}" for _, since, until, fn in REGISTRATIONS
           if (since is not None and since not in SUPPORTED_VERSIONS)
           or (until is not None and until not in SUPPORTED_VERSIONS) or (since and until and since > until)]
    assert bad == []
    for version in SUPPORTED_VERSIONS:
        seen: dict[str, str] = {}
        for names, since, until, fn in REGISTRATIONS:
            if (since is None or version >= since) and (until is None or version <= until):
                for name in names:
                    assert name not in seen, f"{version}: {name} has {seen[name]} and {fn.__name__}"
                    seen[name] = fn.__name__


def test_handler_names_follow_the_rule():
    bad = []
    for op, fn in HANDLERS.items():
        base = re.sub(r"_3_\d+$", "", fn.__name__)
        shared = [o for o, f in HANDLERS.items() if f is fn]
        if len(shared) == 1 and base != op.lower():
            bad.append(f"{op} -> {fn.__name__}")
    assert bad == []


def test_registry_rejects_a_misnamed_handler():
    try:
        handler("NOP_FOR_TEST")(lambda frame, inst: None)
    except RuntimeError as e:
        assert "must be named nop_for_test" in str(e)
    else:
        raise AssertionError("a handler named <lambda> for NOP_FOR_TEST was accepted")
    finally:
        HANDLERS.pop("NOP_FOR_TEST", None)


def test_handlers_take_frame_and_instruction():
    import inspect
    for op, fn in HANDLERS.items():
        assert list(inspect.signature(fn).parameters)[:2] == ["frame", "inst"], op
