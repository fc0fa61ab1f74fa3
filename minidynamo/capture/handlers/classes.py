"""Class statements inside compiled functions (LOAD_BUILD_CLASS).

`class C(Base): ...` compiles to LOAD_BUILD_CLASS, the class body as a function (MAKE_FUNCTION over the
frame's cells), the name and the bases, and a CALL of `__build_class__`, which runs the body. Capture loads
the builtin (guarded to stay the same object) and breaks at that CALL: the entry rebuilds the body function
and calls `__build_class__` in plain Python, and capture resumes after it with the class on the stack.
"""

from __future__ import annotations

from bytecode import Instr

from ... import guards as G
from ..breaks import BreakCategory
from ..frame import Frame
from ..sources import NamespaceSource
from ..variables.base import unsupported
from ..variables.objects import OpaqueVar
from .registry import Plain, handler, plain_form, result
from .imports import builtins_dict


# https://docs.python.org/3.13/library/dis.html#opcode-LOAD_BUILD_CLASS
@handler("LOAD_BUILD_CLASS")
def load_build_class(frame: Frame, inst: Instr) -> None:
    # ( -- __build_class__)   from the frame's builtins; calling it is a break (OpaqueVar)
    ns = builtins_dict(frame)
    build = ns.get("__build_class__")
    if build is None:
        raise unsupported(BreakCategory.EXCEPTION, "__build_class__ not found (NameError)")
    ctx = frame.ctx
    ctx.guard([G.Guard(f"{ctx.bind(ns, 'B')}.get('__build_class__')", G.GuardKind.ID, build, "builtin __build_class__")])
    frame.push(OpaqueVar(build, NamespaceSource(ctx.bind(build), "builtin __build_class__")))


@plain_form("LOAD_BUILD_CLASS")
def load_build_class_plain(frame: Frame, inst: Instr, em) -> Plain:
    return result(0, f"{em.constant(_build_class_of)}({em.constant(frame.builtins.ns)})")


def _build_class_of(builtins_ns: dict):
    """What LOAD_BUILD_CLASS pushes, or its NameError."""
    try:
        return builtins_ns["__build_class__"]
    except KeyError:
        raise NameError("__build_class__ not found") from None
