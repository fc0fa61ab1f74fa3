"""Python builtins during capture: folded on constants, unrolled over containers, recorded as graph ops on
arrays where Python would call a NumPy operator (abs(x), sum(list_of_arrays)). Imports variables.*.

`BUILTINS` maps each supported builtin to a small function `(frame, args, kwargs) -> Var`; a builtin not
in the table (print, input, open, id, ...) is a call capture cannot make, hence a graph break.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from ... import guards as G
from .. import break_codes as codes
from ..breaks import BreakCategory
from ..sources import AttrSource, NamespaceSource
from .base import MethodVar, Var, unsupported
from .const import ConstVar, all_constant, fold
from .containers import DictVar, ListIteratorVar, ListVar, TupleVar, slice_of
from .lazy_iterators import (ArrayIteratorVar, EnumerateIteratorVar, ReversedListIteratorVar, ZipIteratorVar, has_items,
                             reads_when_stepped)
from .array import ArrayVar
from .numpy_ns import python_number_node
from .operators import binary_op, unary_op
from .strings import format_value
from .sym_range import symbolic_range

if TYPE_CHECKING:
    from ..frame import Frame

Impl = Callable[["Frame", Any, list[Var], dict[str, Var]], Var]
BUILTINS: dict[Any, Impl] = {}

# Folded when every argument is a constant; otherwise handled by the table entry or a break.
_PURE = {abs, min, max, round, divmod, pow, int, float, complex, bool, str, len, sorted, any, all, sum, repr,
         hash, ord, chr, hex, bin, oct, isinstance, issubclass, range, slice, tuple, list, dict, type, format}


def builtin(*fns: Any) -> Callable[[Impl], Impl]:
    def deco(impl: Impl) -> Impl:
        for fn in fns:
            BUILTINS[fn] = impl
        return impl
    return deco


class BuiltinVar(Var):
    """A builtin function such as len or range."""

    def __init__(self, fn: Any, source=None) -> None:
        self.fn, self.source = fn, source

    def describe(self) -> str:
        return f"builtin {self.fn.__name__}"

    def is_constant(self) -> bool:
        return True

    def as_constant(self) -> Any:
        return self.fn

    def call(self, frame: "Frame", args: list[Var], kwargs: dict[str, Var]) -> Var:
        # len() of a list from before the call is a symbolic int (_len): folding it would read every item.
        symbolic_len = self.fn is len and len(args) == 1 and hasattr(args[0], "len_var")
        if self.fn is range and not kwargs:     # range(n) over a symbolic n keeps n symbolic (sym_range.py)
            rng = symbolic_range(args)
            if rng is not None:
                return rng
        if self.fn in _PURE and not symbolic_len and all_constant(args, kwargs) and self.fn not in (tuple, list, dict):
            return fold(frame, self.fn, *[a.as_constant() for a in args],
                        **{k: v.as_constant() for k, v in kwargs.items()})
        impl = BUILTINS.get(self.fn)
        if impl is None:
            raise unsupported(codes.BUILTIN_CALL, f"call to builtin {self.fn.__name__}() is not captured")
        return impl(frame, self.fn, args, kwargs)

    def getattr(self, frame: "Frame", name: str) -> Var:
        attr = getattr(self.fn, name, None)      # itertools.chain.from_iterable: a builtin type's own helper
        if isinstance(self.fn, type) and attr is not None and _is_registered(attr):
            return BuiltinVar(attr)
        return super().getattr(frame, name)

    def reconstruct(self, out: Any) -> str:
        return out.constant(self.fn)


def builtin_var(ctx: Any, name: str, value: Any, globals_key: str, builtins_key: str) -> Any:
    """A builtin read through LOAD_GLOBAL (the frame's BuiltinScope found it, builtin_scope.py): guarded as CPython resolves the name, the global first, then
    the frame's own builtins (`'len' in G` is False and `B['len'] is len`: a global of that name, even None,
    or a replaced builtin fails it). Any other value
    found there (a custom builtins dict's function) is read through that lookup and guarded as usual."""
    if value is None:   # `is None` would also hold with the name missing from both: NameError
        raise unsupported(BreakCategory.UNSUPPORTED, f"builtin {name!r} is None")
    try:
        known = value in BUILTINS or value is print
    except TypeError:   # unhashable
        known = False
    if known or isinstance(value, type):
        # The same test as `lookup is value` but cheaper (no method calls, ~15-25 ns per builtin a call
        # checks): no global of that name, and the builtins hold it. (A global bound to that very object
        # fails it where the lookup would hold: a miss, and the next capture reads it as that global.)
        ctx.guard([G.Guard(f"{name!r} in {globals_key}", G.GuardKind.EQUALS, False, f"a global {name!r}"),
                   G.Guard(f"{builtins_key}[{name!r}]", G.GuardKind.ID, value, f"builtin {name}")])
        return BuiltinVar(value) if known else ConstVar(value)
    lookup = f"{globals_key}.get({name!r}, {builtins_key}.get({name!r}))"     # as LOAD_GLOBAL finds it
    return ctx.wrap(value, NamespaceSource(lookup, f"builtin {name}"))   # guarded as any value read


def container_method(ctx: Any, value: Any, source: Any) -> Var:
    """A list's or dict's bound method from before the call (`out.append` loaded before a break inside its
    argument, then handed to the resume function on its stack): that container's method, so the call is a
    mutation capture replays instead of a call it cannot make. Guarded by the method's type and name (the
    container by its own guards, through `__self__`)."""
    from ...guards import Guard, GuardKind
    expr, desc = source.expr(), source.describe()
    ctx.guard([Guard(expr, GuardKind.TYPE, type(value), desc),
               Guard(f"{expr}.__name__", GuardKind.EQUALS, value.__name__, f"{desc}.__name__")])
    return MethodVar(ctx.wrap(value.__self__, AttrSource(source, "__self__")), value.__name__)


def _is_registered(fn: Any) -> bool:
    try:
        return fn in BUILTINS
    except TypeError:       # unhashable
        return False


def _no_kwargs(name: str, kwargs: dict) -> None:
    if kwargs:
        raise unsupported(BreakCategory.UNSUPPORTED, f"{name}() with keyword arguments")


@builtin(len)
def _len(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    _no_kwargs("len", kwargs)
    if isinstance(args[0], ArrayVar) and args[0].spec.ndim > 0:
        return args[0].dim(frame, 0)       # a symbolic int when the first size is symbolic
    if hasattr(args[0], "len_var"):
        return args[0].len_var(frame)      # a list from before the call: its length is a symbolic int
    return ConstVar(args[0].length(frame))


@builtin(isinstance)
def _isinstance(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    classes = args[1].as_constant()
    return ConstVar(issubclass(args[0].python_type(), classes))


@builtin(type)
def _type(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    if len(args) != 1:
        raise unsupported(BreakCategory.UNSUPPORTED, "type() with 3 arguments")
    return ConstVar(args[0].python_type())


@builtin(tuple, list)
def _sequence(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    _no_kwargs("tuple/list", kwargs)
    items = args[0].iterate(frame) if args else []
    return TupleVar(items) if fn is tuple else ListVar(items)


@builtin(dict)
def _dict(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    items: dict[Any, Var] = {}
    if args:
        src = args[0]
        if isinstance(src, DictVar):
            items.update(src.items)
        else:
            for pair in src.iterate(frame):
                k, v = pair.iterate(frame)
                items[k.as_constant()] = v
    items.update(kwargs)
    return DictVar(items)


@builtin(zip)
def _zip(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    _no_kwargs("zip", kwargs)
    if any(reads_when_stepped(a) for a in args):
        return ZipIteratorVar([a.make_iterator(frame) for a in args])
    columns = [a.iterate(frame) for a in args]
    return ListIteratorVar([TupleVar(list(row)) for row in zip(*columns)])


@builtin(enumerate)
def _enumerate(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    start = (args[1] if len(args) > 1 else kwargs.get("start", ConstVar(0))).as_constant()
    if reads_when_stepped(args[0]):
        return EnumerateIteratorVar(args[0].make_iterator(frame), start)
    return ListIteratorVar([TupleVar([ConstVar(i + start), v]) for i, v in enumerate(args[0].iterate(frame))])


@builtin(reversed)
def _reversed(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    if has_items(args[0]):
        return ArrayIteratorVar(frame, args[0], reverse=True)
    if isinstance(args[0], ListVar):        # read as it steps: the loop may write the items still to come
        return ReversedListIteratorVar(args[0])
    return ListIteratorVar(list(reversed(args[0].iterate(frame))))


@builtin(iter)
def _iter(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    if len(args) != 1:
        raise unsupported(BreakCategory.UNSUPPORTED, "iter() with a sentinel")
    return args[0].make_iterator(frame)


@builtin(next)
def _next(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    it = args[0]
    if not isinstance(it, ListIteratorVar):
        raise unsupported(BreakCategory.UNSUPPORTED, f"next() on {it.describe()}")
    item = it.next_item()
    if item is None:
        if len(args) > 1:
            return args[1]
        raise unsupported(BreakCategory.EXCEPTION, "next() raised StopIteration")
    return item


@builtin(slice)
def _slice(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    """slice(stop) / slice(start, stop[, step]) with a non-constant bound: what BUILD_SLICE makes."""
    if kwargs or not 1 <= len(args) <= 3:
        raise unsupported(BreakCategory.EXCEPTION, "slice() with these arguments raises TypeError")
    none = ConstVar(None)
    parts = [none, args[0], none] if len(args) == 1 else [*args, none][:3]
    return slice_of(*parts)


@builtin(range)
def _range(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    raise unsupported(BreakCategory.DATA_DEPENDENT,
                      "range() bound is not a Python constant (it comes from array values)")


@builtin(format, str, repr)
def _format(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    """The text of an array or number: made in the compiled entry when needed (variables/strings.py)."""
    if kwargs or not 1 <= len(args) <= (2 if fn is format else 1):
        raise unsupported(BreakCategory.CALL, f"{fn.__name__}() with these arguments is not captured")
    if fn is format:
        return format_value(frame, args[0], None, args[1] if len(args) > 1 else ConstVar(""))
    return format_value(frame, args[0], fn.__name__, ConstVar(""))


@builtin(abs)
def _abs(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    return unary_op(frame, "abs", args[0])


@builtin(sum)
def _sum(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    total: Var = args[1] if len(args) > 1 else kwargs.get("start", ConstVar(0))
    for item in args[0].iterate(frame):
        total = binary_op(frame, "+", total, item)
    return total


@builtin(float, int, bool, complex)
def _convert(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var:
    known = args[0].known(frame) if len(args) == 1 and not kwargs and isinstance(args[0], ArrayVar) else None
    if known is not None:
        return fold(frame, fn, known)
    number = python_number_node(frame, fn, args[0]) if len(args) == 1 and not kwargs else None
    if number is not None:      # `sum(int(x == y) for ...)`: a Python number the graph returns
        return number
    raise unsupported(codes.ARRAY_TO_PYTHON, f"{args[0].describe() if args else 'value'} converted to a Python number")
