"""`lint(fn, example_args)`: every graph break capture would meet in `fn`, on both ways of each
data-dependent branch, without running `fn`'s code. An api-level package (imports capture and lint.state);
the command line is `python -m minidynamo lint file.py[:function]`.

How: the capture's own symbolic execution (capture_function) runs on the example arguments (without them,
stand-ins from the signature: abstract_inputs), with a LintState (lint/state.py) in its context. A branch
on an array's value that would break is recorded, and the pass is run again once per way (the state forces
that branch's outcome); a try body that catches forks the same way (raising into its handler, or not),
and so does each except clause (matching, or not). A call that breaks (`print`, `.tolist()`, a
standard-library function) is recorded and the pass goes on past it with its result an OpaqueVar: a use
of that value that capture would need to know ends the path unreported (running, the value is known there).
Any other break ends its path (recorded, with "path ends here"). Paths are explored depth first, at most
MAX_PATHS of them; a branch met again on the same path (a loop) takes the other way than at its first
visit, so each loop is followed one iteration in and out. Breaks are listed once per place and code; those
met only after a try body raised are listed apart (a handler runs as plain Python: a run lists none there).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .. import config as _config
from ..capture.breaks import BreakReason
from ..capture.dynamic_shapes import STATIC, ShapePolicy
from ..capture.interpreter import capture_function
from ..errors import GraphBreak
from ..guards import GuardConflictError, GuardSet
from ..report.pieces import describe_guards
from .state import CAUGHT, FORK, OPAQUE, RERAISED, LintState

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
    assumed: list[str] = field(default_factory=list)    # the abstract inputs, in words (no example_args)
    misfits: list[LintItem] = field(default_factory=list)   # paths the abstract inputs did not fit (an op
                                # raising on them, an array used as a dict): not followed, not breaks
    in_handlers: list[LintItem] = field(default_factory=list)   # what breaks only on paths where a try body
                                # raised: in except handlers, which run as plain Python (a run lists none)


    def __bool__(self) -> bool:
        return bool(self.breaks)

    def __str__(self) -> str:
        head = (f"lint({self.function}): {len(self.breaks)} graph break{'s' * (len(self.breaks) != 1)} "
                f"over {self.paths} path{'s' * (self.paths != 1)}"
                + ("" if self.complete else f" (stopped at {MAX_PATHS} paths: more may exist)")
                + (f"; {self.unknown} not followed to the end (they use the result of a call that breaks)"
                   if self.unknown else ""))
        lines = [head] + ([f"(inputs assumed: {'; '.join(self.assumed)})"] if self.assumed else [])
        lines += [str(b) for b in self.breaks]
        if self.in_handlers:
            lines.append("in except handlers (capture never enters one: when the try body raises, the handler "
                         "runs as plain Python, and a run lists no break there), what would break:")
            lines += ["  " + str(b).replace("\n", "\n  ") for b in self.in_handlers]
        if self.misfits:
            lines.append(f"{len(self.misfits)} path{'s' * (len(self.misfits) != 1)} not followed where the assumed "
                         "inputs do not fit (pass example_args, or annotate the parameters):")
            lines += [f"  line {m.lineno}: {m.reason}" for m in self.misfits]
        if self.guards:
            lines.append("guarded (a call where one of these changes captures again):")
            lines += [f"  {words}" for words, _ in self.guards]
        return "\n".join(lines)


def lint(fn: Any, example_args: tuple | None = None, example_kwargs: dict | None = None) -> LintReport:
    """List the graph breaks capture meets in `fn` called on `example_args` (arrays and Python values; only
    their types, shapes, dtypes and values are read, `fn`'s code does not run), on both ways of every
    data-dependent branch and into every except handler. Without example arguments, stand-ins from the
    signature (abstract_inputs: `report.assumed` says which)."""
    from ..api import _state_of
    from ..dispatch.callables import resolve
    state = _state_of(fn)
    target = resolve(state.user_fn if state is not None else fn, "lint()")
    assumed: list[str] = []
    if example_args is None and example_kwargs is None:
        example_args, assumed = abstract_inputs(target.fn, len(target.args), set(target.kwargs))
    args = (*target.args, *(example_args or ()))
    kwargs = {**target.kwargs, **(example_kwargs or {})}
    cfg = _config.with_options(state.options if state is not None else {})
    limits = dict(inline_limit=cfg.inline_depth_limit, max_steps=cfg.max_instructions,
                  unroll_limit=cfg.unroll_limit, shapes=ABSTRACT_SHAPES if assumed else STATIC,
                  auto_cond=cfg.auto_cond, fori_loops=cfg.fori_loops, mask_counts=True)
    found: dict[tuple, LintItem] = {}
    kept = {"misfit": {}, "handler": {}}          # stand-ins that do not fit; breaks on a path that raised
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
        if not lint_state.in_handler:        # (a handler is never captured: it guards nothing)
            _add_guards(guards, ctx)

        def place(r: BreakReason, in_handler: bool) -> dict:
            return kept["misfit"] if assumed and _misfit(r) else kept["handler"] if in_handler else found
        for r, in_handler in lint_state.passed:
            _add(place(r, in_handler), r, False, assuming)
        if ended is not None and ended is lint_state.open_reason:     # a fork: follow each way
            if ended.message != FORK:
                _add(place(ended, lint_state.in_handler), ended, False, assuming)
            for way in (False, True):
                pending.append(({**forced, lint_state.open: way},
                                assuming + [f"{lint_state.open_line}: {str(way).lower()}"]))
        elif ended is not None and (OPAQUE in ended.message or CAUGHT in ended.message):
            unknown += 1                # the path needs a value only running has: not followed further
        elif ended is not None and ended.message != RERAISED:
            _add(place(ended, lint_state.in_handler), ended, True, assuming)
    handlers = [i for k, i in kept["handler"].items() if k not in found]
    return LintReport(target.fn.__qualname__, sorted(found.values(), key=_order), paths, not pending, unknown,
                      describe_guards(list(guards)), assumed, sorted(kept["misfit"].values(), key=_order),
                      sorted(handlers, key=_order))


def _add_guards(guards: GuardSet, ctx: Any) -> None:
    for g in (ctx.guards if ctx is not None else ()):
        if not guards.has(g.expr, (g.kind,)):
            try:
                guards.add(g)
            except GuardConflictError:     # (another path's guard on the same value: the first kept)
                pass


def _order(item: LintItem) -> tuple:
    return item.filename, item.lineno or 0, item.code


def _misfit(reason: BreakReason) -> bool:
    """A path ending that says the stand-in inputs do not fit the code (an op that would raise on them, an
    attribute an array lacks) rather than where capture breaks: with real inputs it need not happen."""
    return str(reason.code) == "MD0007" or reason.message.startswith(("array attribute", "array method"))


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
        report = lint(fn, tuple(given) if given is not None else None)
        print(report)
        broken += bool(report)
    return 1 if broken else 0


# Without example arguments, arrays stand in as float64 (4, 4) with every size symbolic (dynamic=True), so
# what depends on a size is guarded or breaks as it would for an unknown shape, not folded for (4, 4).
ABSTRACT_SHAPES = ShapePolicy(mode=True)
_STAND_INS = {int: 4, float: 1.0, complex: 1j, bool: True, str: "", bytes: b""}


def abstract_inputs(fn: Any, skip: int = 0, given: set | frozenset = frozenset()) -> tuple[tuple, list[str]]:
    """Stand-ins for `fn`'s parameters after the first `skip` (and but those in `given`), from its signature:
    a default stands for itself, an annotation of int/float/complex/bool/str/bytes for a value of that type,
    anything else (no annotation, an array annotation) for a float64 array of unknown sizes. Returns the
    arguments and, for the report, each one in words."""
    import inspect
    import numpy as np
    args, words = [], []
    params = [p for p in inspect.signature(fn).parameters.values()
              if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)][skip:]
    for p in params:
        if p.name in given:
            break
        hint = p.annotation if not isinstance(p.annotation, str) else \
            {t.__name__: t for t in _STAND_INS}.get(p.annotation, p.annotation)
        if p.default is not p.empty:
            value, what = p.default, f"its default {p.default!r}"
        elif hint in _STAND_INS:
            value, what = _STAND_INS[hint], f"the {hint.__name__} {_STAND_INS[hint]!r}"
        else:
            value, what = np.ones((4, 4)), "a float64 array of unknown shape"
        args.append(value)
        words.append(f"{p.name}: {what}")
    return tuple(args), words
