"""Symbolic sizes: `Sym`, an integer expression over size symbols, and `ShapeEnv`, the symbols of one
capture and the relations that capture decided on. Imports nothing else of the package.

A Sym is a polynomial with integer coefficients over *atoms*: symbols (`s0`, read from a source such as
`x.shape[0]`) and opaque terms (`(s0//3)`, `(s0%3)`). It knows its value at capture time, its *hint*.
Arithmetic on Syms builds new Syms. Every question whose answer decides something (`==`, `<`, `bool()`,
`int()`, `operator.index`) is answered from the hints and recorded by the ShapeEnv as a guard (a Python
relation over sources, checked by the dispatcher), unless the atoms' ranges decide it statically (a size
symbol is at least 2, so `s0 == 1` is False for free). So a rule that knows nothing of symbols and
compares or converts a dimension is still correct: it specializes, with a guard. This is the promise:
no decision on a symbol without a guard.

    >>> env = ShapeEnv(); s0 = env.create_symbol(5, "x.shape[0]")
    >>> str(s0 * 8), (s0 * 8).hint, s0 == 1, env.relations
    ('8*s0', 40, False, [])
    >>> s0 == 5, env.relations
    (True, ['s0 == 5'])

A *loop index* (`create_index`) is an atom with no source: the index of a loop folded into a fori_loop node,
which takes every value from its first to its last (`i0` in [1, s0 - 1]). No guard can name it, so a
decision on it is taken only when it holds for the whole range: the relation is affine in the index, so it
holds everywhere when it holds at both ends (each end decided as usual, guarded on the outer symbols).
Otherwise `on_varying` is called (capture makes it a graph break: the loop is not folded).
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

_INF = math.inf
# op -> (python operator, negated op) for the relations a guard can record
_RELATIONS: dict[str, tuple[Callable[[Any, Any], bool], str]] = {
    "==": (operator.eq, "!="), "!=": (operator.ne, "=="), "<": (operator.lt, ">="),
    "<=": (operator.le, ">"), ">": (operator.gt, "<="), ">=": (operator.ge, "<"),
}


COUNT = "the True count of a mask"      # the description of create_count's atoms


class SymbolicDecisionError(RuntimeError):
    """A decision on a symbol after its capture ended: nothing could guard it any more."""


@dataclass
class Atom:
    """A symbol, or an opaque term of two Syms (`(s0//3)`): its text, Python form over sources, hint, range."""

    text: str
    python: str
    hint: int
    lo: float = -_INF
    hi: float = _INF
    description: str = ""
    parts: tuple = ()           # an opaque term's (a, b, op), to evaluate it for other inputs
    ends: tuple | None = None   # a loop index's (first, last) values; an opaque term over one has ()


class Sym:
    """An integer expression over one ShapeEnv's atoms; `poly` maps monomials (sorted atom texts) to
    coefficients, the constant under `()`. Build them through ShapeEnv and arithmetic, never directly."""

    __slots__ = ("env", "poly")

    def __init__(self, env: "ShapeEnv", poly: dict[tuple[str, ...], int]) -> None:
        self.env, self.poly = env, poly

    # ---- reading --------------------------------------------------------------------------------------
    @property
    def hint(self) -> int:
        atoms = self.env.atoms
        return sum(c * math.prod(atoms[a].hint for a in mono) for mono, c in self.poly.items())

    def python(self) -> str:
        """This expression in Python over the sources of its symbols (`x.shape[0] * 8`)."""
        if self.env.varies(self):
            raise SymbolicDecisionError(f"`{self}` depends on a loop index: no Python expression computes it")
        return _render(self.poly, lambda a: self.env.atoms[a].python, " * ")

    def __str__(self) -> str:
        return _render(self.poly, lambda a: a, "*")

    __repr__ = __str__

    def __hash__(self) -> int:
        raise TypeError("a symbolic size is unhashable: a set or dict lookup would decide equality unguarded")

    def bounds(self) -> tuple[float, float]:
        """An interval that holds the value for every input the guards admit (a sound over-approximation)."""
        lo = hi = 0.0
        for mono, c in self.poly.items():
            m_lo, m_hi = 1.0, 1.0
            for a in mono:
                atom = self.env.atoms[a]
                m_lo, m_hi = _mul_interval((m_lo, m_hi), (atom.lo, atom.hi))
            t_lo, t_hi = _mul_interval((m_lo, m_hi), (c, c))
            lo, hi = lo + t_lo, hi + t_hi
        return lo, hi

    # ---- arithmetic (builds expressions, decides nothing) ---------------------------------------------
    def __add__(self, other: Any) -> Any:
        o = _poly_of(self.env, other)
        return NotImplemented if o is None else self.env.make(_add(self.poly, o))

    __radd__ = __add__

    def __sub__(self, other: Any) -> Any:
        o = _poly_of(self.env, other)
        return NotImplemented if o is None else self.env.make(_add(self.poly, _scale(o, -1)))

    def __rsub__(self, other: Any) -> Any:
        o = _poly_of(self.env, other)
        return NotImplemented if o is None else self.env.make(_add(o, _scale(self.poly, -1)))

    def __mul__(self, other: Any) -> Any:
        o = _poly_of(self.env, other)
        return NotImplemented if o is None else self.env.make(_mul(self.poly, o))

    __rmul__ = __mul__

    def __neg__(self) -> Any:
        return self.env.make(_scale(self.poly, -1))

    def __pos__(self) -> "Sym":
        return self

    def __floordiv__(self, other: Any) -> Any:
        return self.env.divide(self, other, "//")

    def __rfloordiv__(self, other: Any) -> Any:
        return self.env.divide(other, self, "//")

    def __mod__(self, other: Any) -> Any:
        return self.env.divide(self, other, "%")

    def __rmod__(self, other: Any) -> Any:
        return self.env.divide(other, self, "%")

    # ---- decisions (guarded) ---------------------------------------------------------------------------
    def __eq__(self, other: Any) -> Any:
        return self._decide("==", other)

    def __ne__(self, other: Any) -> Any:
        return self._decide("!=", other)

    def __lt__(self, other: Any) -> Any:
        return self._decide("<", other)

    def __le__(self, other: Any) -> Any:
        return self._decide("<=", other)

    def __gt__(self, other: Any) -> Any:
        return self._decide(">", other)

    def __ge__(self, other: Any) -> Any:
        return self._decide(">=", other)

    def _decide(self, op: str, other: Any) -> Any:
        if _poly_of(self.env, other) is None:
            return NotImplemented
        return self.env.decide(self, op, other)

    def __bool__(self) -> bool:
        return self.env.decide(self, "!=", 0)

    def __index__(self) -> int:
        return self.env.specialize(self)

    __int__ = __index__

    def __float__(self) -> float:
        return float(self.env.specialize(self))


@dataclass
class SymbolInfo:
    name: str
    source: str
    description: str
    hint: int
    reason: str


class ShapeEnv:
    """The symbols of one capture and the relations it decided on.

    `on_guard(python_expr, text)` is called for each decision that needs a guard: `python_expr` is a
    relation over sources that holds for the capture's inputs (`x.shape[0] == y.shape[0]`), `text` the
    same over symbol names (`s0 == s1`). After `freeze()`, a decision raises SymbolicDecisionError.
    """

    def __init__(self, on_guard: Callable[[str, str], None] | None = None) -> None:
        self.atoms: dict[str, Atom] = {}
        self.symbols: list[SymbolInfo] = []
        self.relations: list[str] = []
        self.on_guard = on_guard
        self.on_varying: Callable[[str], None] | None = None   # a decision that differs across a loop's range
        self.frozen = False
        self.indices = 0
        self.counts = 0

    def create_symbol(self, hint: int, source: str, description: str = "", lo: float = 2,
                      reason: str = "", guard_lo: bool = True) -> Sym:
        """A fresh symbol read from `source` (a Python expression), valued `hint` in this capture; `lo` is
        a lower bound the caller guarantees with its own guard (a size symbol: 2, as 0 and 1 stay static)."""
        name = f"s{len(self.symbols)}"
        self.atoms[name] = Atom(name, source, int(hint), lo, _INF, description or source)
        self.symbols.append(SymbolInfo(name, source, description or source, int(hint), reason))
        if lo != -_INF and guard_lo:    # the range every later decision relies on is itself a guard
            self._guard(f"{name} >= {lo}", f"{source} >= {lo}")
        return Sym(self, {(name,): 1})

    def create_index(self, lo: Any, hi: Any, hint: int) -> "Sym":
        """The index of a folded loop, from `lo` to `hi` (ints or Syms of outer atoms), `hint` its first value.
        Decisions on it must hold for every value in between (see the module docstring)."""
        name = f"i{self.indices}"
        self.indices += 1
        self.atoms[name] = Atom(name, None, int(hint), _bounds(lo)[0], _bounds(hi)[1], "the index of a folded loop",
                                ends=(lo, hi))
        return Sym(self, {(name,): 1})

    def create_count(self, size: Any) -> "Sym":
        """The True count of a boolean mask the graph computes (`x[mask]` has that length): any value from 0
        to the mask's `size`, known only when the graph runs. Like a loop index it has no source, so a
        decision on it is taken only when it holds over the whole range (else on_varying: a break)."""
        name = f"u{self.counts}"
        self.counts += 1
        self.atoms[name] = Atom(name, None, int(hint_of(size)), 0, _bounds(size)[1], COUNT,
                                ends=(0, size))
        return Sym(self, {(name,): 1})

    def varies(self, value: Any) -> bool:
        """Whether `value` depends on a loop index (an index, or an opaque term over one)."""
        return isinstance(value, Sym) and any(self.atoms[a].ends is not None for m in value.poly for a in m)

    def narrow(self, index: "Sym", lo: Any, hi: Any) -> tuple:
        """Give a loop index other ends (an inner loop runs only where its range is not empty); returns
        what restores them (`restore_ends`)."""
        atom = self.atoms[next(iter(index.poly))[0]]
        saved = (atom, atom.ends, atom.lo, atom.hi)
        atom.ends = (lo, hi)
        atom.lo = max(atom.lo, _bounds(lo)[0])
        atom.hi = min(atom.hi, _bounds(hi)[1])
        return saved

    @staticmethod
    def restore_ends(saved: tuple) -> None:
        atom, atom.ends, atom.lo, atom.hi = saved

    def make(self, poly: dict[tuple[str, ...], int]) -> Any:
        """A Sym, or a plain int when the polynomial is constant."""
        poly = {m: c for m, c in poly.items() if c}
        if not poly:
            return 0
        if list(poly) == [()]:
            return poly[()]
        return Sym(self, poly)

    def divide(self, a: Any, b: Any, op: str) -> Any:
        """a // b or a % b. An exact division by a constant stays a polynomial; anything else is an opaque
        atom whose hint is Python's result (a zero divisor raises ZeroDivisionError, as Python would)."""
        pa, pb = _poly_of(self, a), _poly_of(self, b)
        if pa is None or pb is None:
            return NotImplemented
        if list(pb) == [()] and pb[()] > 0:
            c = pb[()]
            var = {m: k for m, k in pa.items() if m}
            if all(k % c == 0 for k in var.values()):
                const = pa.get((), 0)
                if op == "%":
                    return const % c
                if const % c == 0:
                    return self.make({m: k // c for m, k in pa.items()})
        exact = _exact_quotient(pa, pb)
        if exact is not None:       # (8*s0) // s0: exact wherever it is defined (a zero divisor raises)
            return self.make(exact) if op == "//" else 0
        sa, sb = self.make(dict(pa)), self.make(dict(pb))
        ha = sa.hint if isinstance(sa, Sym) else sa
        hb = sb.hint if isinstance(sb, Sym) else sb
        hint = ha // hb if op == "//" else ha % hb
        text = f"({_text(sa)}{op}{_text(sb)})"
        if text not in self.atoms:
            lo, hi = _division_range(sa, sb, op)
            if self.varies(sa) or self.varies(sb):     # over a loop index: no source of its own
                # `a % b` by a positive b lies in [0, b - 1]: decided at those ends like an index; others never
                ends = (0, sb - 1) if op == "%" and not self.varies(sb) and _bounds(sb)[0] > 0 else ()
                self.atoms[text] = Atom(text, None, hint, max(lo, 0) if ends else lo, hi, parts=(sa, sb, op),
                                        ends=ends)
            else:
                self.atoms[text] = Atom(text, f"({_python(sa)} {op} {_python(sb)})", hint, lo, hi,
                                        parts=(sa, sb, op))
        return Sym(self, {(text,): 1})

    def decide(self, lhs: Any, op: str, rhs: Any) -> bool:
        """`lhs <op> rhs` for this capture's inputs; recorded as a guard unless the ranges decide it."""
        fn, negated = _RELATIONS[op]
        diff = lhs - rhs
        if not isinstance(diff, Sym):
            return fn(diff, 0)
        lo, hi = diff.bounds()
        static = _static(op, lo, hi)
        if static is not None:
            return static
        if self.varies(diff):
            return self._decide_over_range(diff, op, f"{_text(lhs)} {op} {_text(rhs)}")
        value = fn(diff.hint, 0)
        shown = op if value else negated
        self._guard(f"{_text(lhs)} {shown} {_text(rhs)}", f"{_python(lhs)} {shown} {_python(rhs)}")
        self._refine(diff, shown)
        return value

    def _decide_over_range(self, diff: Sym, op: str, text: str) -> bool:
        """`diff <op> 0` for every value of the latest loop index in it: decided at both of its ends (affine:
        the answer at the ends is the answer everywhere between), or on_varying."""
        index = max((a for m in diff.poly for a in m if self.atoms[a].ends is not None),
                    key=lambda a: (self.atoms[a].ends == (), int(a[1:]) if a[1:].isdigit() else -1))
        ends, coeff, rest = self.atoms[index].ends, {}, {}
        for mono, c in diff.poly.items():
            k = mono.count(index)
            if k > 1 or not ends:
                return self._varying(text)
            target = coeff if k else rest
            target[tuple(a for a in mono if a != index)] = c
        a, b = self.make(rest), self.make(coeff)
        at = [a + b * end for end in ends]
        if op in ("==", "!="):      # nowhere equal: the same strict sign at both ends
            for side in ("<", ">"):
                if all(self.decide(d, side, 0) for d in at):
                    return op == "!="
            return self._varying(text)
        answers = {self.decide(d, op, 0) for d in at}
        return answers.pop() if len(answers) == 1 else self._varying(text)

    def _varying(self, text: str) -> bool:
        if self.on_varying is not None:
            self.on_varying(text)
        raise SymbolicDecisionError(f"`{text}` differs across the range of a loop index")

    def _refine(self, diff: Sym, op: str) -> None:
        """After guarding `a + c <op> 0` on one atom a, narrow a's range: later decisions implied by this
        one need no guard of their own (integers: a > k means a >= k + 1)."""
        var = {m: c for m, c in diff.poly.items() if m}
        if len(var) != 1:
            return
        (mono, coeff), = var.items()
        if len(mono) != 1 or coeff not in (1, -1):
            return
        atom, k = self.atoms[mono[0]], -diff.poly.get((), 0) * coeff   # coeff * a <op> -c
        if coeff == -1:
            op = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}.get(op, op)
        if op in (">=", ">", "=="):
            atom.lo = max(atom.lo, k + (op == ">"))
        if op in ("<=", "<", "=="):
            atom.hi = min(atom.hi, k - (op == "<"))

    def specialize(self, value: Any) -> int:
        """The hint of `value`, guarded equal: where a rule needs a concrete int (the static fallback)."""
        if not isinstance(value, Sym):
            return operator.index(value)
        hint = value.hint
        self.decide(value, "==", hint)
        return hint

    def _guard(self, text: str, python: str) -> None:
        if self.frozen:
            raise SymbolicDecisionError(f"decision `{text}` after the capture ended: a backend or report must "
                                        "not decide on symbolic sizes (use the example inputs' shapes)")
        if text not in self.relations:
            self.relations.append(text)
            if self.on_guard is not None:
                self.on_guard(python, text)

    def freeze(self) -> None:
        """The capture is over: no more decisions, and no reference back to its context (which holds the
        capture's example values alive)."""
        self.frozen, self.on_guard = True, None

    def __str__(self) -> str:
        lines = [f"{s.name} = {s.description} (was {s.hint}{', ' + s.reason if s.reason else ''})"
                 for s in self.symbols]
        lines += [f"guard: {r}" for r in self.relations]
        return "\n".join(lines)


# ---- helpers -------------------------------------------------------------------------------------------

def _bounds(value: Any) -> tuple[float, float]:
    return value.bounds() if isinstance(value, Sym) else (value, value)


def is_symbolic(value: Any) -> bool:
    return isinstance(value, Sym)


def has_symbols(shape: tuple) -> bool:
    return any(isinstance(d, Sym) for d in shape)


def same_size(a: Any, b: Any) -> bool:
    """Whether two sizes are the same expression (decides nothing, guards nothing)."""
    if isinstance(a, Sym) and isinstance(b, Sym):
        return a.env is b.env and a.poly == b.poly
    return not isinstance(a, Sym) and not isinstance(b, Sym) and a == b


def hint_of(value: Any) -> Any:
    """The capture-time value of a Sym (no guard: for messages and probes only), other values unchanged."""
    return value.hint if isinstance(value, Sym) else value


def bind_symbols(sizes: tuple, concrete: tuple, values: dict[str, int]) -> None:
    """Learn symbol values from one input's concrete sizes: a size `s0` (or `k*s0 + c`) that is `n` on this
    call gives s0. Decides nothing; sizes that say nothing about a single symbol are skipped."""
    for size, n in zip(sizes, concrete):
        if not isinstance(size, Sym):
            continue
        terms = [(m, c) for m, c in size.poly.items() if m]
        if len(terms) == 1 and len(terms[0][0]) == 1 and not size.env.atoms[terms[0][0][0]].parts:
            (name,), k = terms[0]
            rest = int(n) - size.poly.get((), 0)
            if rest % k == 0:
                values[name] = rest // k


def evaluate(value: Any, values: dict[str, int]) -> int | None:
    """value's integer when its symbols take `values` (backends checking results per call), or None when a
    symbol in it has no value."""
    if not isinstance(value, Sym):
        return int(value)
    total = 0
    for mono, c in value.poly.items():
        term = c
        for name in mono:
            v = _atom_value(value.env, name, values)
            if v is None:
                return None
            term *= v
        total += term
    return total


def _atom_value(env: ShapeEnv, name: str, values: dict[str, int]) -> int | None:
    if name in values:
        return values[name]
    parts = env.atoms[name].parts
    if not parts:
        return None
    a, b = evaluate(parts[0], values), evaluate(parts[1], values)
    if a is None or b is None or b == 0:
        return None
    return a // b if parts[2] == "//" else a % b


def _poly_of(env: ShapeEnv, value: Any) -> dict[tuple[str, ...], int] | None:
    if isinstance(value, Sym):
        if value.env is not env:
            raise ValueError("symbols of two different captures mixed in one expression")
        return value.poly
    if isinstance(value, (int, np.integer)):
        return {(): int(value)}
    return None


def _add(a: dict, b: dict) -> dict:
    out = dict(a)
    for m, c in b.items():
        out[m] = out.get(m, 0) + c
    return out


def _scale(a: dict, k: int) -> dict:
    return {m: c * k for m, c in a.items()}


class TooComplex(ValueError):
    """An expression past the size symbols are worth (repeated squaring of a loop counter grows its
    polynomial exponentially): the caller keeps the value without a symbol."""


MAX_TERMS, MAX_DEGREE = 64, 8


def _mul(a: dict, b: dict) -> dict:
    if len(a) * len(b) > MAX_TERMS or max(map(len, a), default=0) + max(map(len, b), default=0) > MAX_DEGREE:
        raise TooComplex("symbolic product too large")
    out: dict[tuple[str, ...], int] = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            m = tuple(sorted(ma + mb))
            out[m] = out.get(m, 0) + ca * cb
    return out


def _exact_quotient(a: dict, b: dict) -> dict | None:
    """a / b when b is one monomial dividing every term of a exactly, else None."""
    if len(b) != 1 or () in b:
        return None
    (mono, c), = b.items()
    out = {}
    for m, k in a.items():
        rest = list(m)
        for atom in mono:
            if atom not in rest:
                return None
            rest.remove(atom)
        if k % c:
            return None
        out[tuple(rest)] = k // c
    return out


def _mul_interval(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    # (0 * inf is 0 here; written out, not as a comprehension: bounds() multiplies per atom of every decision)
    (a0, a1), (b0, b1) = a, b
    products = (0.0 if (a0 == 0 or b0 == 0) else a0 * b0, 0.0 if (a0 == 0 or b1 == 0) else a0 * b1,
                0.0 if (a1 == 0 or b0 == 0) else a1 * b0, 0.0 if (a1 == 0 or b1 == 0) else a1 * b1)
    return min(products), max(products)


def _division_range(a: Any, b: Any, op: str) -> tuple[float, float]:
    if not isinstance(b, int) or b <= 0:
        return -_INF, _INF
    if op == "%":
        return 0, b - 1
    lo, hi = a.bounds() if isinstance(a, Sym) else (a, a)
    return (math.floor(lo / b) if lo != -_INF else -_INF), (math.floor(hi / b) if hi != _INF else _INF)


def _static(op: str, lo: float, hi: float) -> bool | None:
    """The truth of `d <op> 0` for every d in [lo, hi], or None when the interval does not decide it."""
    if op in ("==", "!="):
        if lo > 0 or hi < 0:
            return op == "!="
        return None
    # d < 0 (and the others) is monotone in d: agreeing at both ends of the interval decides it everywhere.
    fn = _RELATIONS[op][0]
    at_lo, at_hi = fn(lo, 0), fn(hi, 0)
    return at_lo if at_lo == at_hi else None


def _render(poly: dict[tuple[str, ...], int], atom: Callable[[str], str], times: str) -> str:
    terms = []
    for mono in sorted(poly, key=lambda m: (len(m) == 0, m)):
        c = poly[mono]
        if not mono:
            terms.append(str(c))
            continue
        body = times.join(atom(a) for a in mono)
        terms.append(body if c == 1 else f"-{body}" if c == -1 else f"{c}{times}{body}")
    text = terms[0]
    for t in terms[1:]:
        text += f" - {t[1:]}" if t.startswith("-") else f" + {t}"
    return text


def _text(value: Any) -> str:
    if isinstance(value, Sym) and (len(value.poly) > 1 or 1 not in value.poly.values()
                                   or any(len(m) > 1 for m in value.poly)):
        return f"({value})"
    return str(value)


def _python(value: Any) -> str:
    if isinstance(value, Sym):
        text = value.python()
        return text if len(value.poly) == 1 and 1 in value.poly.values() else f"({text})"
    return repr(int(value))
