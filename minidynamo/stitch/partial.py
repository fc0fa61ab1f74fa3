"""Partial capture: when a frame breaks, keep what came before the break as a graph and continue in a
resume function; when the break is inside a loop, run the loop from a driver (stitch/drivers.py). Imports
capture, report and the rest of stitch; `api.capture_once` calls it after a first capture pass raised
GraphBreak.

Steps: (1) capture again, stopping *before* the breaking instruction so no state is half applied; (2)
build the entry body: graph, write-backs, the instruction in plain Python (its plain form; inside a try
region, an exception it raises is re-raised in place by a raiser, so the original handlers run), and the
continuation. Anything that cannot be built raises CannotResume, and the frame runs eagerly with the reason.
"""

from __future__ import annotations

import dis
import functools
import logging
import types
from dataclasses import dataclass
from typing import Any, Callable

from ..capture import break_codes as codes
from ..capture.breaks import BreakCategory, BreakReason
from ..capture.builtin_scope import can_rebuild
from ..capture.frame_readers import mentions
from ..capture.instructions import decode
from ..capture.interpreter import capture_function
from ..errors import CannotResume
from ..report import log
from .breaking import chosen, hand_over, loop_state_expr, prepare_break, prepare_loop_back
from .drivers import loop_driver, plain
from .entry import Exit, Stmt
from .loop_choice import LoopChoice
from .resume import resume_function
from .stitched import EntryBody, entry_body


@dataclass(frozen=True)
class ResumeInfo:
    """Attached to a resume function: where its code starts (its own numbering), the function whose code
    it resumes (`origin`), the shift from origin's instruction numbering to its own, and the headers of
    the driven loops it hands back at (origin's numbering, innermost first)."""

    entry: int
    origin: types.FunctionType
    shift: int = 0
    drives: tuple[int, ...] = ()
    code: types.CodeType | None = None      # origin's code it was cut from (origin's `__code__` is writable)

    @property
    def own_drives(self) -> tuple[int, ...]:
        return tuple(d + self.shift for d in self.drives)


@dataclass
class PartialCapture:
    ctx: Any
    body: EntryBody


def resume_info(fn: types.FunctionType) -> ResumeInfo:
    return getattr(fn, "__minidynamo_resume__", None) or ResumeInfo(0, fn)


def check_resumable(fn: types.FunctionType, reason: BreakReason) -> None:
    """Raise CannotResume (saying why the frame runs eagerly) unless the break can be stitched around."""
    if reason.root_stop is None:
        raise CannotResume("the break happened before the function body started")
    reads = reason.frame_reader or mentions(fn.__code__)   # (a resume function would show another frame)
    if reads:
        raise CannotResume(reads, codes.FRAME_READER)
    if not can_rebuild(fn):
        raise CannotResume("the function's globals name other builtins than its own `__builtins__` (replaced "
                           "after it was made): a resume function could not resolve builtins as it does")


class _Children:
    """Makes (and caches) the compiled resume functions and callees one frame's entry calls. Resume
    functions are always cut from the origin's code, so a loop body reached from different frames (the
    function itself, the body of an enclosing driven loop) is one resume function, captured once."""

    def __init__(self, origin: types.FunctionType, compile_fn: Callable, children: dict) -> None:
        self.fn, self.compile_fn, self.children = origin, compile_fn, children
        self.code = origin.__code__
        self.ins = decode(self.code)

    def callee(self, target: types.FunctionType) -> Any:
        key = ("callee", target)
        if key not in self.children:
            self.children[key] = self.compile_fn(target)
        return self.children[key]

    def resume(self, index: int, layout: tuple[bool, ...], names: tuple[str, ...], drives: tuple[int, ...]) -> Any:
        """Compiled resume function of the origin at `index`, handing back at the loop headers `drives`."""
        # Keyed by the function object (its globals and closure cells are baked into the resume function)
        # and its code (writable: an entry for new code never meets a resume function cut from the old).
        key = ("resume", self.fn, self.code, index, layout, names, drives)
        if key not in self.children:
            raw, shift = resume_function(self.fn, index, layout, names)
            bytecode_log = log("bytecode")
            if bytecode_log.isEnabledFor(logging.DEBUG):
                bytecode_log.debug("resume function %s:\n%s", raw.__qualname__, dis.Bytecode(raw).dis())
            raw.__minidynamo_resume__ = ResumeInfo(index + shift, self.fn, shift, drives, self.code)
            self.children[key] = self.compile_fn(raw)
        return self.children[key]

    def raiser(self, index: int, layout: tuple[bool, ...], names: tuple[str, ...]) -> Any:
        """The plain function raising an exception at `index` inside its try region (never compiled: it
        runs only on the exception path, handlers included)."""
        key = ("raise", self.fn, self.code, index, layout, names)
        if key not in self.children:
            self.children[key], _ = resume_function(self.fn, index, layout, names, raises=True)
        return self.children[key]

    def enclosing(self, index: int) -> list[tuple[int, int]]:
        """The loops around instruction `index`, innermost first."""
        return [(s, e) for s, e in self.ins.loops if s <= index <= e]


def _continuation(kids: _Children, frame: Any, parts: Any, info: ResumeInfo, at_header: bool) -> list[Stmt]:
    """The entry's last statements: call the resume function (breaking.hand_over); inside loops no driver runs
    yet, start one per such loop level (innermost called first, each passing what it does not handle to
    the next). At a loop header, the state is handed to that loop's driver instead."""
    ctx = frame.ctx
    k, index = frame.current - info.shift, parts.resume_index - info.shift
    names = tuple(parts.local_names)
    headers = [s for s, _ in kids.enclosing(k)]
    driven = [s for s in headers if s in info.drives]
    new = headers[:headers.index(driven[0])] if driven else headers      # loops inside the driven ones
    drives = (*new, *driven)
    if at_header and (not new or new[0] != k):
        raise CannotResume("a loop header the frame cannot hand to a driver")
    wrap, eager_wrap = "{}", "{}"
    for level, start in enumerate(new):
        name = ctx.bind(loop_driver(kids, start, drives[level + 1:]), 'drive')
        wrap, eager_wrap = f"{name}({wrap})", f"{name}({eager_wrap}{', True' if level == 0 else ''})"
    # Where this entry starts the outermost driven loop of the function (it is not itself a driven body), the
    # rest of the function runs driven or as plain Python, whichever is faster (stitch/loop_choice.py).
    choice = ctx.bind(LoopChoice(), "choice") if new and not info.drives else None
    if at_header:                  # a real iterator, or too many iterations: the loop's driver takes over
        state = loop_state_expr(ctx, k, list(names), parts.local_exprs, parts.stack_exprs, parts.layout)
        if choice is None:
            return [Exit(f"return {wrap.format(state)}")]
        return chosen(choice, eager_wrap.format(state), wrap.format(state))
    compiled = kids.resume(index, tuple(parts.layout), names, drives)
    resume = ctx.bind(compiled, 'resume')
    alternative = None if choice is None else (choice, ctx.bind(plain(compiled), 'plain'))
    return hand_over(frame, parts, resume, wrap, alternative)   # its arguments moved: the entry keeps no reference


def capture_around_break(fn: types.FunctionType, args: tuple, kwargs: dict, reason: BreakReason, *,
                         name: str, tag: str, limits: dict, compile_fn: Callable[[types.FunctionType], Any],
                         children: dict, keep_dead: bool = True, stopped: Any = None) -> PartialCapture:
    """The capture up to the break and the entry that resumes after it; raises CannotResume saying why
    this break cannot be stitched around. `stopped`: the first pass's Captured when it already stands
    before the breaking instruction with nothing of it applied (interpreter.capture_function), used as
    the second pass would be."""
    check_resumable(fn, reason)
    info = resume_info(fn)
    if info.code is not None and info.code is not info.origin.__code__:
        raise CannotResume(f"{info.origin.__qualname__}.__code__ was replaced while this call ran: the rest of "
                           f"the call runs the code it started with, as plain Python")
    if stopped is not None:
        second = stopped
        second.frame.stop_at = reason.root_stop
    else:
        second = capture_function(fn, args, kwargs, name, tag=tag, stop_at=reason.root_stop, entry=info.entry,
                                  drives=info.own_drives, **limits)
    if second.frame is None:
        raise CannotResume("the second capture pass did not reach the break point")
    ctx = second.ctx
    ctx.distinctness_guards()
    kids = _Children(info.origin, compile_fn, children)
    k = second.frame.current - info.shift
    loop = kids.ins.innermost_loop(k)
    at_header = reason.category == BreakCategory.LOOP and loop is not None and loop[0] == k
    in_try = kids.ins.in_try[k]
    parts = prepare_break(ctx, second.frame, kids.callee, at_header, functools.partial(kids.raiser, k), keep_dead,
                          in_try)
    last = _continuation(kids, second.frame, parts, info, at_header)
    return PartialCapture(ctx, entry_body(ctx, parts.em, parts.statements + last))


def loop_back_body(fn: types.FunctionType, ctx: Any, frame: Any) -> EntryBody:
    """Entry body of a driven function that came back to its loop header; CannotResume if it cannot be built."""
    em, stmts = prepare_loop_back(ctx, frame, frame.current - resume_info(fn).shift)
    return entry_body(ctx, em, stmts)
