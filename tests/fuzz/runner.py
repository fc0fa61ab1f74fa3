"""Differential runner for generated programs: eager vs `minidynamo.compile`, a shrinker, and the long run.

    python -m tests.fuzz.runner --count 5000 --seed 0            # progress + summary
    python -m tests.fuzz.runner --count 500 --shrink --write     # shrink one program per mismatch class

`compare(source, make_calls)` is the core: the module source is exec'd twice (fresh namespaces, a filename
registered with linecache), `make_calls()` builds fresh argument tuples for each side, and the two sides
are compared call by call on result (bit-identical), exception (type and message), stdout, warnings,
arguments after the call, module globals, and result aliasing. Capture runs with suppress_errors=False
(strict), so an internal error shows up as its own class instead of hiding behind the eager fallback.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import hashlib
import io
import linecache
import math
import signal
import sys
import types
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

from tools import fast_path_forced

from . import generator as gen

REGRESSIONS = Path(__file__).with_name("regressions")
TIMEOUT_SECONDS = 20
# The limit counts this process's CPU time (ITIMER_PROF), not wall-clock time, so a loaded machine does not
# turn slow captures into false "timeout" mismatches. After the first expiry the timer re-fires every second:
# a Timeout raised inside a weakref callback or __del__ is swallowed by CPython, and the next one must land.
_TIMER, _TIMER_SIGNAL, _REFIRE_SECONDS = signal.ITIMER_PROF, signal.SIGPROF, 1.0


class Timeout(BaseException):
    """A program ran too long (BaseException, so no `except Exception` in user or library code eats it)."""


@dataclass
class Outcome:
    """What one call did, copied at the time (later calls may mutate shared objects)."""

    value: Any = None
    exc: tuple | None = None          # (type name, message)
    stdout: str = ""
    warns: list = field(default_factory=list)
    args: Any = None
    globals: dict = field(default_factory=dict)
    aliases: list = field(default_factory=list)


@dataclass
class Mismatch:
    call: int
    category: str                    # exception | result | stdout | warnings | args | globals | aliasing | internal
    detail: str
    message: str

    @property
    def signature(self) -> tuple:
        return (self.category, self.detail)

    def __str__(self) -> str:
        return f"call {self.call}: [{self.category}] {self.message}"


# ---- running one side --------------------------------------------------------------------------------------

def load_module(source: str) -> dict:
    """Exec `source` as a fresh module whose filename is registered with linecache (tracebacks, inspect)."""
    digest = hashlib.sha1(source.encode()).hexdigest()[:10]
    filename = f"/minidynamo-fuzz/prog_{digest}.py"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    module = types.ModuleType(f"fuzz_prog_{digest}")
    module.__file__ = filename
    exec(compile(source, filename, "exec"), module.__dict__)
    return module.__dict__


def _user_globals(ns: dict) -> dict:
    return {k: v for k, v in ns.items() if not k.startswith("__")
            and not isinstance(v, (types.ModuleType, types.FunctionType, type))}


def _leaves(value: Any, path: str) -> list:
    out = [(path, value)]
    if isinstance(value, (tuple, list)):
        for i, v in enumerate(value):
            out += _leaves(v, f"{path}[{i}]")
    elif isinstance(value, dict):
        for k, v in value.items():
            out += _leaves(v, f"{path}[{k!r}]")
    return out


def _aliases(value: Any, args: tuple, ns: dict) -> list:
    """Which mutable parts of the result are (by identity) arguments or globals, by path."""
    owners = {id(v): p for p, v in _leaves(args, "args") + _leaves(_user_globals(ns), "globals")
              if isinstance(v, (np.ndarray, list, dict))}
    return [(p, owners[id(v)]) for p, v in _leaves(value, "result") if id(v) in owners]


def _on_alarm(signum, frame):
    raise Timeout()


DYNAMIC: bool | None = None     # compile(dynamic=...) of the compiled side; --dynamic sets it


def run_side(source: str, make_calls: Callable[[], list], compiled: bool, strict: bool = True,
             stats: Counter | None = None) -> list[Outcome]:
    import minidynamo as md
    ns = load_module(source)
    fn = ns["f"]
    if compiled:
        fn = md.compile(fn, dynamic=DYNAMIC, options={"suppress_errors": not strict})
    outcomes = []
    for args in make_calls():
        out = io.StringIO()
        o = Outcome()
        with contextlib.redirect_stdout(out), warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                o.value = fn(*args)
            except Exception as e:   # the differential test compares exceptions
                cause = e.__cause__
                o.exc = (type(e).__name__, str(e), type(cause).__name__ if cause is not None else "")
        o.stdout = out.getvalue()
        o.warns = [(w.category.__name__, str(w.message)) for w in caught if not str(w.message).startswith("minidynamo")]
        o.aliases = _aliases(o.value, args, ns)
        o.value, o.args, o.globals = copy.deepcopy((o.value, args, _user_globals(ns)))
        outcomes.append(o)
    if compiled and stats is not None:
        _count_captures(fn, stats)
    return outcomes


def _count_captures(fn: Any, stats: Counter) -> None:
    state = getattr(fn, "_minidynamo", None)
    for record in getattr(state, "records", []):
        stats["captures"] += 1
        if getattr(record, "graph", None) is not None:
            stats["captures with a graph"] += 1
            for kind in sorted(_folded(record.graph)):
                stats[f"captures with a folded {kind}"] += 1
        if getattr(record, "reason", None) is not None:
            stats[f"breaks: {getattr(record.reason, 'category', '?')}"] += 1
    if getattr(state, "skip_reason", None):
        stats["fallbacks (internal error, eager)"] += 1


def _folded(graph: Any) -> set:
    """Kinds of the user's control flow kept inside the graph (if, while, for), nested ones included."""
    kinds = set()
    for node in graph.nodes:
        kinds.add(node.meta.get("folded"))
        for _, sub in getattr(node.target, "subgraphs", ()) if node.is_call else ():
            kinds |= _folded(sub)
    return kinds - {None}


# ---- comparing ----------------------------------------------------------------------------------------------

def same(a: Any, b: Any, where: str) -> str | None:
    """None if a and b are bit-identical values of the same types; else what differs."""
    if type(a) is not type(b):
        ta, tb = type(a), type(b)
        if (ta.__qualname__, ta.__module__) != (tb.__qualname__, tb.__module__) or ta.__module__ == "builtins":
            return f"{where}: type {type(b).__name__}, eager {type(a).__name__}"
        if isinstance(a, tuple):        # classes of the program: each side exec'd its own copy, compare state
            return same(tuple(a), tuple(b), where)
        return same(vars(a), vars(b), f"{where}.__dict__")
    if isinstance(a, (np.ndarray, np.generic)):
        if a.dtype != b.dtype or np.shape(a) != np.shape(b):
            return f"{where}: {b.dtype}{list(np.shape(b))}, eager {a.dtype}{list(np.shape(a))}"
        kind_f = a.dtype.kind in "fc"
        if not np.array_equal(a, b, equal_nan=kind_f) or (
                kind_f and not np.array_equal(np.signbit(np.real(a)), np.signbit(np.real(b)))):
            return f"{where}: values differ: {b!r}, eager {a!r}"
        return None
    if isinstance(a, np.random.Generator):      # the stream position is the state of its bit generator
        return same(a.bit_generator.state, b.bit_generator.state, f"{where}.state")
    if isinstance(a, np.random.RandomState):
        return same(a.get_state(legacy=False), b.get_state(legacy=False), f"{where}.state")
    if isinstance(a, (tuple, list)):
        if len(a) != len(b):
            return f"{where}: length {len(b)}, eager {len(a)}: {b!r}, eager {a!r}"
        return next((d for i in range(len(a)) if (d := same(a[i], b[i], f"{where}[{i}]"))), None)
    if isinstance(a, dict):
        if list(a) != list(b):
            return f"{where}: keys {list(b)}, eager {list(a)}"
        return next((d for k in a if (d := same(a[k], b[k], f"{where}[{k!r}]"))), None)
    if callable(a) and hasattr(a, "__self__") and not isinstance(a, type):   # bound methods of copies
        if getattr(a, "__name__", None) != getattr(b, "__name__", None):
            return f"{where}: {b!r}, eager {a!r}"
        return None if isinstance(a.__self__, types.ModuleType) else same(a.__self__, b.__self__, f"{where}.__self__")
    if isinstance(a, types.SimpleNamespace):
        return same(vars(a), vars(b), f"{where}.__dict__")
    if isinstance(a, float):
        ok = (a != a and b != b) or (a == b and math.copysign(1, a) == math.copysign(1, b))
        return None if ok else f"{where}: {b!r}, eager {a!r}"
    return None if a == b else f"{where}: {b!r}, eager {a!r}"


def diff(n: int, e: Outcome, c: Outcome, compare_warnings: bool = False) -> Mismatch | None:
    """The first difference between the eager and the compiled outcome of call n.

    Warnings are compared only on request: which floating-point warnings NumPy raises for the same data can
    vary from run to run (seen: 'divide by zero' present in one run, absent in the next), so they are noise."""
    if c.exc is not None and c.exc[0] == "InternalError":
        return Mismatch(n, "internal", c.exc[2], f"capture failed: {c.exc[1]} (eager: {e.exc or 'ok'})")
    if e.exc != c.exc:
        if e.exc and c.exc and e.exc[0] == c.exc[0]:
            return Mismatch(n, "exception", f"{e.exc[0]} message", f"message {c.exc[1]!r}, eager {e.exc[1]!r}")
        return Mismatch(n, "exception", f"{e.exc and e.exc[0]} -> {c.exc and c.exc[0]}",
                        f"compiled {c.exc}, eager {e.exc}")
    if e.exc is None and (d := same(e.value, c.value, "result")):
        return Mismatch(n, "result", d.split(":")[1].split()[0], d)
    if e.stdout != c.stdout:
        return Mismatch(n, "stdout", "", f"printed {c.stdout!r}, eager {e.stdout!r}")
    if (d := same(e.args, c.args, "args")):
        return Mismatch(n, "args", d.split(":")[0], d)
    if (d := same(e.globals, c.globals, "globals")):
        return Mismatch(n, "globals", d.split(":")[0], d)
    if e.exc is None and e.aliases != c.aliases:
        return Mismatch(n, "aliasing", "", f"result aliases {c.aliases}, eager {e.aliases}")
    if compare_warnings and e.warns != c.warns:
        return Mismatch(n, "warnings", "", f"warned {c.warns}, eager {e.warns}")
    return None


def compare(source: str, make_calls: Callable[[], list], strict: bool = True,
            stats: Counter | None = None, timeout: int = TIMEOUT_SECONDS, warns: bool = False) -> list[Mismatch]:
    """Run the program eagerly and compiled; every call that differs, as a Mismatch."""
    import minidynamo as md
    old = signal.signal(_TIMER_SIGNAL, _on_alarm)
    signal.setitimer(_TIMER, timeout, _REFIRE_SECONDS)
    try:
        eager = run_side(source, make_calls, compiled=False)
        if stats is not None:
            stats.update(f"eager raised {o.exc[0]}" for o in eager if o.exc)
        try:
            compiled = run_side(source, make_calls, compiled=True, strict=strict, stats=stats)
        except Timeout:
            return [Mismatch(0, "timeout", "", f"compiled side used over {timeout}s of CPU (eager did not)")]
    finally:
        signal.setitimer(_TIMER, 0)
        signal.signal(_TIMER_SIGNAL, old)
        md.reset()
    return [m for n, (e, c) in enumerate(zip(eager, compiled)) if (m := diff(n, e, c, warns))]


def program_calls(program: gen.Program) -> Callable[[], list]:
    return lambda: [gen.build_args(spec) for spec in program.calls]


# ---- shrinking ----------------------------------------------------------------------------------------------

_BODY_FIELDS = ("body", "orelse", "finalbody")


def _statement_edits(tree: ast.Module) -> list[tuple]:
    """(node index, field, position, action) for every statement: delete it, or inline a compound's body."""
    edits = []
    for idx, node in enumerate(ast.walk(tree)):
        for fname in _BODY_FIELDS:
            stmts = getattr(node, fname, None)
            if not isinstance(stmts, list):       # `a if c else b`, `lambda: x`: an expression, not a block
                continue
            for pos, stmt in enumerate(stmts):
                if not isinstance(stmt, ast.stmt):
                    continue
                edits.append((idx, fname, pos, "delete"))
                for inner in _BODY_FIELDS:
                    if getattr(stmt, inner, None) and not isinstance(stmt, (ast.FunctionDef,)):
                        edits.append((idx, fname, pos, inner))
                if isinstance(stmt, ast.Try):
                    edits.append((idx, fname, pos, "handler"))
    return edits


def _apply_statement_edit(tree: ast.Module, edit: tuple) -> None:
    idx, fname, pos, action = edit
    node = list(ast.walk(tree))[idx]
    stmts = getattr(node, fname)
    stmt = stmts[pos]
    if action == "delete":
        repl = []
    elif action == "handler":
        repl = stmt.handlers[0].body
    else:
        repl = getattr(stmt, action)
    stmts[pos:pos + 1] = repl
    if not stmts and fname == "body":
        stmts.append(ast.Pass())


def _expression_edits(tree: ast.Module) -> list[tuple]:
    """(node index, field, list position or None, child number): replace an expression by one of its parts."""
    edits = []
    for idx, node in enumerate(ast.walk(tree)):
        for fname, value in ast.iter_fields(node):
            items = [(None, value)] if isinstance(value, ast.expr) else \
                [(i, v) for i, v in enumerate(value) if isinstance(v, ast.expr)] if isinstance(value, list) else []
            for pos, expr in items:
                parts = [c for c in ast.iter_child_nodes(expr) if isinstance(c, ast.expr)]
                edits += [(idx, fname, pos, k) for k in range(len(parts))]
    return edits


def _apply_expression_edit(tree: ast.Module, edit: tuple) -> None:
    idx, fname, pos, k = edit
    node = list(ast.walk(tree))[idx]
    value = getattr(node, fname)
    expr = value if pos is None else value[pos]
    part = [c for c in ast.iter_child_nodes(expr) if isinstance(c, ast.expr)][k]
    if isinstance(part, ast.Name) and not isinstance(part.ctx, ast.Load):
        raise ValueError("not an expression")
    if pos is None:
        setattr(node, fname, part)
    else:
        value[pos] = part


def _variants(source: str):
    """Smaller programs than `source`, biggest cuts first."""
    tree = ast.parse(source)
    for edits, apply in ((_statement_edits(tree), _apply_statement_edit),
                         (_expression_edits(tree), _apply_expression_edit)):
        for edit in edits:
            t = copy.deepcopy(tree)
            try:
                apply(t, edit)
                text = ast.unparse(ast.fix_missing_locations(t)) + "\n"
                compile(text, "<shrink>", "exec")
            except (ValueError, SyntaxError, IndexError, AttributeError, TypeError):
                continue
            if text != source and len(text) <= len(source):
                yield text


def shrink(source: str, make_calls: Callable[[], list], signature: tuple, budget: int = 600,
           strict: bool = True) -> tuple[str, Callable[[], list]]:
    """Delete statements, inline blocks, simplify expressions and drop calls while the mismatch persists."""
    def fails(src: str, calls: Callable) -> bool:
        nonlocal budget
        budget -= 1
        try:
            return any(m.signature == signature for m in compare(src, calls, strict=strict))
        except (Exception, Timeout):
            return False

    keep = list(range(len(make_calls())))
    for i in reversed(range(len(keep))):           # drop calls from the end first
        trial = [j for j in keep if j != i]
        if trial and fails(source, _subset(make_calls, trial)):
            keep = trial
    make_calls = _subset(make_calls, keep)
    source = ast.unparse(ast.parse(source)) + "\n"
    progress = True
    while progress and budget > 0:
        progress = False
        for candidate in _variants(source):
            if budget <= 0:
                break
            if fails(candidate, make_calls):
                source, progress = candidate, True
                break
    return source, make_calls


def _subset(make_calls: Callable[[], list], keep: list) -> Callable[[], list]:
    return lambda: [c for i, c in enumerate(make_calls()) if i in keep]


# ---- regression files ---------------------------------------------------------------------------------------

def _literal(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"np.array({value.tolist()!r}, dtype={str(value.dtype)!r}).reshape({value.shape!r})"
    return repr(value)


def regression_text(source: str, calls: list, mismatch: Mismatch, note: str) -> str:
    """A self-contained reproducer: the program's source and a builder of its call arguments."""
    rows = "\n".join(f"        ({', '.join(_literal(a) for a in args)},)," for args in calls)
    return (f'"""{note}\n\nExpected (eager) vs compiled: {mismatch}\n"""\n\nimport numpy as np\n\n'
            f"MISMATCH = {mismatch.category!r}\n\nSOURCE = '''\\\n{source}'''\n\n\n"
            f"def make_calls():\n    return [\n{rows}\n    ]\n")


def load_regression(path: Path) -> types.ModuleType:
    """A regression file as a module: SOURCE, make_calls(), MISMATCH, optionally TIMEOUT (seconds)."""
    module = types.ModuleType(f"fuzz_regression_{path.stem}")
    module.__file__ = str(path)
    exec(compile(path.read_text(), str(path), "exec"), module.__dict__)
    return module


def replay(path: Path) -> list[Mismatch]:
    """Run one regression file differentially; [] when eager and compiled agree."""
    module = load_regression(path)
    return compare(module.SOURCE, module.make_calls, timeout=getattr(module, "TIMEOUT", TIMEOUT_SECONDS))


def write_regression(name: str, text: str) -> Path:
    REGRESSIONS.mkdir(exist_ok=True)
    path = REGRESSIONS / f"{name}.py"
    path.write_text(text)
    return path


# ---- the long run -------------------------------------------------------------------------------------------

@dataclass
class Summary:
    programs: int = 0
    calls: int = 0
    failing_programs: int = 0
    by_category: Counter = field(default_factory=Counter)
    by_signature: dict = field(default_factory=dict)        # signature -> (count, first program, mismatch)
    feature_programs: Counter = field(default_factory=Counter)
    feature_failures: Counter = field(default_factory=Counter)
    captures: Counter = field(default_factory=Counter)

    def add(self, program: gen.Program, mismatches: list[Mismatch]) -> None:
        self.programs += 1
        self.calls += len(program.calls)
        self.feature_programs.update(program.features)
        if not mismatches:
            return
        self.failing_programs += 1
        self.feature_failures.update(program.features)
        first = mismatches[0]
        self.by_category[first.category] += 1
        count, prog, m = self.by_signature.get(first.signature, (0, program, first))
        self.by_signature[first.signature] = (count + 1, prog, m)

    def report(self) -> str:
        lines = [f"programs {self.programs}, calls {self.calls}, failing programs {self.failing_programs}",
                 "mismatches by class: " + (", ".join(f"{k} {v}" for k, v in self.by_category.most_common()) or "none"),
                 "captures: " + ", ".join(f"{k} {v}" for k, v in sorted(self.captures.items())),
                 "by feature (programs with it: failing / total):"]
        for f in gen.ALL_FEATURES:
            total, bad = self.feature_programs[f], self.feature_failures[f]
            if total:
                lines.append(f"  {f:<13} {bad:>5} / {total:<5} {100 * bad / total:5.1f}%")
        lines.append("distinct mismatch signatures (count, first seed):")
        for sig, (count, prog, m) in sorted(self.by_signature.items(), key=lambda kv: -kv[1][0]):
            lines.append(f"  {count:>4}  seed {prog.seed:<7} {sig}: {str(m)[:200]}")
        return "\n".join(lines)


def run_many(count: int, seed: int, features=gen.DEFAULT_FEATURES, calls: int = 5, strict: bool = True, warns: bool = False,
             progress: Callable[[int, Summary], None] | None = None, require: str | None = None) -> Summary:
    summary = Summary()
    for i in range(count):
        program = gen.generate(seed + i, features, calls=calls, require=require)
        try:
            mismatches = compare(program.source, program_calls(program), strict=strict, stats=summary.captures,
                                 warns=warns)
        except Timeout:
            summary.captures["eager timeouts (skipped)"] += 1
            continue
        summary.add(program, mismatches)
        if progress is not None:
            progress(i + 1, summary)
    return summary


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz.runner", description=__doc__.split("\n\n")[0])
    p.add_argument("--count", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--calls", type=int, default=5, help="calls per program (at least 3)")
    p.add_argument("--features", default=",".join(gen.DEFAULT_FEATURES), help="comma-separated features to draw from")
    p.add_argument("--disable", default="", help="comma-separated features to leave out")
    p.add_argument("--require", metavar="FEATURE", help="every program has FEATURE, and a statement of it in f")
    p.add_argument("--warnings", action="store_true", help="also compare NumPy warnings (can be flaky)")
    p.add_argument("--lenient", action="store_true", help="suppress_errors=True: internal errors fall back to eager")
    p.add_argument("--dynamic", choices=("none", "true", "false"), default="none",
                   help="compile(dynamic=...) policy of the compiled side (sizes; issue 10)")
    p.add_argument("--shrink", action="store_true", help="shrink the first program of each mismatch class")
    p.add_argument("--write", action="store_true", help="with --shrink: write reproducers to regressions/")
    p.add_argument("--replay", nargs="*", metavar="FILE", help="replay regression files (all when none given)")
    p.add_argument("--show", type=int, metavar="SEED", help="print the program of one seed and exit")
    p.add_argument("--fast-path", action="store_true",
                   help="force the numpy backend's fast path on every region, small ones too, in blocks of 64 rows")
    a = p.parse_args(argv)
    outcomes = fast_path_forced.force() if a.fast_path else None
    global DYNAMIC
    DYNAMIC = {"none": None, "true": True, "false": False}[a.dynamic]
    features = [f for f in a.features.split(",") if f and f not in a.disable.split(",")]
    unknown = set(features) - set(gen.ALL_FEATURES)
    if a.require and a.require not in gen.ALL_FEATURES:
        unknown.add(a.require)
    if unknown:
        p.error(f"unknown features {sorted(unknown)}; known: {', '.join(gen.ALL_FEATURES)}")
    if a.replay is not None:
        paths = [Path(f) for f in a.replay] or sorted(REGRESSIONS.glob("r*.py"))
        for path in paths:
            print(path.name, "ok" if not (ms := replay(path)) else "\n  ".join(["MISMATCH"] + [str(m) for m in ms]))
        return 0
    if a.show is not None:
        prog = gen.generate(a.show, features, calls=a.calls, require=a.require)
        print(f"# features: {sorted(prog.features)}\n{prog.source}\n# calls: {prog.calls}")
        return 0
    step = max(1, a.count // 20)

    def progress(i: int, s: Summary) -> None:
        if i % step == 0 or i == a.count:
            print(f"[{i}/{a.count}] calls {s.calls}, failing programs {s.failing_programs}", flush=True)

    print(f"Python {sys.version.split()[0]}, numpy {np.__version__}, seeds {a.seed}..{a.seed + a.count - 1}")
    summary = run_many(a.count, a.seed, features, max(3, a.calls), not a.lenient, a.warnings, progress, a.require)
    print(summary.report())
    if outcomes is not None:
        print("fast-path region calls by outcome:", dict(outcomes.most_common()))
    if a.shrink:
        for sig, (count, prog, m) in summary.by_signature.items():
            src, calls = shrink(prog.source, program_calls(prog), sig, strict=not a.lenient)
            ms = compare(src, calls, strict=not a.lenient)
            hit = next((x for x in ms if x.signature == sig), m)
            print(f"\n=== {sig} x{count} (seed {prog.seed}, features {sorted(prog.features)})\n{src}{hit}")
            if a.write:
                note = f"Shrunk from fuzz seed {prog.seed} on Python {sys.version.split()[0]}; class {sig}."
                name = f"seed{prog.seed}_{hit.category}"
                print("wrote", write_regression(name, regression_text(src, calls(), hit, note)))
    return 1 if summary.failing_programs else 0


if __name__ == "__main__":
    sys.exit(main())
