"""Loads and stores of locals, constants, globals, cells and attributes (LOAD_*, STORE_*, DELETE_*)."""

from __future__ import annotations

import ast
import keyword

from bytecode import Instr

from ... import pyversion
from ...errors import CannotResume
from ..frame import Frame
from ..variables.const import ConstVar
from ..variables.containers import wrap_constant
from ..variables.functions import CellBox
from ..variables.base import MethodVar, unsupported
from ..variables.objects import SuperVar
from .registry import Plain, handler, plain_form, result
from ..breaks import BreakCategory


@handler(*pyversion.LOCAL_LOADS)
def load_fast(frame: Frame, inst: Instr) -> None:
    # ( -- value)   3.13 builds closures with LOAD_FAST on a cell: `bytecode` gives a CellVar/FreeVar arg,
    # or the plain name when the cell is an argument's (MAKE_CELL moved the value out of the locals).
    # 3.14's LOAD_FAST_BORROW lends the reference: the same value for capture.
    name = inst.arg if isinstance(inst.arg, str) else inst.arg.name
    if not isinstance(inst.arg, str) or (name in frame.cells and name not in frame.locals):
        frame.push(CellRef(frame.cells[name]))
        return
    frame.push(frame.load_local(name))


# https://docs.python.org/3.12/library/dis.html#opcode-LOAD_FAST_AND_CLEAR
@handler("LOAD_FAST_AND_CLEAR", since=(3, 12))
def load_fast_and_clear(frame: Frame, inst: Instr) -> None:
    # ( -- value_or_NULL)   inlined comprehensions save the outer variable; NULL (None here) if unbound
    frame.push(frame.locals.pop(inst.arg, None))


@handler("STORE_FAST")
def store_fast(frame: Frame, inst: Instr) -> None:
    # (value -- )   storing NULL (a restored, previously unbound comprehension variable) unbinds it
    value = frame.pop()
    if value is None:
        frame.locals.pop(inst.arg, None)
    else:
        frame.locals[inst.arg] = value


@handler("DELETE_FAST")
def delete_fast(frame: Frame, inst: Instr) -> None:
    # ( -- )
    frame.load_local(inst.arg)
    del frame.locals[inst.arg]


@handler("LOAD_CONST")
def load_const(frame: Frame, inst: Instr) -> None:
    # ( -- constant)
    frame.push(wrap_constant(inst.arg))


# 3.14+: the objects LOAD_COMMON_CONSTANT loads that are not literals (3.15's None, "", True, False and -1
# are read as LOAD_CONST: capture/instructions.py). Keyed by `bytecode`'s CommonConstant names.
_COMMON_CONSTANTS = {"ASSERTION_ERROR": AssertionError, "NOT_IMPLEMENTED_ERROR": NotImplementedError,
                     "BUILTIN_TUPLE": tuple, "BUILTIN_ALL": all, "BUILTIN_ANY": any, "BUILTIN_LIST": list,
                     "BUILTIN_SET": set}


# https://docs.python.org/3.14/library/dis.html#opcode-LOAD_COMMON_CONSTANT
@handler("LOAD_COMMON_CONSTANT", since=(3, 14))
def load_common_constant(frame: Frame, inst: Instr) -> None:
    # ( -- object)   the interpreter's own object, never looked up by name (3.14's LOAD_SMALL_INT is read
    # as LOAD_CONST)
    frame.push(wrap_constant(_COMMON_CONSTANTS[inst.arg.name]))


# https://docs.python.org/3.11/library/dis.html#opcode-LOAD_GLOBAL
@handler("LOAD_GLOBAL")
def load_global(frame: Frame, inst: Instr) -> None:
    # ( -- [NULL], value)   3.11/3.12 push the NULL first; 3.13 after the value
    push_null, name = inst.arg
    value = frame.load_global(name)
    for slot in pyversion.call_slots(value) if push_null else (value,):
        frame.push(slot)


@handler("STORE_GLOBAL")
def store_global(frame: Frame, inst: Instr) -> None:
    # (value -- )
    frame.ctx.side_effects.store_global(frame.globals_key, inst.arg, frame.pop())


@handler("LOAD_DEREF")
def load_deref(frame: Frame, inst: Instr) -> None:
    # ( -- value)
    frame.push(frame.load_cell(inst.arg.name))


@handler("STORE_DEREF")
def store_deref(frame: Frame, inst: Instr) -> None:
    # (value -- )
    frame.store_cell(inst.arg.name, frame.pop())


@handler("LOAD_CLOSURE", until=(3, 12))
def load_closure(frame: Frame, inst: Instr) -> None:
    # ( -- cell)
    frame.push(CellRef(frame.cells[inst.arg.name]))


@handler("MAKE_CELL")
def make_cell(frame: Frame, inst: Instr) -> None:
    # ( -- )   an argument that is also a cell moves into its cell
    name = inst.arg.name
    if name in frame.locals:
        frame.cells[name] = CellBox(frame.locals.pop(name))


@handler("COPY_FREE_VARS")
def copy_free_vars(frame: Frame, inst: Instr) -> None:
    # ( -- )   the closure cells were given to the Frame
    pass


# https://docs.python.org/3.12/library/dis.html#opcode-LOAD_ATTR
@handler("LOAD_ATTR", since=(3, 12))
def load_attr(frame: Frame, inst: Instr) -> None:
    # (obj -- attr) or, method form, (obj -- method_or_NULL, self_or_attr): we push NULL + bound attr
    is_method, name = inst.arg
    obj = frame.pop()
    if not is_method:
        frame.push(obj.getattr(frame, name))
        return
    # A NULL slot where CALL looks for it (pyversion.call_slots); MethodVar binds obj itself.
    for slot in pyversion.call_slots(MethodVar(obj, name)):
        frame.push(slot)


def _attribute(obj: str, name: str) -> str:
    """`obj.name` as the entry spells it (a name from bytecode is already mangled)."""
    obj = _operand(obj)
    return f"{obj}.{name}" if name.isidentifier() and not keyword.iskeyword(name) else f"getattr({obj}, {name!r})"


def _operand(obj: str) -> str:
    """`obj` fit to take `.name`: a constant the entry spells as a literal is parenthesized (`9.shape` does not
    parse, `-1.real` would bind as -(1.real))."""
    try:
        tree = ast.parse(obj, mode="eval").body
    except SyntaxError:
        return f"({obj})"
    return obj if isinstance(tree, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)) else f"({obj})"


@plain_form("LOAD_ATTR", since=(3, 12))
def load_attr_plain(frame: Frame, inst: Instr, em) -> Plain:
    is_method, name = inst.arg
    if is_method:     # never breaks: the MethodVar defers everything to the CALL (which has its plain form)
        raise CannotResume("cannot continue after a method load in plain Python")
    return result(1, _attribute(em.value(frame.stack[-1]), name))


# https://docs.python.org/3.12/library/dis.html#opcode-LOAD_SUPER_ATTR
@handler("LOAD_SUPER_ATTR", since=(3, 12))
def load_super_attr(frame: Frame, inst: Instr) -> None:
    # (global_super, class, self -- attr) or, method form, (... -- NULL, method) as LOAD_ATTR pushes them.
    # The compiler pushes the `__class__` cell and the first argument for zero-argument super() too, so
    # both forms are super(class, self) when `super` is the builtin.
    is_method, _two_args, name = inst.arg
    global_super, cls, obj = frame.popn(3)
    if not (global_super.is_constant() and global_super.as_constant() is super):
        raise unsupported(BreakCategory.UNSUPPORTED, "super is not the builtin super here")
    attr = SuperVar(cls, obj).getattr(frame, name)
    if is_method and not pyversion.NULL_AFTER_CALLABLE:
        frame.push(None)
    frame.push(attr)
    if is_method and pyversion.NULL_AFTER_CALLABLE:
        frame.push(None)


@handler("LOAD_ATTR", until=(3, 11))
def load_attr_3_11(frame: Frame, inst: Instr) -> None:
    # (obj -- attr)
    frame.push(frame.pop().getattr(frame, inst.arg))


@plain_form("LOAD_ATTR", until=(3, 11))
def load_attr_plain_3_11(frame: Frame, inst: Instr, em) -> Plain:
    return result(1, _attribute(em.value(frame.stack[-1]), inst.arg))


# https://docs.python.org/3.11/library/dis.html#opcode-LOAD_METHOD
@handler("LOAD_METHOD", until=(3, 11))
def load_method(frame: Frame, inst: Instr) -> None:
    # (obj -- NULL, method)   the method call goes to obj.call_method; the NULL slot stays empty
    obj = frame.pop()
    frame.push(None)
    frame.push(MethodVar(obj, inst.arg))



@handler("STORE_ATTR")
def store_attr(frame: Frame, inst: Instr) -> None:
    # (value, obj -- )
    obj, value = frame.pop(), frame.pop()
    obj.setattr(frame, inst.arg, value)


@plain_form("STORE_ATTR")
def store_attr_plain(frame: Frame, inst: Instr, em) -> Plain:
    value, obj = em.value(frame.stack[-2]), em.value(frame.stack[-1])
    return Plain(2, [], [f"{_operand(obj)}.{inst.arg} = {value}"])


@handler("DELETE_ATTR")
def delete_attr(frame: Frame, inst: Instr) -> None:
    # (obj -- )
    raise unsupported(BreakCategory.SIDE_EFFECT, f"del of attribute {inst.arg!r}")


class CellRef(ConstVar):
    """A closure cell on the stack (LOAD_CLOSURE), on its way into MAKE_FUNCTION's closure tuple."""

    def __init__(self, box: CellBox) -> None:
        super().__init__(box)
        self.box = box

    def is_constant(self) -> bool:
        return False
