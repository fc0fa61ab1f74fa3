"""Proofs from the inputs' magnitudes that a graph creates no nan/inf, so its results need no finite check.

Imports graph/ and numpy only. The engine checks float values for nan/inf because NumPy warns (or raises,
under np.errstate) where an op creates one (finite.py); those checks cost XLA fusions (an intermediate
checked or poisoned is an extra output or an extra pass). When every float input's elements are at most 2**e
in magnitude, interval arithmetic over the graph can prove that no op overflows, divides by zero or leaves
its domain: then NumPy warns nothing (underflow aside, which the runner sends to NumPy anyway) and the graph
runs as traced without any finite check (engine.Piece(finite_checks=False)).

* `Proof(graph)`: `reason` is None when every op has an interval rule below (else why not); `holds(inputs)`
  reads each float input's magnitude (`magnitude_exponent`: NumPy's max and min) and evaluates the intervals
  once per tuple of exponents (memoized). The runner calls it before XLA starts or while XLA computes.
* Every interval is widened by REL per op (NumPy's float ops are within a few ulp; REL is thousands of ulp)
  and a sum or matmul of n terms by its rounding bound; results must stay below half the dtype's maximum.
* One relational fact, softmax's: `a - max(a, axis=k, keepdims=True)` is at most 0 exactly and every lane along
  k holds an exact 0 (the maximum itself), so `exp` of it holds a value near 1 per lane and the lane sums a
  softmax divides by are at least that: `Fact.peak`.
Anything not covered (other ops, keyword arguments, float16/complex, Python-scalar inputs) is not proved,
and the graph keeps its finite checks: the proof only ever removes checks NumPy's semantics do not need.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ...graph.ir import CONST, INPUT, ArraySpec, Graph, Node, iter_nodes

REL = 2.0 ** -10            # relative widening per op
TRIG_LIMIT = 4096.0         # float32 sin/cos arguments the proved variant computes by trig.py's polynomials
_MEMO_LIMIT = 64
FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


class Unprovable(Exception):
    """The intervals cannot rule out a nan/inf (or the analysis does not know the op)."""


@dataclass(frozen=True)
class Fact:
    lo: float
    hi: float
    peak: tuple[int, float] | None = None      # (axis, c): every lane along axis holds an element >= c


def _widen(lo: float, hi: float) -> tuple[float, float]:
    return lo - abs(lo) * REL, hi + abs(hi) * REL


def _fact(lo: float, hi: float, spec: Any, peak: tuple[int, float] | None = None) -> Fact:
    """A float result's interval, widened for rounding; Unprovable when it may overflow."""
    lo, hi = _widen(lo, hi)
    limit = float(np.finfo(spec.dtype).max) / 2
    if not (-limit <= lo <= hi <= limit):      # also false for nan endpoints
        raise Unprovable(f"{lo}..{hi} may overflow {spec.dtype}")
    return Fact(lo, hi, peak)


def _sum_rounding(n: int, dtype: np.dtype) -> float:
    """gamma_n: the relative error bound of a sum of n terms in `dtype` (any order), made generous."""
    k = (n + 1) * float(np.finfo(dtype).eps)
    if k >= 0.25:
        raise Unprovable(f"a sum of {n} terms")
    return 2 * k


def _mul(a: Fact, b: Fact) -> tuple[float, float]:
    products = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]
    return min(products), max(products)


def _elementwise(node: Node, f: list[Fact]) -> Fact:
    op, spec = node.op, node.spec
    if op == "add":
        return _fact(f[0].lo + f[1].lo, f[0].hi + f[1].hi, spec)
    if op == "subtract":
        return _fact(f[0].lo - f[1].hi, f[0].hi - f[1].lo, spec)
    if op == "multiply":
        return _fact(*_mul(f[0], f[1]), spec)
    if op == "divide":
        if f[1].lo <= 0 <= f[1].hi:
            raise Unprovable("the divisor may be 0")
        return _fact(*_mul(f[0], Fact(1 / f[1].hi, 1 / f[1].lo)), spec)
    if op == "negative":
        return _fact(-f[0].hi, -f[0].lo, spec)
    if op == "positive":
        return _fact(f[0].lo, f[0].hi, spec)
    if op in ("absolute", "fabs"):
        return _fact(0.0 if f[0].lo <= 0 <= f[0].hi else min(abs(f[0].lo), abs(f[0].hi)),
                     max(abs(f[0].lo), abs(f[0].hi)), spec)
    if op in ("maximum", "minimum"):
        pick = max if op == "maximum" else min
        return _fact(pick(f[0].lo, f[1].lo), pick(f[0].hi, f[1].hi), spec)
    if op == "where":
        return _fact(min(f[1].lo, f[2].lo), max(f[1].hi, f[2].hi), spec)
    return _transcendental(node, f[0])


def _transcendental(node: Node, a: Fact) -> Fact:
    op, spec = node.op, node.spec
    if op in ("sin", "cos") and spec.dtype == np.float32 and max(-a.lo, a.hi) > TRIG_LIMIT:
        raise Unprovable(f"float32 {op} of an argument beyond {TRIG_LIMIT} (see trig.py)")
    if op in ("tanh", "sin", "cos"):
        return _fact(-1.0, 1.0, spec)
    if op == "exp":
        if a.hi > math.log(float(np.finfo(spec.dtype).max) / 4):
            raise Unprovable("exp may overflow")
        peak = (a.peak[0], math.exp(a.peak[1]) * (1 - REL)) if a.peak else None
        return _fact(math.exp(a.lo), math.exp(a.hi), spec, peak)
    if op in ("sqrt", "log"):
        if a.lo < 0 or (op == "log" and a.lo == 0):
            raise Unprovable(f"{op} of a value that may be negative or zero")
        fn = math.sqrt if op == "sqrt" else math.log
        return _fact(fn(a.lo), fn(a.hi), spec)
    if op == "square":
        return _power(Fact(a.lo, a.hi), 2, spec)
    raise Unprovable(f"no interval rule for {op}")


def _power(a: Fact, p: Any, spec: ArraySpec) -> Fact:
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not math.isfinite(p):
        raise Unprovable("an exponent that is not a Python number")
    if p == 0:
        return _fact(1.0, 1.0, spec)
    integral = float(p).is_integer()
    if (p < 0 and a.lo <= 0 <= a.hi) or (not integral and a.lo < 0):
        raise Unprovable("a power outside its domain")
    try:
        ends = [math.pow(a.lo, p), math.pow(a.hi, p)]
    except (OverflowError, ValueError) as e:
        raise Unprovable(f"power: {e}") from None
    if integral and int(p) % 2 == 0 and a.lo < 0 < a.hi:
        ends.append(0.0)
    return _fact(min(ends), max(ends), spec)


def _axis(node: Node) -> Any:
    if len(node.args) > 2 or set(node.kwargs) - {"axis", "keepdims"}:
        raise Unprovable("a reduction with other arguments")
    return node.kwargs.get("axis", node.args[1] if len(node.args) > 1 else None)


def _reduction(node: Node, a: Fact) -> Fact:
    src, spec = node.args[0].spec, node.spec
    n = src.size // spec.size if spec.size else 0
    axis = _axis(node)
    if node.op in ("max", "min"):
        if n < 1:
            raise Unprovable("an empty max/min")
        return _fact(a.lo, a.hi, spec)
    if n == 0:
        if node.op == "mean":
            raise Unprovable("a mean of an empty slice")     # NumPy warns
        return _fact(0.0, 0.0, spec)
    g = _sum_rounding(n, spec.dtype)
    lo = n * a.lo * (1 - g if a.lo >= 0 else 1 + g)
    hi = n * a.hi * (1 + g if a.hi >= 0 else 1 - g)
    if a.peak and a.lo >= 0 and isinstance(axis, int) and axis % src.ndim == a.peak[0]:
        lo = max(lo, a.peak[1] * (1 - g))       # non-negative terms, one of them at least the peak
    if node.op == "mean":
        lo, hi = lo / n, hi / n
    return _fact(lo, hi, spec)


def _matmul(node: Node, f: list[Fact]) -> Fact:
    a = node.args[0].spec
    k = a.shape[-1]
    g = _sum_rounding(k, node.spec.dtype) if k else 0.0
    lo, hi = _mul(f[0], f[1])
    return _fact(min(0.0, k * lo * (1 + g)), max(0.0, k * hi * (1 + g)), node.spec)


def _softmax_shift(node: Node, f: list[Fact]) -> Fact | None:
    """`a - max(a, axis=k, keepdims=True)`: at most 0, and each lane along k holds the exact 0 of its maximum."""
    a, m = node.args
    if not (isinstance(m, Node) and m.op == "max" and m.args and m.args[0] is a and m.kwargs.get("keepdims")
            is True and isinstance(a, Node) and a.spec.ndim):
        return None
    axis = _axis(m)
    if not isinstance(axis, int):
        return None
    return _fact(f[0].lo - f[1].hi, 0.0, node.spec, (axis % a.spec.ndim, 0.0))


SAME_VALUES = frozenset({"reshape", "transpose", "ravel", "squeeze", "expand_dims", "broadcast_to", "copy",
                         "ascontiguousarray", "asarray", "asanyarray", "getitem", "swapaxes", "moveaxis", "flip"})
JOINS = frozenset({"concatenate", "stack", "hstack", "vstack"})
COMPARISONS = frozenset({"greater", "greater_equal", "less", "less_equal", "equal", "not_equal",
                         "logical_and", "logical_or", "logical_not"})
ELEMENTWISE = frozenset({"add", "subtract", "multiply", "divide", "negative", "positive", "absolute", "fabs",
                         "maximum", "minimum", "where", "tanh", "sin", "cos", "exp", "sqrt", "log", "square"})
REDUCTIONS = frozenset({"sum", "mean", "max", "min"})
KNOWN = SAME_VALUES | JOINS | COMPARISONS | ELEMENTWISE | REDUCTIONS | {"power", "matmul", "dot", "astype"}


def _value(env: dict[int, Fact], arg: Any) -> Fact:
    if isinstance(arg, Node):
        return env[id(arg)]
    if isinstance(arg, (bool, int, float, np.bool_, np.integer, np.floating)) and math.isfinite(float(arg)):
        return Fact(float(arg), float(arg))
    raise Unprovable(f"an argument {type(arg).__name__}")


def _rule(node: Node, env: dict[int, Fact]) -> Fact:
    op, spec = node.op, node.spec
    if op in COMPARISONS:
        return Fact(0.0, 1.0)
    if not (isinstance(spec, ArraySpec) and spec.dtype in FLOATS):
        raise Unprovable(f"{op} gives {spec}")
    if "out" in node.kwargs:
        raise Unprovable(f"{op} writes into an array")
    if op in SAME_VALUES or op == "astype":
        a = _value(env, node.args[0])
        return _fact(a.lo, a.hi, spec)
    if op in JOINS:
        parts = [_value(env, a) for a in iter_nodes(node.args[0])]
        return _fact(min(p.lo for p in parts), max(p.hi for p in parts), spec)
    if node.kwargs and op not in REDUCTIONS:
        raise Unprovable(f"{op} with keyword arguments")
    if op in REDUCTIONS:
        return _reduction(node, _value(env, node.args[0]))
    f = [_value(env, a) for a in node.args]
    if op == "power":
        return _power(f[0], node.args[1], spec)
    if op in ("matmul", "dot"):
        return _matmul(node, f)
    if op == "subtract":
        shifted = _softmax_shift(node, f)
        if shifted is not None:
            return shifted
    return _elementwise(node, f)


def _static(spec: Any, value: Any = None) -> Fact | None:
    """The interval of a constant or of a bool/integer input (None: read at run time, or Unprovable)."""
    if value is not None:
        arr = np.asarray(value)
        if arr.dtype.kind not in "biuf" or (arr.size and not np.isfinite(arr).all()):
            raise Unprovable("a constant that is not a finite real array")
        return Fact(float(arr.min()), float(arr.max())) if arr.size else Fact(0.0, 0.0)
    if not isinstance(spec, ArraySpec):
        raise Unprovable(f"an input {spec}")
    if spec.dtype == np.bool_:
        return Fact(0.0, 1.0)
    if spec.dtype.kind in "iu":
        info = np.iinfo(spec.dtype)
        return Fact(float(info.min), float(info.max))
    if spec.dtype in FLOATS:
        return None
    raise Unprovable(f"an input of dtype {spec.dtype}")


def magnitude_exponent(value: Any) -> int | None:
    """e with every |element| of a float array (or NumPy float) below 2**e; None when one is nan/inf (NumPy's
    max and min propagate nan). Two SIMD reductions; not np.dot (one pass, but BLAS's thread pool and XLA's
    contend for the cores)."""
    if isinstance(value, np.generic):
        mag = abs(float(value))
    elif value.size == 0:
        mag = 0.0
    else:
        mag = max(abs(float(np.maximum.reduce(value, axis=None))), abs(float(np.minimum.reduce(value, axis=None))))
    return math.frexp(mag)[1] if math.isfinite(mag) else None


class Proof:
    """Whether a graph's float inputs' magnitudes prove it creates no nan/inf (module docstring)."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.reason: str | None = None
        self.runtime: list[int] = []        # input positions whose magnitude is read at each call
        self.static: dict[int, Fact] = {}
        self._memo: dict[tuple, bool] = {}
        try:
            for i, node in enumerate(graph.inputs):
                fact = _static(node.spec)
                if fact is None:
                    self.runtime.append(i)
                else:
                    self.static[id(node)] = fact
            for node in graph.nodes:
                if node.op == CONST:
                    self.static[id(node)] = _static(node.spec, node.value)
                elif node.op != INPUT and node.op not in KNOWN:
                    raise Unprovable(f"no interval rule for {node.op}")
        except Unprovable as e:
            self.reason = str(e)

    def holds(self, inputs: tuple) -> bool:
        """True when these inputs' magnitudes prove that no op of the graph creates a nan/inf."""
        try:
            key = tuple(magnitude_exponent(inputs[i]) for i in self.runtime)
        except (AttributeError, TypeError, ValueError):     # not an array after all: keep the checks
            return False
        if None in key:
            return False
        got = self._memo.get(key)
        if got is None:
            if len(self._memo) >= _MEMO_LIMIT:
                self._memo.clear()
            got = self._memo[key] = self.proves(key)
        return got

    def proves(self, exponents: tuple[int, ...]) -> bool:
        """The interval evaluation for float inputs bounded by 2**e (e per runtime input, in order)."""
        if self.reason is not None:
            return False
        env = dict(self.static)
        for i, e in zip(self.runtime, exponents):
            env[id(self.graph.inputs[i])] = Fact(-2.0 ** e, 2.0 ** e)
        try:
            for node in self.graph.nodes:
                if node.is_call:
                    env[id(node)] = _rule(node, env)
        except (Unprovable, AttributeError, KeyError, IndexError, TypeError, ValueError, OverflowError,
                ZeroDivisionError):
            return False
        return True

