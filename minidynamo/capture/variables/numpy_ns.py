"""The NumPy namespace during capture: `np`, `np.linalg`, `np.<fn>` resolved through the op registry, and
`math` functions folded on constants. Imports graph.ops and variables.*.

NumPy and math are treated as fixed libraries: their attributes are not guarded (monkeypatching np.tanh
after a capture is not supported). A NumPy callable without a registered op is a call capture cannot
make, so it breaks the graph.
"""

from __future__ import annotations

import math
import types
from typing import TYPE_CHECKING, Any

import numpy as np

from ...graph import ops
from ...hatches import substitute_for
from .. import break_codes as codes
from ..breaks import BreakCategory
from .base import Var, unsupported
from .const import ConstVar, all_constant, fold
from .array import ArrayVar
from .concatenators import ConcatenatorVar
from .containers import ListVar, TupleVar
from .errstate import ErrstateClassVar
from .grids import GridVar
from .numpy_spec import SPEC_FUNCTIONS, SpecFunctionVar, named_result
from .rng import RngClassVar
from .scalar import ScalarVar
from .substitutes import SubstitutedVar

if TYPE_CHECKING:
    from ..frame import Frame


def wrap_library_value(value: Any, source: Any = None) -> Var:
    """A Var for an attribute of numpy or math (or a function with an op or a polyfill, read from `source`)."""
    if isinstance(value, types.ModuleType):
        return LibraryModuleVar(value)
    polyfill = substitute_for(value)
    if polyfill is not None:
        return SubstitutedVar(value, polyfill, source)
    opdef = ops.lookup_function(value)
    if opdef is not None:
        return NumpyFunctionVar(value, opdef, source)
    if id(value) in SPEC_FUNCTIONS:
        return SpecFunctionVar(value)
    if value is np.mgrid or value is np.ogrid:
        return GridVar(value)
    if value is np.r_ or value is np.c_:
        return ConcatenatorVar(value)
    if value is np.errstate:
        return ErrstateClassVar()
    if value is np.random.RandomState:
        return RngClassVar()
    if isinstance(value, (int, float, complex, bool, str, np.dtype, type)) or value is None:
        return ConstVar(value)
    if isinstance(value, np.generic):
        return ConstVar(value)
    if callable(value) and getattr(value, "__module__", None) == "math":
        return MathFunctionVar(value)
    if isinstance(value, types.BuiltinFunctionType) and getattr(math, value.__name__, None) is value:
        return MathFunctionVar(value)
    return OpaqueLibraryVar(value)


class LibraryModuleVar(Var):
    """numpy, numpy.linalg, math."""

    def __init__(self, module: types.ModuleType, source=None) -> None:
        self.module, self.source = module, source

    def describe(self) -> str:
        return f"module {self.module.__name__}"

    def is_constant(self) -> bool:
        return True

    def as_constant(self) -> Any:
        return self.module

    def python_type(self) -> type:
        return types.ModuleType

    def getattr(self, frame: "Frame", name: str) -> Var:
        try:
            value = getattr(self.module, name)
        except AttributeError:
            raise unsupported(BreakCategory.EXCEPTION, f"module {self.module.__name__} has no attribute {name!r}") from None
        return wrap_library_value(value)

    def reconstruct(self, out: Any) -> str:
        return out.constant(self.module)


class NumpyFunctionVar(Var):
    """A public callable with a registered op (np.tanh, np.linalg.inv, F.tanh)."""

    def __init__(self, fn: Any, opdef: ops.OpDef, source=None) -> None:
        self.fn, self.opdef, self.source = fn, opdef, source

    def describe(self) -> str:
        return f"function {getattr(self.fn, '__name__', self.opdef.name)}"

    def is_constant(self) -> bool:
        return True

    def as_constant(self) -> Any:
        return self.fn

    def call(self, frame: "Frame", args: list[Var], kwargs: dict[str, Var]) -> Var:
        if not (self.opdef.random or self.opdef.mutates or self.opdef.user):    # (a user's fn runs in the graph only)
            folded = fold_on_constants(frame, self.fn, args, kwargs)
            if folded is not None:
                return folded
        if self.opdef.checks and "err_msg" in kwargs and not kwargs["err_msg"].is_constant():
            # a failing assertion re-runs the function eagerly, which formats the message itself
            kwargs = {**kwargs, "err_msg": ConstVar("")}
        # (np.array(list, copy=False) raises where an array would pass: conversions take dtype= only)
        stacked = None if self.opdef.name in _CONVERSIONS and set(kwargs) - {"dtype"} else \
            _stacked_sequence(frame, self.opdef, args)
        if stacked is not None:
            if self.opdef.name in _CONVERSIONS and len(args) == 1 and not kwargs:
                return stacked          # np.array(list) is the fresh array np.stack made
            args = [stacked, *args[1:]]
        return named_result(frame.ctx.record(self.opdef, args, kwargs, target=self.fn))

    def getattr(self, frame: "Frame", name: str) -> Var:
        """Ufunc methods (np.add.outer) resolve to their ops; plain attributes (np.add.nin) are constants."""
        method = ops.ufunc_method(self.fn, name)
        if method is not None:
            return NumpyFunctionVar(getattr(self.fn, name), method)
        try:
            value = getattr(self.fn, name)
        except AttributeError as e:     # raised by plain Python, where eager raises it
            raise unsupported(BreakCategory.EXCEPTION, f"AttributeError: {e}") from None
        if isinstance(value, (int, float, str, bool, type(None))):
            return ConstVar(value)
        raise unsupported(BreakCategory.UNSUPPORTED, f"attribute {name!r} of {self.describe()}")

    def reconstruct(self, out: Any) -> str:
        return self.source.expr() if self.source is not None else out.constant(self.fn)


def construct_ndarray(frame: "Frame", args: list[Var], kwargs: dict[str, Var]) -> Var:
    """`np.ndarray(shape, dtype)` (NPBench's nbody allocates its result arrays so) is `np.empty(shape, dtype)`:
    a new C-ordered uninitialized array of exactly type ndarray either way. One over a buffer, with strides or
    an offset is a view of memory the graph does not model: the call breaks."""
    order = kwargs.get("order")
    if order is not None and order.is_constant() and order.as_constant() is None:
        kwargs = {k: a for k, a in kwargs.items() if k != "order"}      # np.ndarray's default, np.empty's 'C'
    if len(args) > 2 or set(kwargs) - {"dtype", "order"} or "dtype" in kwargs and len(args) > 1:
        raise unsupported(BreakCategory.CALL, "calling numpy.ndarray over a buffer, with strides or an offset")
    return NumpyFunctionVar(np.empty, ops.REGISTRY["empty"]).call(frame, args, kwargs)


_CONVERSIONS = ("array", "asarray", "asanyarray")
# Ops that convert their first argument with np.asarray / np.asanyarray before anything else.
_READ_AS_ARRAY = {*_CONVERSIONS, "sum", "prod", "mean", "max", "min", "argmax", "argmin", "std", "var", "any",
                  "all", "cumsum", "cumprod", "median", "argsort", "sort"}


def _stacked_sequence(frame: "Frame", opdef: ops.OpDef, args: list[Var]) -> Var | None:
    """A list or tuple of graph arrays of one static shape and dtype (or of Python floats the graph computes),
    where NumPy converts it to an array (`np.mean(batch_losses)`, `np.array(rows)`): the same array as np.stack
    of its items, recorded as that. Nested lists (`np.array([[q.mean() for q in row] for row in grid])`) are
    stacked level by level, each level's parts again of one static shape and dtype."""
    if opdef.name not in _READ_AS_ARRAY or not args or not isinstance(args[0], (ListVar, TupleVar)):
        return None
    return _stacked(frame, args[0], depth=0)


def _stacked(frame: "Frame", seq: Var, depth: int) -> Var | None:
    items = seq.iterate(frame)
    if items and all(isinstance(i, ScalarVar) and type(i.value) is float for i in items):
        return frame.ctx.record(ops.REGISTRY["stack"], [TupleVar(list(items))], {}, target=np.stack)
    if items and depth < 8 and all(type(i) in (ListVar, TupleVar) for i in items):
        parts = [_stacked(frame, i, depth + 1) for i in items]
        if any(p is None for p in parts):
            return None
        items = parts
    if not items or any(type(i) is not ArrayVar for i in items):
        return None
    shape, dtype = items[0].spec.shape, items[0].spec.dtype
    if any(not all(type(d) is int for d in i.spec.shape) or i.spec.shape != shape or i.spec.dtype != dtype
           for i in items):      # (symbolic sizes are never compared here: that would decide on them)
        return None
    return frame.ctx.record(ops.REGISTRY["stack"], [TupleVar(list(items))], {}, target=np.stack)


class MathFunctionVar(Var):
    """math.sqrt & co: folded on constants (the lecture's math.sqrt(2 / math.pi))."""

    def __init__(self, fn: Any) -> None:
        self.fn = fn

    def describe(self) -> str:
        return f"math.{self.fn.__name__}"

    def call(self, frame: "Frame", args: list[Var], kwargs: dict[str, Var]) -> Var:
        if all_constant(args, kwargs):
            return fold(frame, self.fn, *[a.as_constant() for a in args])
        if self.fn in _FLOAT_MATH and not kwargs and all(map(_real_number, args)):
            return _float_math_node(frame, self.fn, args)
        raise unsupported(BreakCategory.DATA_DEPENDENT, f"math.{self.fn.__name__}() of {args[0].describe()} needs its value")

    def reconstruct(self, out: Any) -> str:
        return out.constant(self.fn)


# math functions that return a float for real arguments (a NumPy scalar converts through __float__)
_FLOAT_MATH = {getattr(math, n) for n in (
    "sqrt", "exp", "log", "log2", "log10", "log1p", "expm1", "pow", "sin", "cos", "tan", "asin", "acos", "atan",
    "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "erfc", "gamma", "lgamma", "hypot",
    "fabs", "copysign", "degrees", "radians")}
_STAND_IN = 0.5      # the capture-time value of a float known only at run time (never a constant: no guard)


def _real_number(v: Var) -> bool:
    """A real number math converts exactly as eagerly: a 0-d graph value of a real dtype (not a dask value),
    an unspecialized Python number, or a real constant."""
    if type(v) is ArrayVar:
        return v.spec.ndim == 0 and v.spec.dtype.kind in "biuf"
    if isinstance(v, ScalarVar):
        return True
    return v.is_constant() and type(v.as_constant()) in (int, float, bool)


def _float_math_node(frame: "Frame", fn: Any, args: list[Var], name: str | None = None,
                     result: type = float) -> Var:
    """`math.sqrt(distance)` of a graph value: a node returning the Python float math returns, known only at
    run time (a branch on it breaks). math's ValueError / OverflowError is raised by the graph, which then
    re-runs the function eagerly, so eager's exception and handler follow. `int(x == y)` / `float(loss)`
    of a 0-d graph value are such nodes too (builtins._convert), of type `result`."""
    from ...graph.ir import PyScalarSpec
    stand_in = result(_STAND_IN) if result is float else 1
    node = frame.ctx.graph.call(name or f"math.{fn.__name__}", fn, tuple(frame.ctx.to_arg(a) for a in args), {},
                                spec=PyScalarSpec(result))
    node.meta["value"] = stand_in
    frame.ctx.note_in_try(node)
    return ScalarVar.runtime(node, stand_in, f"`{name or 'math.' + fn.__name__}()` of an array value")


def python_number_node(frame: "Frame", fn: Any, arg: Var) -> Var | None:
    """int(x) / float(x) of a 0-d real graph value or a number known only at run time: the Python number the
    builtin returns, computed by the graph (None when `arg` is not such a value)."""
    if fn not in (int, float) or not _real_number(arg) or arg.is_constant():
        return None
    return _float_math_node(frame, fn, [arg], name=fn.__name__, result=fn)


# NumPy helpers without a graph op that are pure functions of constant arguments (dtype and shape logic).
_PURE_HELPERS = {"finfo", "iinfo", "result_type", "promote_types", "can_cast", "issubdtype", "min_scalar_type",
                 "broadcast_shapes", "isscalar", "ndim", "shape", "size", "dtype"}
# What a folded call may return: values a ConstVar holds (never an array: the graph would share one
# mutable object between calls).
_FOLDABLE_RESULTS = (int, float, complex, bool, str, type(None), np.generic, np.dtype, np.finfo, np.iinfo, type)


def fold_on_constants(frame: "Frame", fn: Any, args: list[Var], kwargs: dict[str, Var]) -> Var | None:
    """`fn(*args)` evaluated now when every argument is a capture-time constant (shape ints included:
    `np.ceil(H / 2)`, `np.prod(x.shape)`, `np.sqrt(d)`) and the result is a scalar, dtype or a tuple of
    them; None otherwise (the caller records a graph op). The arguments were guarded when their values were
    read, so the folded result is guarded like any constant; `int()`/`range()` of it then fold too."""
    if not all_constant(args, kwargs):
        return None
    # Unspecialized scalars (symbolic sizes, counters) are only pinned, with their guards, once the call
    # is known to fold: `np.zeros((n, 3))` stays a graph op over a symbolic n.
    values = [_peek(a) for a in args]
    kw = {k: _peek(v) for k, v in kwargs.items()}
    if any(isinstance(v, np.ndarray) for v in (*values, *kw.values())):
        return None
    try:
        with np.errstate(all="raise"):       # a warning eagerly (overflow, divide by zero): leave it to NumPy
            result = fn(*values, **kw)
    except Exception:
        return None
    flat = result if type(result) is tuple else (result,)
    if not all(isinstance(v, _FOLDABLE_RESULTS) for v in flat):
        return None
    for v in (*args, *kwargs.values()):
        v.as_constant()
    return fold(frame, lambda: result)


def _peek(var: Var) -> Any:
    """A constant's value; an unspecialized scalar's capture-time value without its guard (also nested)."""
    if isinstance(var, ScalarVar):
        return var.value
    if isinstance(var, (TupleVar, ListVar)):
        items = [_peek(i) for i in var.items]
        return items if isinstance(var, ListVar) else tuple(items)
    return var.as_constant()


class OpaqueLibraryVar(Var):
    """A NumPy object capture does not model (np.random.default_rng, np.errstate, ...)."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def describe(self) -> str:
        return f"{type(self.value).__name__} {getattr(self.value, '__name__', '')}".strip()

    def call(self, frame: "Frame", args: list[Var], kwargs: dict[str, Var]) -> Var:
        if getattr(self.value, "__name__", None) in _PURE_HELPERS and getattr(np, self.value.__name__) is self.value:
            folded = fold_on_constants(frame, self.value, args, kwargs)
            if folded is not None:
                return folded
        name = getattr(self.value, "__qualname__", getattr(self.value, "__name__", repr(self.value)))
        if id(self.value) in ops.DATA_DEPENDENT_FUNCTIONS:
            raise unsupported(codes.VALUE_SHAPE, f"np.{name}: its output shape depends on the values")
        raise unsupported(codes.NUMPY_NO_OP, f"numpy function {name} has no registered op")

    def reconstruct(self, out: Any) -> str:
        return out.constant(self.value)     # a library object: the same object, bound by identity
