"""The dask lowering table: which graph ops run as dask.array operations, and why the others do not.

Imports graph only and never dask (the table names dask.array functions as strings), so the capture can ask
`refusal(...)` before it records an op on a dask value (through graph/lazy_values.py, where this module
registers it), and the "dask" backend can ask it per node before it lowers a graph. `lower(node, dask_array_module)` gives the callable that runs one node on dask arrays.

An op is lowered only when dask.array computes what NumPy computes: the same shape and dtype (the meta rules
are NumPy's) and the same values up to the summation order of chunked reductions. Elementwise ufuncs run
blockwise through dask's `__array_ufunc__`, so each element is NumPy's own result, bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..graph import lazy_values
from ..graph.ir import MethodCall, Node, PyScalarSpec, iter_nodes
from ..graph.ops import INPLACE_NAMES, REGISTRY
from .lowering import SEQUENCE_OPERAND, converts_sequence, numpy_surface_not_lowered

_REDUCE = frozenset({"axis", "keepdims", "dtype"})


@dataclass(frozen=True)
class Lowering:
    """How one op runs on dask arrays.

    function: the dask.array function for the NumPy-function form (`np.sum(x)` -> `dask.array.sum`), or None
              to call the node's own target (a method call runs dask's method, an operator dask's dunder).
    kwargs:   the keyword arguments the dask function takes with NumPy's meaning; any other is refused.
    check:    (args, kwargs) -> a reason this call is not faithful, or None.
    """

    function: str | None = None
    kwargs: frozenset[str] = frozenset()
    check: Callable[[tuple, dict], str | None] | None = None


def _basic_index(args: tuple, kwargs: dict) -> str | None:
    index = args[1] if isinstance(args[1], tuple) else (args[1],)
    for part in index:
        bounds = (part.start, part.stop, part.step) if isinstance(part, slice) else (part,)
        if any(isinstance(p, Node) and not _is_python_int(p) for p in bounds):
            return "indexing with an array or a computed bound (only ints, slices, None and ... lower)"
        if isinstance(part, Node):      # an unspecialized Python int: a plain integer index at run time
            continue
        if isinstance(part, (bool, np.bool_)) or not (part is None or part is Ellipsis
                                                      or isinstance(part, (int, slice, np.integer))):
            return f"an index of type {type(part).__name__} (only ints, slices, None and ... lower)"
    return None


def _axis_only(args: tuple, kwargs: dict) -> str | None:
    # NumPy's reductions take (a, axis, dtype, out, keepdims); dask's order differs after axis.
    return None if len(args) <= 2 else "arguments after axis given by position (dask orders them differently)"


def _is_python_int(node: Node) -> bool:
    return isinstance(node.spec, PyScalarSpec) and node.spec.type is int


def _c_order(args: tuple, kwargs: dict) -> str | None:
    return "order= other than 'C'" if any(a in ("F", "A") for a in args[1:] if isinstance(a, str)) else None


def _three_arguments(args: tuple, kwargs: dict) -> str | None:
    return None if len(args) == 3 else "one-argument where() is nonzero(): a data-dependent shape"


def _joins_a_list(args: tuple, kwargs: dict) -> str | None:
    return "a join of one array along its first axis (runs as NumPy)" if isinstance(args[0], Node) else None


def _constant_shift(args: tuple, kwargs: dict) -> str | None:
    """dask.array.roll takes its shift as ints: one the graph computes (an item of an int array) stays NumPy."""
    if any(True for _ in iter_nodes(args[1:])):
        return "roll by a shift the graph computes (dask.array.roll takes ints)"
    return None


def _int_repeats(args: tuple, kwargs: dict) -> str | None:
    return None if len(args) > 1 and type(args[1]) is int else "repeat counts other than one int"


LOWERINGS: dict[str, Lowering] = {
    # reductions (chunked: partial results combined, so sums differ from NumPy's in the last bits)
    **{n: Lowering(n, _REDUCE, _axis_only) for n in ("sum", "prod", "mean")},
    **{n: Lowering(n, _REDUCE | {"ddof"}, _axis_only) for n in ("std", "var")},
    **{n: Lowering(n, frozenset({"axis", "keepdims"}), _axis_only)
       for n in ("max", "min", "any", "all", "argmax", "argmin")},
    **{n: Lowering(n, frozenset({"axis", "dtype"}), _axis_only) for n in ("cumsum", "cumprod")},
    "clip": Lowering("clip"), "round": Lowering("round", frozenset({"decimals"})),
    # int(x) / float(x) of a 0-d value: dask computes it, as a branch on a dask value does
    "int": Lowering(None), "float": Lowering(None),
    # shape ops
    "reshape": Lowering(None, check=_c_order), "transpose": Lowering(None), "flatten": Lowering(None),
    "ravel": Lowering("ravel"), "swapaxes": Lowering("swapaxes"), "moveaxis": Lowering("moveaxis"),
    "expand_dims": Lowering("expand_dims", frozenset({"axis"})), "squeeze": Lowering("squeeze", frozenset({"axis"})),
    "broadcast_to": Lowering("broadcast_to"), "concatenate": Lowering("concatenate", frozenset({"axis"}), _joins_a_list),
    "stack": Lowering("stack", frozenset({"axis"}), _joins_a_list), "hstack": Lowering("hstack", check=_joins_a_list),
    "vstack": Lowering("vstack", check=_joins_a_list),
    "flip": Lowering("flip", frozenset({"axis"})), "roll": Lowering("roll", frozenset({"axis"}), _constant_shift),
    "rot90": Lowering("rot90", frozenset({"k", "axes"})),
    "tile": Lowering("tile"), "repeat": Lowering("repeat", frozenset({"axis"}), _int_repeats),
    "triu": Lowering("triu", frozenset({"k"})), "tril": Lowering("tril", frozenset({"k"})),
    # linear algebra (matmul is a ufunc, below)
    "dot": Lowering("dot"), "outer": Lowering("outer"), "tensordot": Lowering("tensordot", frozenset({"axes"})),
    "einsum": Lowering("einsum"), "vdot": Lowering("vdot"),
    # creation from arrays, conversion, selection, indexing
    **{n: Lowering(n, frozenset({"dtype"})) for n in ("zeros_like", "ones_like", "full_like")},
    "where": Lowering("where", check=_three_arguments), "astype": Lowering(None),
    "getitem": Lowering(None, check=_basic_index),
    # creation from Python values: plain NumPy arrays, which dask operations then take in
    **{n: Lowering(None, frozenset({"dtype"})) for n in ("zeros", "ones", "full", "eye", "tri", "identity",
                                                         "arange", "linspace")},
}
# The ndarray method `copy` has its own OpDef (outside the registry): dask's Array.copy is a blockwise copy.
_METHOD_ONLY = {"copy": Lowering(None)}

NOT_LOWERED: dict[str, str] = {
    **{n: "NumPy raises LinAlgError on a singular matrix; dask.array's version returns inf/nan and needs scipy"
       for n in ("inv", "solve", "det")},
    "norm": "dask.array.linalg.norm does not cover every ord= of NumPy's",
    "inner": "dask.array has no inner()",
    "setitem": "writes into an array in place: a dask array is rebuilt, not written (runs as Python)",
    "empty": "uninitialized memory", "empty_like": "uninitialized memory",
    **{n: "converts to an in-memory ndarray" for n in ("array", "asarray", "asanyarray", "ascontiguousarray")},
    "split": "dask.array has no split()", "array_split": "dask.array has no array_split()",
    "column_stack": "not checked against dask.array yet (runs on NumPy)",
    "nan_to_num": "not checked against dask.array yet (runs on NumPy)",
    "take": "dask.array.take has no mode='raise' bounds check (runs on NumPy)",
    **{name: "writes into an array through a boolean mask in place (runs on NumPy)"
       for name in REGISTRY if name.startswith("masked_")},
    "pad": "dask.array.pad supports only some of NumPy's modes",
    "fori_loop": "a loop of many small NumPy steps, often writing into arrays in place: dask would build a task "
                 "graph per iteration and rebuild the arrays it writes (runs on NumPy)",
    "copy": "np.copy of a dask array returns an ndarray (the method x.copy() lowers)",
    **{n: "writes into its left operand in place; a dask array is rebuilt instead" for n in INPLACE_NAMES},
    **numpy_surface_not_lowered(REGISTRY),     # NumPy's everyday surface (issue 9)
}
# gufuncs other than matmul have no blockwise dask form.
_GUFUNCS_KEPT = frozenset({"matmul"})


def _is_inplace(target: Any) -> bool:
    return _is_operator(target) and getattr(target, "__name__", None) in INPLACE_NAMES


def _operator_ufunc(op: str, target: Any) -> np.ufunc | None:
    """The ufunc an operator node stands for (`x + y` is recorded as op "add" with target operator.add)."""
    if not _is_operator(target):
        return None
    impl = getattr(REGISTRY.get(op), "impl", None)
    return impl if isinstance(impl, np.ufunc) else None


def _is_operator(target: Any) -> bool:
    return getattr(target, "__module__", None) in ("_operator", "operator")


def refusal(op: str, target: Any, args: tuple, kwargs: dict) -> str | None:
    """Why `target(*args, **kwargs)` (recorded as `op`) cannot run on dask arrays, or None when it lowers."""
    if converts_sequence(op, args):
        return SEQUENCE_OPERAND
    if _is_inplace(target):
        return f"{op} writes into its left operand in place; a dask array is rebuilt instead (runs as Python)"
    ufunc = target if isinstance(target, np.ufunc) else _operator_ufunc(op, target)
    if ufunc is not None:
        if ufunc.signature is not None and ufunc.__name__ not in _GUFUNCS_KEPT:
            return f"the generalized ufunc {op} has no blockwise dask form"
        if len(args) > ufunc.nin or set(kwargs) - {"dtype"}:
            return f"{op} with out=/where=/casting= (only dtype= lowers)"
        return None
    low = _METHOD_ONLY.get(op) if isinstance(target, MethodCall) and op in _METHOD_ONLY else LOWERINGS.get(op)
    if low is None:
        return NOT_LOWERED.get(op, f"no dask lowering for {op}")
    extra = set(kwargs) - low.kwargs
    if extra:
        return f"{op} with {', '.join(sorted(extra))}= has no dask lowering"
    return low.check(args, kwargs) if low.check is not None else None


def lowered_op_names() -> list[str]:
    """Every op name that lowers for some calls: the table, the method-only ops and the ufuncs (operators
    are recorded under their ufunc's name)."""
    ufuncs = [name for name, op in REGISTRY.items() if isinstance(op.impl, np.ufunc)]
    return sorted(set(LOWERINGS) | set(_METHOD_ONLY) | set(ufuncs))


def lower(node: Node, da: Any) -> Callable[..., Any]:
    """The callable that runs `node` on dask arrays (`da` is the dask.array module)."""
    target = node.target
    if isinstance(target, (np.ufunc, MethodCall)) or _is_operator(target):
        return target
    low = LOWERINGS[node.op]
    if node.op == "reshape":
        return lambda a, *shape, **kw: da.reshape(a, shape[0] if len(shape) == 1 else shape)
    if node.op == "transpose":
        return lambda a, *axes: da.transpose(a, axes[0] if len(axes) == 1 else (axes or None))
    return target if low.function is None else getattr(da, low.function)


def is_lazy(value: Any) -> bool:
    """True for a dask array (told by its class's module, so nothing here imports dask)."""
    module = getattr(type(value), "__module__", None)    # (a class made without one, e.g. by ctypes, has none)
    return isinstance(module, str) and module.startswith("dask.array") and hasattr(value, "chunks")


lazy_values.register(lazy_values.LazyEngine("dask", is_lazy, refusal))   # capture asks through graph/
