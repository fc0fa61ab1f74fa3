"""Building a resume function (stitch/resume.py) is cheap (fuzz seed 14 builds 65 of them, a third of its
capture time: issue 28): its stack size is derived, not computed by a flow analysis over the whole code (the
code's own depth, or the live stack the prefix pushes; a raiser keeps the analysis), and decode() reads it
from the items it was assembled from, not from a fresh disassembly. Differential on generated programs with
breaks in loops, try blocks and calls; then every resume code built is checked against the flow analysis and
a fresh disassembly."""

from __future__ import annotations

import bytecode
import pytest

from minidynamo.capture import instructions
from minidynamo.stitch import resume
from tests.fuzz import generator as gen, runner

SEEDS = (8, 14, 35, 116)        # breaks in loops and try blocks, raisers, nested driven loops


@pytest.fixture(scope="module")
def built():
    """(resume codes built by the seeds' programs, flow analyses run, resume codes disassembled)."""
    analysed, disassembled = [], []
    real, read = bytecode.Bytecode.compute_stacksize, instructions.from_code
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(bytecode.Bytecode, "compute_stacksize",
                   lambda self, *a, **k: analysed.append(1) or real(self, *a, **k))
        mp.setattr(instructions, "from_code",
                   lambda code, *a, **k: disassembled.append(code.co_qualname) or read(code, *a, **k))
        resume._cache.clear()
        for seed in SEEDS:
            program = gen.generate(seed, gen.FEATURES)
            assert runner.compare(program.source, runner.program_calls(program)) == [], seed
    codes = dict(resume._cache)
    assert len(codes) > 20 and any(key[-1] for key in codes)        # raisers among them
    return codes, analysed, [q for q in disassembled if "<__r" in q]


def test_the_derived_stack_size_covers_every_path(built):
    codes, analysed, _ = built
    assert len(analysed) == sum(key[-1] for key in codes)           # flow analysis for raisers only
    for new in codes.values():
        needed = bytecode.Bytecode.from_code(new).compute_stacksize(check_pre_and_post=False)
        assert needed <= new.co_stacksize, (new.co_qualname, needed, new.co_stacksize)


def test_a_resume_function_decodes_from_its_items_as_from_its_code(built):
    # resume_code hands decode() the items it assembled (capture/instructions.assembled): what a fresh
    # disassembly of the code gives, instruction by instruction, jumps and try regions included
    codes, _, disassembled = built
    assert disassembled == []
    for code in codes.values():
        assert _seeded(code) == _read_back(code), code.co_qualname


def _read_back(code):
    """decode()'s view of `code` disassembled afresh (no cache): per instruction its name, argument (a jump's
    as the target's index), location, try flag and handler index."""
    from minidynamo.capture import instructions as ins
    items = []
    for item in ins.from_code(code, conserve_depths=True):
        items.extend(ins.canonical(item, code) if isinstance(item, bytecode.Instr) else [item])
    instrs, label_at, depth, region, flags = [], {}, 0, None, []
    for item in items:
        if isinstance(item, bytecode.Label):
            label_at[item] = len(instrs)
        elif isinstance(item, bytecode.TryBegin):
            depth, region = depth + 1, item.target
        elif isinstance(item, bytecode.TryEnd):
            depth -= 1
            region = region if depth > 0 else None
        elif isinstance(item, bytecode.Instr):
            instrs.append(item)
            flags.append((depth > 0, region if depth > 0 else None))
    return [(i.name, label_at[i.arg] if isinstance(i.arg, bytecode.Label) else _arg(i.arg), i.location, t,
             None if r is None else label_at[r]) for i, (t, r) in zip(instrs, flags)]


def _arg(arg):
    return getattr(arg, "name", arg) if not isinstance(arg, (int, str, tuple, frozenset, type(None))) else arg


def _seeded(code):
    from minidynamo.capture.instructions import decode
    d = decode(code)
    return [(i.name, d.targets[k] if isinstance(i.arg, bytecode.Label) else _arg(i.arg), i.location,
             d.in_try[k], d.handler[k]) for k, i in enumerate(d.instrs)]
