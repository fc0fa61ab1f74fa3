"""Partial capture: when a frame breaks, keep what came before the break as a graph and continue in a
resume function. An api-level module (imports capture, stitch, backends); `api.capture_once` calls
`capture_around_break` after a first capture pass raised GraphBreak.

Steps: (1) decide whether the break point can be resumed (root frame position known, not inside a loop or
a try block, instruction expressible in Python); (2) capture again, stopping *before* that instruction so
no state is half applied; (3) build the entry body: graph, write-backs, the instruction in plain Python,
and a call of the compiled resume function.
"""

from __future__ import annotations

import types
from dataclasses import dataclass
from typing import Any, Callable

from .capture.breaks import BreakReason
from .capture.instructions import Instructions, decode
from .capture.interpreter import capture_function
from .stitch.breaking import build_break_body
from .stitch.resume import CannotResume, resume_function
from .stitch.stitched import EntryBody

# Compiled helpers (a callee that broke, called through its own compiled wrapper) and compiled resume
# functions, shared by every compiled function; explain() uses a private dict so it sees fresh captures.
_compiled_children: dict[tuple, Any] = {}


@dataclass
class PartialCapture:
    ctx: Any
    body: EntryBody


def loop_ranges(ins: Instructions) -> list[tuple[int, int]]:
    """[start, end] index ranges of loops: a backward jump at `end` to `start`."""
    return [(t, i) for i, t in ins.targets.items() if t <= i]


def why_not_resumable(fn: types.FunctionType, reason: BreakReason) -> str | None:
    """None when the break can be stitched around; otherwise the reason the frame runs eagerly."""
    if reason.root_stop is None:
        return "the break happened before the function body started"
    index, _ = reason.root_stop
    ins = decode(fn.__code__)
    if ins.in_try[index]:
        return "graph break inside a try/with block: the frame runs eagerly"
    if any(start <= index <= end for start, end in loop_ranges(ins)):
        return "graph break inside a loop: the frame runs eagerly (loop outlining is not implemented yet)"
    if fn.__code__.co_cellvars:
        return "graph break in a function whose locals are captured by closures: the frame runs eagerly"
    return None


def capture_around_break(fn: types.FunctionType, args: tuple, kwargs: dict, reason: BreakReason, *,
                         name: str, tag: str, inline_limit: int, max_steps: int,
                         compile_fn: Callable[[types.FunctionType], Any], children: dict) -> PartialCapture | str:
    """A PartialCapture, or the reason (a string) why this break cannot be stitched around."""
    why = why_not_resumable(fn, reason)
    if why is not None:
        return why
    second = capture_function(fn, args, kwargs, name, tag=tag, inline_limit=inline_limit, max_steps=max_steps,
                              stop_at=reason.root_stop)
    if second.frame is None:
        return "the second capture pass did not reach the break point"
    ctx = second.ctx
    ctx.distinctness_guards()

    def callee(target: types.FunctionType) -> Any:
        key = ("callee", target)
        if key not in children:
            children[key] = compile_fn(target)
        return children[key]

    def resume_for(index: int, layout: list[bool], local_names: list[str]) -> Any:
        # Keyed by the function object: its globals and closure cells are baked into the resume function.
        key = ("resume", fn, index, tuple(layout), tuple(local_names))
        if key not in children:
            children[key] = compile_fn(resume_function(fn, index, layout, local_names))
        return children[key]

    try:
        body = build_break_body(ctx, second.frame, callee, resume_for)
    except CannotResume as e:
        return str(e)
    return PartialCapture(ctx, body)


def reset() -> None:
    _compiled_children.clear()
