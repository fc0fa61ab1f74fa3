"""What a lint pass (lint/__init__.py) does inside capture: `LintState`, kept in the capture context as `ctx.lint`.
An api-level module (imports capture); capture code only calls the methods below on `ctx.lint`.

A data-dependent branch that would break takes the outcome the pass forces (`branch`); a call that breaks is
recorded and gone past with an unknown result (`past_call`, an OpaqueVar); a try body that catches
(`raises_here`) forks the path: on one way it runs as usual, on the other it raises at its first
instruction into its except handler, whose opcodes (PUSH_EXC_INFO, CHECK_EXC_MATCH: each clause matching
or not, POP_EXCEPT, RERAISE: the path ends) `handler` gives. Capture never enters a handler (a raising
graph re-runs eagerly, a raising plain call's exception is raised where it stands and the handler runs as
plain Python), so what breaks on such a path is kept apart (`passed` entries marked in_handler).
"""

from __future__ import annotations

import inspect
import types
from typing import Any, Callable

from ..capture import break_codes as codes
from ..capture.breaks import BreakCategory, BreakReason
from ..capture.frame import runs_plain, stdlib_call_reason
from ..capture.interpreter import locate_reason
from ..capture.variables.base import Var, unsupported
from ..capture.variables.const import ConstVar
from ..errors import GraphBreak

OPAQUE = "a value lint does not know (the result of a call that breaks)"
CAUGHT = "the exception an except handler caught (a value lint does not know)"
RERAISED = "the exception propagates (no except clause of this try matches it)"
FORK = "lint: the path forks here"


class LintState:
    """Kept in the capture context (ctx.lint) during one lint pass: the outcomes forced on this path (data-
    dependent branches, try bodies raising, except clauses matching) and the breaks the pass went on past."""

    def __init__(self, forced: dict) -> None:
        self.forced = forced                  # branch key -> outcome
        self.passed: list[tuple[BreakReason, bool]] = []   # (break gone past, in an except handler's path)
        self.open: Any = None                 # the branch key the pass broke at (not forced yet) ...
        self.open_reason: Any = None          # ... and its reason (the break the pass ended with, if the same)
        self.open_line: str = ""
        self.first: dict = {}                 # branch place -> outcome at its first visit on this path
        self.tried: set = set()               # (callers, code, handler) of the try bodies entered on this path
        self.in_handler = False               # a try body raised on this path: what follows runs as plain Python

    def branch(self, frame: Any, reason: BreakReason) -> bool | None:
        """The forced outcome of the branch `frame` is at (the break recorded), or None: break as usual."""
        key = _key(frame)
        place = key[-1][:2]
        if key in self.forced:
            outcome = self.forced[key]
        elif place in self.first:            # met again on this path (a loop): the other way, no new fork
            outcome = not self.first[place]
        else:
            self.open, self.open_reason = key, reason
            self.open_line = f"{frame.qualname} line {frame.ins.lineno(frame.current)}"
            return None
        self.first.setdefault(place, outcome)
        self.note(frame, reason)
        return outcome

    def past_call(self, frame: Any, reason: BreakReason, callee: Var | None = None) -> Var:
        """A call broke: record it; the call's result is a value lint does not know, except for its type
        when the callee is a plain class. (A use of the value that needs more: the path ends.)"""
        if OPAQUE in reason.message or CAUGHT in reason.message:
            raise GraphBreak(reason)
        self.note(frame, reason)
        return OpaqueVar(_instance_type(callee))

    def note(self, frame: Any, reason: BreakReason) -> None:
        chain = []
        while frame is not None:
            chain.append(frame)
            frame = frame.parent
        for f in chain:
            locate_reason(reason, f)
        self.passed.append((reason, self.in_handler))

    # ---- exception handlers ------------------------------------------------------------------------------
    def raises_here(self, frame: Any) -> bool:
        """`frame` is about to run an instruction inside a try region: whether this path raises there
        instead, into the region's except handler (then the frame stands at the handler, the stack as the
        exception table says). Each try body forks once per path, at the first instruction run in it."""
        ins, i = frame.ins, frame.current
        handler = ins.handler[i]
        place = (_key(frame)[:-1], handler)
        if place in self.tried or not _catches(ins, handler) or frame.fori or frame.errstate_blocks:
            return False            # (a loop body being folded, an errstate block: capture's own state)
        self.tried.add(place)
        if not self._decide(frame, "raise", f"{frame.qualname} line {ins.lineno(i)}: the try body raises"):
            return False
        depth, lasti = ins.handler_depth[i]
        del frame.stack[depth:]
        if lasti:
            frame.push(ConstVar(i))
        frame.push(CaughtVar())
        frame.jump(handler)
        self.in_handler = True
        return True

    def handler(self, opname: str) -> Callable | None:
        """The lint pass's own form of an exception-handling opcode (capture has none), or None."""
        return _HANDLER_OPS.get(opname)

    def _decide(self, frame: Any, what: str, words: str) -> bool:
        """A fork with no break of its own: the forced outcome, or (not forced yet) end the pass so that
        lint follows each way."""
        key = (*_key(frame), what)
        if key in self.forced:
            return self.forced[key]
        self.open, self.open_line = key, words
        self.open_reason = BreakReason(BreakCategory.UNSUPPORTED, FORK)
        raise GraphBreak(self.open_reason)


def _catches(ins: Any, handler: int | None) -> bool:
    """Whether the handler at `handler` is an except/finally clause's (it starts with PUSH_EXC_INFO), not
    a `with` block's exit (WITH_EXCEPT_START next) or the cleanup of a handler itself."""
    names = [x.name for x in ins.instrs[handler:handler + 2]] if handler is not None else []
    return names[:1] == ["PUSH_EXC_INFO"] and names[1:] != ["WITH_EXCEPT_START"]


# The exception-handling opcodes on a lint path that raised (stack effects as dis documents them).
def _push_exc_info(frame: Any, inst: Any) -> None:
    # (exc -- prev_exc, exc)
    exc = frame.pop()
    frame.push(ConstVar(None))
    frame.push(exc)


def _check_exc_match(frame: Any, inst: Any) -> None:
    # (exc, type -- exc, matches): each clause is followed matching and not
    frame.pop()
    words = f"{frame.qualname} line {frame.ins.lineno(frame.current)}: the except clause matches"
    frame.push(ConstVar(frame.ctx.lint._decide(frame, "match", words)))


def _pop_except(frame: Any, inst: Any) -> None:
    # (prev_exc --)
    frame.pop()


def _reraise(frame: Any, inst: Any) -> None:
    # (..., exc -- ): the exception leaves the try statement; the path ends (nothing to list)
    raise GraphBreak(BreakReason(BreakCategory.EXCEPTION, RERAISED))


_HANDLER_OPS: dict[str, Callable] = {"PUSH_EXC_INFO": _push_exc_info, "CHECK_EXC_MATCH": _check_exc_match,
                                     "POP_EXCEPT": _pop_except, "RERAISE": _reraise}


class CaughtVar(Var):
    """The exception an except handler caught on a lint path: a use of it ends the path unreported."""

    def describe(self) -> str:
        return CAUGHT


class OpaqueVar(Var):
    """The result of a call lint went past: every question about it breaks (Var's defaults), naming it;
    `cls` the result's class where the call was a class's (`random.Random(seed)`): a call of one of its
    standard-library methods is then the break a run meets there, and lint goes on past it."""

    def __init__(self, cls: type | None = None) -> None:
        self.cls = cls

    def describe(self) -> str:
        return OPAQUE

    def call_method(self, frame: Any, name: str, args: list, kwargs: dict) -> Var:
        method = inspect.getattr_static(self.cls, name, None) if self.cls is not None else None
        module = getattr(method, "__globals__", {}).get("__name__")
        if isinstance(method, types.FunctionType) and runs_plain(module):
            raise unsupported(codes.STDLIB_CALL, stdlib_call_reason(module, method.__qualname__))
        return super().call_method(frame, name, args, kwargs)


def _instance_type(callee: Var | None) -> type | None:
    """The class of what calling `callee` returns, when that is sure without running it: a class (of the
    plain metaclass) whose __new__ is not Python code (which could return anything)."""
    try:
        cls = callee.as_constant() if callee is not None and callee.is_constant() else None
    except GraphBreak:
        return None
    if type(cls) is not type or isinstance(inspect.getattr_static(cls, "__new__", None), staticmethod):
        return None
    return cls


def _key(frame: Any) -> tuple:
    chain = []
    while frame is not None:
        chain.append((id(frame.code), frame.current, frame.visits.get(frame.current, 0)))
        frame = frame.parent
    return tuple(reversed(chain))
