"""Calls: CALL (with 3.11's PRECALL and 3.11/3.12's KW_NAMES), CALL_KW, CALL_FUNCTION_EX."""

from __future__ import annotations

from bytecode import Instr

from ... import pyversion
from ..frame import Frame
from ..variables.base import Var, unsupported
from ..variables.containers import DictVar
from . import handler
from ..breaks import BreakCategory


def _pop_callable(frame: Frame) -> tuple[Var, list[Var]]:
    """Pop the callable and its NULL/self slot; returns (callable, leading args)."""
    if pyversion.NULL_AFTER_CALLABLE:          # 3.13: [callable, self_or_null]
        self_or_null, fn = frame.pop(), frame.pop()
        return fn, [] if self_or_null is None else [self_or_null]
    second, first = frame.pop(), frame.pop()   # 3.11/3.12: [null_or_method, callable_or_self]
    return (second, []) if first is None else (first, [second])


def do_call(frame: Frame, argc: int, kw_names: tuple[str, ...]) -> None:
    values = frame.popn(argc)
    n_pos = argc - len(kw_names)
    fn, lead = _pop_callable(frame)
    kwargs = dict(zip(kw_names, values[n_pos:]))
    frame.push(fn.call(frame, lead + values[:n_pos], kwargs))


# https://docs.python.org/3.12/library/dis.html#opcode-CALL
@handler("CALL")
def call(frame: Frame, inst: Instr) -> None:
    # (callable/NULL slots, *args -- result)   keyword names come from a preceding KW_NAMES (3.11/3.12)
    kw_names, frame.kw_names = frame.kw_names, ()
    do_call(frame, inst.arg, kw_names)


# https://docs.python.org/3.12/library/dis.html#opcode-KW_NAMES
@handler("KW_NAMES", until=(3, 12))
def kw_names(frame: Frame, inst: Instr) -> None:
    # ( -- )   remembers the keyword names of the next CALL
    frame.kw_names = tuple(inst.arg)


# https://docs.python.org/3.13/library/dis.html#opcode-CALL_KW
@handler("CALL_KW", since=(3, 13))
def call_kw(frame: Frame, inst: Instr) -> None:
    # (callable, self_or_null, *args, kw_names -- result)
    names = frame.pop().as_constant()
    do_call(frame, inst.arg, tuple(names))


# https://docs.python.org/3.13/library/dis.html#opcode-CALL_FUNCTION_EX
@handler("CALL_FUNCTION_EX")
def call_function_ex(frame: Frame, inst: Instr) -> None:
    # (callable slots, args_tuple, [kwargs_dict] -- result)
    kwargs_var = frame.pop() if inst.arg & 1 else None
    args = frame.pop().iterate(frame)
    fn, lead = _pop_callable(frame)
    kwargs: dict[str, Var] = {}
    if kwargs_var is not None:
        if not isinstance(kwargs_var, DictVar):
            raise unsupported(BreakCategory.UNSUPPORTED, f"**{kwargs_var.describe()} in a call")
        for key in kwargs_var.iterate(frame):
            kwargs[key.as_constant()] = kwargs_var.getitem(frame, key)
    frame.push(fn.call(frame, lead + args, kwargs))
