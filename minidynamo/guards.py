"""Guards: what a cached graph assumed about its inputs, as one generated check function.

A Guard is (expr, kind, expected), where expr is a Python expression string over the compiled
function's argument names plus `___G` (its globals dict) and `___closure` (its cell tuple).
GuardSet orders and de-duplicates guards and renders them as one expression (the dispatcher inlines it;
guard_check.compile_check makes a standalone `___check(*argnames)`); `failures` explains, one readable
line per guard, why a check returned False. Imports only errors, guard_reads, guard_relations, numpy and
the stdlib. Entry points: GuardSet, guard_constant, array_guards, failures.
"""

from __future__ import annotations

import builtins
import enum
import itertools
import math
import re
import types
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator

import numpy as np

from .errors import InternalError
from .guard_reads import RELEASE_READS, Reads, canonical, compiled, prefixes as _prefixes  # noqa: F401 (re-exported)
from .guard_relations import identity_failure, identity_relation, implied_bounds


class GuardKind(enum.StrEnum):
    """What a guard checks; a plain string ("SHAPE") is accepted wherever a kind is."""

    TYPE = "TYPE"  # type(expr) is expected (exact class, no subclasses)
    ID = "ID"  # expr is expected (functions, modules, classes, singletons)
    EQUALS = "EQUALS"  # expr == expected (immutable constants; NaN and -0.0 compared exactly)
    SHAPE = "SHAPE"  # expr.shape == expected; a None entry is a symbolic size (checked by HOLDS guards)
    DTYPE = "DTYPE"  # expr.dtype == expected
    LEN = "LEN"  # len(expr) == expected
    DICT_KEYS = "DICT_KEYS"  # tuple(expr.keys()) == expected, order included
    HASATTR = "HASATTR"  # hasattr(expr, expected)
    NOT_HASATTR = "NOT_HASATTR"  # not hasattr(expr, expected)
    IS_NONE = "IS_NONE"  # expr is None
    NOT_NONE = "NOT_NONE"  # expr is not None
    HOLDS = "HOLDS"  # expr, a relation between sizes (`x.shape[0] == y.shape[0]`), is true
    NOT_WARNINGS_LOG = "NOT_WARNINGS_LOG"  # expr is not the list catch_warnings(record=True) records into


TYPE, ID, EQUALS, SHAPE, DTYPE, LEN = GuardKind.TYPE, GuardKind.ID, GuardKind.EQUALS, GuardKind.SHAPE, \
    GuardKind.DTYPE, GuardKind.LEN
DICT_KEYS, HASATTR, NOT_HASATTR = GuardKind.DICT_KEYS, GuardKind.HASATTR, GuardKind.NOT_HASATTR
IS_NONE, NOT_NONE, HOLDS = GuardKind.IS_NONE, GuardKind.NOT_NONE, GuardKind.HOLDS
NOT_WARNINGS_LOG = GuardKind.NOT_WARNINGS_LOG

# Guards that decide whether reading the expr any further makes sense. They come first among an
# expr's guards, and when one fails, `failures` reports nothing more about that expr or below it.
_GATES = {TYPE: 0, ID: 0, IS_NONE: 0, NOT_NONE: 0, LEN: 1, DICT_KEYS: 1, HASATTR: 1, NOT_HASATTR: 1}
_OPPOSITE = {IS_NONE: NOT_NONE, NOT_NONE: IS_NONE, HASATTR: NOT_HASATTR, NOT_HASATTR: HASATTR}
# Names the capture and dispatcher bind themselves; the namespace never hands them out.
RESERVED_NAMES = frozenset({"___G", "___closure", "___check"})
_INLINE_STR_MAX = 40


class GuardConflictError(InternalError, ValueError):
    """Two guards expect different things of the same expr: the capture specialized inconsistently."""


@dataclass(frozen=True)
class Guard:
    """One assumption, e.g. Guard("x", SHAPE, (4, 8)) prints as `x.shape == (4, 8)`.

    `description` is the human name of the source ("closure variable 'scale'"); `failures` uses
    it instead of the raw expr.
    """

    expr: str
    kind: GuardKind
    expected: Any = None
    description: str = ""

    def __post_init__(self) -> None:
        kind = GuardKind(self.kind)
        object.__setattr__(self, "kind", kind)
        if kind is TYPE and not isinstance(self.expected, type):
            raise TypeError(f"TYPE guard on {self.expr} expects a class, got {self.expected!r}")
        if kind is SHAPE:
            object.__setattr__(self, "expected", tuple(None if d is None else int(d) for d in self.expected))
        elif kind is DTYPE:
            object.__setattr__(self, "expected", np.dtype(self.expected))
        elif kind is LEN:
            object.__setattr__(self, "expected", int(self.expected))
        elif kind is DICT_KEYS:
            object.__setattr__(self, "expected", tuple(self.expected))
        elif kind in (HASATTR, NOT_HASATTR) and not str(self.expected).isidentifier():
            raise ValueError(f"{kind} guard needs an attribute name, got {self.expected!r}")

    def __str__(self) -> str:
        e, v = readable_expr(self.expr), self.expected
        return {
            TYPE: lambda: f"type({e}) is {short_repr(v)}",
            ID: lambda: f"{e} is {short_repr(v)}",
            EQUALS: lambda: f"isnan({e})" if _is_nan(v) else f"{e} == {v!r}",
            SHAPE: lambda: f"{e}.shape == {v!r}".replace("None", "*"),   # * is a symbolic size
            DTYPE: lambda: f"{e}.dtype == {v}",
            LEN: lambda: f"len({e}) == {v}",
            DICT_KEYS: lambda: f"tuple({e}.keys()) == {v!r}",
            HASATTR: lambda: f"hasattr({e}, {v!r})",
            NOT_HASATTR: lambda: f"not hasattr({e}, {v!r})",
            IS_NONE: lambda: f"{e} is None",
            NOT_NONE: lambda: f"{e} is not None",
            HOLDS: lambda: e,
            NOT_WARNINGS_LOG: lambda: f"{e} is not the list warnings are being recorded into",
        }[self.kind]()


def warnings_log() -> list | None:
    """The list `warnings.catch_warnings(record=True)` appends to, or None (always None while the hook is a Python
    function: the check tests that first). A graph op that warns appends to it while the graph runs, so capture
    never reads it as a value that stays put (CPython 3.11-3.13 record via `_showwarnmsg_impl = log.append`)."""
    impl = getattr(warnings, "_showwarnmsg_impl", None)
    log = getattr(impl, "__self__", None)
    return log if type(log) is list and getattr(impl, "__name__", "") == "append" else None


# ---------------------------------------------------------------------------------------------
# Helpers that build the right guards for a value


def guard_constant(expr: str, value: Any, description: str = "") -> list[Guard]:
    """Guards that pin `expr` to the constant `value`, type included (so True differs from 1).

    Tuples are pinned element by element, since (1, 2) == (1.0, 2) == (True, 2) and NumPy's
    promotion (NEP 50) gives different dtypes for a Python int and float.
    """
    if value is None:
        return [Guard(expr, IS_NONE, None, description)]
    if isinstance(value, (list, dict, set, bytearray, np.ndarray)):
        raise InternalError(f"guard_constant({expr}): {type(value).__name__} is mutable, not a constant")
    if type(value) is tuple:
        out = [Guard(expr, TYPE, tuple, description), Guard(expr, LEN, len(value), description)]
        for i, item in enumerate(value):
            out += guard_constant(f"{expr}[{i}]", item, description and f"{description}[{i}]")
        return out
    if type(value) is bool or not isinstance(value, _VALUE_TYPES):
        # Functions, modules, classes, enum members, singletons: identity is the exact test.
        return [Guard(expr, ID, value, description)]
    out = [Guard(expr, TYPE, type(value), description)]
    if isinstance(value, (complex, np.complexfloating)) and _has_special_float(value):
        # NaN or a signed zero inside a complex: compare the parts as floats, exactly.
        return out + [Guard(f"{expr}.real", EQUALS, value.real, description and f"{description}.real"),
                      Guard(f"{expr}.imag", EQUALS, value.imag, description and f"{description}.imag")]
    return out + [Guard(expr, EQUALS, value, description)]


# Constants compared by value (after an exact type guard); everything else by identity.
_VALUE_TYPES = (int, float, complex, str, bytes, np.generic, np.dtype, frozenset, range, slice)


def array_guards(expr: str, value: Any, description: str = "") -> list[Guard]:
    """[exact type, shape, dtype] for an ndarray; [exact type] (+ dtype if flexible) for a NumPy scalar."""
    if isinstance(value, np.ndarray):
        return [Guard(expr, TYPE, type(value), description), Guard(expr, SHAPE, value.shape, description),
                Guard(expr, DTYPE, value.dtype, description)]
    if isinstance(value, np.generic):
        out = [Guard(expr, TYPE, type(value), description)]
        # The scalar type fixes the dtype except for sized (S, U, V) and unit-carrying (M, m) kinds.
        if value.dtype.kind in "SUVMm":
            out.append(Guard(expr, DTYPE, value.dtype, description))
        return out
    raise TypeError(f"array_guards({expr}): expected an ndarray or NumPy scalar, got {type(value).__name__}")


def chunked_array_guards(expr: str, value: Any, description: str = "") -> list[Guard]:
    """[exact type, shape, dtype, chunks] for a chunked array (a dask array): a new chunking is a new
    capture, since the lowered graph (and how a break splits it) was built for these chunks."""
    chunks = tuple(tuple(int(c) for c in dim) for dim in value.chunks)
    return [Guard(expr, TYPE, type(value), description), Guard(expr, SHAPE, value.shape, description),
            Guard(expr, DTYPE, value.dtype, description),
            Guard(f"{expr}.chunks", EQUALS, chunks, description and f"{description}.chunks")]


# ---------------------------------------------------------------------------------------------
# GuardSet


class GuardSet:
    """Ordered, de-duplicated guards of one cache entry.

    >>> gs = GuardSet(array_guards("x", np.zeros((4, 8), np.float32)))
    >>> print(gs)
    type(x) is ndarray
    x.shape == (4, 8)
    x.dtype == float32
    >>> gs.expression()
    '___type(x) is ___ndarray and x.shape == (4, 8) and (x.dtype is ___dtype_float32 or ...)'
    """

    def __init__(self, guards: Iterable[Guard] = ()) -> None:
        self._guards: dict[tuple, Guard] = {}
        self._canon: dict[str, str] = {}  # expr -> ast-normalized text, for grouping
        self._rendered, self._order = {}, None   # tag -> (expression, namespace, Reads); ordered() until an add
        self._later_reads: list[str] = []   # paths the entry reads right after the check (graph inputs)
        self.extend(guards)

    def add(self, guard: Guard) -> None:
        """Add one guard; an identical one is ignored, a contradicting one raises GuardConflictError."""
        canon = self._canonical(guard.expr)
        key = _key(canon, guard)
        old = self._guards.get(key)
        if old is not None:
            if not _same_expected(old.expected, guard.expected):
                raise GuardConflictError(f"conflicting guards: `{old}` and `{guard}`")
            return
        if guard.kind in _OPPOSITE:
            opposite = self._guards.get(_key(canon, Guard(guard.expr, _OPPOSITE[guard.kind], guard.expected)))
            if opposite is not None:
                raise GuardConflictError(f"conflicting guards: `{opposite}` and `{guard}`")
        self._guards[key] = guard
        self._rendered, self._order = {}, None

    def has(self, expr: str, kinds: Iterable[GuardKind]) -> bool:
        """Whether a guard of one of `kinds` checks `expr`."""
        canon = self._canonical(expr)
        return any((canon, kind) in self._guards for kind in kinds)

    def extend(self, guards: Iterable[Guard]) -> None:
        for g in guards:
            self.add(g)

    def __len__(self) -> int:
        return len(self._guards)

    def __iter__(self) -> Iterator[Guard]:
        return iter(self.ordered())

    def __str__(self) -> str:
        return "\n".join(str(g) for g in self.ordered())

    def __repr__(self) -> str:
        return f"GuardSet({len(self)} guards)"

    def ordered(self) -> list[Guard]:
        """Guards grouped by expr, depth first: an expr's gates (type, len, keys...) and then its
        other guards come before any guard on `expr.attr` or `expr[i]`, so a wrong type stops the
        check before an attribute read could raise. Kept until the next add (every miss asks each entry's)."""
        if self._order is not None: return list(self._order)  # noqa: E701
        groups: dict[str, list[Guard]] = {}
        for g in self._guards.values():
            groups.setdefault(self._canon[g.expr], []).append(g)
        children: dict[str | None, list[str]] = {}
        for canon in groups:
            parent = next((p for p in _prefixes(canon) if p in groups), None)
            children.setdefault(parent, []).append(canon)
        out: list[Guard] = []

        def visit(canon: str) -> None:
            out.extend(sorted(groups[canon], key=lambda g: _GATES.get(g.kind, 2)))  # stable sort
            for child in children.get(canon, ()):
                visit(child)

        for root in children.get(None, ()):
            visit(root)
        self._order = tuple(out)
        return out

    def expression(self, tag: str = "") -> str:
        """One Python expression, all guards joined by `and`; its constants are in namespace(tag).

        `tag` goes into every namespace name (`___{tag}c0`), so the dispatcher can inline the
        expressions of several cache entries into one function without name clashes.
        """
        return self._render(tag)[0]

    def namespace(self, tag: str = "") -> dict[str, Any]:
        """The constants, classes and helpers that expression(tag) refers to."""
        return dict(self._render(tag)[1])

    def bound_locals(self, tag: str = "") -> list[str]:
        """Locals expression(tag) binds (guard_reads.Reads): dropped before the function's own code runs."""
        return list(self._render(tag)[2].bound.values())

    def read_later(self, exprs: Iterable[str]) -> None:
        """Paths the entry reads right after a passing check (graph inputs): guarded ones get bound to locals."""
        self._later_reads, self._rendered = self._later_reads + [self._canonical(e) for e in exprs], {}

    def reuse_reads(self, code: str, tag: str = "") -> str:
        """`code` reading the paths the check bound from their locals (code run right after the check)."""
        return self._render(tag)[2].reuse(code)

    def _render(self, tag: str) -> tuple[str, dict[str, Any], Reads]:
        if tag not in self._rendered:
            names = _Namer(tag)
            shapes: dict[str, str] = {}     # `x.shape` -> the local its symbolic SHAPE guard bound it to
            implied = implied_bounds([g.expr for g in self._guards.values() if g.kind is HOLDS])
            ordered = [g for g in self.ordered() if not (g.kind is HOLDS and g.expr in implied)]
            reads = Reads(tag, [self._canon[g.expr] for g in ordered if g.kind is not HOLDS], self._later_reads)
            parts = [_code(g, names, shapes, reads) for g in ordered]
            self._rendered[tag] = (" and ".join(parts) or "True", names.namespace, reads)
        return self._rendered[tag]

    def _canonical(self, expr: str) -> str:
        if expr not in self._canon:
            try:
                self._canon[expr] = canonical(expr)
            except SyntaxError as e:
                raise InternalError(f"guard expression {expr!r} is not a Python expression") from e
        return self._canon[expr]


def _key(canon: str, guard: Guard) -> tuple:
    # Several hasattr guards may sit on one expr; every other kind has one expectation per expr.
    if guard.kind in (HASATTR, NOT_HASATTR):
        return (canon, guard.kind, guard.expected)
    return (canon, guard.kind)


# ---------------------------------------------------------------------------------------------
# Code generation


class _Namer:
    """Hands out namespace names: `___ndarray` for classes, `___c0` for other constants."""

    def __init__(self, tag: str) -> None:
        self.tag = tag
        self.namespace: dict[str, Any] = {}
        self._by_id: dict[int, str] = {}

    def bind(self, value: Any, hint: str = "") -> str:
        if id(value) in self._by_id:
            return self._by_id[id(value)]
        if hint.isidentifier():
            candidates = (f"___{self.tag}{hint}" + (f"_{i}" if i else "") for i in itertools.count())
        else:
            candidates = (f"___{self.tag}c{i}" for i in itertools.count())
        name = next(n for n in candidates if n not in self.namespace and n not in RESERVED_NAMES)
        self.namespace[name] = value
        self._by_id[id(value)] = name
        return name

    def helper(self, fn: Callable) -> str:
        # Builtins are bound under ___ names: an argument may be called `type` or `len`.
        return self.bind(fn, fn.__name__)

    def literal(self, value: Any) -> str:
        return repr(value) if _is_inlinable(value) else self.bind(value)


_ATOM = re.compile(r"[\w.\[\]'\"()]+")


def _code(g: Guard, names: _Namer, shapes: dict[str, str], reads: Reads) -> str:
    text = g.expr
    if g.kind in (HOLDS, EQUALS):      # relations and symbolic-int conditions read the shape locals
        for read, local in shapes.items():
            text = re.sub(r"(?<![\w.\]'\")])" + re.escape(read) + r"\[", local + "[", text)
    text = reads.rewrite(text, g.kind in (TYPE, ID))
    # An expression with operators (`a is not b`) is parenthesized: `a is not b is True` would chain.
    e = text if _ATOM.fullmatch(text) else f"({text})"
    v = g.expected
    if g.kind is TYPE:      # (a call's argument needs no parentheses, also around a `:=` binding)
        return f"{names.helper(type)}({text}) is {names.bind(v, v.__name__)}"
    if g.kind is ID:
        return f"{e} is {repr(v) if v is None or v is True or v is False or v is Ellipsis else names.bind(v)}"
    if g.kind is EQUALS:
        return _equals_code(e, v, names)
    if g.kind is SHAPE:
        if None not in v:
            return f"{e}.shape == {v!r}"
        # Symbolic sizes: read the shape once (each read builds a tuple); relation guards reuse the local.
        local = shapes[f"{g.expr}.shape"] = f"___{names.tag}s{len(shapes)}"
        return " and ".join([f"{names.helper(len)}({local} := {e}.shape) == {len(v)}"]
                            + [f"{local}[{i}] == {d}" for i, d in enumerate(v) if d is not None])
    if g.kind is HOLDS:
        return e
    if g.kind is DTYPE:
        # Builtin dtypes in native byte order are singletons in NumPy 2.x, so `is` hits on the
        # common path (~20% cheaper than dtype.__eq__). It is not always true: unpickled arrays,
        # dtype('q') vs dtype('l') on LP64, and newbyteorder('=') give equal but distinct
        # objects, so `==` stays as the fallback and keeps the guard exact.
        name = names.bind(v, f"dtype_{v.name}" if v.isbuiltin == 1 and v.isnative else "")
        return f"({e}.dtype is {name} or {e}.dtype == {name})"
    if g.kind is LEN:
        return f"{names.helper(len)}({e}) == {v!r}"
    if g.kind is DICT_KEYS:
        return f"{names.helper(tuple)}({e}.keys()) == {names.literal(v)}"
    if g.kind is HASATTR:
        return f"{names.helper(hasattr)}({e}, {v!r})"
    if g.kind is NOT_HASATTR:
        return f"not {names.helper(hasattr)}({e}, {v!r})"
    if g.kind is IS_NONE:
        return f"{e} is None"
    if g.kind is NOT_WARNINGS_LOG:
        hook = f"{names.helper(type)}({names.bind(warnings, 'warnings')}._showwarnmsg_impl)"   # no log if a function
        slow = f"{e} is not {names.helper(warnings_log)}()"
        return f"({hook} is {names.bind(types.FunctionType, 'function')} or {slow})" if \
            hasattr(warnings, "_showwarnmsg_impl") else slow
    assert g.kind is NOT_NONE, g.kind
    return f"{e} is not None"


def _equals_code(e: str, v: Any, names: _Namer) -> str:
    if v is None or type(v) is bool:
        return f"{e} is {v!r}"
    if isinstance(v, (float, np.floating)):
        if math.isnan(v):
            return f"{e} != {e}"  # NaN is the only value unequal to itself
        if v == 0:
            # 0.0 == -0.0, yet 1/x and copysign tell them apart: check the sign bit too.
            sign = ">" if math.copysign(1.0, v) > 0 else "<"
            return f"{e} == 0.0 and {names.helper(math.copysign)}(1.0, {e}) {sign} 0"
    return f"{e} == {names.literal(v)}"


def _is_inlinable(v: Any) -> bool:
    """Values whose repr() evaluates back to an equal value of the same type, cheaply."""
    t = type(v)
    if v is None or t in (bool, int):
        return True
    if t in (str, bytes):
        return len(v) <= _INLINE_STR_MAX
    if t is float:
        return math.isfinite(v) and float(repr(v)) == v
    if t is tuple:
        return len(v) <= 16 and all(_is_inlinable(x) for x in v)
    return False


# ---------------------------------------------------------------------------------------------
# Failure reasons

_MISSING = object()


def failures(guard_set: GuardSet, values: dict[str, Any], limit: int | None = None) -> list[str]:
    """Why the check fails for `values` (argument names plus ___G/___closure), one line per guard, at most
    `limit` lines (later guards are not evaluated). A failed gate (type, identity, None-ness, len, keys,
    hasattr) or an expr that cannot be evaluated hides the rest of that expr and everything read through
    it: no shape complaint about a list that should have been an array. An expr reads sources and the
    entry's namespace (in `values`), never the names rendering binds: nothing is rendered here."""
    scope, blocked, out = {**values, "__builtins__": builtins}, set(), []
    for g in guard_set.ordered():
        if limit is not None and len(out) >= limit:
            break
        canon = guard_set._canonical(g.expr)
        if canon in blocked or any(p in blocked for p in _prefixes(canon)):
            continue
        name = readable_expr(g.description or g.expr)
        label = name
        try:  # the same rule as the generated check: raising means failing
            value = eval(compiled(g.expr), scope)
            label = _label(g, name)
            message = _explain(g, name, value)
        except Exception as e:
            message = f"{label}: could not evaluate ({type(e).__name__}: {e})"
            blocked.add(canon)
        if message is not None:
            out.append(message)
            if g.kind in _GATES:
                blocked.add(canon)
    return out


def _explain(g: Guard, name: str, value: Any) -> str | None:
    """None when the guard holds for `value`, else `<label>: expected ..., got ...`."""
    v, kind = g.expected, g.kind
    relation = identity_relation(kind, g.expr, v)
    if relation is not None:     # said as what changed, not as `(a is b) == False`
        return None if value is v else identity_failure(*map(readable_expr, relation[:2]), v)
    if kind is TYPE:
        return None if type(value) is v else f"{_wrap('type', g, name)}: expected {short_repr(v)}, got {short_repr(type(value))}"
    if kind is ID:
        if value is v:
            return None
        got, want = short_repr(value), short_repr(v)
        return f"{name}: expected {want}, got {got}" + (" (a different object)" if got == want else "")
    if kind is EQUALS:
        return None if _equals_holds(v, value) else f"{name}: expected {v!r}, got {_short_repr(value)}"
    if kind is SHAPE:
        shape = tuple(value.shape)
        if len(shape) != len(v):
            return f"{name}.ndim: expected {len(v)}, got {len(shape)}"
        diff = next((i for i, (a, b) in enumerate(zip(v, shape)) if a is not None and a != b), None)
        return None if diff is None else f"{name}.shape[{diff}]: expected {v[diff]}, got {shape[diff]}"
    if kind is DTYPE:
        return None if value.dtype == v else f"{name}.dtype: expected {v}, got {value.dtype}"
    if kind is LEN:
        n = len(value)
        return None if n == v else f"{_wrap('len', g, name)}: expected {v}, got {n}"
    if kind is DICT_KEYS:
        keys = tuple(value.keys())
        if keys == v:
            return None
        hint = " (same keys, different order)" if set(keys) == set(v) else ""
        return f"keys of {name}: expected {v!r}, got {keys!r}{hint}"
    if kind in (HASATTR, NOT_HASATTR):
        has = hasattr(value, v)
        return None if has == (kind is HASATTR) else f"hasattr({name}, {v!r}): expected {not has}, got {has}"
    if kind is HOLDS:
        return None if value else f"{name}: does not hold"
    if kind is NOT_WARNINGS_LOG:
        return None if value is not warnings_log() else f"{name}: is the list warnings are being recorded into"
    if kind is IS_NONE:
        return None if value is None else f"{name}: expected None, got {_short_repr(value)}"
    return None if value is not None else f"{name}: expected not None, got None"


def _label(g: Guard, name: str) -> str:
    """What the guard reads, for a could-not-evaluate message: `x.shape`, `len(x)`..."""
    return {TYPE: _wrap("type", g, name), SHAPE: f"{name}.shape", DTYPE: f"{name}.dtype",
            LEN: _wrap("len", g, name), DICT_KEYS: f"keys of {name}"}.get(g.kind, name)


def _wrap(fn: str, g: Guard, name: str) -> str:
    # `type(x)` reads well; `type(global scale)` does not, so human names get `type of global scale`.
    return f"{fn}({name})" if name == g.expr else f"{fn} of {name}"


# Globals dicts are bound as `___G` (or, per cache entry, `___e3_G0`); closure cells as `___closure[i]` or
# `___e3_cell2` (a cell object bound in the namespace).
_GLOBAL_RE = re.compile(r"___\w*?G\d*(?:\[(['\"])(\w+)\1\]|\.get\((['\"])(\w+)\3\))")
_CELL_RE = re.compile(r"___closure\[(\d+)\]\.cell_contents")
_CELL_OBJ_RE = re.compile(r"___\w*?cell(\d+)\.cell_contents")
# A resume function's stack values are its `___stackN` parameters; people read them as `stackN`.
_STACK_RE = re.compile(r"\b___stack(\d+)\b")


def readable_expr(expr: str) -> str:
    """A guard's source as people read it: `___G['scale']` -> `global scale`, `___closure[0].cell_contents`
    -> `closure cell 0`, `___stack1` -> `stack1` (used by failure messages, warnings and reports)."""
    expr = _GLOBAL_RE.sub(lambda m: f"global {m.group(2) or m.group(4)}", expr)
    expr = _CELL_OBJ_RE.sub(r"closure cell #\1", _CELL_RE.sub(r"closure cell \1", expr))
    return _STACK_RE.sub(r"stack\1", expr)


def short_repr(obj: Any) -> str:
    """Short, address-free names: `ndarray`, `<function helper>`, `<module numpy>`."""
    if isinstance(obj, type):
        return obj.__qualname__
    if isinstance(obj, types.ModuleType):
        return f"<module {obj.__name__}>"
    if isinstance(obj, types.CodeType):     # a function's code, guarded instead of a per-call function object
        return f"<code {obj.co_qualname} line {obj.co_firstlineno}>"
    if type(obj) is dict and "__builtins__" in obj and isinstance(obj.get("__name__"), str):
        return f"<globals of {obj['__name__']}>"     # a function's __globals__
    if callable(obj) and isinstance(getattr(obj, "__name__", None), str):
        kind = "ufunc" if isinstance(obj, np.ufunc) else "function"  # np.sum is a dispatcher object
        return f"<{kind} {getattr(obj, '__qualname__', obj.__name__)}>"
    if obj is None or isinstance(obj, (bool, int, float, str, bytes, enum.Enum)):
        return repr(obj)
    return f"<{type(obj).__qualname__} object>"


def _short_repr(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"ndarray of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


# ---------------------------------------------------------------------------------------------
# Exact comparison of expected values (NaN equal to NaN, 0.0 unequal to -0.0, 1 unequal to True)


def _is_nan(v: Any) -> bool:
    return isinstance(v, (float, np.floating)) and math.isnan(v)


def _has_special_float(v: complex) -> bool:
    return any(math.isnan(p) or p == 0 for p in (v.real, v.imag))


def _same_float(a: Any, b: Any) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def _same_expected(a: Any, b: Any) -> bool:
    """Whether two guard expectations are the same (for de-duplication): same type and value."""
    if a is b:
        return True
    if isinstance(a, np.dtype) and isinstance(b, np.dtype):
        return a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, (float, np.floating)):
        return _same_float(a, b)
    if type(a) is tuple:
        return len(a) == len(b) and all(_same_expected(x, y) for x, y in zip(a, b))
    return bool(a == b)


def _equals_holds(expected: Any, value: Any) -> bool:
    """What the code from `_equals_code` computes, for `failures`."""
    if expected is None or type(expected) is bool:
        return value is expected
    if isinstance(expected, (float, np.floating)) and (math.isnan(expected) or expected == 0):
        return bool(value != value) if math.isnan(expected) else \
            bool(value == 0.0) and math.copysign(1.0, value) == math.copysign(1.0, expected)
    return bool(value == expected)
