"""Shape and dtype rules, core part: broadcasting, axes, probes, ufuncs and the Python operators.

Imports numpy and graph.ir only. Every rule works on ArraySpecs and Python values, never on data, so its cost
does not grow with array size. Shapes are always computed here explicitly; dtypes (and NumPy's value checks
on weak Python scalars, NEP 50) come from running the real NumPy callable on a *probe*: an array of at most
one element with the operand's dtype. A rule raises MetaError where NumPy would raise.
The other rule families live in meta_reduce, meta_shape, meta_create, meta_index and meta_linalg.
"""

from __future__ import annotations

import operator
import warnings
from typing import Any, Callable

import numpy as np

from .ir import ArraySpec
from .symbolic import Sym, has_symbols, same_size

PYTHON_SCALARS = (bool, int, float, complex)


class MetaError(ValueError):
    """The op would fail in NumPy for these argument specs."""


class MetaUnsupported(MetaError):
    """The rule does not model these arguments (a keyword, an operand kind, a mode): a limitation of capture,
    not an error NumPy would raise, so the break reads as unsupported, never as the program's exception."""


class DataDependentShape(MetaError):
    """The result's shape depends on array values (a boolean mask's count, nonzero): not a NumPy error, a
    graph break of the data-dependent kind."""


class _NoValue:
    """Stands for 'argument not given' where None is a meaningful value (np.clip's bounds, initial=)."""

    def __repr__(self) -> str:
        return "<no value>"


NOVALUE: Any = _NoValue()


# ---- small helpers shared by every rule family -----------------------------------------------------

def broadcast(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    if any(has_symbols(s) for s in shapes):
        return _broadcast_symbolic(shapes)
    first = shapes[0] if shapes else None
    if type(first) is tuple and all(type(s) is tuple and s == first for s in shapes) and \
            all(type(d) is int and d >= 0 for d in first):
        return shapes[0]        # (what np.broadcast_shapes gives for equal shapes, without its cost)
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise MetaError("operands could not be broadcast together with shapes "
                        + " ".join(str(tuple(s)) for s in shapes)) from None


def _broadcast_symbolic(shapes: tuple[tuple, ...]) -> tuple:
    """NumPy's rule, one axis at a time from the right. Every comparison of a symbol is guarded by the
    shape env (a size symbol is >= 2, so `s0 == 1` is decided without a guard; two symbols are guarded
    equal, `s0 - 1` is guarded != 1)."""
    ndim = max(len(s) for s in shapes)
    out: list = []
    for k in range(1, ndim + 1):
        dims = [s[-k] for s in shapes if len(s) >= k]
        if all(same_size(d, dims[0]) for d in dims):     # identical sizes broadcast to themselves: no guard
            out.append(dims[0])
            continue
        dim: Any = 1
        for s in shapes:
            if len(s) < k or s[-k] == 1:
                continue
            if isinstance(dim, int) and dim == 1:
                dim = s[-k]
            elif s[-k] != dim:
                raise MetaError("operands could not be broadcast together with shapes "
                                + " ".join(str(tuple(s)) for s in shapes))
        out.append(dim)
    return tuple(reversed(out))


def is_spec(value: Any) -> bool:
    return isinstance(value, ArraySpec)


def as_spec(value: Any, what: str = "operand") -> ArraySpec:
    """An ArraySpec for an array-like argument; Python scalars become 0-d arrays of NumPy's default dtype
    (what np.asarray does: these are strong, unlike a ufunc's weak Python-scalar operands)."""
    if isinstance(value, ArraySpec):
        return value
    if isinstance(value, PYTHON_SCALARS):
        return ArraySpec((), np.asarray(value).dtype)
    if isinstance(value, (list, tuple)):
        return _sequence_spec(value, what)
    if isinstance(value, range):     # np.asarray(range(n)): int64 (empty: float64)
        if value and not -2**63 <= min(value[0], value[-1]) <= max(value[0], value[-1]) < 2**63:
            raise MetaUnsupported(f"unsupported {what} {value!r}: items beyond int64")
        return ArraySpec((len(value),), np.dtype(np.int64 if value else np.float64))
    raise MetaUnsupported(f"unsupported {what} {value!r} of type {type(value).__name__}")


def _sequence_spec(value: list | tuple, what: str) -> ArraySpec:
    if any(is_spec(v) for v in value):
        return _array_list_spec(value, what)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            arr = np.asarray(value)     # cost grows with the literal, never with traced data
        except ValueError as e:
            raise MetaError(f"{what}: {e}") from None
    if arr.dtype == object:
        raise MetaUnsupported(f"unsupported {what} {value!r}")
    return ArraySpec(arr.shape, arr.dtype)


def _array_list_spec(items: list | tuple, what: str) -> ArraySpec:
    """np.asarray of a sequence holding array values (`np.max(denom_vals)` over a list of NumPy scalars): one
    new axis over items of one shape (Python numbers only beside 0-d items); the dtype is what np.asarray
    discovers for such items, learnt from 0-d probes of them."""
    if any(isinstance(v, (list, tuple)) or not (is_spec(v) or isinstance(v, PYTHON_SCALARS)) for v in items):
        raise MetaUnsupported(f"unsupported {what}: a nested sequence of arrays")
    shape = next(v.shape for v in items if is_spec(v))
    item_shape = lambda v: v.shape if is_spec(v) else ()  # noqa: E731
    if any(len(item_shape(v)) != len(shape) or not all(map(same_size, item_shape(v), shape)) for v in items):
        raise MetaUnsupported(f"unsupported {what}: a sequence of arrays of different shapes")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            dtype = np.asarray([np.zeros((), v.dtype) if is_spec(v) else v for v in items]).dtype
        except (TypeError, ValueError, OverflowError) as e:
            raise MetaUnsupported(f"unsupported {what}: {e}") from None
    if dtype.hasobject:
        raise MetaUnsupported(f"unsupported {what}: a sequence NumPy converts to an object array")
    return ArraySpec((len(items), *shape), dtype)


def is_array_like(value: Any) -> bool:
    """A list or tuple NumPy converts with np.asarray where an operand is expected (numbers, arrays)."""
    return isinstance(value, (list, tuple)) and all(isinstance(v, (*PYTHON_SCALARS, list, tuple, ArraySpec))
                                                    for v in value)


def normalize_axis(axis: Any, ndim: int, what: str = "axis") -> int:
    """A non-negative axis, or MetaError like np.exceptions.AxisError / the TypeError for a non-integer."""
    if isinstance(axis, bool) or is_spec(axis):
        raise MetaError(f"{what} must be an integer, got {axis!r}")
    try:
        ax = operator.index(axis)
    except TypeError:
        raise MetaError(f"{what} must be an integer, got {axis!r}") from None
    if not -ndim <= ax < ndim:
        raise MetaError(f"{what}: axis {ax} is out of bounds for array of dimension {ndim}")
    return ax % ndim if ndim else ax


def normalize_axes(axis: Any, ndim: int, what: str = "axis") -> tuple[int, ...]:
    """axis=None -> all axes; int or sequence of ints -> sorted-as-given unique non-negative axes."""
    if axis is None:
        return tuple(range(ndim))
    items = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    axes = tuple(normalize_axis(a, ndim, what) for a in items)
    if len(set(axes)) != len(axes):
        raise MetaError(f"{what}: duplicate value in 'axis'")
    return axes


def probe(value: Any, shape: tuple[int, ...] | None = None) -> Any:
    """A stand-in for one argument when running the real NumPy callable to learn a dtype.

    ArraySpec -> ones of its dtype with `shape` (default (1,), or (0,) for an empty array); a NumPy scalar
    spec -> a NumPy scalar; Python values (weak scalars, None, strings) pass through unchanged.
    """
    if not isinstance(value, ArraySpec):
        return value
    if value.scalar:
        return np.ones((), value.dtype)[()]
    if shape is None:
        shape = (0,) if value.size == 0 else (1,)
    return np.ones(shape, value.dtype)


# What an operator or ufunc gives on probes depends only on the callable and on what the probes are: a
# NumPy scalar, a one-item or empty array of some dtype, or a weak Python scalar (its type and value: NEP 50
# refuses an int that does not fit). Capture asks the same few questions over and over (every `a * 0.5` of
# an unrolled loop), so each answer (result dtypes, or NumPy's refusal) is kept; a probe of anything else
# (a list, a string, a symbol) is not.
_PROBED: dict[tuple, tuple] = {}
_PROBED_MAX = 1 << 14


def _probe_key(value: Any) -> Any:
    """What probe(value) makes, as a hashable key (None: not kept); decides what probe() decides."""
    if isinstance(value, ArraySpec):
        if value.scalar:
            return ("scalar", value.dtype)
        return ("array", value.dtype, (0,) if _is_empty(value) else (1,))
    if type(value) in (bool, int):
        return (type(value), value)
    if type(value) in (float, complex):      # repr keeps -0.0 apart from 0.0
        return (type(value), repr(value))
    return None


def _is_empty(spec: ArraySpec) -> bool:
    if not spec.is_symbolic:
        return 0 in spec.shape
    size = spec.size
    if isinstance(size, Sym) and size.env.varies(size):
        return False    # a mask's count, a loop index: probed non-empty (an empty one raises when the graph runs)
    return size == 0


def _from_key(key: Any, value: Any) -> Any:
    """The probe the key describes (probe(value), which it was made from)."""
    if key[0] == "scalar":
        return np.ones((), key[1])[()]
    if key[0] == "array":
        return np.ones(key[2], key[1])
    return value


def probed_dtypes(what: str, fn: Callable, *values: Any) -> tuple[type, tuple[np.dtype, ...]]:
    """(type of fn's result on the probes of `values`, the dtype of each result (one, or one per item of a
    tuple result)); NumPy's refusal raises MetaError as run_probe does. Kept per callable and probe kind."""
    keys = tuple(_probe_key(v) for v in values)
    key = None if None in keys else (fn, keys)
    known = _PROBED.get(key) if key is not None else None
    if known is None:
        try:
            result = run_probe(what, fn, *[v if k is None else _from_key(k, v) for k, v in zip(keys, values)])
        except MetaError as e:
            known = ("error", str(e)[len(what) + 2:])
        else:
            parts = result if type(result) is tuple else (result,)
            known = ("ok", type(result), tuple(np.asarray(r).dtype for r in parts))
        if key is not None:
            if len(_PROBED) >= _PROBED_MAX:
                _PROBED.clear()
            _PROBED[key] = known
    if known[0] == "error":
        raise MetaError(f"{what}: {known[1]}") from None
    return known[1], known[2]


def reject_value_dims(items: Any, what: str) -> None:
    """Sizes given by 0-d integer arrays (`np.zeros((n, y.max() + 1))`): the shape depends on the values."""
    if any(is_spec(v) and v.ndim == 0 and v.dtype.kind in "iu" for v in items):
        raise DataDependentShape(f"{what} comes from array values")


def run_probe(what: str, fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """Call fn on probe arguments with warnings silenced; NumPy's own errors become MetaError."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            return fn(*args, **kwargs)
        except (TypeError, ValueError, ArithmeticError, IndexError) as e:
            raise MetaError(f"{what}: {e}") from None


def result_dtype(what: str, fn: Callable, *args: Any, **kwargs: Any) -> np.dtype:
    return np.asarray(run_probe(what, fn, *args, **kwargs)).dtype


def reject_keywords(what: str, kwargs: dict, allowed: tuple[str, ...] = ()) -> None:
    bad = sorted(k for k in kwargs if k not in allowed)
    if bad:
        raise MetaUnsupported(f"{what}: unsupported keyword {bad[0]!r}")


def spec_like(shape: tuple[int, ...], dtype: Any, scalar_if_0d: bool) -> ArraySpec:
    shape = tuple(shape)
    return ArraySpec(shape, dtype, scalar=scalar_if_0d and shape == ())


# ---- ufuncs ------------------------------------------------------------------------------------------

UFUNC_KEYWORDS = ("out", "where", "dtype", "casting", "order", "subok", "signature")


def _split_out(uf: np.ufunc, args: tuple, kwargs: dict) -> tuple[tuple, tuple | None]:
    """Separate operands from outputs given positionally or as out=; outputs as a tuple or None."""
    if len(args) < uf.nin or len(args) > uf.nin + uf.nout:
        raise MetaError(f"{uf.__name__}() takes from {uf.nin} to {uf.nin + uf.nout} positional arguments "
                        f"but {len(args)} were given")
    operands, outs = args[:uf.nin], args[uf.nin:]
    if "out" in kwargs:
        if outs:
            raise MetaError(f"{uf.__name__}: cannot specify 'out' as both a positional and keyword argument")
        out = kwargs["out"]
        outs = out if isinstance(out, tuple) else (out,)
    if not outs or all(o is None for o in outs):
        return operands, None
    if len(outs) != uf.nout:
        raise MetaError(f"{uf.__name__}: The 'out' tuple must have exactly {uf.nout} entries")
    for o in outs:
        if o is not None and (not is_spec(o) or o.scalar):
            raise MetaError(f"{uf.__name__}: return arrays must be of ArrayType")
    return operands, tuple(outs)


def _operand(name: str, value: Any) -> Any:
    """An operand as a rule sees it: a spec, a weak Python scalar, or a list/tuple NumPy converts to an array
    (its spec: `np.exp([a, b])`, `x == [1, 0, -1]`)."""
    if is_spec(value) or isinstance(value, PYTHON_SCALARS):
        return value
    if is_array_like(value):
        return as_spec(value)
    raise MetaUnsupported(f"{name}: unsupported operand of type {type(value).__name__}")


def _check_where(name: str, where: Any) -> None:
    if isinstance(where, (bool, int)):
        return
    if not is_spec(where) or where.dtype != np.bool_:
        raise MetaError(f"{name}: where= must be a boolean array (casting to bool is 'safe' only from bool)")


def ufunc_meta(uf: np.ufunc) -> Callable[..., Any]:
    """Meta rule of a ufunc called as uf(*operands, out=..., where=..., dtype=..., casting=...)."""
    if uf.signature is not None:
        from .meta_linalg import gufunc_meta   # gufuncs (matmul, vecdot, ...) have core dimensions
        return gufunc_meta(uf)

    def rule(*args: Any, **kwargs: Any) -> Any:
        reject_keywords(uf.__name__, kwargs, UFUNC_KEYWORDS)
        operands, outs = _split_out(uf, args, kwargs)
        operands = tuple(_operand(uf.__name__, v) for v in operands)
        where = kwargs.get("where", True)
        shapes = [v.shape for v in operands + (where,) if is_spec(v)]
        shape = broadcast(*shapes) if shapes else ()
        if outs is not None:
            for o in outs:
                if o is not None and broadcast(shape, o.shape) != o.shape:
                    raise MetaError(f"{uf.__name__}: non-broadcastable output operand with shape {o.shape} "
                                    f"doesn't match the broadcast shape {shape}")
        _check_where(uf.__name__, where)
        # where= never changes dtypes, and NumPy 2.4/2.5 crash (segfault) comparing with an out-of-range
        # Python int when where= is given, so the probe runs without it.
        probe_kw = {k: probe(v) for k, v in kwargs.items() if k not in ("out", "where")}
        if outs is not None:
            probe_kw["out"] = tuple(None if o is None else probe(o) for o in outs)
        if probe_kw:
            res = run_probe(uf.__name__, uf, *(probe(v) for v in operands), **probe_kw)
            dtypes = tuple(np.asarray(r).dtype for r in (res if uf.nout > 1 else (res,)))
        else:
            dtypes = probed_dtypes(uf.__name__, uf, *operands)[1]
        specs = tuple(outs[i] if outs is not None and outs[i] is not None
                      else spec_like(shape, dt, True) for i, dt in enumerate(dtypes))
        return specs if uf.nout > 1 else specs[0]

    rule.__name__ = f"{uf.__name__}_meta"
    return rule


# ---- the Python operators (x + y, x += y, -x) ----------------------------------------------------------

def binary_operator_meta(fn: Callable, uf: np.ufunc) -> Callable[..., ArraySpec]:
    """`a <op> b` where the elementwise shape rule is uf's and the dtype comes from the operator itself."""
    if uf is np.matmul:
        from .meta_linalg import matmul_meta

        def matmul_rule(a: Any, b: Any) -> ArraySpec:
            if is_array_like(a) or is_array_like(b):
                raise MetaUnsupported("matmul: unsupported: a list or tuple operand of @")
            spec = matmul_meta(a, b)
            return spec_like(spec.shape, result_dtype("@", fn, probe(a, (1,) * a.ndim),
                                                      probe(b, (1,) * b.ndim)), True)
        return matmul_rule

    def rule(a: Any, b: Any) -> ArraySpec:
        a, b = _sequence_operands(fn, uf.__name__, a, b)
        shape = broadcast(*(v.shape for v in (a, b) if is_spec(v)))
        kind, (dtype,) = probed_dtypes(uf.__name__, fn, a, b)
        if kind in (bool, int, float, complex):
            # Python's own operator took the NumPy scalar: `1j ** np.float64(x)` is complex.__pow__ on a
            # float subclass, a Python complex (computed by Python, not by NumPy's power).
            raise NotImplementedError(f"{fn.__name__} of {type(probe(a)).__name__} and {type(probe(b)).__name__} "
                                      f"is Python's {kind.__name__} operator")
        return spec_like(shape, dtype, True)

    rule.__name__ = f"{fn.__name__}_meta"
    return rule


# Operators that a list or tuple beside an ndarray reaches as NumPy's (the sequence converted by np.asarray):
# Python's list has no slot for them, so the array's reflected method runs. `*` only beside an ndarray: with a
# NumPy scalar, Python's sequence repetition runs first (`[a, b] * np.int64(2)` is a list of four).
_SEQUENCE_OPERATORS = {operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
                       operator.pow, operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge}


def _sequence_operands(fn: Callable, name: str, a: Any, b: Any) -> tuple[Any, Any]:
    """Both operands of a Python operator as specs or weak scalars; a list or tuple operand becomes the array
    NumPy makes of it, where Python hands it to NumPy (see _SEQUENCE_OPERATORS)."""
    seq = [is_array_like(v) for v in (a, b)]
    if any(seq):
        other = b if seq[0] else a
        if fn not in _SEQUENCE_OPERATORS or not is_spec(other) or (fn is operator.mul and other.scalar):
            raise MetaUnsupported(f"{name}: unsupported: a list or tuple operand of {fn.__name__} beside "
                                  f"{'a NumPy scalar' if is_spec(other) else 'this value'}")
    return _operand(name, a), _operand(name, b)


def inplace_operator_meta(fn: Callable, binary: Callable[..., ArraySpec]) -> Callable[..., ArraySpec]:
    """`a <op>= b`: writes into an ndarray `a` (its spec is the result); on a NumPy scalar it only rebinds,
    so the result is the plain binary result."""

    def rule(a: Any, b: Any) -> ArraySpec:
        if is_array_like(a):    # `lst += x` extends the list, `tup += x` rebinds: Python's, not NumPy's
            raise MetaUnsupported(f"{fn.__name__}: unsupported: an in-place operator on a list or tuple")
        result = binary(a, b)
        b = _operand(fn.__name__, b)
        if not is_spec(a) or a.scalar:
            return result
        if fn is operator.imatmul:      # NumPy runs np.matmul(a, b, out=a): the gufunc output rule
            from .meta_linalg import matmul_meta
            if a.ndim < 1 or not is_spec(b) or b.ndim < 2:
                raise MetaError("inplace matrix multiplication requires the first operand to have at least "
                                "one and the second at least two dimensions.")
            return matmul_meta(a, b, out=a)
        if result.shape != a.shape:
            raise MetaError(f"{fn.__name__}: non-broadcastable output operand with shape {a.shape} doesn't "
                            f"match the broadcast shape {result.shape}")
        probed_dtypes(fn.__name__, fn, a, b)
        return a

    rule.__name__ = f"{fn.__name__}_meta"
    return rule


def unary_operator_meta(fn: Callable, uf: np.ufunc) -> Callable[..., ArraySpec]:
    def rule(a: Any) -> ArraySpec:
        if not (is_spec(a) or isinstance(a, PYTHON_SCALARS)):
            raise MetaUnsupported(f"{uf.__name__}: unsupported operand of type {type(a).__name__}")
        return spec_like(a.shape if is_spec(a) else (), probed_dtypes(uf.__name__, fn, a)[1][0], True)

    rule.__name__ = f"{fn.__name__}_meta"
    return rule
