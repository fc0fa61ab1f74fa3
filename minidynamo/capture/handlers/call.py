"""Calls: CALL (with 3.11's PRECALL and 3.11/3.12's KW_NAMES), CALL_KW, CALL_FUNCTION_EX."""

from __future__ import annotations

from bytecode import Instr

from ... import pyversion
from ...errors import CannotResume, GraphBreak
from .. import break_codes as codes
from ..breaks import BreakCategory
from ..frame import Frame
from ..frame_readers import reads_frame
from ..variables.base import Var, unsupported
from ..variables.containers import DictVar
from .registry import Plain, handler, plain_form, result


def _pop_callable(frame: Frame) -> tuple[Var, list[Var]]:
    """Pop the callable and its NULL/self slot; returns (callable, leading args)."""
    top, bottom = frame.pop(), frame.pop()
    fn, self_or_null = pyversion.read_call_slots(bottom, top)
    return fn, [] if self_or_null is None else [self_or_null]


def _plain_call(stack: list, argc: int, kw_names: tuple[str, ...], em) -> tuple[int, str]:
    """(items consumed, call expression) of a CALL over the symbolic stack `stack`."""
    values = stack[len(stack) - argc:]
    fn, self_or_null = pyversion.read_call_slots(stack[len(stack) - argc - 2], stack[len(stack) - argc - 1])
    lead = [] if self_or_null is None else [self_or_null]
    n_pos = argc - len(kw_names)
    args = [em.value(v) for v in lead + values[:n_pos]]
    args += [f"{k}={em.value(v)}" for k, v in zip(kw_names, values[n_pos:])]
    return argc + 2, f"{em.callee(fn)}({', '.join(args)})"


def _refuse_frame_readers(fn: Var, nargs: int) -> None:
    """A call that reads the running frame (eval, locals(), sys._getframe...): the whole frame runs as plain
    Python (frame_readers.py; the reason's `frame_reader` makes the break unsplittable)."""
    why = reads_frame(getattr(fn, "fn", getattr(fn, "value", None)), nargs)
    if why is not None:
        err = unsupported(codes.FRAME_READER, why)
        err.reason.frame_reader = why
        raise err


def do_call(frame: Frame, argc: int, kw_names: tuple[str, ...]) -> None:
    values = frame.popn(argc)
    n_pos = argc - len(kw_names)
    fn, lead = _pop_callable(frame)
    _refuse_frame_readers(fn, len(lead) + argc)
    kwargs = dict(zip(kw_names, values[n_pos:]))
    try:
        frame.push(fn.call(frame, lead + values[:n_pos], kwargs))
    except GraphBreak as e:
        if frame.ctx.lint is None or frame.ctx.arm_depth or e.reason.filename:   # (located: a callee's own)
            raise
        frame.push(frame.ctx.lint.past_call(frame, e.reason, fn))   # lint: recorded, the result unknown


# https://docs.python.org/3.12/library/dis.html#opcode-CALL
@handler("CALL")
def call(frame: Frame, inst: Instr) -> None:
    # (callable/NULL slots, *args -- result)   keyword names come from a preceding KW_NAMES (3.11/3.12)
    kw_names, frame.kw_names = frame.kw_names, ()
    do_call(frame, inst.arg, kw_names)


@plain_form("CALL")
def call_plain(frame: Frame, inst: Instr, em) -> Plain:
    return result(*_plain_call(frame.stack, inst.arg, frame.kw_names, em))


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


@plain_form("CALL_KW", since=(3, 13))
def call_kw_plain(frame: Frame, inst: Instr, em) -> Plain:
    n, expr = _plain_call(frame.stack[:-1], inst.arg, tuple(frame.stack[-1].as_constant()), em)
    return result(n + 1, expr)


def _has_kwargs_slot(inst: Instr) -> bool:
    """A slot above CALL_FUNCTION_EX's args tuple: always on 3.14+ (NULL, None here, without `**`); on
    3.11-3.13 bit 0 of the oparg says a kwargs mapping is there."""
    return pyversion.CALL_EX_HAS_KWARGS_SLOT or bool(inst.arg & 1)


# https://docs.python.org/3.14/library/dis.html#opcode-CALL_FUNCTION_EX
@handler("CALL_FUNCTION_EX")
def call_function_ex(frame: Frame, inst: Instr) -> None:
    # (callable slots, args_tuple, [kwargs_dict or NULL] -- result)
    kwargs_var = frame.pop() if _has_kwargs_slot(inst) else None
    args = frame.pop().iterate(frame)
    fn, lead = _pop_callable(frame)
    _refuse_frame_readers(fn, len(lead) + len(args) + (kwargs_var is not None))
    kwargs: dict[str, Var] = {}
    if kwargs_var is not None:
        if not isinstance(kwargs_var, DictVar):
            raise unsupported(BreakCategory.UNSUPPORTED, f"**{kwargs_var.describe()} in a call")
        for key in kwargs_var.iterate(frame):
            kwargs[key.as_constant()] = kwargs_var.getitem(frame, key)
    frame.push(fn.call(frame, lead + args, kwargs))


@plain_form("CALL_FUNCTION_EX")
def call_function_ex_plain(frame: Frame, inst: Instr, em) -> Plain:
    s = frame.stack
    above = 2 if _has_kwargs_slot(inst) else 1     # the args tuple, and the kwargs slot if any
    fn, self_or_null = pyversion.read_call_slots(s[-above - 2], s[-above - 1])
    if self_or_null is not None:
        raise CannotResume("CALL_FUNCTION_EX with a bound self")
    star = em.value(s[-above])
    kw = f", **{em.value(s[-1])}" if above == 2 and s[-1] is not None else ""
    return result(above + 2, f"{em.callee(fn)}(*{star}{kw})")
