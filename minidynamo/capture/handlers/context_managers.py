"""`with` blocks: BEFORE_WITH is not captured (entering runs user code with effects capture cannot see);
it is a graph break whose plain-Python form enters the context, and the body is captured in a resume
function."""

from __future__ import annotations

from typing import Any

from bytecode import Instr

from ..frame import Frame
from . import Plain, plain_form, unsupported_opcodes

unsupported_opcodes("entering a context manager is a graph break: BEFORE_WITH runs in plain Python and the "
                    "body is captured in a resume function", "BEFORE_WITH")


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
