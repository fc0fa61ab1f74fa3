"""t-strings (3.14+, PEP 750): BUILD_INTERPOLATION and BUILD_TEMPLATE (variables/templates.py)."""

from __future__ import annotations

from bytecode import Instr

from ..frame import Frame
from ..variables.const import ConstVar
from ..variables.templates import CONVERSIONS, interpolation, make_template, template
from .registry import Plain, handler, plain_form, result


# https://docs.python.org/3.14/library/dis.html#opcode-BUILD_INTERPOLATION
@handler("BUILD_INTERPOLATION", since=(3, 14))
def build_interpolation(frame: Frame, inst: Instr) -> None:
    # (value, expression, [format_spec] -- interpolation)   inst is a capture.instructions.InterpolationInstr
    spec = frame.pop() if inst.has_spec else ConstVar("")
    expression, value = frame.pop(), frame.pop()
    frame.push(interpolation(value, expression, inst.conversion, spec))


@plain_form("BUILD_INTERPOLATION", since=(3, 14))
def build_interpolation_plain(frame: Frame, inst: Instr, em) -> Plain:
    from string.templatelib import Interpolation
    n = 3 if inst.has_spec else 2
    value, expression = (em.value(v) for v in frame.stack[len(frame.stack) - n:][:2])
    spec = em.value(frame.stack[-1]) if inst.has_spec else "''"
    conversion = CONVERSIONS[inst.conversion]
    return result(n, f"{em.constant(Interpolation)}({value}, {expression}, {conversion!r}, {spec})")


# https://docs.python.org/3.14/library/dis.html#opcode-BUILD_TEMPLATE
@handler("BUILD_TEMPLATE", since=(3, 14))
def build_template(frame: Frame, inst: Instr) -> None:
    # (strings, interpolations -- template)
    interpolations, strings = frame.pop(), frame.pop()
    frame.push(template(strings, interpolations.iterate(frame)))


@plain_form("BUILD_TEMPLATE", since=(3, 14))
def build_template_plain(frame: Frame, inst: Instr, em) -> Plain:
    strings, interpolations = em.value(frame.stack[-2]), em.value(frame.stack[-1])
    return result(2, f"{em.constant(make_template)}({strings}, {interpolations})")
