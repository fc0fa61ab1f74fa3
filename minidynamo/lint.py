"""`lint(fn, example_args)`: every graph break capture would meet in `fn`, on both ways of each
data-dependent branch, without running `fn`'s code. An api-level module (imports capture); the command line
is `python -m minidynamo lint file.py[:function]`.

How: the capture's own symbolic execution (capture_function) runs on the example arguments, with a
LintState in its context. A branch on an array's value that would break is recorded, and the pass is run
again once per way (the state forces that branch's outcome). A call that breaks (`print`, `.tolist()`, a
standard-library function) is recorded and the pass goes on past it with its result an OpaqueVar: a use
of that value that capture would need to know ends the path unreported (running, the value is known there).
Any other break ends its path (recorded, with "path ends here"). Paths are explored depth first, at most MAX_PATHS of them; a
branch met again on the same path (a loop) takes the other way than at its first visit, so each loop is
followed one iteration in and out. Breaks are listed once per place and code.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from . import config as _config
from .capture.breaks import BreakReason
from .capture.dynamic_shapes import STATIC
from .capture.interpreter import capture_function, locate_reason
from .capture.variables.base import Var
from .errors import GraphBreak
from .guards import GuardConflictError, GuardSet
from .report.pieces import describe_guards

MAX_PATHS = 64


@dataclass
class LintItem:
    """One place capture would break: where, its code, category, reason and hint; `ends_path` when the
    lint could not follow the path past it; `assuming` the branch outcomes that lead there."""

    filename: str
    lineno: int | None
    function: str
    source_line: str
    code: str
    category: str
    reason: str
    hint: str
    ends_path: bool = False
    assuming: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        import os
        where = f"{os.path.basename(self.filename)}:{self.lineno}" if self.filename else "?"
        text = f"{where} in {self.function}: [{self.code} {self.category}] {self.reason}"
        if self.source_line:
            text += f"\n    `{self.source_line}`"
        text += f"\n    hint: {self.hint}"
        if self.ends_path:
            text += "\n    (lint does not follow this path further: what comes next depends on a value it lacks)"
        return text


@dataclass
class LintReport:
    function: str
    breaks: list[LintItem]
    paths: int                  # symbolic passes run (one per combination of branch outcomes followed)
    complete: bool              # every path was followed (False: MAX_PATHS reached)
    unknown: int = 0            # paths not followed to their end: they needed the value of a call that breaks
    guards: list[tuple[str, str]] = field(default_factory=list)   # (words, checks): what a call is checked
                                # against (a change recompiles), over every path followed


    def __bool__(self) -> bool:
        return bool(self.breaks)

    def __str__(self) -> str:
        head = (f"lint({self.function}): {len(self.breaks)} graph break{'s' * (len(self.breaks) != 1)} "
                f"over {self.paths} path{'s' * (self.paths != 1)}"
                + ("" if self.complete else f" (stopped at {MAX_PATHS} paths: more may exist)")
                + (f"; {self.unknown} not followed to the end (they use the result of a call that breaks)"
                   if self.unknown else ""))
        lines = [head, *(str(b) for b in self.breaks)]
        if self.guards:
            lines.append("guarded (a call where one of these changes captures again):")
            lines += [f"  {words}" for words, _ in self.guards]
        return "\n".join(lines)


class LintState:
    """Kept in the capture context (ctx.lint) during one lint pass: the branch outcomes forced on this path
    and the breaks the pass went on past."""

    def __init__(self, forced: dict) -> None:
        self.forced = forced                  # branch key -> outcome
        self.passed: list[BreakReason] = []   # breaks recorded and gone past (forced branches, prints)
        self.open: Any = None                 # the branch key the pass broke at (not forced yet) ...
        self.open_reason: Any = None          # ... and its reason (the break the pass ended with, if the same)
        self.open_line: str = ""
        self.first: dict = {}                 # branch place -> outcome at its first visit on this path

    def branch(self, frame: Any, reason: BreakReason) -> bool | None:
        """The forced outcome of the branch `frame` is at (the break recorded), or None: break as usual."""
        key = _key(frame)
        place = key[-1][:2]
        if key in self.forced:
            outcome = self.forced[key]
        elif place in self.first:            # met again on this path (a loop): the other way, no new fork
            outcome = not self.first[place]
        else:
            self.open, self.open_reason = key, reason
            self.open_line = f"{frame.qualname} line {frame.ins.lineno(frame.current)}"
            return None
        self.first.setdefault(place, outcome)
        self.note(frame, reason)
        return outcome

    def past_call(self, frame: Any, reason: BreakReason) -> Var:
        """A call broke: record it; the call's result is a value lint does not know. (A call of a method
        of such a value needs it: the path ends.)"""
        if OPAQUE in reason.message:
            raise GraphBreak(reason)
        self.note(frame, reason)
        return OpaqueVar()

    def note(self, frame: Any, reason: BreakReason) -> None:
        chain = []
        while frame is not None:
            chain.append(frame)
            frame = frame.parent
        for f in chain:
            locate_reason(reason, f)
        self.passed.append(reason)


OPAQUE = "a value lint does not know (the result of a call that breaks)"


class OpaqueVar(Var):
    """The result of a call lint went past: every question about it breaks (Var's defaults), naming it."""

    def describe(self) -> str:
        return OPAQUE


def _key(frame: Any) -> tuple:
    chain = []
    while frame is not None:
        chain.append((id(frame.code), frame.current, frame.visits.get(frame.current, 0)))
        frame = frame.parent
    return tuple(reversed(chain))


def lint(fn: Any, example_args: tuple | None = None, example_kwargs: dict | None = None) -> LintReport:
    """List the graph breaks capture meets in `fn` called on `example_args` (arrays and Python values; only
    their types, shapes, dtypes and values are read, `fn`'s code does not run), on both ways of every
    data-dependent branch."""
    from .api import _state_of
    from .callables import resolve
    state = _state_of(fn)
    target = resolve(state.user_fn if state is not None else fn, "lint()")
    args = (*target.args, *(example_args or ()))
    kwargs = {**target.kwargs, **(example_kwargs or {})}
    cfg = _config.with_options(state.options if state is not None else {})
    limits = dict(inline_limit=cfg.inline_depth_limit, max_steps=cfg.max_instructions,
                  unroll_limit=cfg.unroll_limit, shapes=STATIC, auto_cond=cfg.auto_cond, fori_loops=cfg.fori_loops,
                  mask_counts=True)
    found: dict[tuple, LintItem] = {}
    pending: list[tuple[dict, list[str]]] = [({}, [])]     # (branch key -> outcome, the same in words)
    paths = unknown = 0
    guards = GuardSet()
    while pending and paths < MAX_PATHS:
        forced, assuming = pending.pop()
        paths += 1
        lint_state = LintState(forced)
        ended = ctx = None
        try:
            ctx = capture_function(target.fn, args, kwargs, target.fn.__name__, tag="lint", lint=lint_state,
                                   **limits).ctx
        except GraphBreak as e:
            ended, ctx = e.reason, getattr(e, "ctx", None)
        for g in (ctx.guards if ctx is not None else ()):
            if not guards.has(g.expr, (g.kind,)):
                try:
                    guards.add(g)
                except GuardConflictError:     # (another path's guard on the same value: the first kept)
                    pass
        for r in lint_state.passed:
            _add(found, r, False, assuming)
        if ended is not None and ended is lint_state.open_reason:     # a branch: follow each way
            _add(found, ended, False, assuming)
            for way in (False, True):
                pending.append(({**forced, lint_state.open: way},
                                assuming + [f"{lint_state.open_line}: {str(way).lower()}"]))
        elif ended is not None and OPAQUE in ended.message:
            unknown += 1                # the path needs a value only running has: not followed further
        elif ended is not None:
            _add(found, ended, True, assuming)
    items = sorted(found.values(), key=lambda i: (i.filename, i.lineno or 0, i.code))
    return LintReport(target.fn.__qualname__, items, paths, not pending, unknown,
                      describe_guards(list(guards)))


def _add(found: dict, r: BreakReason, ends: bool, assuming: list[str]) -> None:
    key = (r.filename, r.lineno, str(r.code), r.message)
    item = found.get(key)
    if item is None:
        found[key] = LintItem(r.filename, r.lineno, r.function, r.source_line, str(r.code), str(r.category),
                              r.message, r.code.hint, ends, assuming)
    else:
        item.ends_path = item.ends_path and ends   # followed past on some path


def command(argv: list[str]) -> int:
    """`python -m minidynamo lint file.py[:function] [--args EXPR]`: print the lint of each function (the
    named one, else every function the file defines at its top level) and exit 1 when any would break."""
    import argparse
    import importlib.util
    import inspect
    import sys
    parser = argparse.ArgumentParser(prog="minidynamo lint", description=command.__doc__)
    parser.add_argument("target", help="file.py or file.py:function")
    parser.add_argument("--args", default=None, help="a Python expression (numpy as np) giving the example "
                        "arguments as a tuple; without it, each parameter without a default is np.ones((4, 4))")
    opts = parser.parse_args(argv)
    path, _, name = opts.target.partition(":")
    spec = importlib.util.spec_from_file_location("__minidynamo_lint__", path)
    if spec is None or spec.loader is None:
        print(f"minidynamo lint: cannot load {path}", file=sys.stderr)
        return 2
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)          # the file's top level runs (not its functions)
    fns = [getattr(module, name)] if name else \
        [v for v in vars(module).values() if inspect.isfunction(v) and v.__module__ == spec.name]
    import numpy as np
    given = eval(opts.args, {"np": np}) if opts.args else None   # noqa: S307 (the user's own expression)
    broken = 0
    for fn in fns:
        args = tuple(given) if given is not None else _assumed_args(fn)
        report = lint(fn, args)
        if given is None and args:
            print(f"(inputs assumed: {len(args)} float64 arrays of shape (4, 4); pass --args for others)")
        print(report)
        broken += bool(report)
    return 1 if broken else 0


def _assumed_args(fn: Any) -> tuple:
    import inspect
    import numpy as np
    params = inspect.signature(fn).parameters.values()
    return tuple(np.ones((4, 4)) for p in params if p.default is p.empty
                 and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))
