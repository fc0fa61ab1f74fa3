"""Frame: the state of one function during symbolic execution (stack, locals, cells, instruction pointer).

Imports capture.instructions, capture.variables and capture.sources. Handlers change a Frame and nothing
else; `frame.ctx` is the CaptureContext shared with inlined frames; `frame.inline(...)` runs a callee.
"""

from __future__ import annotations

import sys
import types
from typing import Any, Callable, ClassVar

from ..graph.ir import WHERE
from ..hatches import DISABLED_CODE
from . import break_codes as codes
from .breaks import BreakCategory
from .builtin_scope import BuiltinScope
from .instructions import Instructions, decode
from .sources import CellSource, GlobalSource
from .variables.base import Var, unsupported
from .variables.builtins import builtin_var
from .variables.lazy_iterators import run_ahead
from .variables.functions import CellBox

# Standard-library modules whose Python code capture does not walk: `random` keeps its state in the C methods
# every draw calls (walking random.shuffle only breaks deeper, once per list length), `copy` keys deepcopy's
# memo by id(), and the rest of the pure-Python standard library (statistics, fractions, decimal's Python
# twin, heapq's fallbacks, ...) is bookkeeping over Python numbers and types that breaks deeper and recaptures
# per value (`statistics.mean(x.tolist())` went into statistics._sum: 7-45 breaks). A call into them is one
# break at the caller's call, run as plain Python, as TorchDynamo's skip rules do; INLINED_STDLIB lists the
# modules worth walking (decorators, context managers, containers' Python methods, dataclasses, enums).
PLAIN_MODULES = frozenset({"random", "copy"})
INLINED_STDLIB = frozenset({"functools", "contextlib", "dataclasses", "enum", "abc", "typing", "collections",
                            "_collections_abc", "operator", "types", "numbers", "weakref", "_weakrefset",
                            "__main__", "__future__"})


def runs_plain(module: Any) -> bool:
    """Whether code of the module named `module` (a function's __globals__['__name__']) runs as plain Python."""
    if not isinstance(module, str):
        return False
    top = module.partition(".")[0]
    return module in PLAIN_MODULES or top in sys.stdlib_module_names and top not in INLINED_STDLIB


def stdlib_call_reason(module: str, qualname: str) -> str:
    """The break reason of a call into standard-library code run as plain Python (lint words it alike)."""
    return f"{module}.{qualname}() runs as plain Python (standard-library code: hidden state, bookkeeping per value)"


class Frame:
    """One activation. `locals` maps names to Vars; `cells` maps cell/free variable names to CellBoxes."""

    # The interpreter loop, passed in: capture/interpreter.py sets both when it loads, so a frame runs its
    # callees (run: to the return) and the folding passes run arms and bodies (run_until: to an instruction,
    # None for the return) without importing the layer above them.
    run: ClassVar[Callable[["Frame"], Var]]
    run_until: ClassVar[Callable[["Frame", int | None], Var | None]]

    def __init__(self, ctx: Any, code: types.CodeType, locals_: dict[str, Var], closure: list[CellBox],
                 globals_: dict, qualname: str, builtins_: BuiltinScope, parent: "Frame | None" = None) -> None:
        self.ctx = ctx
        self.code = code
        self.ins: Instructions = decode(code)
        self.stack: list[Any] = []           # Vars, plus NULL markers (None) for CALL's null slot
        self.locals: dict[str, Var] = dict(locals_)
        self.cells: dict[str, CellBox] = {name: CellBox() for name in code.co_cellvars}
        self.cells.update(zip(code.co_freevars, closure))
        if type(globals_) is dict and "__builtins__" not in globals_:
            # C code that imports (PyImport_Import, behind ndarray.sum and other methods written in Python)
            # reads the running frame's globals['__builtins__']: eager raises KeyError, a graph would not
            raise unsupported(BreakCategory.UNSUPPORTED, "the function's globals have no `__builtins__` "
                                                         "(NumPy methods raise KeyError there)")
        self.globals = globals_
        self.globals_key = ctx.bind(globals_, "G")
        self.builtins = builtins_            # the function's own __builtins__ (builtin_scope.py)
        self.qualname = qualname
        self.parent = parent
        self.depth = 0 if parent is None else parent.depth + 1
        self.ip = 0
        self.current = 0                     # index of the instruction being executed
        self.kw_names: tuple[str, ...] = ()  # set by KW_NAMES (3.11/3.12) for the next CALL
        self.result: Var | None = None
        self.yields: list[Var] | None = None  # a generator's frame collects what it yields here
        self.visits: dict[int, int] = {}   # instruction index -> times reached (unrolled loops revisit)
        self.stop_at: tuple[int, int] | None = None   # (index, visit): stop before it (restart after a break)
        self.drives: frozenset[int] = frozenset()   # loop headers where a driven function hands back to a driver
        self.entry: int = 0                 # where execution starts (a resume function's jump target)
        self.loop_starts = {s for s, _ in self.ins.loops}
        self.fori: list = []                # for loops of this frame whose body is being folded (fold/fori.py)
        # (index, visit) of the np.errstate(...) call of each captured errstate block this frame is inside
        # (variables/errstate.py): a break inside one restarts the root frame there
        self.errstate_blocks: list[tuple[int, int]] = []
        # the exception-table handler of each of those blocks' `with` region (instruction indices)
        self.errstate_regions: list[int | None] = []

    def foldable_at(self, index: int) -> bool:
        """Whether instruction `index` may be part of a folded branch: outside every try region, or inside
        only the `with` region of the innermost captured np.errstate block (its handler just calls
        __exit__; an op that raises there makes the graph raise, and the entry re-runs eagerly)."""
        return not self.ins.in_try[index] or self.ins.handler[index] in self.errstate_regions[-1:]

    # ---- stack ---------------------------------------------------------------------------------------
    def push(self, value: Any) -> None:
        self.stack.append(value)

    def pop(self) -> Any:
        return self.stack.pop()

    def popn(self, n: int) -> list[Any]:
        if n == 0:
            return []
        items = self.stack[-n:]
        del self.stack[-n:]
        return items

    def peek(self, depth: int = 1) -> Any:
        return self.stack[-depth]

    def jump(self, target: int) -> None:
        self.ip = target

    def target(self) -> int:
        """Jump target of the current instruction, as an instruction index."""
        return self.ins.targets[self.current]

    # ---- names --------------------------------------------------------------------------------------
    def load_local(self, name: str) -> Var:
        try:
            return self.locals[name]
        except KeyError:
            raise unsupported(BreakCategory.EXCEPTION, f"local variable {name!r} is unbound (UnboundLocalError)") from None

    def load_global(self, name: str) -> Var:
        written = self.ctx.side_effects.load_global(self.globals_key, name)
        if written is not None:
            return written
        if type(self.globals) is not dict:   # CPython looks names up with __getitem__ then: not modelled
            raise unsupported(BreakCategory.UNSUPPORTED, "the function's globals are not a plain dict")
        if name in self.globals:
            return self.ctx.wrap(self.globals[name], GlobalSource(self.globals_key, name))
        builtins_ns = self.builtins.namespace(self.ctx)
        if name in builtins_ns:
            return builtin_var(self.ctx, name, builtins_ns[name], self.globals_key, self.ctx.bind(builtins_ns, "B"))
        raise unsupported(BreakCategory.EXCEPTION, f"name {name!r} is not defined (NameError)")

    def new_function_builtins(self) -> BuiltinScope:
        """The builtins of a function MAKE_FUNCTION makes in this frame (the maker's own guards are
        installed: a rebuilt function may take them at run time)."""
        if self.ctx.side_effects.load_global(self.globals_key, "__builtins__") is not None:
            raise unsupported(BreakCategory.UNSUPPORTED, "a function made after `__builtins__` was assigned")
        self.builtins.install(self.ctx)
        return BuiltinScope.of_new_function(self.ctx, self.globals_key, self.globals, self.builtins)

    def load_cell(self, name: str) -> Var:
        box = self.cells[name]
        if box.value is None and box.real is not None:
            try:
                contents = box.real.cell_contents
            except ValueError:
                raise unsupported(BreakCategory.EXCEPTION, f"free variable {name!r} is unbound") from None
            label = f"{name} of {box.owner}" if box.owner else name
            box.value = self.ctx.wrap(contents, CellSource(self.ctx.cell_expr(box), label))
        if box.value is None:
            raise unsupported(BreakCategory.EXCEPTION, f"cell variable {name!r} is unbound")
        return box.value

    def store_cell(self, name: str, value: Var) -> None:
        box = self.cells[name]
        if box.real is not None:    # a cell that exists outside (nonlocal, or a resume function's): replayed
            self.ctx.side_effects.store_cell(box)
        box.value = value

    # ---- calls --------------------------------------------------------------------------------------
    def inline(self, code: types.CodeType, args: dict[str, Var], closure: list[CellBox], globals_: dict,
               qualname: str, builtins_: BuiltinScope) -> Var:
        """Run a callee symbolically in a child frame and return its result."""
        if self.depth + 1 > self.ctx.inline_limit:
            raise unsupported(BreakCategory.INLINE, f"inlining depth limit ({self.ctx.inline_limit}) reached at {qualname}")
        if code is DISABLED_CODE:
            raise unsupported(codes.DISABLED, f"{qualname}() is disabled (minidynamo.disable): it runs as plain "
                                              "Python")
        if runs_plain(globals_.get("__name__")):
            raise unsupported(codes.STDLIB_CALL, stdlib_call_reason(globals_["__name__"], qualname))
        if code.co_flags & (0x80 | 0x100 | 0x200):   # coroutine, iterable coroutine, async generator
            raise unsupported(BreakCategory.UNSUPPORTED, f"{qualname} is a coroutine")
        child = Frame(self.ctx, code, args, closure, globals_, qualname, builtins_, parent=self)
        if code.co_flags & 0x20:                      # a generator (genexpr): run it now, collect its items
            return self._run_generator(child)
        return child.run()

    def _run_generator(self, child: "Frame") -> Var:
        """A generator run to its end at call time; its items become a known iterator. Only sound when the
        body changes nothing the consumer could observe in between, so side effects there break."""
        effects = self.ctx.side_effects
        before = (effects.version, len(self.ctx.mutating_nodes))     # (version: every mutation, repeats too)
        child.yields = []
        # what the generator could read: its arguments and the contents of its closure's cells
        inputs = list(child.locals.values()) + [box.value for box in child.cells.values() if box.value is not None]
        child.run()
        if (effects.version, len(self.ctx.mutating_nodes)) != before:
            raise unsupported(BreakCategory.SIDE_EFFECT, f"generator {child.qualname} has side effects; running it ahead "
                                             "of its consumer would reorder them")
        return run_ahead(self.ctx, child.yields, f"generator {child.qualname}", inputs)

    def location(self) -> tuple[str, int | None, str]:
        return self.code.co_filename, self.ins.lineno(self.current), self.ins.source_line(self.current)

    def where(self) -> tuple:
        """(code, instruction index, globals) of this frame and the frames that inlined it, the root first:
        where an exception of the instruction being executed is raised again (stitch/raisers.py)."""
        chain, frame = [], self
        while frame is not None:
            chain.append((frame.code, frame.current, frame.globals))
            frame = frame.parent
        return tuple(reversed(chain))


def locate(ctx: Any, node: Any) -> None:
    """Graph.on_call during a capture: the node gets where the program is (an exception is raised there)."""
    if ctx.active_frame is not None:
        node.meta[WHERE] = ctx.active_frame.where()
