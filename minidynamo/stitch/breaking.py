"""The entry body of a frame that breaks: run the graph captured so far, write back side effects, execute
the breaking instruction as plain Python, and continue in a resume function. Imports capture and stitch.

`build_break_body(ctx, frame, resume_for)` takes the root frame stopped *before* the breaking instruction
(capture restarts and stops there, so nothing of it is half applied) and returns an EntryBody whose last
line returns the resume function's result. `resume_for(index, stack_layout, local_names)` gives the
compiled resume function (the caller owns compiling and caching it).
"""

from __future__ import annotations

import inspect
import types
from dataclasses import dataclass
from typing import Any, Callable

from bytecode import Instr

from .. import pyversion
from ..capture.context import CaptureContext
from ..capture.frame import Frame
from ..capture.variables.array import ArrayMethodVar
from ..capture.variables.base import MethodVar, Var
from ..capture.variables.functions import BoundMethodVar, UserFunctionVar
from ..capture.variables.objects import UserObjectVar
from ..capture.liveness import is_live
from .resume import STACK_PREFIX, CannotResume
from .stitched import EntryBody, Emitter, writeback_lines

_BINARY = {"+": "+", "-": "-", "*": "*", "/": "/", "//": "//", "%": "%", "**": "**", "@": "@", "&": "&",
           "|": "|", "^": "^", "<<": "<<", ">>": ">>"}
_COMPARE = {"LT": "<", "LE": "<=", "EQ": "==", "NE": "!=", "GT": ">", "GE": ">="}


class BreakEmitter(Emitter):
    """An Emitter that also spells callables and iterators (the breaking instruction and the resume
    function's arguments need them)."""

    def __init__(self, ctx: CaptureContext, compiled_callee: Callable[[Any], Any]) -> None:
        super().__init__(ctx)
        self.compiled_callee = compiled_callee

    def callee(self, var: Var) -> str:
        """The callable of the breaking call, looked up where eager Python looks it up: in the call's own
        line, after the write-backs (a method lookup that raises must not undo earlier writes)."""
        if isinstance(var, (MethodVar, ArrayMethodVar)) and id(var) not in self._memo:
            return self.build(var)
        return self.value(var)

    def build(self, var: Var) -> str:
        if isinstance(var, UserFunctionVar) and var.bound_self is None:
            return self.constant(self.compiled_callee(var.fn))
        if isinstance(var, BoundMethodVar):
            self.ctx.namespace.setdefault("___bind", types.MethodType)
            return f"___bind({self.constant(self.compiled_callee(var.fn))}, {self.value(var.self_var)})"
        if isinstance(var, ArrayMethodVar):
            return f"{self.value(var.array)}.{var.name}"
        if isinstance(var, MethodVar):
            fn = _class_function(var.obj, var.name)
            if fn is not None:        # a user method: called through its compiled wrapper, bound to obj
                self.ctx.namespace.setdefault("___bind", types.MethodType)
                return f"___bind({self.constant(self.compiled_callee(fn))}, {self.value(var.obj)})"
            return f"{self.value(var.obj)}.{var.name}"      # looked up on the real object, as Python does
        return super().build(var)


def _class_function(obj: Var, name: str) -> types.FunctionType | None:
    """The plain function `obj.name` binds, when obj is a user object whose type capture guarded and the
    name is not shadowed by an instance attribute; otherwise None."""
    if not isinstance(obj, UserObjectVar) or isinstance(obj.value, types.ModuleType):
        return None
    if name in getattr(obj.value, "__dict__", {}):
        return None
    static = inspect.getattr_static(obj.value, name, None)
    return static if isinstance(static, types.FunctionType) else None


def _call_parts(stack: list, argc: int, kw_names: tuple[str, ...], em: BreakEmitter) -> tuple[int, str]:
    """(items consumed, call expression) for CALL-like instructions over the symbolic stack."""
    values = stack[len(stack) - argc:]
    a, b = stack[len(stack) - argc - 2], stack[len(stack) - argc - 1]
    if pyversion.NULL_AFTER_CALLABLE:
        fn, lead = a, ([] if b is None else [b])
    else:
        fn, lead = (b, []) if a is None else (a, [b])
    n_pos = argc - len(kw_names)
    args = [em.value(v) for v in lead + values[:n_pos]]
    args += [f"{k}={em.value(v)}" for k, v in zip(kw_names, values[n_pos:])]
    return argc + 2, f"{em.callee(fn)}({', '.join(args)})"


def execute(frame: Frame, instr: Instr, em: BreakEmitter) -> tuple[int, list[str | None], list[str], int]:
    """How to run `instr` in plain Python: (stack items consumed, pushed expressions (None = NULL),
    lines, resume offset from the instruction: 1 = after it, 0 = at it again)."""
    s, name, arg = frame.stack, instr.name, instr.arg
    top = lambda i=1: em.value(s[-i])  # noqa: E731
    if name == "CALL":
        n, expr = _call_parts(s, arg, frame.kw_names, em)
        return n, ["___r"], [f"___r = {expr}"], 1
    if name == "CALL_KW":
        names = s[-1].as_constant()
        n, expr = _call_parts(s[:-1], arg, tuple(names), em)
        return n + 1, ["___r"], [f"___r = {expr}"], 1
    if name == "CALL_FUNCTION_EX":
        kw = f", **{top()}" if arg & 1 else ""
        star = top(2) if arg & 1 else top()
        base = 2 if arg & 1 else 1
        fn_slot, null_slot = (s[-base - 2], s[-base - 1]) if pyversion.NULL_AFTER_CALLABLE else \
            (s[-base - 1], s[-base - 2])
        if null_slot is not None:
            raise CannotResume("CALL_FUNCTION_EX with a bound self")
        return base + 2, ["___r"], [f"___r = {em.callee(fn_slot)}(*{star}{kw})"], 1
    if name == "TO_BOOL":
        return 1, ["___r"], [f"___r = bool({top()})"], 1
    if name.startswith("POP_JUMP") and ("TRUE" in name or "FALSE" in name):
        return 1, ["___r"], [f"___r = bool({top()})"], 0      # the jump runs again, on a Python bool
    if name == "COMPARE_OP":
        op = _COMPARE[arg.name.removesuffix("_CAST")]
        expr = f"({top(2)} {op} {top()})"
        return 2, ["___r"], [f"___r = {'bool' if arg.name.endswith('_CAST') else ''}{expr}"], 1
    if name == "BINARY_OP":
        from ..capture.handlers.arith import BINARY_SYMBOLS
        sym = BINARY_SYMBOLS[arg]
        fn = f"___operator.i{_opname(sym[:-1])}" if sym.endswith("=") else None
        em.ctx.namespace.setdefault("___operator", __import__("operator"))
        expr = f"{fn}({top(2)}, {top()})" if fn else f"({top(2)} {sym} {top()})"
        return 2, ["___r"], [f"___r = {expr}"], 1
    if name == "BINARY_SUBSCR":
        return 2, ["___r"], [f"___r = {top(2)}[{top()}]"], 1
    if name == "STORE_SUBSCR":
        return 3, [], [f"{top(2)}[{top()}] = {top(3)}"], 1
    if name == "IS_OP":
        return 2, ["___r"], [f"___r = ({top(2)} {'is not' if arg else 'is'} {top()})"], 1
    if name == "CONTAINS_OP":
        return 2, ["___r"], [f"___r = ({top(2)} {'not in' if arg else 'in'} {top()})"], 1
    if name in ("UNARY_NEGATIVE", "UNARY_INVERT", "UNARY_NOT"):
        op = {"UNARY_NEGATIVE": "-", "UNARY_INVERT": "~", "UNARY_NOT": "not "}[name]
        return 1, ["___r"], [f"___r = {op}{top()}"], 1
    if name == "BEFORE_WITH":
        em.ctx.namespace.setdefault("___enter_context", enter_context)
        return 1, ["___x", "___r"], [f"___x, ___r = ___enter_context({top()})"], 1
    if name == "GET_ITER":
        return 1, ["___r"], [f"___r = iter({top()})"], 1
    if name == "UNPACK_SEQUENCE":
        names = [f"___u{i}" for i in range(arg)]
        return 1, list(reversed(names)), [f"{', '.join(names)}, = {top()}"], 1
    raise CannotResume(f"cannot continue after {name} in plain Python yet")


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


def _opname(sym: str) -> str:
    return {"+": "add", "-": "sub", "*": "mul", "/": "truediv", "//": "floordiv", "%": "mod", "**": "pow",
            "@": "matmul", "&": "and_", "|": "or_", "^": "xor", "<<": "lshift", ">>": "rshift"}[sym]


class LoopState:
    """What a driven resume function returns when it arrives at the header of a driven loop: which loop
    (`header`, an instruction index of the original function), the live locals, and the stack there (the
    iterators of the for-loops around it, the loop's own last), handed to that loop's driver."""

    __slots__ = ("header", "names", "values", "stack")

    def __init__(self, header: int, names: tuple[str, ...], values: tuple, stack: tuple) -> None:
        self.header, self.names, self.values, self.stack = header, names, values, stack


@dataclass
class BreakParts:
    """An entry body under construction: `lines` so far, and what the continuation needs."""

    em: BreakEmitter
    lines: list[str]
    resume_index: int
    layout: list[bool]
    stack_exprs: list[str]
    local_names: list[str]
    local_exprs: list[str]


def _live_locals(frame: Frame, em: BreakEmitter, at: int) -> tuple[list[str], list[str]]:
    """Locals the code from instruction `at` on may read, with their expressions. Stack arguments of a
    resume function are read only by its prefix: they are dead, never passed on."""
    names = sorted(n for n in frame.locals if not n.startswith(STACK_PREFIX) and is_live(frame.code, at, n))
    return names, [em.value(frame.locals[n]) for n in names]


def prepare_break(ctx: CaptureContext, frame: Frame, compiled_callee: Callable[[Any], Any],
                  at_loop_header: bool = False) -> BreakParts:
    """Graph, write-backs and the breaking instruction (as Python) for a root frame stopped before
    instruction `frame.current`; the caller adds the continuation and calls finish_body. At a loop header
    nothing is executed here: the loop driver takes over from that instruction."""
    em = BreakEmitter(ctx, compiled_callee)
    temps, writes = writeback_lines(ctx, em)
    instr = frame.ins.instrs[frame.current]
    consumed, pushed, run_lines, offset = (0, [], [], 0) if at_loop_header else execute(frame, instr, em)
    kept = frame.stack[:len(frame.stack) - consumed]
    layout = [v is not None for v in kept] + [p is not None for p in pushed]
    stack_exprs = [em.value(v) for v in kept if v is not None] + [p for p in pushed if p is not None]
    names, values = _live_locals(frame, em, frame.current + offset)
    return BreakParts(em, temps + writes + run_lines, frame.current + offset, layout, stack_exprs, names, values)


def prepare_loop_back(ctx: CaptureContext, frame: Frame, header: int) -> tuple[BreakEmitter, list[str]]:
    """A driven resume function arrived at a driven loop's header (`header` in the original function's
    numbering): return a LoopState to that loop's driver."""
    em = BreakEmitter(ctx, lambda fn: fn)
    temps, writes = writeback_lines(ctx, em)
    if any(v is None for v in frame.stack):
        raise CannotResume("a loop header with a NULL stack slot")
    names, values = _live_locals(frame, em, frame.current)
    state = loop_state_expr(ctx, header, names, values, [em.value(v) for v in frame.stack])
    return em, temps + writes + [f"return {state}"]


def loop_state_expr(ctx: CaptureContext, header: int, names: list[str], values: list[str], stack: list[str]) -> str:
    ctx.namespace.setdefault("___LoopState", LoopState)
    return f"___LoopState({header}, {tuple(names)!r}, ({''.join(v + ', ' for v in values)}), " \
           f"({''.join(v + ', ' for v in stack)}))"


def finish_body(ctx: CaptureContext, em: BreakEmitter, lines: list[str]) -> EntryBody:
    """Fix the graph's outputs (everything the lines read) and put the graph call first."""
    ctx.graph.set_outputs(em.outputs)
    graph_key = f"___{ctx.tag}graph"
    args = ", ".join(src.expr() for src, _ in ctx.inputs)
    head = [f"___o = {graph_key}({args})"] if em.outputs or ctx.mutating_nodes else []
    return EntryBody(head + em.prelude + lines, ctx.namespace, ctx.graph, graph_key, bool(ctx.mutating_nodes),
                     em.outputs)
