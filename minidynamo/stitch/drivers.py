"""Loop drivers: a break inside a loop runs that loop from a plain Python loop, one captured call per
iteration. Imports pyversion, tracebacks and stitch (breaking's LoopState, moving); stitch/partial.py
starts them from an entry (`loop_driver`).

Resuming inside a loop by chaining resume functions would nest one call per iteration. Instead the
entry of the frame that broke runs a *driver* per enclosing loop level: a plain Python loop that calls a
*driven* resume function per iteration. A driven function stops when it comes to the header of a loop it
is driven for and returns a LoopState (that header, its live locals, the stack there) instead of running
on; the driver of that header takes it, the others pass it outwards. Each driven function is captured
once, so capture time does not grow with the trip count. Run eagerly (past the cache limit, after an
internal error) a driven function simply runs to the end of the function and returns its result, which
every driver passes through: both behaviours fit the same protocol. That is also the plain way a
LoopChoice (stitch/loop_choice.py) takes when driving a loop costs more than plain Python: the entry that
starts the drivers calls the uncompiled resume function instead (`plain`), or the drivers with `eager`.
"""

from __future__ import annotations

import functools
import types
from typing import Any, Callable

from .. import pyversion
from . import tracebacks
from .breaking import LoopState
from .moving import call_moving

_EXHAUSTED = object()


Layout = tuple[bool, ...]


def for_driver(header: int, body: Callable[[tuple, Layout], Any], exit_: Callable[[tuple, Layout], Any],
               raiser: Callable[[tuple, Layout], Any]) -> Callable:
    """The driver of the for-loop at `header`: FOR_ITER in plain Python, one captured body call per
    iteration. A state for another loop (an enclosing one) or a final result is passed on to the caller.
    A plain function, not a partial: the entry's call then hands it the only reference to the state.
    An exception of next() is raised where FOR_ITER stands by the raiser: its innermost traceback entries
    are the user's (tracebacks.py), and inside a try region the region's own handler catches it (an inlined
    comprehension restores its loop variable there).
    With `eager` the body runs uncompiled: to the end of the function, so the loop ends after that call."""
    slots = pyversion.ITER_SLOTS       # the iterator's stack slots, itself first (3.15: then a NULL)

    def drive(res: Any, eager: bool = False) -> Any:
        while type(res) is LoopState and res.header == header:
            # Not `except StopIteration:` around the exit: the code after the loop would run inside that
            # handler, its exceptions chained to the StopIteration and the handler's traceback keeping this
            # frame's locals referenced (eager FOR_ITER leaves no trace of the exhausted iterator).
            item = _next_or_exception(res.stack[-slots])
            if type(item) is _Raised:     # (outside the except clause: no exception context leaks)
                exc = tracebacks.below(item.exc)
                item = None
                return call_moving(raiser(res.names, res.layout()), [exc, *res.arguments(res.stack)], {})
            if item is _EXHAUSTED:
                fn = exit_(res.names, res.layout()[:-slots])
                if eager:
                    fn = plain(fn)
                res = res.arguments(res.stack[:-slots])
                return call_moving(fn, res, {})
            fn = body(res.names, res.layout() + (True,))
            if eager:
                fn = plain(fn)
            res = res.arguments((*res.stack, item))
            item = None
            res = call_moving(fn, res, {})
        return res
    return drive


class _Raised:
    __slots__ = ("exc",)

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


def _next_or_exception(iterator: Any) -> Any:
    try:
        return next(iterator, _EXHAUSTED)
    except BaseException as e:
        return _Raised(e)


def while_driver(header: int, loop: Callable[[tuple, Layout], Any]) -> Callable:
    """The driver of the while-loop at `header`: one captured call per iteration, from the test on."""
    def drive(res: Any, eager: bool = False) -> Any:
        while type(res) is LoopState and res.header == header:
            fn = loop(res.names, res.layout())
            if eager:
                fn = plain(fn)
            res = res.arguments(res.stack)
            res = call_moving(fn, res, {})
        return res
    return drive


def plain(compiled: Any) -> types.FunctionType:
    """The uncompiled function a compiled resume function captures (what it runs past the cache limit)."""
    return compiled._minidynamo.user_fn


def loop_driver(kids: Any, start: int, outer: tuple[int, ...]) -> Any:
    """The driver for the loop at header `start` of kids.fn (kids: partial._Children, which makes the resume
    functions and raisers it calls); `outer` are the enclosing driven headers."""
    drives = (start, *outer)
    if kids.ins.instrs[start].name == "FOR_ITER":
        exit_index = kids.ins.targets[start] + pyversion.FOR_ITER_EXIT_SKIP
        body = functools.lru_cache(None)(lambda names, layout: kids.resume(start + 1, layout, names, drives))
        exit_ = functools.lru_cache(None)(lambda names, layout: kids.resume(exit_index, layout, names, outer))
        raiser = functools.lru_cache(None)(lambda names, layout: kids.raiser(start, layout, names))
        return for_driver(start, body, exit_, raiser)
    loop = functools.lru_cache(None)(lambda names, layout: kids.resume(start, layout, names, drives))
    return while_driver(start, loop)
