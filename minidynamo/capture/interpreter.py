"""The symbolic interpreter loop: fetch an instruction, dispatch to its handler, and catch GraphBreak in
one place to attach where it happened. Imports capture.frame, capture.handlers and capture.breaks.

`capture_function(fn, args, kwargs, ...)` is the entry point: it wraps the real arguments as Vars (which
installs guards), runs the function's code, and returns a `Captured` (context + return value) or raises
GraphBreak with a located BreakReason.
"""

from __future__ import annotations

import types
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .. import guards as G
from ..errors import GraphBreak
from .builtin_scope import BuiltinScope
from .fold.branches import ARM_OPCODES, ARM_STEP_BUDGET, FORI_OPCODES
from . import break_codes as codes
from .breaks import BreakCategory, BreakReason
from .dynamic_shapes import STATIC, ShapePolicy
from .context import CaptureContext
from .fold.fori import ForiState
from .fold.loop_ends import AtIterationEnd
from .frame import Frame
from .handlers import HANDLERS, UNSUPPORTED
from .sources import LocalSource, stack_labels
from .variables.base import Var, unsupported
from .instructions import decode
from .signatures import code_signature
from .stops import LoopBack, Stop


@dataclass
class Captured:
    """A finished capture (`result` is the return value), or, with `stop_at`, the root frame stopped
    before the instruction where a first pass broke (`frame`, `result` None)."""

    ctx: CaptureContext
    result: Var | None
    frame: Frame | None = None
    loop_back: bool = False     # a driven frame came back to its loop header (see stitch/drivers.py)


def run_frame(frame: Frame) -> Var:
    """Execute `frame` to its return; a GraphBreak leaving it carries this frame's location."""
    return run_until(frame, None)


def run_until(frame: Frame, until: int | None) -> Var | None:
    """Execute `frame` until it returns (its result) or is about to run instruction `until` (None). Inside
    an arm being folded into a cond (`ctx.arm_depth`), only the opcodes of branches.ARM_OPCODES may run."""
    instrs = frame.ins.instrs
    limit = frame.ctx.max_steps
    ctx = frame.ctx
    outer, ctx.active_frame = ctx.active_frame, frame
    try:
        while frame.result is None and frame.ip != until:
            if frame.fori and len(frame.stack) <= frame.fori[-1].floor:
                raise AtIterationEnd(frame.fori[-1], True)      # a `break` popped the iterator (loop_ends.py)
            visits = frame.visits          # (a folded branch puts back a saved dict)
            frame.current = frame.ip
            instr = instrs[frame.ip]
            visits[frame.ip] = visits.get(frame.ip, 0) + 1
            if frame.stop_at is not None and frame.stop_at == (frame.ip, visits[frame.ip]):
                raise Stop()
            if frame.ip in frame.loop_starts:
                _at_loop_start(frame, visits[frame.ip])
            if ctx.lint is not None and frame.ins.in_try[frame.ip] and not ctx.arm_depth \
                    and ctx.lint.raises_here(frame):
                continue            # lint: this path raises here, into the except handler (frame.ip set)
            frame.ip += 1
            frame.ctx.steps += 1
            if frame.ctx.steps > limit:
                raise unsupported(BreakCategory.UNSUPPORTED, f"capture exceeded {limit} symbolic steps")
            if ctx.arm_depth:
                ctx.arm_steps += 1
                allowed = FORI_OPCODES if ctx.fori is not None and ctx.fori.depth else ARM_OPCODES
                if instr.name not in allowed or not frame.foldable_at(frame.current):
                    raise unsupported(BreakCategory.SIDE_EFFECT,
                                      f"{instr.name} inside a branch arm (only pure graph code outside try folds)")
                if ctx.arm_steps > ARM_STEP_BUDGET:
                    raise unsupported(BreakCategory.UNSUPPORTED, "branch folding used its step budget")
            handler = HANDLERS.get(instr.name) or (ctx.lint.handler(instr.name) if ctx.lint is not None else None)
            if handler is None:
                why = UNSUPPORTED.get(instr.name, "no handler for this opcode")
                raise unsupported(BreakCategory.UNSUPPORTED, f"opcode {instr.name}: {why}")
            handler(frame, instr)
    except GraphBreak as e:
        _locate(e.reason, frame)
        raise
    finally:
        frame.ctx.active_frame = outer
    return frame.result


# The loop passed to the layers below: a frame runs its callees with frame.run() (run_frame, whose code
# api.py looks for in tracebacks), the folding passes run arms and bodies with frame.run_until(until).
Frame.run, Frame.run_until = run_frame, run_until


def _at_loop_start(frame: Frame, visit: int) -> None:
    """A driven frame hands back to a driver when it comes round to one of the driven loops' headers; any
    loop that has run `unroll_limit` iterations is handed to a driver in plain Python. Back at the header
    of a loop whose body is being folded, the iteration is over (loop_ends.py)."""
    if frame.fori and frame.ip == frame.fori[-1].header:
        raise AtIterationEnd(frame.fori[-1], False)
    if frame.ip in frame.drives and (frame.ip != frame.entry or visit > 1):
        raise LoopBack()
    if visit > frame.ctx.unroll_limit:
        e = unsupported(codes.UNROLL_LIMIT, f"loop ran {frame.ctx.unroll_limit} iterations during capture; "
                        "the rest is run by a loop driver calling a captured body (the knob: config option "
                        "unroll_limit, e.g. compile(fn, options={'unroll_limit': 200}), unrolls longer loops)")
        e.before = frame      # raised before the header ran: nothing of that instruction is applied
        raise e


def _locate(reason: BreakReason, frame: Frame) -> None:
    if frame.parent is None:      # where the root frame was: a restart stops before this instruction
        reason.root_stop = (frame.current, frame.visits.get(frame.current, 0))
        if frame.errstate_blocks:   # ... or before the np.errstate(...) call whose block it is inside
            reason.root_stop = frame.errstate_blocks[0]
            reason.message += " (inside `with np.errstate(...)`: the whole block runs as plain Python)"
    filename, lineno, text = frame.location()
    where = f"{frame.qualname} ({filename}:{lineno}) `{text}`"
    if reason.lineno is None and not reason.filename:
        reason.filename, reason.lineno, reason.source_line = filename, lineno, text
        reason.function = frame.qualname
        reason.opname = frame.ins.instrs[frame.current].name
    else:
        reason.stack.append(where)


locate_reason = _locate      # (lint/state.py locates the breaks it goes past as this loop locates the others)


@lru_cache(maxsize=256)
def cell_arguments(code: types.CodeType) -> tuple[str, ...]:
    """Parameters that are cell variables without a MAKE_CELL: a resume function is passed those cells.
    Cached per code object (every capture of a function asks, and the scan reads every instruction)."""
    made = {ins.arg.name for ins in decode(code).instrs if ins.name == "MAKE_CELL"}
    params = code.co_varnames[:code.co_argcount + code.co_kwonlyargcount]
    return tuple(n for n in code.co_cellvars if n in params and n not in made)


def capture_function(fn: types.FunctionType, args: tuple, kwargs: dict, name: str, *, tag: str,
                     inline_limit: int, max_steps: int, unroll_limit: int = 64,
                     stop_at: tuple[int, int] | None = None, entry: int = 0,
                     drives: tuple[int, ...] = (), dynamic: frozenset[str] = frozenset(),
                     shapes: ShapePolicy = STATIC, auto_cond: bool = False, fori_loops: bool = False,
                     mask_counts: bool = False, work: Any = None, lint: Any = None) -> Captured:
    """Symbolically run `fn(*args, **kwargs)`; parameters are read from the compiled entry's parameters.
    A GraphBreak leaving here carries `.ctx`, whose guards say when the same break happens again.
    `work` (a Counter) adds up what this pass did: see report.CaptureRecord.work. `lint`: a lint.state.LintState
    (a lint pass: some breaks are recorded and gone past)."""
    ctx = CaptureContext(name, tag)
    ctx.lint = lint
    ctx.dynamic = set(dynamic)
    ctx.shape_policy = shapes
    ctx.auto_cond = auto_cond
    ctx.fori = ForiState() if fori_loops else None
    ctx.mask_counts = mask_counts
    ctx.inline_limit, ctx.max_steps, ctx.unroll_limit, ctx.steps = inline_limit, max_steps, unroll_limit, 0
    try:
        return _run(ctx, fn, args, kwargs, stop_at, entry, drives)
    finally:
        if work is not None:
            work.update({"passes": 1, "steps": ctx.steps, "fold attempts": ctx.fold_attempts})


def _run(ctx: CaptureContext, fn: types.FunctionType, args: tuple, kwargs: dict, stop_at: tuple[int, int] | None,
         entry: int, drives: tuple[int, ...]) -> Captured:
    sig = code_signature(fn)
    bound = sig.bind(*args, **kwargs)
    bound.apply_defaults()
    passed_cells = cell_arguments(fn.__code__)
    try:
        labels = _stack_labels(fn, entry, bound.arguments) if entry else {}
        locals_ = {p: ctx.wrap(v, LocalSource(p, labels.get(p, ""))) for p, v in bound.arguments.items()
                   if p not in passed_cells}
        for p in passed_cells:      # a resume function's cell variables: the cells themselves
            ctx.guard([G.Guard(p, G.GuardKind.TYPE, types.CellType, f"cell {p}")])
            if type(bound.arguments[p]) is not types.CellType:
                raise unsupported(BreakCategory.UNSUPPORTED, f"argument {p!r} should be a cell")
    except GraphBreak as e:
        e.ctx = ctx
        raise
    closure = [ctx.cell_box(c) for c in (fn.__closure__ or ())]
    try:
        frame = Frame(ctx, fn.__code__, locals_, closure, fn.__globals__, fn.__qualname__, BuiltinScope(fn.__builtins__))
        frame.cells.update((p, ctx.cell_box(bound.arguments[p], key=p)) for p in passed_cells)
        frame.stop_at, frame.entry, frame.drives = stop_at, entry, frozenset(drives)
        result = run_frame(frame)
    except Stop:
        return Captured(ctx, None, frame)
    except LoopBack:
        return Captured(ctx, None, frame, loop_back=True)
    except GraphBreak as e:
        e.ctx = ctx
        at = getattr(e, "before", None)
        if at is not None and at.parent is None and e.reason.root_stop == (at.current, at.visits[at.current]):
            # The root frame broke before running an instruction (a loop past the unroll limit): it stands
            # exactly where a restart stopping at root_stop would stop, so stitch/partial.py needs no restart.
            e.stopped = Captured(ctx, None, at)
        raise
    return Captured(ctx, result)


def _stack_labels(fn: types.FunctionType, entry: int, values: dict) -> dict[str, str]:
    """A resume function's stack parameters in words, for guards and failure reasons (sources.stack_labels)."""
    names = sorted((p for p in values if p.startswith("___stack") and p[8:].isdigit()), key=lambda p: int(p[8:]))
    if not names:
        return {}
    ins = decode(fn.__code__)
    return stack_labels(names, values, fn.__code__.co_filename, ins.lineno(entry), ins.source_line(entry))
