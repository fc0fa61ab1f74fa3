"""Resume functions: the rest of a function's code, entered at an instruction with the live stack and
locals as arguments. Built with `bytecode` as in BYTECODE_FACTS.md §1. Imports emit and capture.instructions.

`resume_function(fn, index, stack, local_names)` returns a plain Python function (cached per code object,
instruction and stack layout). Its code is the original instruction list with a prefix in front: rebuild
the stack from arguments (re-creating NULL slots with PUSH_NULL), then jump forward to the instruction.
"""

from __future__ import annotations

import types
from typing import Sequence

import bytecode
from bytecode import Instr, Label

from .. import pyversion
from ..capture.instructions import assembled, canonical_items, decode
from ..capture.builtin_scope import function_with_builtins
from ..errors import CannotResume
from . import emit

_HEAD_OPS = {"COPY_FREE_VARS", "MAKE_CELL", "RESUME", "NOP"}
STACK_PREFIX = "___stack"    # names of stack arguments; only the (then dead) prefix reads them
_cache: dict[tuple, types.CodeType] = {}


_LOCAL_OPS = {*pyversion.LOCAL_LOADS, "LOAD_FAST_AND_CLEAR", "STORE_FAST", "DELETE_FAST"}


def _identifier_names(varnames: Sequence[str], avoid: str) -> dict[str, str]:
    """New names for locals that are not identifiers (compilers and tools such as pytest's assertion
    rewriting make them); the new names clash with no local and no stack argument."""
    taken = set(varnames)
    rename = {}
    for n in varnames:
        if not n.isidentifier():
            new = "___local_" + "".join(c if c.isalnum() else "_" for c in n)
            while new in taken or new.startswith(avoid):
                new += "_"
            taken.add(new)
            rename[n] = new
    return rename


def _renamed(item, rename: dict[str, str]):
    """`item` with the local it reads or writes renamed; 3.13 loads a cell with `LOAD_FAST CellVar(name)`
    to build a closure, which is no local."""
    if isinstance(item, Instr) and item.name in _LOCAL_OPS and isinstance(item.arg, str) and item.arg in rename:
        return Instr(item.name, rename[item.arg], location=item.location)
    return item


def _raise_block(label: Label, location) -> list:
    """Items put before the resume instruction of a raiser: normal flow jumps over them, the prefix jumps to
    `label`; None stands for the load of the exception argument (its name is chosen later)."""
    at_target = Label()
    jump = emit.jump_forward(at_target)
    jump.location = location
    return [jump, label, None, Instr("RAISE_VARARGS", 1, location=location), at_target]


def _before_call_prefix(items: list, pos: int) -> int:
    """Where a raise block for the instruction at `pos` goes: before the KW_NAMES/PRECALL that must stay
    right in front of a CALL (pyversion.CALL_PREFIX_OPS; none after 3.11)."""
    while pos > 0 and isinstance(items[pos - 1], Instr) and items[pos - 1].name in pyversion.CALL_PREFIX_OPS:
        pos -= 1
    return pos


def _checked(load: Instr) -> Instr:
    """A checked load of the local `load` reads, at its line (an UnboundLocalError names eager's line)."""
    checked = emit.load_fast(load.arg, checked=True)
    checked.location = load.location
    return checked


def _stack_size(code: types.CodeType, new: bytecode.Bytecode, stack: Sequence[bool], raises: bool) -> int:
    """No flow analysis for a resume function (bytecode's compute_stacksize was half of building one): the
    prefix pushes the live stack, as deep as the code is at the resume instruction, and jumps there, so
    every path from there on is one of the code's own, no deeper than it was. (A raiser keeps the analysis.)"""
    return max(code.co_stacksize, new.compute_stacksize(check_pre_and_post=False) if raises else len(stack))


def resume_code(code: types.CodeType, index: int, stack: Sequence[bool], local_names: Sequence[str],
                name: str, raises: bool = False) -> types.CodeType:
    """Code that starts at decoded instruction `index`; `local_names` are its first parameters, then
    `stack[i]` is True for a value passed as argument `___stack{i}` and False for a NULL slot.

    With `raises`, a last argument is an exception, raised just before instruction `index`, inside the
    same exception-table region: the code's own except/finally/with handlers see it as if instruction
    `index` had raised it (a break inside a try block whose plain-Python instruction raised)."""
    key = (code, index, tuple(stack), tuple(local_names), raises)
    cached = _cache.get(key)
    if cached is not None:
        return cached
    if code.co_flags & (0x20 | 0x80 | 0x100 | 0x200):
        raise CannotResume("resuming a generator or coroutine")
    items, orig = canonical_items(code)      # as capture read them (canonical, same indices)
    instr_positions = [i for i, it in enumerate(items) if isinstance(it, Instr)]
    if len(instr_positions) != len(decode(code).instrs):
        raise CannotResume("instruction list changed between decoding passes")
    target_pos = instr_positions[index]
    location = items[target_pos].location
    label = Label()
    at = _before_call_prefix(items, target_pos) if raises else target_pos
    items[at:at] = _raise_block(label, location) if raises else [label]

    head_end = 0
    while head_end < len(items) and isinstance(items[head_end], Instr) and items[head_end].name in _HEAD_OPS:
        head_end += 1
        if items[head_end - 1].name == "RESUME":
            break
    head, rest = items[:head_end], items[head_end:]
    # A cell variable passed in is the cell itself (stitch/breaking._live_locals): no MAKE_CELL, so the
    # argument slot is the cell every closure made before the break shares. Only cells are ever passed
    # there (the entries that call resume functions are generated, and capture guards the type).
    passed_cells = set(code.co_cellvars) & set(local_names)
    head = [it for it in head if not (isinstance(it, Instr) and it.name == "MAKE_CELL" and it.arg.name in passed_cells)]
    if any(isinstance(it, Instr) and it.name == "RESUME" for it in rest[:1]) or not head:
        raise CannotResume("unexpected function prologue")

    # A resume of a resume already has `___stack0` parameters: pick names its code does not use.
    base = STACK_PREFIX
    while any(n.startswith(base) for n in (*code.co_varnames, *local_names)):
        base += "_"
    rename = _identifier_names(code.co_varnames, base)
    if rename:       # pytest's `@py_assert1`: a parameter needs a name the dispatcher's source can spell
        rest = [_renamed(it, rename) for it in rest]
    stack_names = [f"{base}{i}" for i, real in enumerate(stack) if real]
    # Locals come first, and the function's first parameter first among them: zero-argument super() reads
    # the first local slot of the running frame (and the __class__ cell, which the closure keeps).
    if "__class__" in code.co_freevars and code.co_argcount and tuple(local_names[:1]) != code.co_varnames[:1]:
        raise CannotResume(f"zero-argument super() needs {code.co_varnames[0]!r} as the first local")
    args = [rename.get(n, n) for n in local_names] + stack_names + ([f"{base}exc"] if raises else [])
    if raises:
        load_exc = emit.load_fast(f"{base}exc")
        load_exc.location = location
        rest = [load_exc if it is None else it for it in rest]
    if len(set(args)) != len(args):   # two arguments in one slot would shift every value: refuse
        raise CannotResume(f"duplicate argument names in resume function: {args}")
    prefix = []
    for i, real in enumerate(stack):
        prefix.append(emit.load_fast(f"{base}{i}") if real else emit.push_null())
    prefix.append(emit.jump_forward(label))
    for ins in prefix:
        ins.location = location
    passed = set(args)
    rest = [_checked(it) if isinstance(it, Instr) and emit.is_unchecked_load(it) and it.arg not in passed else it
            for it in rest]

    new = bytecode.Bytecode(head + prefix + rest)
    new._copy_attr_from(orig)
    new.argnames = args
    new.argcount = len(args)
    new.posonlyargcount = new.kwonlyargcount = 0
    new.flags &= ~(bytecode.CompilerFlags.VARARGS | bytecode.CompilerFlags.VARKEYWORDS)
    new.name = code.co_name          # tracebacks name the user's function (the function object is `name`)
    new.qualname = f"{code.co_qualname}.<{name}>"
    result = new.to_code(stacksize=_stack_size(code, new, stack, raises), compute_exception_stack_depths=False)
    assembled(result, new, new)
    _cache[key] = result
    return result


def resume_function(fn: types.FunctionType, index: int, stack: Sequence[bool], local_names: Sequence[str],
                    raises: bool = False) -> tuple[types.FunctionType, int]:
    """A plain function running `fn`'s code from decoded instruction `index` (see resume_code), and the
    shift of instruction indices: instruction i of fn (past its prologue) is instruction i + shift there."""
    line = decode(fn.__code__).lineno(index)
    name = f"__{'raise' if raises else 'resume'}_{fn.__code__.co_name}_at_L{line}_i{index}"
    code = resume_code(fn.__code__, index, stack, local_names, name, raises)
    shift = len(decode(code).instrs) - len(decode(fn.__code__).instrs)
    # fn's own builtins, not those its globals would give a new function (partial.check_resumable)
    return function_with_builtins(code, fn.__globals__, name, None, fn.__closure__, fn.__builtins__), shift
