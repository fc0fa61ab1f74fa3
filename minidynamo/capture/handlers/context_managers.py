"""`with` blocks: BEFORE_WITH is captured only for `np.errstate(...)` made during capture (variables/
errstate.py: its ops run under that error state). Any other manager is not captured (entering runs user
code with effects capture cannot see): a graph break whose plain-Python form enters the context, and the
body is captured in a resume function."""

from __future__ import annotations

from typing import Any

from bytecode import Instr

from ..breaks import BreakCategory
from ..frame import Frame
from ..variables.base import unsupported
from ..variables.errstate import ErrstateVar
from . import Plain, handler, plain_form


# https://docs.python.org/3.13/library/dis.html#opcode-BEFORE_WITH
@handler("BEFORE_WITH")
def before_with(frame: Frame, inst: Instr) -> None:
    # (mgr -- __exit__, __enter__())
    mgr = frame.stack[-1]
    if not isinstance(mgr, ErrstateVar):
        raise unsupported(BreakCategory.UNSUPPORTED, "entering a context manager is a graph break: "
                          "BEFORE_WITH runs in plain Python and the body is captured in a resume function")
    frame.pop()
    exit_, entered = mgr.enter(frame)
    frame.push(exit_)
    frame.push(entered)


@plain_form("BEFORE_WITH")
def before_with_plain(frame: Frame, inst: Instr, em) -> Plain:
    # (mgr -- __exit__, __enter__())
    return Plain(1, ["___x", "___r"], [f"___x, ___r = {em.constant(enter_context)}({em.value(frame.stack[-1])})"])


def enter_context(mgr: Any) -> tuple[Any, Any]:
    """What BEFORE_WITH does: look up __enter__ and __exit__ on the type, bind __exit__, call __enter__.
    Returns (bound __exit__, __enter__'s result), the two values BEFORE_WITH pushes."""
    cls = type(mgr)
    try:
        enter, exit_ = cls.__enter__, cls.__exit__
    except AttributeError:
        with mgr:        # not a context manager: let CPython raise its own TypeError, message included
            pass
        raise
    bound_exit = exit_.__get__(mgr, cls) if hasattr(exit_, "__get__") else exit_
    return bound_exit, enter(mgr)
