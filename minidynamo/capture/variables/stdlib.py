"""Builtins and standard-library helpers over Python values: map, filter, sorted, min/max with key, any/all,
callable, hasattr, pow, ascii, and the pure functions of math, operator, itertools and functools. Imports
variables.*; registers into builtins.BUILTINS (context.py imports this module once).

Each either folds at capture time (all arguments constant), or runs Python's own algorithm over Vars, so an
operation on arrays records the graph op NumPy would run (`operator.add(a, b)`, `functools.reduce` over a
list of arrays, `max(a, b)` breaking only where Python needs an array's truth value).
"""

from __future__ import annotations

import functools
import itertools
import math
import operator
from typing import TYPE_CHECKING, Any

import numpy as np

from ..breaks import BreakCategory
from .base import Var, unsupported
from .builtins import BUILTINS, builtin
from .const import ConstVar, all_constant, fold
from .containers import ListVar, TupleVar
from .lazy_iterators import run_ahead
from .hooks import HOOKS
from .array import ArrayVar
from .operators import binary_op, unary_op

if TYPE_CHECKING:
    from ..frame import Frame

# operator.<fn> -> the symbol binary_op/unary_op understand (same semantics as the bytecode operator).
_BINARY = {operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
           operator.floordiv: "//", operator.mod: "%", operator.pow: "**", operator.matmul: "@",
           operator.and_: "&", operator.or_: "|", operator.xor: "^", operator.lshift: "<<",
           operator.rshift: ">>", operator.lt: "<", operator.le: "<=", operator.eq: "==", operator.ne: "!=",
           operator.gt: ">", operator.ge: ">=", operator.iadd: "+=", operator.isub: "-=",
           operator.imul: "*=", operator.itruediv: "/="}
_UNARY = {operator.neg: "-", operator.pos: "+", operator.invert: "~", operator.abs: "abs"}
# Pure functions folded when every argument is a constant (otherwise a break, as before).
PURE_STDLIB = {getattr(math, n) for n in dir(math) if callable(getattr(math, n)) and not n.startswith("_")} | \
    {operator.not_, operator.truth, operator.is_, operator.is_not, operator.contains, operator.index,
     operator.getitem, operator.concat, operator.countOf, operator.indexOf, operator.length_hint,
     divmod, round, hash, ord, chr, hex, bin, oct, issubclass, ascii}


_FIXED_TYPES = (list, tuple, dict, np.ndarray)


def _call(frame: "Frame", fn: Var, args: list[Var]) -> Var:
    return fn.call(frame, args, {})


def _items(frame: "Frame", iterable: Var) -> list[Var]:
    return iterable.make_iterator(frame).iterate(frame)


def _ahead_of_consumer(frame: "Frame", what: str, produce: Any) -> list[Var]:
    """Run a lazy iterator (map, filter, accumulate) to its end now. Sound only when its calls change nothing
    the consumer could observe in between, as for generators (frame._run_generator)."""
    effects = frame.ctx.side_effects
    before = (effects.version, len(frame.ctx.mutating_nodes))     # (version: every mutation, repeats too)
    items = produce()
    if (effects.version, len(frame.ctx.mutating_nodes)) != before:
        raise unsupported(BreakCategory.SIDE_EFFECT, f"{what}() calls a function with side effects; running it "
                          "ahead of its consumer would reorder them")
    return items


def _truth(frame: "Frame", v: Var) -> bool:
    return v.as_bool(frame)


@builtin(map)
def _map(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    if kwargs or len(args) < 2:
        raise unsupported(BreakCategory.UNSUPPORTED, "map() with keywords or without iterables")
    columns = [_items(frame, a) for a in args[1:]]
    return run_ahead(frame.ctx, _ahead_of_consumer(frame, "map", lambda: [_call(frame, args[0], list(row))
                                                                     for row in zip(*columns)]), "map()", args)


@builtin(filter)
def _filter(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    pred, items = args[0], _items(frame, args[1])
    test = (lambda v: _truth(frame, v)) if pred.is_constant() and pred.as_constant() is None else \
        (lambda v: _truth(frame, _call(frame, pred, [v])))
    return run_ahead(frame.ctx, _ahead_of_consumer(frame, "filter", lambda: [v for v in items if test(v)]),
                     "filter()", args)


def _keys(frame: "Frame", items: list[Var], key: Var | None) -> list[Var]:
    if key is None or key.is_constant() and key.as_constant() is None:
        return items
    return [_call(frame, key, [v]) for v in items]


@builtin(sorted)
def _sorted(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    if len(args) != 1 or set(kwargs) - {"key", "reverse"}:
        raise unsupported(BreakCategory.EXCEPTION, "sorted() takes one iterable and key=/reverse= keywords")
    return sorted_list(frame, args[0], kwargs)


@HOOKS.provide
def sorted_list(frame: "Frame", iterable: Var, kwargs: dict[str, Var]) -> Var:
    """sorted(iterable, **kwargs) (key=, reverse=) as a ListVar of the same item Vars, in Python's order."""
    items = _items(frame, iterable)
    keys = _keys(frame, items, kwargs.get("key"))
    if not all(k.is_constant() for k in keys):
        raise unsupported(BreakCategory.DATA_DEPENDENT, "sorted() compares values that are not capture-time constants")
    reverse = kwargs["reverse"].as_constant() if "reverse" in kwargs else False
    values = [k.as_constant() for k in keys]
    order = fold(frame, sorted, range(len(items)), key=values.__getitem__, reverse=reverse).as_constant()
    return ListVar([items[i] for i in order])


@builtin(min, max)
def _minmax(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    """Python's algorithm: keep the first extreme, replace it when `item > best` (max) or `item < best`."""
    if set(kwargs) - {"key", "default"}:
        raise unsupported(BreakCategory.EXCEPTION, f"{fn.__name__}() got an unexpected keyword")
    items = _items(frame, args[0]) if len(args) == 1 else list(args)
    if not items:
        if "default" in kwargs:
            return kwargs["default"]
        raise unsupported(BreakCategory.EXCEPTION, f"{fn.__name__}() of an empty sequence")
    keys = _keys(frame, items, kwargs.get("key"))
    sym = ">" if fn is max else "<"
    if "key" not in kwargs and _numpy_scalars(frame, items):
        # As selects in the graph (`best = where(item > best, item, best)` per item) this was exact but cost
        # 2.5x (2 items) to 23x (64) of Python's own loop over NumPy scalars: a break is cheaper.
        raise unsupported(BreakCategory.DATA_DEPENDENT, f"{fn.__name__}() over NumPy scalars the graph computes "
                          f"compares them one by one (data-dependent); np.{fn.__name__}(...) is one op (it differs "
                          "where a NaN is present: NumPy propagates it)")
    best = 0
    for i in range(1, len(items)):
        if binary_op(frame, sym, keys[i], keys[best]).as_bool(frame):
            best = i
    return items[best]


def _numpy_scalars(frame: "Frame", items: list[Var]) -> bool:
    """NumPy scalars the graph computes (`max(row)` over an array's elements): comparing them decides on data."""
    return len(items) > 1 and all(type(i) is ArrayVar and i.spec.scalar and i.known(frame) is None for i in items)


@builtin(any, all)
def _anyall(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    """Short-circuits like Python: items after the deciding one are never asked for their truth."""
    stop_at = fn is any
    for item in _items(frame, args[0]):
        if _truth(frame, item) is stop_at:
            return ConstVar(stop_at)
    return ConstVar(not stop_at)


@builtin(callable)
def _callable(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    if args[0].is_constant():
        return ConstVar(callable(args[0].as_constant()))
    t = args[0].python_type()
    return ConstVar(any("__call__" in vars(c) for c in t.__mro__))


@builtin(hasattr)
def _hasattr(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    obj, name = args[0], args[1].as_constant()
    if obj.is_constant():
        return fold(frame, hasattr, obj.as_constant(), name)
    has = getattr(obj, "has_attribute", None)
    if has is not None:
        return ConstVar(has(frame, name))
    t = obj.python_type()
    if t in _FIXED_TYPES:          # no instance attributes: the type answers
        return ConstVar(hasattr(t, name))
    raise unsupported(BreakCategory.UNSUPPORTED, f"hasattr() on {obj.describe()}")


@builtin(getattr)
def _getattr(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    obj, name = args[0], args[1].as_constant()
    if len(args) == 3 and not _hasattr(frame, hasattr, args[:2], {}).as_constant():
        return args[2]
    return obj.getattr(frame, name)


@builtin(pow)
def _pow(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    if len(args) != 2 or kwargs:
        raise unsupported(BreakCategory.UNSUPPORTED, "pow() with a modulus on non-constants")
    return binary_op(frame, "**", args[0], args[1])


# ---- operator, functools, itertools ---------------------------------------------------------------------

@builtin(*_BINARY)
def _operator_binary(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    return binary_op(frame, _BINARY[fn], args[0], args[1])


@builtin(*_UNARY)
def _operator_unary(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    return unary_op(frame, _UNARY[fn], args[0])


@builtin(*PURE_STDLIB)
def _pure(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    if fn is operator.getitem and len(args) == 2:
        return args[0].getitem(frame, args[1])
    if not all_constant(args, kwargs):
        raise unsupported(BreakCategory.DATA_DEPENDENT, f"{fn.__name__}() of {args[0].describe() if args else '?'} "
                          "needs its value")
    return fold(frame, fn, *[a.as_constant() for a in args], **{k: v.as_constant() for k, v in kwargs.items()})


@builtin(functools.reduce)
def _reduce(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    items = _items(frame, args[1])
    if len(args) > 2:
        items = [args[2], *items]
    if not items:
        raise unsupported(BreakCategory.EXCEPTION, "reduce() of empty iterable with no initial value")
    acc = items[0]
    for item in items[1:]:
        acc = _call(frame, args[0], [acc, item])
    return acc


@builtin(itertools.chain)
def _chain(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    return run_ahead(frame.ctx, [v for a in args for v in _items(frame, a)], "itertools.chain()", args)


@builtin(itertools.chain.from_iterable)
def _chain_from(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    return run_ahead(frame.ctx, [v for a in _items(frame, args[0]) for v in _items(frame, a)], "itertools.chain()", args)


@builtin(itertools.product)
def _product(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    repeat = kwargs["repeat"].as_constant() if "repeat" in kwargs else 1
    pools = [_items(frame, a) for a in args] * repeat
    return run_ahead(frame.ctx, [TupleVar(list(row)) for row in itertools.product(*pools)], "itertools.product()", args)


@builtin(itertools.combinations, itertools.combinations_with_replacement, itertools.permutations)
def _combinatoric(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    """Tuples of the items themselves (arrays stay graph values); the count r must be a constant."""
    r = args[1] if len(args) > 1 else kwargs.get("r", ConstVar(None))
    if len(args) + len(kwargs) > 2 or not args or not r.is_constant():
        raise unsupported(BreakCategory.UNSUPPORTED, f"{fn.__name__}() with these arguments")
    items = _items(frame, args[0])
    rows = fold(frame, lambda: list(fn(range(len(items)), r.as_constant())))
    return run_ahead(frame.ctx, [TupleVar([items[i] for i in row]) for row in rows.as_constant()],
                     f"itertools.{fn.__name__}()", args)


@builtin(itertools.accumulate)
def _accumulate(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    func = args[1] if len(args) > 1 else kwargs.get("func")
    items = _items(frame, args[0])
    if "initial" in kwargs and not (kwargs["initial"].is_constant() and kwargs["initial"].as_constant() is None):
        items = [kwargs["initial"], *items]
    step = (lambda a, b: binary_op(frame, "+", a, b)) if func is None or func.is_constant() and \
        func.as_constant() is None else (lambda a, b: _call(frame, func, [a, b]))

    def run() -> list[Var]:
        out = items[:1]
        for item in items[1:]:
            out.append(step(out[-1], item))
        return out
    return run_ahead(frame.ctx, _ahead_of_consumer(frame, "accumulate", run), "accumulate()", args)


@builtin(itertools.islice)
def _islice(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    it = args[0].make_iterator(frame)
    if it is args[0]:       # an iterator the caller may keep reading: how far islice consumed it matters
        raise unsupported(BreakCategory.UNSUPPORTED, "islice() of an iterator (not of a container)")
    items = it.iterate(frame)
    return run_ahead(frame.ctx, list(itertools.islice(items, *[a.as_constant() for a in args[1:]])), "islice()", args)


assert all(fn in BUILTINS for fn in (map, filter, functools.reduce, itertools.islice))
