"""The entry body of a frame that breaks: run the graph captured so far, write back side effects, execute
the breaking instruction as plain Python (its plain form, registered next to its handler in
capture/handlers), and continue in a resume function. Imports capture and stitch.

`prepare_break(ctx, frame, compiled_callee)` takes the root frame stopped *before* the breaking instruction
(capture restarts and stops there, so nothing of it is half applied) and returns the BreakParts: the graph
call, the write-backs, the instruction as Python and the live values; `hand_over(frame, parts, resume)`
adds the statements that call the resume function (partial.py compiles and caches it, assembles the entry).
`prepare_loop_back` and `loop_state_expr` do the same at a loop header for the loop drivers.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import types
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable

from bytecode import Instr

from ..capture.context import CaptureContext
from ..capture.frame import Frame, runs_plain
from ..capture.handlers import PLAIN, Plain
from ..capture.variables.array import ArrayMethodVar, ArrayVar
from ..capture.variables.base import MethodVar, Var
from ..capture.variables.functions import BoundMethodVar, UserFunctionVar
from ..capture.variables.objects import UserObjectVar
from ..capture.liveness import is_live, rebound
from ..capture.sources import untagged
from ..errors import CannotResume
from ..hatches import DISABLED_CODE
from . import tracebacks
from .moving import moved
from . import entry
from .entry import Block, Code, Exit, Stmt, assign, walk
from .resume import STACK_PREFIX
from .stitched import Emitter, writeback_lines


class BreakEmitter(Emitter):
    """An Emitter that also spells callables and iterators (the breaking instruction and the resume
    function's arguments need them)."""

    def __init__(self, ctx: CaptureContext, compiled_callee: Callable[[Any], Any]) -> None:
        super().__init__(ctx)
        self.compiled_callee = compiled_callee

    def callee(self, var: Var) -> str:
        """The callable of the breaking call, looked up where eager Python looks it up: in the call's own
        line, after the write-backs (a method lookup that raises must not undo earlier writes). A user
        function is called through its compiled wrapper; as a value (stored, compared, passed on) it stays
        the user's own object (see build)."""
        compiled = self._compiled_callee(var)
        if compiled is not None:
            return compiled
        if isinstance(var, (MethodVar, ArrayMethodVar)) and id(var) not in self._memo:
            return self.build(var)
        return self.subject(var)

    def _compiled_callee(self, var: Var) -> str | None:
        if _runs_plain(getattr(var, "fn", None)):
            return None
        if isinstance(var, UserFunctionVar) and not var.identity_guarded():
            # A compiled callee is per function object. A function made per call whose identity guard
            # failed before (a resume function's parameters count as such) is called as the very
            # function the entry gets, as plain Python; otherwise (a closure made once and passed on
            # every call) its identity is guarded and its compiled form called, as for a global helper.
            if var.source is None or untagged(var.source.expr()) in self.ctx.dynamic:
                return None
            var.pin()
        if isinstance(var, UserFunctionVar) and var.bound_self is None:
            return self.constant(self.compiled_callee(var.fn))
        if isinstance(var, UserFunctionVar):
            fn, self_var = var.fn, var.bound_self
        elif isinstance(var, BoundMethodVar):
            fn, self_var = var.fn, var.self_var
        elif isinstance(var, MethodVar) and id(var) not in self._memo:
            fn, self_var = _class_function(var.obj, var.name), var.obj
            if fn is None or _runs_plain(fn):
                return None
        else:
            return None
        self.ctx.namespace.setdefault("___bind", types.MethodType)
        return f"___bind({self.constant(self.compiled_callee(fn))}, {self.value(self_var)})"

    def build(self, var: Var) -> str:
        if isinstance(var, ArrayMethodVar):
            return f"{self.value(var.array)}.{var.name}"
        if isinstance(var, MethodVar):
            return f"{self.value(var.obj)}.{var.name}"      # looked up on the real object, as Python does
        return super().build(var)


def _runs_plain(fn: Any) -> bool:
    """A function of a standard-library module capture does not walk (frame.runs_plain), or one marked
    minidynamo.disable: called as itself, never through a compiled wrapper."""
    return isinstance(fn, types.FunctionType) and (runs_plain(fn.__globals__.get("__name__")) or
                                                   fn.__code__ is DISABLED_CODE)


def _class_function(obj: Var, name: str) -> types.FunctionType | None:
    """The plain function `obj.name` binds, when obj is a user object whose type capture guarded and the
    name is not shadowed by an instance attribute; otherwise None."""
    if not isinstance(obj, UserObjectVar) or isinstance(obj.value, types.ModuleType):
        return None
    if name in getattr(obj.value, "__dict__", {}):
        return None
    static = inspect.getattr_static(obj.value, name, None)
    return static if isinstance(static, types.FunctionType) else None


def execute(frame: Frame, instr: Instr, em: BreakEmitter) -> Plain:
    """How to run `instr` in plain Python: its plain form, registered next to its handler."""
    form = PLAIN.get(instr.name)
    if form is None:
        raise CannotResume(f"cannot continue after {instr.name} in plain Python yet")
    return form(frame, instr, em)


class LoopState:
    """What a driven resume function returns when it arrives at the header of a driven loop: which loop
    (`header`, an instruction index of the original function), the live locals, and the stack there (the
    iterators of the for-loops around it, the loop's own last), handed to that loop's driver. A NULL slot
    of the stack (3.12's inlined comprehension saves an unbound loop variable as NULL) is `NULL`."""

    __slots__ = ("header", "names", "values", "stack")

    def __init__(self, header: int, names: tuple[str, ...], values: tuple, stack: tuple) -> None:
        self.header, self.names, self.values, self.stack = header, names, values, stack

    def layout(self) -> tuple[bool, ...]:
        """Which stack slots hold values (a resume function's stack layout)."""
        return tuple(v is not NULL for v in self.stack)

    def arguments(self, stack: tuple) -> list:
        """A resume call's arguments (locals, then the values of `stack`) for call_moving, which hands the
        callee the only references (the driver keeps none, as eager's loop keeps none beyond its frame's)."""
        return [*reversed([v for v in stack if v is not NULL]), *reversed(self.values)]


class _Null:
    def __repr__(self) -> str:
        return "NULL"


NULL = _Null()


@dataclass
class BreakParts:
    """An entry body under construction: its statements so far, and what the continuation needs."""

    em: BreakEmitter
    statements: list[Stmt]
    resume_index: int
    layout: list[bool]
    stack_exprs: list[str]
    local_names: list[str]
    local_exprs: list[str]


def _live_locals(frame: Frame, em: BreakEmitter, at: int) -> tuple[list[str], list[str]]:
    """Locals the code from instruction `at` on may read, or rebinds (liveness.rebound: the resume
    function's slot then drops the old value where eager's frame does), with their expressions. Stack
    arguments of a resume function are read only by its prefix: they are dead, never passed on."""
    code = frame.code
    values = {n: v for n, v in frame.locals.items() if not n.startswith(STACK_PREFIX)
              and (is_live(code, at, n) or rebound(code, at, n)) and n not in code.co_cellvars}
    # Every cell variable is passed as the cell itself (made in the entry, or the one this frame was
    # passed): the resume function has no MAKE_CELL for it, so closures made before the break and the
    # code after it share each cell (resume.resume_code). An unbound one is passed as an empty cell.
    cells = {n: em.cell(frame.cells[n]) for n in frame.code.co_cellvars}
    first = frame.code.co_varnames[0] if frame.code.co_argcount else None   # stays first: see resume_code
    names = sorted([*values, *cells], key=lambda n: (n != first, n))
    return names, [cells[n] if n in cells else em.value(values[n]) for n in names]


def prepare_break(ctx: CaptureContext, frame: Frame, compiled_callee: Callable[[Any], Any],
                  at_loop_header: bool = False, raiser_for: Callable[..., Any] | None = None,
                  keep_dead: bool = True, in_try: bool = False) -> BreakParts:
    """Graph, write-backs and the breaking instruction (as Python) for a root frame stopped before
    instruction `frame.current`; the caller adds the continuation and calls stitched.entry_body. At a loop
    header nothing is executed here: the loop driver takes over from that instruction.
    `raiser_for(stack_layout, local_names)` gives the function that raises the instruction's exception
    where the instruction stands (see _raise_in_place): its traceback is eager's, and inside a try block
    (`in_try`) the block's own handlers catch it. `keep_dead`: keep the arrays of locals nothing reads any
    more alive (`___k`), as eager does; pointless where the backend makes its own arrays, which would then
    have to hand over results nobody reads."""
    em = BreakEmitter(ctx, compiled_callee)
    temps, writes = writeback_lines(ctx, em)
    instr = frame.ins.instrs[frame.current]
    step = Plain(0, [], [], 0) if at_loop_header else execute(frame, instr, em)
    consumed, pushed, offset = step.consumed, step.pushed, step.offset
    # (a plain form's lines bind the names it pushes: `___r = ...`, `___x, ___r = ...`)
    run: list[Stmt] = [Code(line, tuple(p for p in pushed if p is not None)) for line in step.lines]
    kept = frame.stack[:len(frame.stack) - consumed]
    layout = [v is not None for v in kept] + [p is not None for p in pushed]
    stack_exprs = [em.value(v) for v in kept if v is not None] + [p for p in pushed if p is not None]
    names, values = _live_locals(frame, em, frame.current + offset)
    kept_dead = _dead_arrays(frame, em, names) if keep_dead else []
    if kept_dead:        # eager's frame keeps them until it returns: as many references, as long
        writes = writes + [assign("___k", f"({''.join(e + ', ' for e in kept_dead)})")]
    # The raiser's locals: inside a try region those before the instruction (its handlers may read any),
    # else the ones the continuation gets. Both are kept by release_temps; so are the stack values below
    # the instruction's operands (a handler's region keeps them; the operands are above its depth).
    raiser_live = _live_locals(frame, em, frame.current) if in_try else (names, values)
    later = stack_exprs + values + kept_dead + raiser_live[1]
    read_later = _names_in(later)
    read_run = sum((s.reads for s in run), Counter())
    release, run = release_temps(ctx, em, temps, run, later, read_run, read_later)
    writes = writes + release + _drop_rebound(frame, read_run + read_later)
    if raiser_for is not None and run:
        run = _raise_in_place(frame, em, run, raiser_for, raiser_live, len(frame.stack) - consumed if in_try else 0)
    return BreakParts(em, [*temps, *writes, *run], frame.current + offset, layout, stack_exprs, names, values)


def _names_in(texts: Any) -> Counter[str]:
    """The names (entry.names) of generated lines or expressions, counted over all of them."""
    found: Counter[str] = Counter()
    for text in texts:
        found.update(entry.names(text))
    return found


def _dead_arrays(frame: Frame, em: BreakEmitter, live: list[str]) -> list[str]:
    """Expressions of the arrays held by locals the rest of the function never reads (parameters aside:
    the entry's own parameters keep those)."""
    dead = [v for n, v in frame.locals.items() if n not in live and not n.startswith(STACK_PREFIX)
            and n not in frame.code.co_cellvars and isinstance(v, ArrayVar)]
    return [e for e in (em.value(v) for v in dead) if not e.isidentifier()]


def release_temps(ctx: CaptureContext, em: BreakEmitter, temps: list[Code], run: list[Code], later: list[str],
                  read_run: Counter[str], read_later: Counter[str]) -> tuple[list[Code], list[Code]]:
    """Drop the entry's own references before the breaking instruction runs, so the objects it touches
    have the references eager Python gives them (`ndarray.resize` refuses an array with one too many).

    Eager holds a value read from a source (`obj.buf`) only on the stack, and the instruction consumes
    it: a prelude temp read only by the instruction is moved into it (`(t, t := None)[0]`), other temps
    nothing reads any more are deleted, and graph outputs nothing reads any more are dropped from `___o`.
    `run`: the instruction's statements, `later`: the expressions the continuation reads; read_run and
    read_later their names. Returns (statements to run before the instruction, the instruction's)."""
    defined = [s.binds[0] for s in [*em.prelude, *temps] if s.temp]
    uses = {name: read_run[name] for name in defined if name not in read_later}   # those read later stay
    release = []
    dead = [n for n, k in uses.items() if k == 0]
    if dead:
        release.append(Code(f"del {', '.join(dead)}"))
    once = frozenset(n for n, k in uses.items() if k == 1)
    if once:
        run = [dataclasses.replace(s, moves=s.moves | (once & s.reads.keys())) for s in run]
    used = {i for text in [*(s.text for s in run), *later] for i in entry.outputs(text)}
    n = len(em.outputs)
    if any(node.is_call for node in ctx.graph.nodes) and n and len(used) < n:
        release.append(assign("___o", "(" + "".join(f"___o[{i}], " if i in used else "None, " for i in range(n)) + ")"))
    return release, run


# The entry's own locals a resume call clears: its graph's outputs, the breaking instruction's results and
# exception, prelude temps, write-back temps, cells (`___k`, the arrays eager's frame keeps, stays).
_GENERATED = frozenset(("___o", "___r", "___x", "___exc"))


def _generated_local(name: str) -> bool:
    return name in _GENERATED or name[:4] in ("___v", "___t", "___c") and name[4:].isdecimal()


def hand_over(frame: Frame, parts: BreakParts, resume: str, wrap: str = "{}",
              choice: tuple[str, str] | None = None) -> list[Stmt]:
    """The entry's last statements: call the resume function holding no reference the eager frame would not
    hold. Its arguments go into a list popped straight onto the call's stack (Python moves those into
    the callee's frame); the entry's temps are cleared, and so is each parameter whose local the resume
    function now holds, or that the function has rebound (eager dropped that reference), and a resume
    function's stack parameters (eager's stack gave those up when they were consumed). A parameter the
    function no longer reads but never rebound stays: eager's frame keeps it until it returns too.
    `wrap` is the call's context: the loop drivers it starts (`drive({})`); `choice` is (a LoopChoice,
    the uncompiled resume function) when those drivers may be skipped for plain Python."""
    args = parts.local_exprs + parts.stack_exprs
    passed = set(parts.local_names)
    clear = [p for p in _parameters(frame.code)
             if p in passed or p.startswith(STACK_PREFIX) or not _still_bound(frame, p)]
    temps = {n for s in walk([*parts.em.prelude, *parts.statements]) for n in s.binds if _generated_local(n)}
    clear += sorted(temps | {"___o"})
    stmts = [assign("___m", f"[{''.join(a + ', ' for a in reversed(args))}]"), Code(f"{' = '.join(clear)} = None")]
    pops = "(" + "___m.pop(), " * len(args) + ")"
    if choice is None:
        return stmts + [Exit(f"return {wrap.format(resume + pops)}")]
    return stmts + chosen(choice[0], f"{choice[1]}{pops}", wrap.format(resume + pops))


def chosen(tune: str, plain: str, driven: str) -> list[Stmt]:
    """The statements returning `plain` or `driven` (calls), whichever the LoopChoice `tune` picks."""
    return [assign("___t", f"{tune}.begin()"), Block("if ___t & 1:", (Exit(f"return {tune}.end(___t, {plain})"),)),
            Exit(f"return {tune}.end(___t, {driven})")]


def _parameters(code: types.CodeType) -> tuple[str, ...]:
    n = code.co_argcount + code.co_kwonlyargcount + bool(code.co_flags & inspect.CO_VARARGS) \
        + bool(code.co_flags & inspect.CO_VARKEYWORDS)
    return code.co_varnames[:n]


def _drop_rebound(frame: Frame, read_after: Counter[str]) -> list[Code]:
    """Unbind, before the breaking instruction runs, each parameter whose value nothing after reads and that
    eager no longer holds: a local the function rebound or deleted during capture (eager dropped it at the
    store), a resume function's stack argument already consumed (popped by eager). sys.getrefcount and
    `ndarray.resize` in the instruction count those references."""
    dead = [p for p in _parameters(frame.code) if (p.startswith(STACK_PREFIX) or not _still_bound(frame, p))
            and p not in read_after]
    return [Code(f"{' = '.join(dead)} = None")] if dead else []


def _still_bound(frame: Frame, name: str) -> bool:
    """Whether local `name` still holds the argument the function was called with."""
    source = getattr(frame.locals.get(name), "source", None)
    return source is not None and source.expr() == name


def _raise_in_place(frame: Frame, em: BreakEmitter, run: list[Stmt], raiser_for: Callable[..., Any],
                    live: tuple[list[str], list[str]], below: int) -> list[Stmt]:
    """Run `run` (the breaking instruction); if they raise, hand the exception to a plain function cut
    from the user's code that rebuilds the stack and locals as they were before the instruction and raises
    it there: inside the original exception-table region, with the user's file, line and function name as
    its innermost traceback entry (tracebacks.below: what the instruction's own callees added, without
    minidynamo's frames). `live`: the locals to rebuild; the stack values from slot `below` on (the
    instruction's operands; all of them outside a try region) no handler sees, and they are None (the
    entry may have handed them to the instruction). The raiser is built on the first exception (capture
    makes none). Called outside the except clause, so no exception context leaks."""
    layout = tuple(v is not None for v in frame.stack)
    names, values = live
    raiser = em.ctx.bind(functools.partial(raiser_for, layout, tuple(names)), "raiser")
    stack = ["None" if i >= below else em.value(v) for i, v in enumerate(frame.stack) if v is not None]
    args = "".join(v + ", " for v in [*values, *stack])
    em.ctx.namespace["___below"] = tracebacks.below
    return [assign("___exc", "None"), Block("try:", tuple(run)),
            Block("except BaseException as ___e:", (assign("___exc", "___e"),)),
            Block("if ___exc is not None:", (Exit(f"return {raiser}()({args}___below(___exc))"),))]


def prepare_loop_back(ctx: CaptureContext, frame: Frame, header: int) -> tuple[BreakEmitter, list[Stmt]]:
    """A driven resume function arrived at a driven loop's header (`header` in the original function's
    numbering): return a LoopState to that loop's driver."""
    em = BreakEmitter(ctx, lambda fn: fn)
    temps, writes = writeback_lines(ctx, em)
    names, values = _live_locals(frame, em, frame.current)
    layout = [v is not None for v in frame.stack]
    state = loop_state_expr(ctx, header, names, values, [em.value(v) for v in frame.stack if v is not None], layout)
    return em, [*temps, *writes, Exit(f"return {state}")]


def loop_state_expr(ctx: CaptureContext, header: int, names: list[str], values: list[str], stack: list[str],
                    layout: list[bool]) -> str:
    """A LoopState for a driver: `stack` holds the values of the slots `layout` marks True, NULL the others."""
    ctx.namespace.setdefault("___LoopState", LoopState)
    ctx.namespace.setdefault("___NULL", NULL)
    exprs = iter(stack)
    slots = [next(exprs) if real else "___NULL" for real in layout]
    return f"___LoopState({header}, {tuple(names)!r}, ({''.join(v + ', ' for v in values)}), " \
           f"({''.join(v + ', ' for v in slots)}))"
