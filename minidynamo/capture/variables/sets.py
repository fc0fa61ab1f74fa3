"""Sets made during capture (a display `{a, b}`, `set(...)`, a set comprehension, `a | b`, `s.copy()`) whose
items are constants: membership, len, truth, iteration, comparisons, and the mutations add/discard/remove/
pop/clear/update and `|=`, `&=`, `-=`, `^=`.
Imports variables.base/const/containers; registers `set` into builtins.BUILTINS (context.py imports this).

Iteration order is CPython's own: capture keeps a real set built by the same operations in the same order
as eager (one process, so the same hashes) and iterates that set. A set leaving the capture (returned,
stored, handed to a resume function) is rebuilt by the entry by replaying those operations from an empty
set (`rebuild_set`), which gives the same table and so the same order; a copy could not (`set.copy()` and
`set(s)` re-insert into a table of another size). Items must be hashable constants of builtin types (their
values are guarded where they came from); anything else, and sets from before the call, break.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

from ... import guards as G
from ..breaks import BreakCategory
from .base import Var, unsupported
from .builtins import builtin
from .const import ConstVar
from .containers import ListIteratorVar, iter_at, wrap_constant
from .hooks import HOOKS

if TYPE_CHECKING:
    from ..frame import Frame

_ITEM_TYPES = (int, float, complex, str, bytes, bool, type(None), tuple, frozenset)
_BINARY = {"|": operator.or_, "&": operator.and_, "-": operator.sub, "^": operator.xor}
_INPLACE = {"|=": operator.ior, "&=": operator.iand, "-=": operator.isub, "^=": operator.ixor}
_MUTATORS = {"add", "discard", "remove", "pop", "clear", "update", "intersection_update", "difference_update",
             "symmetric_difference_update"}
_COMPARE = {"==": operator.eq, "!=": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt,
            ">=": operator.ge}


def _item(var: Var) -> Any:
    if not var.is_constant():
        raise unsupported(BreakCategory.UNSUPPORTED, f"set item {var.describe()} is not a constant")
    value = var.as_constant()
    if not _is_plain_constant(value):
        raise unsupported(BreakCategory.UNSUPPORTED, f"set item of type {type(value).__name__} is not modelled")
    return value


def _is_plain_constant(value: Any) -> bool:
    if type(value) in (tuple, frozenset):
        return all(_is_plain_constant(v) for v in value)
    return type(value) in _ITEM_TYPES


def rebuild_set(recipe: tuple) -> set:
    """The set a recipe describes (SetVar.recipe): its origin, then its operations replayed in order."""
    origin, ops = recipe
    if origin[0] == "binary":
        s = _BINARY[origin[1]](_operand(origin[2]), _operand(origin[3]))
    elif origin[0] == "copy":
        s = _operand(origin[1]).copy()
    else:
        s = set()
    for op, *args in ops:
        if op == "update":
            s.update(_operand(args[0]))
        elif op == "inplace":
            s = _INPLACE[args[0]](s, _operand(args[1]))
        elif op == "pop":
            s.pop()
        else:
            getattr(s, op)(*args)
    return s


def _operand(part: tuple) -> Any:
    return rebuild_set(part[1]) if part[0] == "set" else part[1]


class SetVar(Var):
    """A set the capture made; `real` is the same set built by the same operations (see the module doc)."""

    def __init__(self, origin: tuple = ("empty",), real: set | None = None) -> None:
        self.origin = origin
        self.ops: list[tuple] = []
        self.real: set = set() if real is None else real

    def describe(self) -> str:
        return f"a set of {len(self.real)} item{'' if len(self.real) == 1 else 's'}"

    def python_type(self) -> type:
        return set

    def recipe(self) -> tuple:
        return (self.origin, tuple(self.ops))

    def as_bool(self, frame: "Frame") -> bool:
        return bool(self.real)

    def length(self, frame: "Frame") -> int:
        return len(self.real)

    def iterate(self, frame: "Frame") -> list[Var]:
        return [wrap_constant(v) for v in self.real]

    def make_iterator(self, frame: "Frame") -> Var:
        return SetIteratorVar(self)

    def contains(self, frame: "Frame", item: Var) -> Var:
        return ConstVar(_item(item) in self.real)

    def reconstruct(self, out: Any) -> str:
        return f"{out.constant(rebuild_set)}({out.constant(self.recipe())})"

    def update(self, frame: "Frame", other: Var) -> None:
        """`s.update(other)`, SET_UPDATE, `set(other)`: the same CPython path on replay (a set or frozenset
        merges its table, anything else is iterated and added one by one)."""
        part = _part(frame, other)
        self._mutate(frame, ("update", part))

    def _mutate(self, frame: "Frame", op: tuple) -> Any:
        frame.ctx.side_effects.mutated(self)     # (no source: nothing is written back; bumps the version)
        name, *args = op
        if name == "inplace":     # `s |= t` and the others change s itself (same object, same table rules)
            result = self.real = _INPLACE[args[0]](self.real, _operand(args[1]))
        else:
            result = getattr(self.real, name)(*(_operand(a) if name == "update" else a for a in args))
        self.ops.append(op)
        return result

    def call_method(self, frame: "Frame", name: str, args: list[Var], kwargs: dict[str, Var]) -> Var:
        if kwargs:
            raise unsupported(BreakCategory.CALL, f"set.{name}() with keywords")
        if name in ("add", "discard") and len(args) == 1:
            self._mutate(frame, (name, _item(args[0])))
            return ConstVar(None)
        if name == "remove" and len(args) == 1:
            if _item(args[0]) not in self.real:
                raise unsupported(BreakCategory.EXCEPTION, "set.remove() of a missing item (KeyError)")
            self._mutate(frame, ("remove", _item(args[0])))
            return ConstVar(None)
        if name == "pop" and not args:
            if not self.real:
                raise unsupported(BreakCategory.EXCEPTION, "pop from an empty set (KeyError)")
            return wrap_constant(self._mutate(frame, ("pop",)))
        if name == "clear" and not args:
            self._mutate(frame, ("clear",))
            return ConstVar(None)
        if name == "update":
            for a in args:
                self.update(frame, a)
            return ConstVar(None)
        if name == "copy" and not args:
            return SetVar(("copy", ("set", self.recipe())), self.real.copy())
        if name in ("issubset", "issuperset", "isdisjoint") and len(args) == 1:
            return ConstVar(getattr(self.real, name)(_operand(_part(frame, args[0]))))
        raise unsupported(BreakCategory.CALL, f"set.{name}() on {self.describe()}")

@HOOKS.provide
def set_operation(frame: "Frame", sym: str, a: Var, b: Var) -> Var | None:
    """`a <sym> b` when either operand is a SetVar (set_binary), else None (operators.binary_op asks)."""
    return set_binary(frame, sym, a, b) if isinstance(a, SetVar) or isinstance(b, SetVar) else None


def set_binary(frame: "Frame", sym: str, a: Var, b: Var) -> Var:
    """`a <sym> b` with a SetVar operand: a new SetVar (`|`, `&`, `-`, `^`, its left a SetVar), the left
    SetVar changed in place (`|=` ...), or a comparison of the two sets. Other mixes break (a frozenset on
    the left makes a frozenset; a non-set operand is CPython's TypeError, left to plain Python)."""
    left, right = _set_part(frame, a), _set_part(frame, b)
    if left is None or right is None:
        raise unsupported(BreakCategory.UNSUPPORTED, f"{a.describe()} {sym} {b.describe()}")
    if sym in _COMPARE:
        return ConstVar(_COMPARE[sym](_operand(left), _operand(right)))
    if not isinstance(a, SetVar) or sym not in _BINARY and sym not in _INPLACE:
        raise unsupported(BreakCategory.UNSUPPORTED, f"{a.describe()} {sym} {b.describe()}")
    if sym in _INPLACE:
        a._mutate(frame, ("inplace", sym, right))
        return a
    return SetVar(("binary", sym, left, right), _BINARY[sym](a.real, _operand(right)))


def _set_part(frame: "Frame", value: Var) -> tuple | None:
    if isinstance(value, SetVar) or value.is_constant() and isinstance(value.as_constant(), (set, frozenset)):
        return _part(frame, value)
    return None


def _part(frame: "Frame", value: Var) -> tuple:
    """An operand of a set operation as a recipe part: another SetVar (replayed), a constant set or
    frozenset (the very object: merged as a table), or other iterables' items as a tuple (added in order)."""
    if isinstance(value, SetVar):
        return ("set", value.recipe())
    if value.is_constant() and isinstance(value.as_constant(), (set, frozenset)):
        const = value.as_constant()
        if not all(_is_plain_constant(v) for v in const):
            raise unsupported(BreakCategory.UNSUPPORTED, "a set of items that are not plain constants")
        return ("const", const)
    if isinstance(value, SourcedSetVar):
        # its table is the caller's (merged as a table by CPython): not something a replay can rebuild
        raise unsupported(BreakCategory.UNSUPPORTED, "a set operation on a set from before the call")
    if value.python_type() in (dict,) or hasattr(value, "dict"):
        # CPython sizes the table for a dict's length before adding its keys: not the same as adding them
        raise unsupported(BreakCategory.UNSUPPORTED, "a set made from a dict or a dict view")
    return ("const", tuple(_item(v) for v in value.iterate(frame)))


class SetIteratorVar(ListIteratorVar):
    """`iter(s)` / `for v in s`: the set's items in its real order. Changing the set while iterating is a
    RuntimeError (or an order CPython does not promise) eagerly: a break here."""

    def __init__(self, s: SetVar) -> None:
        super().__init__(s.iterate(None))
        self.set, self.ops_at = s, len(s.ops)

    def describe(self) -> str:
        return f"a set iterator at item {self.pos}"

    def _unchanged(self) -> None:
        if len(self.set.ops) != self.ops_at:
            raise unsupported(BreakCategory.EXCEPTION, "set changed during iteration")

    def next_item(self) -> Var | None:
        self._unchanged()
        return super().next_item()

    def iterate(self, frame: "Frame") -> list[Var]:
        self._unchanged()
        return super().iterate(frame)

    def reconstruct(self, out: Any) -> str:
        self._unchanged()
        return f"{out.constant(iter_at)}({out.value(self.set)}, {self.pos})"


class SourcedSetVar(Var):
    """A set or frozenset from before the call (an argument, a global, an attribute), read through guards
    on exactly what capture reads: `k in s` (its answer), `len(s)`, truth, and for iteration `tuple(s)`,
    item by item in the set's own order. Changing it, or a set operation with it, is left to plain Python."""

    def __init__(self, value: Any, source: Any) -> None:
        self.value, self.source = value, source

    def describe(self) -> str:
        return f"{type(self.value).__name__} from {self.source.describe()}"

    def python_type(self) -> type:
        return type(self.value)

    def _len(self, frame: "Frame") -> int:
        frame.ctx.guard([G.Guard(self.source.expr(), G.GuardKind.LEN, len(self.value), self.source.describe())])
        return len(self.value)

    def length(self, frame: "Frame") -> int:
        return self._len(frame)

    def as_bool(self, frame: "Frame") -> bool:
        return bool(self._len(frame))

    def contains(self, frame: "Frame", item: Var) -> Var:
        key = _item(item)
        found = key in self.value
        expr = f"({frame.ctx.bind(key)} in {self.source.expr()})"
        frame.ctx.guard(G.guard_constant(expr, found, f"{key!r} in {self.source.describe()}"))
        return ConstVar(found)

    def iterate(self, frame: "Frame") -> list[Var]:
        items = tuple(self.value)
        if not all(_is_plain_constant(v) for v in items):
            raise unsupported(BreakCategory.UNSUPPORTED, f"iterating {self.describe()}: items are not plain constants")
        frame.ctx.guard(G.guard_constant(f"tuple({self.source.expr()})", items, f"the items of {self.source.describe()}"))
        return [wrap_constant(v) for v in items]

    def call_method(self, frame: "Frame", name: str, args: list[Var], kwargs: dict[str, Var]) -> Var:
        raise unsupported(BreakCategory.SIDE_EFFECT if name in _MUTATORS else BreakCategory.CALL,
                          f"{type(self.value).__name__}.{name}() on {self.describe()}")


@builtin(set)
def _set(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    if kwargs or len(args) > 1:
        raise unsupported(BreakCategory.UNSUPPORTED, "set() with keywords or more than one argument")
    s = SetVar()
    if args:
        s.update(frame, args[0])
    return s
