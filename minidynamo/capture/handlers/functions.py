"""Function objects made during capture: MAKE_FUNCTION (3.11/3.12 with flags; 3.13 bare) and
SET_FUNCTION_ATTRIBUTE (3.13). Closures, lambdas and 3.11's comprehension functions are NestedFunctionVars."""

from __future__ import annotations

from bytecode import Instr

from ..frame import Frame
from ..variables.base import unsupported
from ..variables.const import ConstVar
from ..variables.containers import DictVar
from ..variables.functions import NestedFunctionVar
from .registry import handler
from ..breaks import BreakCategory

# MAKE_FUNCTION's (3.11/3.12) and SET_FUNCTION_ATTRIBUTE's (3.13+) flags; 3.14 (PEP 649) attaches lazy
# annotations as an `__annotate__` function (flag 0x10) instead of a tuple.
_DEFAULTS, _KWDEFAULTS, _ANNOTATIONS, _CLOSURE, _ANNOTATE = 0x01, 0x02, 0x04, 0x08, 0x10


def _apply(fn: NestedFunctionVar, flag: int, value) -> None:
    if flag == _DEFAULTS:
        fn.defaults = tuple(value.items)
    elif flag == _KWDEFAULTS:
        fn.kwdefaults = dict(value.items) if isinstance(value, DictVar) else {}
    elif flag == _CLOSURE:
        fn.closure = tuple(ref.box for ref in value.items)
    elif flag in (_ANNOTATIONS, _ANNOTATE):
        fn.annotations = True
    else:           # a flag of a newer Python: what it attaches would be lost in the rebuilt function
        raise unsupported(BreakCategory.UNSUPPORTED, f"function attribute flag {flag:#x}")


# https://docs.python.org/3.12/library/dis.html#opcode-MAKE_FUNCTION
@handler("MAKE_FUNCTION", until=(3, 12))
def make_function_3_11(frame: Frame, inst: Instr) -> None:
    # ([defaults], [kwdefaults], [annotations], [closure], code -- function)
    code = frame.pop().as_constant()
    fn = NestedFunctionVar(code, frame.globals, code.co_qualname, frame.new_function_builtins())
    for flag in (_CLOSURE, _ANNOTATIONS, _KWDEFAULTS, _DEFAULTS):
        if inst.arg & flag:
            _apply(fn, flag, frame.pop())
    frame.push(fn)


# https://docs.python.org/3.13/library/dis.html#opcode-MAKE_FUNCTION
@handler("MAKE_FUNCTION", since=(3, 13))
def make_function(frame: Frame, inst: Instr) -> None:
    # (code -- function)
    code = frame.pop().as_constant()
    frame.push(NestedFunctionVar(code, frame.globals, code.co_qualname, frame.new_function_builtins()))


# https://docs.python.org/3.13/library/dis.html#opcode-SET_FUNCTION_ATTRIBUTE
@handler("SET_FUNCTION_ATTRIBUTE", since=(3, 13))
def set_function_attribute(frame: Frame, inst: Instr) -> None:
    # (value, function -- function)
    fn, value = frame.pop(), frame.pop()
    _apply(fn, int(inst.arg), value)
    frame.push(fn)


# https://docs.python.org/3.12/library/dis.html#opcode-RETURN_GENERATOR
@handler("RETURN_GENERATOR")
def return_generator(frame: Frame, inst: Instr) -> None:
    # ( -- None)   popped by the POP_TOP after it; only inlined generators (Frame.yields set) run here
    if frame.yields is None:
        raise unsupported(BreakCategory.UNSUPPORTED, "the compiled function is a generator; generators run eagerly")
    frame.push(ConstVar(None))


@handler("YIELD_VALUE")
def yield_value(frame: Frame, inst: Instr) -> None:
    # (value -- sent)   the generator runs to its end at call time: collect the value, nothing is sent
    if frame.yields is None:
        raise unsupported(BreakCategory.UNSUPPORTED, "yield outside an inlined generator")
    frame.yields.append(frame.pop())
    frame.push(ConstVar(None))
