"""Partial capture: when a frame breaks, keep what came before the break as a graph and continue in a
resume function; when the break is inside a loop, run the loop from a driver. An api-level module (imports
capture and stitch); `api.capture_once` calls it after a first capture pass raised GraphBreak.

Steps: (1) decide whether the break point can be resumed (not inside a try block, instruction expressible
in Python); (2) capture again, stopping *before* that instruction so no state is half applied; (3) build
the entry body: graph, write-backs, the instruction in plain Python, and the continuation.

Loops. Resuming inside a loop by chaining resume functions would nest one call per iteration. Instead the
entry of the frame that broke runs a *driver*: a plain Python loop that calls a *driven* resume function
per iteration. A driven function stops when it comes back round to the loop header and returns a
LoopState (its live locals, and the iterator of a for-loop) instead of running on. Each driven function
is captured once, so capture time does not grow with the trip count. Run eagerly (past the cache limit,
after an internal error) a driven function simply runs to the end of the function and returns its result,
which the driver passes through: both behaviours fit the same protocol.
"""

from __future__ import annotations

import dis
import functools
import logging
import types
from dataclasses import dataclass
from typing import Any, Callable

from . import pyversion
from .capture.breaks import BreakCategory, BreakReason
from .capture.instructions import decode
from .capture.interpreter import capture_function
from .stitch.breaking import LoopState, finish_body, prepare_break, prepare_loop_back
from .stitch.resume import CannotResume, resume_function
from .report import log
from .stitch.stitched import EntryBody

@dataclass(frozen=True)
class ResumeInfo:
    """Attached to a resume function: where its code starts, and the loop header it hands back at."""

    entry: int
    drive_at: int | None = None


@dataclass
class PartialCapture:
    ctx: Any
    body: EntryBody


def resume_info(fn: types.FunctionType) -> ResumeInfo:
    return getattr(fn, "__minidynamo_resume__", None) or ResumeInfo(0)


def check_resumable(fn: types.FunctionType, reason: BreakReason) -> None:
    """Raise CannotResume (saying why the frame runs eagerly) unless the break can be stitched around."""
    if reason.root_stop is None:
        raise CannotResume("the break happened before the function body started")
    index, _ = reason.root_stop
    if decode(fn.__code__).in_try[index]:
        raise CannotResume("graph break inside a try/with block: the frame runs eagerly")
    if fn.__code__.co_cellvars:
        raise CannotResume("graph break in a function whose locals are captured by closures: "
                           "the frame runs eagerly")


class _Children:
    """Makes (and caches) the compiled resume functions and callees one frame's entry calls."""

    def __init__(self, fn: types.FunctionType, compile_fn: Callable, children: dict) -> None:
        self.fn, self.compile_fn, self.children = fn, compile_fn, children
        self.ins = decode(fn.__code__)

    def callee(self, target: types.FunctionType) -> Any:
        key = ("callee", target)
        if key not in self.children:
            self.children[key] = self.compile_fn(target)
        return self.children[key]

    def resume(self, index: int, layout: tuple[bool, ...], names: tuple[str, ...], drive: int | None) -> Any:
        """Compiled resume function of fn at `index`, handing back at loop header `drive` (fn's indices)."""
        # Keyed by the function object: its globals and closure cells are baked into the resume function.
        key = ("resume", self.fn, index, layout, names, drive)
        if key not in self.children:
            raw, shift = resume_function(self.fn, index, layout, names)
            bytecode_log = log("bytecode")
            if bytecode_log.isEnabledFor(logging.DEBUG):
                bytecode_log.debug("resume function %s:\n%s", raw.__qualname__, dis.Bytecode(raw).dis())
            raw.__minidynamo_resume__ = ResumeInfo(index + shift, None if drive is None else drive + shift)
            self.children[key] = self.compile_fn(raw)
        return self.children[key]

    def drive_of(self, index: int, drive: int | None) -> int | None:
        """A resume point inside the driven loop keeps handing back to the same driver."""
        if drive is None:
            return None
        loop = next(((s, e) for s, e in self.ins.loops if s == drive), None)
        return drive if loop is not None and loop[0] <= index <= loop[1] else None


def drive_for(res: Any, body: Callable[[tuple], Any], exit_: Callable[[tuple], Any]) -> Any:
    """Run the rest of a for-loop: FOR_ITER in plain Python, one captured body call per iteration."""
    while type(res) is LoopState:
        try:
            item = next(res.iterator)
        except StopIteration:
            return exit_(res.names)(*res.values)
        res = body(res.names)(res.iterator, item, *res.values)
    return res


def drive_while(res: Any, loop: Callable[[tuple], Any]) -> Any:
    """Run the rest of a while-loop: one captured call per iteration, from the header (the test) on."""
    while type(res) is LoopState:
        res = loop(res.names)(*res.values)
    return res


def _driver(kids: _Children, start: int, end: int, outer: int | None) -> Any:
    """The driver for the loop [start, end] of kids.fn; `outer` is the loop fn itself hands back at."""
    instr = kids.ins.instrs[start]
    if instr.name == "FOR_ITER":
        exit_index = kids.ins.targets[start] + pyversion.FOR_ITER_EXIT_SKIP
        body = functools.lru_cache(None)(lambda names: kids.resume(start + 1, (True, True), names, start))
        exit_ = functools.lru_cache(None)(
            lambda names: kids.resume(exit_index, (), names, kids.drive_of(exit_index, outer)))
        return functools.partial(drive_for, body=body, exit_=exit_)
    loop = functools.lru_cache(None)(lambda names: kids.resume(start, (), names, start))
    return functools.partial(drive_while, loop=loop)


def _continuation(kids: _Children, frame: Any, parts: Any, drive: int | None) -> str:
    """The entry's last line: call the resume function, or start a driver for the loop the break is in."""
    ctx = frame.ctx
    k, index = frame.current, parts.resume_index
    args = ", ".join(parts.stack_exprs + parts.local_exprs)
    names = tuple(parts.local_names)
    loop = kids.ins.innermost_loop(k)
    if loop is None or loop[0] == drive:       # not in a loop, or in the loop this frame hands back at
        resume = kids.resume(index, tuple(parts.layout), names, kids.drive_of(index, drive))
        return f"return {ctx.bind(resume, 'resume')}({args})"
    start, end = loop
    if drive is not None and not any(s == drive and s <= start and end <= e for s, e in kids.ins.loops):
        # A loop outside the one this frame hands back at: a driver here would nest once per outer
        # iteration. This frame runs eagerly instead (to the end of the function: the driver accepts that).
        raise CannotResume("a break in a loop enclosing the driven one")
    driver = ctx.bind(_driver(kids, start, end, drive), "drive")
    is_for = kids.ins.instrs[start].name == "FOR_ITER"
    if k == start:                             # the header itself: a real iterator, or too many iterations
        if (len(parts.layout) != (1 if is_for else 0)) or not all(parts.layout):
            raise CannotResume("a loop header with extra stack items")
        ctx.namespace.setdefault("___LoopState", LoopState)
        iterator = parts.stack_exprs[0] if is_for else "None"
        values = "".join(v + ", " for v in parts.local_exprs)
        return f"return {driver}(___LoopState({names!r}, ({values}), {iterator}))"
    first = kids.resume(index, tuple(parts.layout), names, start)
    return f"return {driver}({ctx.bind(first, 'resume')}({args}))"


def capture_around_break(fn: types.FunctionType, args: tuple, kwargs: dict, reason: BreakReason, *,
                         name: str, tag: str, limits: dict, compile_fn: Callable[[types.FunctionType], Any],
                         children: dict) -> PartialCapture:
    """The capture up to the break and the entry that resumes after it; raises CannotResume saying why
    this break cannot be stitched around."""
    check_resumable(fn, reason)
    info = resume_info(fn)
    second = capture_function(fn, args, kwargs, name, tag=tag, stop_at=reason.root_stop, entry=info.entry,
                              drive_at=info.drive_at, **limits)
    if second.frame is None:
        raise CannotResume("the second capture pass did not reach the break point")
    ctx = second.ctx
    ctx.distinctness_guards()
    kids = _Children(fn, compile_fn, children)
    k = second.frame.current
    loop = kids.ins.innermost_loop(k)
    at_header = reason.category == BreakCategory.LOOP and loop is not None and loop[0] == k
    parts = prepare_break(ctx, second.frame, kids.callee, at_header)
    last = _continuation(kids, second.frame, parts, info.drive_at)
    return PartialCapture(ctx, finish_body(ctx, parts.em, parts.lines + [last]))


def loop_back_body(fn: types.FunctionType, ctx: Any, frame: Any) -> EntryBody:
    """Entry body of a driven function that came back to its loop header; CannotResume if it cannot be built."""
    is_for = decode(fn.__code__).instrs[frame.current].name == "FOR_ITER"
    em, lines = prepare_loop_back(ctx, frame, is_for)
    return finish_body(ctx, em, lines)
