"""compile(), explain(), reset(): the public entry points, and the one place that catches internal errors.

Imports everything below it. `compile(fn)` returns the generated dispatcher (a real function with fn's
signature); its first call for new inputs captures (capture.interpreter), stitches the entry body
(stitch.stitched), and adds a guarded entry to the function's cache (dispatch.cache.FunctionCache).
"""

from __future__ import annotations

import contextlib
import dataclasses
import enum
import functools
import threading
import time
import types
import weakref
from collections import Counter
from typing import Any, Callable, Iterator

import numpy as np

from . import config as _config
from .dispatch import gc_pause
from .backends import call_backend, get_backend, is_own_backend, returns_numpy_arrays
from .dispatch.cache import Entry, FunctionCache, Mode, Stats, signature_text
from .capture import break_codes as _codes, interpreter as _interpreter
from .capture.fold import fori as _fori
from .capture.breaks import BreakCategory, BreakReason
from .capture.interpreter import capture_function
from .capture.later_steps import mark_handed_on
from .errors import CannotResume, GraphBreak, GraphBreakError, InternalError
from .capture.dynamic_shapes import STATIC, ShapePolicy
from .capture.sources import untagged
from .guards import Guard, GuardKind, GuardSet, compiled as compiled_expr, failures
from .report import CaptureRecord, ExplainOutput, log
from .dispatch.trip_counts import changed_counts
from .report.pieces import Recapture, is_branch_outcome, readable_function
from .verify import Verifier
from .stitch.entry import Exit
from .stitch.guarded_call import entry_statements
from .stitch.moving import call_moving
from .stitch.partial import capture_around_break, loop_back_body, resume_info
from .stitch.stitched import build_body
from .dispatch.mode_trial import HITS_PER_MISS, PastLimit  # noqa: F401  (HITS_PER_MISS: tests read it here)
from .dispatch.callables import Target, compiled_function, resolve
from .dispatch.reserved_names import forwarding_wrapper, renamed_parameters, with_parameters_renamed
from .capture.signatures import code_signature
from .hatches import disabled_reason

_ALL: "weakref.WeakSet[CompiledState]" = weakref.WeakSet()
GLOBAL_STATS = {"captures": 0, "cache_hits": 0, "guard_failures": 0, "recompiles": 0, "fallbacks": 0}


class Decision(enum.Enum):
    """What a miss does when it makes no new entry."""

    EAGER = "eager"     # run the function as plain Python: skipped, past the cache limit, an internal error
    RETRY = "retry"     # call the dispatcher again: another thread changed the cache meanwhile (it may hit)


class CompiledState:
    """Everything minidynamo keeps for one compiled function (reachable as `wrapper._minidynamo`)."""

    def __init__(self, fn: types.FunctionType, backend: Any, fullgraph: bool, options: dict,
                 dynamic: bool | None = None, root: bool = True) -> None:
        self.fn = fn                         # what is captured (see reserved_names for when it is a copy)
        self.user_fn = fn                    # what the user compiled
        self.backend = get_backend(backend)
        self.fullgraph = fullgraph
        self.options = options
        self.lock = threading.RLock()
        self.cache = FunctionCache(fn, self.on_miss, verifier=self._verifier() if root else None, lock=self.lock)
        self.records: list[CaptureRecord] = []
        self.skip_reason: str | None = disabled_reason(fn)
        self.warned_limit = False
        self.past_limit = PastLimit()         # what each window of misses past the cache limit decides
        self.dynamic: set[str] = set()       # int/float sources captured unspecialized (see _changed_numbers)
        self.dynamic_mode = dynamic          # compile(dynamic=...): None automatic, True, False
        self.dynamic_dims: dict[str, dict[int, str]] = {}   # array source -> {dim: why it became symbolic}
        self._in_miss = threading.local()
        self._new_cause: CaptureRecord | None = None   # set by _capture: a recompile no enclosing piece caused
        _ALL.add(self)

    def cfg(self) -> _config.Config:
        return _config.with_options(self.options)

    def _verifier(self) -> Verifier | None:
        """Shadow verification of this function's calls (verify.py), when verify_every asks for it."""
        cfg = self.cfg()
        if not cfg.verify_every:
            return None
        exact = self.backend in (get_backend("numpy"), get_backend("eager"))
        return Verifier(self.fn, cfg.verify_every, cfg.verify_action, exact,
                        warm=lambda: sum(e.hits[0] for e in self.cache.entries), pieces=self._piece_hits)

    def _piece_hits(self) -> dict[str, int]:
        """Hits per captured piece (the function and its resume functions, loop bodies, broken helpers)."""
        states = [self] + [s for s in map(_state_of, getattr(self, "children", {}).values()) if s is not None]
        return {p.name: p.hits for p in map(_piece_stats, dict.fromkeys(states))}

    # ---- the miss path (never on the warm path) -----------------------------------------------------
    def on_miss(self, seen: int, /, *args: Any, **kwargs: Any) -> Any:
        """Called by the dispatcher when no entry's guards pass; `seen` is the cache generation that
        dispatcher code was built for. The lock covers deciding and capturing, never the user's code: an
        eager call under it could deadlock with another compiled function's lock taken in between."""
        with self.lock:
            entry = self._decide(seen, args, kwargs)
            cause, self._new_cause = self._new_cause, None
            if isinstance(entry, Entry):
                self._in_miss.active = True
        target = self.fn if entry is Decision.EAGER else self.cache.dispatcher
        pending = [*reversed(args)]
        del args                # the callee gets the only references this frame had (stitch.moving)
        if not isinstance(entry, Entry):
            return call_moving(target, pending, kwargs)
        before = entry.hits[0]
        # Pieces that capture again during this call (a resume function seeing the new shape too) do so
        # because of this recompile: stats() counts the cause once (CaptureRecord.cause).
        causes = getattr(self.children, "causes", None)
        outer = getattr(causes, "record", None)
        if cause is not None and causes is not None:
            causes.record = cause
        try:   # the new entry's guards pass for these arguments; this call is a miss, not a hit
            return call_moving(target, pending, kwargs)
        finally:
            self._in_miss.active = False
            if cause is not None and causes is not None:
                causes.record = outer
            if entry.hits[0] > before:
                entry.hits[0] -= 1

    def _decide(self, seen: int, args: tuple, kwargs: dict) -> Entry | Decision:
        """Under the lock: a new entry, or a Decision (run eagerly, or retry the dispatcher)."""
        if self.skip_reason is not None or getattr(self._in_miss, "active", False):
            return Decision.EAGER
        if seen != self.cache.generation:
            return Decision.RETRY
        if signature_text(code_signature(self.fn)) != (self.cache.params, self.cache.forward):
            self.skip_reason = (f"{self.fn.__qualname__}.__code__ was replaced by code of another signature: the "
                                f"compiled function keeps the signature it was compiled with, and runs the new "
                                f"code as plain Python")
            return Decision.EAGER
        cfg = self.cfg()
        if self.cache.stats.mode not in (Mode.PAST_LIMIT, Mode.TIMING):   # (there the dispatcher counts them)
            self.cache.stats.misses += 1
        if len(self.cache.entries) >= cfg.cache_size_limit:   # no recompile: not counted as one
            if not self.warned_limit:
                self._warn_limit(cfg, self._failure_reasons(args, kwargs))
            self.past_limit.window(self.cache, self.lock)
            return Decision.EAGER
        try:
            failed, why = self._record_failures(args, kwargs)
            return self._capture(args, kwargs, cfg, failed, why)
        except GraphBreakError:
            raise
        except Exception as e:   # the one logged fallback: an internal error never reaches the user
            self._fall_back(e, cfg)
            return Decision.EAGER

    def _fall_back(self, e: Exception, cfg: _config.Config) -> None:
        """An internal error during capture: raise it (suppress_errors off), or from now on run this function
        eagerly, saying why once."""
        where = _internal_location(e)
        text = where.pop("text", None)     # (in the message; the rest are InternalError's attributes)
        message = f"{type(e).__name__}: {e}" + (f" (at {text})" if text else "")
        if not cfg.suppress_errors:
            raise InternalError(f"capture of {self.fn.__qualname__} failed: {message}",
                                function=self.fn.__qualname__, **where) from e
        self.skip_reason = f"internal error during capture: {message}"
        GLOBAL_STATS["fallbacks"] += 1
        self.cache.stats.fallbacks += 1
        log("recompiles").warning("minidynamo: %s runs eagerly: %s", self.fn.__qualname__, self.skip_reason)

    def _failure_reasons(self, args: tuple, kwargs: dict) -> list[str]:
        """For each cached entry, the first guard these arguments fail, as a readable line."""
        scope = {**_argument_values(self.fn, args, kwargs), **self.cache.namespace}
        reasons = []
        for e in self.cache.entries:
            reasons += failures(e.guards, scope, limit=1)
        return reasons

    def _record_failures(self, args: tuple, kwargs: dict) -> tuple[list[str], Recapture]:
        """On a recompile: count it and return why each cached entry's guards failed (else []), and whether
        it is a recompile or a new path (only a branch outcome at a break differs: not a recompile)."""
        if not self.cache.entries:
            return [], Recapture.FIRST
        reasons = self._failure_reasons(args, kwargs)
        if self._new_branch_outcome(args, kwargs):
            self.cache.stats.new_paths += 1
            log("recompiles").info("new path in %s: %s", self.fn.__qualname__, "; ".join(reasons))
            return reasons, Recapture.NEW_PATH
        # Automatic dynamic (Dynamo's): what changed becomes symbolic. dynamic=False keeps numbers and sizes
        # specialized; a function made per call is never pinned again either way.
        self.dynamic |= self._changed_numbers(args, kwargs, numbers=self.dynamic_mode is not False)
        if self.dynamic_mode is not False:      # (and trip counts whose guard failed: dispatch/trip_counts.py)
            self._changed_sizes(args, kwargs)
            self.dynamic |= changed_counts(self.records, {**self.cache.namespace, **_argument_values(
                self.fn, args, kwargs)}, self.dynamic, self.fn.__qualname__)
        self.cache.stats.guard_failures.append(reasons)
        self.cache.stats.recompiles += 1
        GLOBAL_STATS["guard_failures"] += 1
        GLOBAL_STATS["recompiles"] += 1
        log("recompiles").info("recompiling %s: %s", self.fn.__qualname__, "; ".join(reasons))
        return reasons, Recapture.RECOMPILE

    def _new_branch_outcome(self, args: tuple, kwargs: dict) -> bool:
        """Whether the branch at the break went a way no capture saw (no entry's branch-outcome guards hold:
        a resume function's `___stack<i>` is True or False) while some entry fails only those guards. Only a
        piece after a break has such paths: a function whose own branch goes another way recompiles."""
        if not resume_info(self.fn).entry:
            return False
        values, only_outcome = None, False
        for e in self.cache.entries:
            outcome = [g for g in e.guards if _is_outcome(g)]
            if outcome:
                values = values or {**_argument_values(self.fn, args, kwargs), **self.cache.namespace}
                if not failures(GuardSet(outcome), values, limit=1):
                    return False            # this way was taken before: what failed is something else
                only_outcome = only_outcome or not failures(GuardSet(g for g in e.guards if not _is_outcome(g)),
                                                            values, limit=1)
        return only_outcome

    def _changed_numbers(self, args: tuple, kwargs: dict, numbers: bool = True) -> set[str]:
        """Sources of ints/floats whose value guard failed: captured unspecialized from now on (Dynamo's
        automatic dynamic), so a step counter does not capture again on every call. Likewise functions
        made per call whose identity guard failed (see stitch/breaking.py)."""
        scope = {**self.cache.namespace, **_argument_values(self.fn, args, kwargs)}
        changed = set()
        for entry in self.cache.entries:
            for g in entry.guards:
                number = numbers and g.kind is GuardKind.EQUALS and type(g.expected) in (int, float)
                length = numbers and g.kind is GuardKind.LEN
                if not (number or length or g.kind is GuardKind.ID and type(g.expected) is types.FunctionType):
                    continue
                try:
                    now = eval(compiled_expr(g.expr), scope)   # a source expression minidynamo built (compiled once)
                except Exception:
                    continue
                if number and type(now) is type(g.expected) and now != g.expected or \
                        length and type(now) is list and len(now) != g.expected:   # (dynamic_index.py)
                    changed.add(untagged(g.expr))      # (a global's expression names the capture's tag)
                # A function pinned by identity (a call that broke inside it) came back as another function
                # object with the same code: it is made per call, so it is not pinned from now on.
                elif g.kind is GuardKind.ID and type(now) is types.FunctionType and now is not g.expected and \
                        now.__code__ is g.expected.__code__:
                    changed.add(untagged(g.expr))
        return changed

    def _changed_sizes(self, args: tuple, kwargs: dict) -> None:
        """Array sizes whose shape guard failed (same rank, another size) are symbolic from the next
        capture on; the `recompiles` log and stats().dynamic_dims say which and why."""
        scope = {**self.cache.namespace, **_argument_values(self.fn, args, kwargs)}
        for entry in self.cache.entries:
            for g in entry.guards:
                if g.kind is not GuardKind.SHAPE:
                    continue
                try:
                    now = eval(compiled_expr(g.expr), scope)   # a source expression minidynamo built (compiled once)
                except Exception:
                    continue
                if type(now) is not np.ndarray or now.ndim != len(g.expected):
                    continue
                for dim, (old, new) in enumerate(zip(g.expected, now.shape)):
                    known = self.dynamic_dims.setdefault(g.expr, {})
                    if old is not None and old != new and dim not in known:
                        known[dim] = f"size changed from {old} to {new}"
                        log("recompiles").info("%s: %s.shape[%d] is dynamic from now on (%s)",
                                               self.fn.__qualname__, g.expr, dim, known[dim])

    def _warn_limit(self, cfg: _config.Config, last: list[str]) -> None:
        if not self.warned_limit:
            self.warned_limit = True
            # A log record, not a warning: a warning would reach the user's own warning filters and
            # catch_warnings(record=True) lists, and raise under simplefilter("error") (TorchDynamo logs too).
            log("recompiles").warning("minidynamo: %s hit the cache size limit (%d); further variants run eagerly. "
                                      "Last guard failures: %s", self.fn.__qualname__, cfg.cache_size_limit,
                                      "; ".join(last))

    def _capture(self, args: tuple, kwargs: dict, cfg: _config.Config, failed: list[str],
                 why: Recapture = Recapture.FIRST) -> Entry:
        with gc_pause.paused():     # a capture's own work, no collections in it (dispatch/gc_pause.py)
            return self._capture_paused(args, kwargs, cfg, failed, why)

    def _capture_paused(self, args: tuple, kwargs: dict, cfg: _config.Config, failed: list[str],
                        why: Recapture) -> Entry:
        shapes = ShapePolicy(self.dynamic_mode, {e: dict(d) for e, d in self.dynamic_dims.items()})
        record = capture_once(self.fn, args, kwargs, self.backend, cfg, self.cache.new_tag(), self.children,
                              frozenset(self.dynamic), self.options, shapes)
        record.root, record.failed_guards, record.recapture = getattr(self.children, "root", self.fn), failed, why
        record.cause = getattr(getattr(self.children, "causes", None), "record", None)
        self._new_cause = record if why is Recapture.RECOMPILE and record.cause is None else None
        if record.reason is not None and self.fullgraph:
            raise GraphBreakError(record.reason)
        if not resume_info(self.fn).entry:      # (resume functions are made here: their code never changes)
            record.entry.guards.add(code_guard(self.fn))
        self.cache.add(record.entry)      # may fail (guard rendering, emitted code): then nothing is counted
        self.records.append(record)
        self.cache.stats.captures += 1
        GLOBAL_STATS["captures"] += 1
        for sym in getattr(record.shape_env, "symbols", ()):   # what this capture kept symbolic, and why
            self.cache.stats.dynamic_dims.setdefault(sym.description, sym.reason)
        return record.entry


def code_guard(fn: types.FunctionType) -> Guard:
    """`fn.__code__` is writable (`f.__code__ = g.__code__`, IPython's autoreload): every entry of a
    compiled function holds only for the code it captured, as for each function capture inlines."""
    return Guard("___eager.__code__", GuardKind.ID, fn.__code__, f"{fn.__name__}.__code__")


def _internal_location(e: BaseException) -> dict[str, Any]:
    """Where symbolic execution was when `e` escaped: the innermost interpreter frame in the traceback
    (function, file, line, source text, instruction), or {} if it came from another stage."""
    frame, tb = None, e.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code is _RUN_FRAME_CODE:
            frame = tb.tb_frame.f_locals.get("frame", frame)
        tb = tb.tb_next
    if frame is None:
        return {}
    try:
        filename, lineno, text = frame.location()
        instruction = frame.ins.instrs[frame.current].name
    except (AttributeError, IndexError, TypeError, ValueError):   # a half-built frame: no location
        return {}
    return {"filename": filename, "lineno": lineno, "instruction": instruction, "inlined": frame.qualname,
            "text": f"{frame.qualname} ({filename}:{lineno}) `{text}`, instruction {instruction}"}


_RUN_FRAME_CODE = _interpreter.run_frame.__code__   # the real loop, even when a test patches the name
_recording = threading.local()     # explain() collects every capture made while it runs the function
_run_records: list[CaptureRecord] | None = None    # record_run() collects every capture in any thread


class _Children(dict):
    """Resume functions and broken callees of one compiled function, shared with them; `root` is that
    function (the user's), so reports can file a resume function's captures under it."""

    def __init__(self, root: types.FunctionType) -> None:
        super().__init__()
        self.root = root
        self.causes = threading.local()    # .record: the recompile whose call is running (see on_miss)


@contextlib.contextmanager
def record_run() -> Iterator[list[CaptureRecord]]:
    """Collect every CaptureRecord made while the block runs (`python -m minidynamo report`)."""
    global _run_records
    saved, _run_records = _run_records, []
    try:
        yield _run_records
    finally:
        _run_records = saved


def capture_once(fn: types.FunctionType, args: tuple, kwargs: dict, backend: Any, cfg: _config.Config,
                 tag: str, children: dict, dynamic: frozenset[str] = frozenset(),
                 options: dict | None = None, shapes: ShapePolicy = STATIC) -> CaptureRecord:
    """Capture fn for these arguments: a compiled entry (whole frame, or the part before a graph break
    followed by a resume function), or an eager entry with the break's reason."""
    start = time.perf_counter()
    name = fn.__name__                    # graphs are named after their function (tags stay internal)
    info = resume_info(fn)
    if info.entry:   # a resume function: its parameters were computed in plain Python, keep them unspecialized
        dynamic = dynamic | frozenset(fn.__code__.co_varnames[:fn.__code__.co_argcount])
    work: Counter = Counter()             # what the capture did, over all its passes (CaptureRecord.work)
    limits = dict(inline_limit=cfg.inline_depth_limit, max_steps=cfg.max_instructions,
                  unroll_limit=cfg.unroll_limit, dynamic=dynamic, shapes=shapes,
                  auto_cond=cfg.auto_cond, fori_loops=cfg.fori_loops, work=work,
                  mask_counts=returns_numpy_arrays(backend))
    reason = None
    try:
        captured = capture_function(fn, args, kwargs, name, tag=tag, entry=info.entry, drives=info.own_drives,
                                    **limits)
        ctx = captured.ctx
        ctx.distinctness_guards()
        if captured.loop_back:
            try:
                body = loop_back_body(fn, ctx, captured.frame)
            except CannotResume as why:
                raise GraphBreak(BreakReason(BreakCategory.LOOP, f"cannot hand the loop back to its driver: {why}"))
        else:
            body = build_body(ctx, captured.result)
    except GraphBreak as e:
        reason = e.reason
        log("graph_breaks").info("graph break in %s: %s", fn.__qualname__, reason)
        compile_child = functools.partial(compile, backend=backend, options=options, dynamic=shapes.mode,
                                          _children=children)
        ctx = getattr(e, "ctx", None)
        stopped = getattr(e, "stopped", None)       # the first pass serves as the second (no restart)
        # The eager entry below is made of the first pass as it broke: copied before the reused pass changes.
        # (GuardSet(guards) is the same set, rendered the same: nothing has asked it for later reads yet)
        before = (GuardSet(ctx.guards), dict(ctx.namespace)) if stopped is not None else None
        try:
            part = capture_around_break(fn, args, kwargs, reason, name=name, tag=tag, limits=limits,
                                        compile_fn=compile_child, children=children,
                                        keep_dead=returns_numpy_arrays(backend), stopped=stopped)
        except (CannotResume, GraphBreak) as why:   # GraphBreak: the restart broke at another place
            reason.fallback = str(why) if isinstance(why, CannotResume) else \
                f"restart broke at another place: {why.reason.message}"
            reason.fallback_code = getattr(why, "code", None) or _codes.NOT_SPLIT
            guards, namespace = before or (ctx.guards if ctx is not None else GuardSet(), dict(ctx.namespace) if ctx else {})
            entry = Entry(guards, [Exit(f"return ___eager({_forward(fn)})")], namespace, tag)
            if ctx is not None:
                ctx.release()
            return _recorded(CaptureRecord(fn, entry, None, reason, time.perf_counter() - start, work=dict(work)))
        if ctx is not None and ctx is not part.ctx:
            ctx.release()
        ctx, body = part.ctx, part.body
    compiled = None
    if body.calls_graph:
        if (reason is not None or captured.loop_back) and backend is not get_backend("numpy"):
            # outputs going on to the rest of fn: engines keep what may reach an eig or argsort on NumPy
            mark_handed_on(body.graph, fn, args)
        examples = _example_inputs(fn, args, kwargs, ctx)
        with contextlib.nullcontext() if is_own_backend(backend) else gc_pause.unpaused():   # (the user's code)
            compiled = call_backend(backend, body.graph, examples, cfg)
    namespace = dict(body.namespace)
    stmts = list(body.statements) if compiled is None else \
        entry_statements(ctx, body, compiled, _forward(fn), namespace)
    entry = Entry(ctx.guards, stmts, namespace, tag)
    ctx.shape_env.freeze()    # the guards are final: a later decision on a symbol would go unguarded
    ctx.release()
    record = CaptureRecord(fn, entry, body.graph, reason, time.perf_counter() - start, shape_env=ctx.shape_env,
                           work=dict(work), count_guards=dict(ctx.count_guards))
    log("graph_code").debug("graph of %s:\n%s", fn.__qualname__, body.graph)
    log("guards").debug("guards of %s:\n%s", fn.__qualname__, ctx.guards)
    return _recorded(record)


def _recorded(record: CaptureRecord) -> CaptureRecord:
    records = getattr(_recording, "records", None)
    if records is not None:
        records.append(record)
    if _run_records is not None:
        _run_records.append(record)
    return record


def _example_inputs(fn: types.FunctionType, args: tuple, kwargs: dict, ctx: Any) -> list[Any]:
    """The real values of the graph's inputs for this call (what a backend may specialize or warm up on),
    read through the same source expressions the compiled entry evaluates."""
    scope, namespace = _argument_values(fn, args, kwargs), dict(ctx.namespace)
    return [eval(compiled_expr(src.expr()), namespace, scope) for src, _ in ctx.inputs]   # (each compiled once)


def _forward(fn: types.FunctionType) -> str:
    from .dispatch.cache import signature_text
    return signature_text(code_signature(fn))[1]


def _argument_values(fn: Callable, args: tuple, kwargs: dict) -> dict[str, Any]:
    bound = code_signature(fn).bind(*args, **kwargs)
    bound.apply_defaults()
    return dict(bound.arguments)


def compile(fn: Callable | None = None, *, backend: Any = "numpy", fullgraph: bool = False,
            dynamic: bool | None = None, options: dict | None = None, _children: dict | None = None) -> Any:
    """Compile `fn` (or return a decorator): `@compile`, `@compile(backend="eager")`, `compile(fn)`.
    (`_children` is internal: where resume functions and broken callees are cached.)"""
    if dynamic is not None and type(dynamic) is not bool:     # (1 == True: `in (None, True, False)` lets 1 in)
        raise TypeError(f"compile(dynamic=...) must be None, True or False, got {dynamic!r}")
    if type(fullgraph) is not bool:
        raise TypeError(f"compile(fullgraph=...) must be True or False, got {fullgraph!r}")
    if options is not None and not isinstance(options, dict):
        raise TypeError(f"compile(options=...) must be a dict of config option names to values (or None), got "
                        f"{type(options).__name__} {options!r}")
    options = dict(options or {})
    _config.with_options(options)   # unknown option names or bad values raise TypeError naming them
    get_backend(backend)            # an unknown backend name raises ValueError listing the known ones
    if fn is None:                  # the decorator form: checked above, so `@compile(backend="nope")` fails here
        return functools.partial(compile, backend=backend, fullgraph=fullgraph, dynamic=dynamic, options=options,
                                 _children=_children)
    if not isinstance(fn, types.FunctionType):   # methods, callable objects, partials, NumPy functions
        target = resolve(fn)
        compiled = compile(target.fn, backend=backend, fullgraph=fullgraph, dynamic=dynamic, options=options,
                           _children=_children)
        return target.present(compiled)
    inner = _state_of(fn)
    if inner is not None:
        fn = inner.user_fn       # compiling a compiled function compiles the original again
    renames = renamed_parameters(fn)
    captured = with_parameters_renamed(fn, renames) if renames else fn
    state = CompiledState(captured, backend, fullgraph, options, dynamic, root=_children is None)
    state.user_fn = fn
    # Resume functions and broken callees are cached per compiled function (and shared with its children),
    # not process-wide: they die with it, and another compile() of fn gets its own backend and options.
    state.children = _Children(captured) if _children is None else _children
    wrapper = state.cache.dispatcher
    if renames:   # parameters named like generated names: the dispatcher sees them under new names
        wrapper = forwarding_wrapper(fn, wrapper, renames)
    functools.update_wrapper(wrapper, fn)
    wrapper._minidynamo = state
    return wrapper


def _state_of(fn: Any) -> CompiledState | None:
    return getattr(compiled_function(fn), "_minidynamo", None)   # through what compile() hands back


def explain(fn: Callable) -> Callable[..., ExplainOutput]:
    """`explain(fn)(*args, **kwargs)`: run the function once under a fresh capture (nothing reused from
    other compiled functions) and report every graph, graph break, guard and compiled entry it produced,
    including those of resume functions and of helpers that broke."""
    state = _state_of(fn)
    if state is not None and isinstance(fn, types.FunctionType):
        target = Target(state.user_fn, lambda compiled: compiled)
    else:
        target = resolve(fn, "explain()")
        state = _state_of(target.fn)
        if state is not None:
            target.fn = state.user_fn
    backend = state.backend if state is not None else get_backend("numpy")
    options = state.options if state is not None else None
    lead_args, lead_kwargs = target.args, target.kwargs

    def run(*args: Any, **kwargs: Any) -> ExplainOutput:
        fresh = compile(target.fn, backend=backend, options=options,
                        dynamic=state.dynamic_mode if state is not None else None)
        saved = getattr(_recording, "records", None)
        _recording.records = records = []
        try:
            fresh(*lead_args, *args, **{**lead_kwargs, **kwargs})
        finally:
            _recording.records = saved
        skip = _state_of(fresh).skip_reason
        if skip is not None:
            raise InternalError(f"explain of {target.fn.__qualname__} failed: {skip}")
        return ExplainOutput.from_records(target.fn, records)

    return run


def stats(fn: Callable) -> Stats:
    """Counters of a compiled function, summed over it and all its pieces (resume functions, loop bodies,
    helpers that broke), each piece's own counters in `pieces` (the function first). A recompile is counted
    once per cause: the pieces that capture again in the same call because of it are not counted again;
    a branch at a break going another way (`new_paths`) is not a recompile. Of a piece: its own counters."""
    state = _state_of(fn)
    if state is None:
        raise TypeError(f"stats() expects a function returned by minidynamo.compile, got {fn!r}")
    own = _piece_stats(state)
    if getattr(state.children, "root", None) is not state.fn:
        return own
    kids = list({id(s): s for s in map(_state_of, state.children.values()) if s is not None and s is not state}
                .values())
    pieces = [own, *map(_piece_stats, kids)]
    causes = [r for s in (state, *kids) for r in s.records if r.recapture is Recapture.RECOMPILE and r.cause is None]
    total = dataclasses.replace(own, pieces=pieces, recompiles=len(causes),
                                guard_failures=[list(r.failed_guards) for r in causes],
                                dynamic_dims={k: v for p in reversed(pieces) for k, v in p.dynamic_dims.items()})
    for name in ("captures", "hits", "misses", "fallbacks", "new_paths"):
        setattr(total, name, sum(getattr(p, name) for p in pieces))
    return total


def _piece_stats(state: CompiledState) -> Stats:
    """A copy of one piece's own counters, with its hits, calls and name."""
    s = state.cache.stats
    hits = sum(e.hits[0] for e in state.cache.entries)
    return dataclasses.replace(s, hits=hits, calls=hits + s.misses, guard_failures=list(s.guard_failures),
                               dynamic_dims=dict(s.dynamic_dims), pieces=[],
                               name=readable_function(state.fn.__qualname__))


def _is_outcome(g: Any) -> bool:
    """A branch outcome: a resume function's `___stack<i>` is True / False, or a branch on unspecialized
    numbers went one way (`(loss > tol)` is True: ScalarVar.as_bool; 3.14 tests a driven loop's
    condition inside its body)."""
    return is_branch_outcome(g)


def reset() -> None:
    """Forget every captured variant of every compiled function (and the for loops refused folding)."""
    _fori.forget_refusals()
    for state in list(_ALL):
        with state.lock:
            state.cache.clear()
            state.records.clear()
            state.children.clear()
            state.skip_reason = disabled_reason(state.fn)
            state.warned_limit = False
            state.past_limit = PastLimit()
            state.dynamic_dims.clear()
