"""`with` blocks: entering one is captured only for `np.errstate(...)` made during capture (variables/
errstate.py: its ops run under that error state). Any other manager is not captured (entering runs user
code with effects capture cannot see): a graph break whose plain-Python form enters the context, and the
body is captured in a resume function. 3.11-3.13 enter with BEFORE_WITH; 3.14 with `COPY 1; LOAD_SPECIAL
__exit__; SWAP 2; SWAP 3; LOAD_SPECIAL __enter__; CALL 0`, taken whole at its first LOAD_SPECIAL."""

from __future__ import annotations

from typing import Any

from bytecode import Instr

from ...errors import CannotResume
from ..breaks import BreakCategory
from ..frame import Frame
from ..variables.base import unsupported
from ..variables.errstate import ErrstateVar
from .registry import Plain, handler, plain_form


def _errstate_manager(frame: Frame) -> ErrstateVar:
    mgr = frame.stack[-1]
    if not isinstance(mgr, ErrstateVar):
        raise unsupported(BreakCategory.UNSUPPORTED, "entering a context manager is a graph break: entering "
                          "runs in plain Python and the body is captured in a resume function")
    return mgr


# https://docs.python.org/3.13/library/dis.html#opcode-BEFORE_WITH
@handler("BEFORE_WITH", until=(3, 13))
def before_with(frame: Frame, inst: Instr) -> None:
    # (mgr -- __exit__, __enter__())
    mgr = _errstate_manager(frame)
    frame.pop()
    exit_, entered = mgr.enter(frame, frame.current + 1)
    frame.push(exit_)
    frame.push(entered)


@plain_form("BEFORE_WITH", until=(3, 13))
def before_with_plain(frame: Frame, inst: Instr, em) -> Plain:
    # (mgr -- __exit__, __enter__())
    return Plain(1, ["___x", "___r"], [f"___x, ___r = {em.constant(enter_context)}({em.value(frame.stack[-1])})"])


# 3.14's `with` entry after its COPY 1, from the LOAD_SPECIAL __exit__ on (opname, argument name or None).
_WITH_ENTRY = (("LOAD_SPECIAL", "EXIT"), ("SWAP", 2), ("SWAP", 3), ("LOAD_SPECIAL", "ENTER"), ("CALL", 0))


def _is_with_entry(frame: Frame) -> bool:
    """Whether the LOAD_SPECIAL at frame.current starts a `with` statement's entry (async with is never
    captured: coroutines run eagerly)."""
    k, instrs = frame.current, frame.ins.instrs
    if k < 1 or k + len(_WITH_ENTRY) > len(instrs) or (instrs[k - 1].name, instrs[k - 1].arg) != ("COPY", 1):
        return False
    return all(i.name == name and getattr(i.arg, "name", i.arg) == arg
               for i, (name, arg) in zip(instrs[k:k + len(_WITH_ENTRY)], _WITH_ENTRY))


# https://docs.python.org/3.14/library/dis.html#opcode-LOAD_SPECIAL
@handler("LOAD_SPECIAL", since=(3, 14))
def load_special(frame: Frame, inst: Instr) -> None:
    # (mgr, mgr -- __exit__, NULL, __enter__())   the whole entry, as BEFORE_WITH; continues after its CALL
    if not _is_with_entry(frame):
        raise unsupported(BreakCategory.UNSUPPORTED, "LOAD_SPECIAL outside a with statement's entry")
    mgr = _errstate_manager(frame)
    body = frame.current + len(_WITH_ENTRY)
    frame.popn(2)
    exit_, entered = mgr.enter(frame, body)
    for value in (exit_, None, entered):
        frame.push(value)
    for i in range(frame.current + 1, body):
        frame.visits[i] = frame.visits.get(i, 0) + 1
    frame.jump(body)


@plain_form("LOAD_SPECIAL", since=(3, 14))
def load_special_plain(frame: Frame, inst: Instr, em) -> Plain:
    # (mgr, mgr -- bound __exit__, NULL, __enter__()): CALL and WITH_EXCEPT_START call a NULL-self exit as is
    if not _is_with_entry(frame):
        raise CannotResume("LOAD_SPECIAL outside a with statement's entry")
    return Plain(2, ["___x", None, "___r"], [f"___x, ___r = {em.constant(enter_context)}({em.value(frame.stack[-1])})"],
                 offset=len(_WITH_ENTRY))


def enter_context(mgr: Any) -> tuple[Any, Any]:
    """What BEFORE_WITH (3.14: the LOAD_SPECIALs) does: look up __enter__ and __exit__ on the type, bind
    __exit__, call __enter__. Returns (bound __exit__, __enter__'s result), the values BEFORE_WITH pushes.
    A type lacking either raises CPython's own TypeError (3.14 names the missing method)."""
    cls = type(mgr)
    try:
        enter, exit_ = cls.__enter__, cls.__exit__
    except AttributeError:
        with mgr:        # not a context manager: let CPython raise its own TypeError, message included
            pass
        raise
    bound_exit = exit_.__get__(mgr, cls) if hasattr(exit_, "__get__") else exit_
    return bound_exit, enter(mgr)
