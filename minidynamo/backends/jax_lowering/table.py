"""The JAX lowering table: one entry per op of graph/ops.py, a rule or the reason the op is not lowered.

Imports jax. A rule is `lower(cx, node) -> value` (cx: engine.Trace, which maps nodes to traced values and
casts); its `refuse(node)` names the calls it cannot lower faithfully. Every result is cast to the dtype the
meta rule gave the node, so a dtype is always NumPy's; the engine checks each shape against the node's spec.
Ops whose arguments are all literals (arange, linspace, array of a list) run NumPy at trace time, so their
values are NumPy's bits.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import jax.numpy as jnp

from ...graph.ir import ArraySpec, Node, PyScalarSpec, iter_nodes
from ...graph.ops import INPLACE_NAMES, REGISTRY
from ...graph.symbolic import Sym
from ..aliasing import alias_refusals, sliced_views
from ..lowering import LoweringTable, OpRule, numpy_surface_not_lowered
from . import control, fori, indexing, ufuncs

# `uf.outer` of NumPy's binary ufuncs with one output (ufuncs.lower_outer); the other methods stay on NumPy
OUTER_NAMES = frozenset(name for name, op in REGISTRY.items() if name.endswith(".outer")
                        and op.impl.__self__.nin == 2 and op.impl.__self__.nout == 1)
NOT_LOWERED: dict[str, str] = {
    "inv": "NumPy raises LinAlgError on a singular matrix; XLA's LU returns inf/nan, and whether a pivot is "
           "exactly zero depends on rounding XLA does not reproduce",
    "solve": "NumPy raises LinAlgError on a singular matrix (see inv)",
    "det": "on (nearly) singular matrices the result is rounding noise of LAPACK's pivoting",
    "empty": "uninitialized memory: its contents are whatever NumPy's allocator hands out",
    "empty_like": "uninitialized memory: its contents are whatever NumPy's allocator hands out",
    "column_stack": "not lowered yet: runs on NumPy in a piece of its own (a join XLA would do as concatenate)",
    "nan_to_num": "not lowered yet: runs on NumPy (its replacement values for inf depend on the dtype's limits)",
    "take": "jnp.take clips or fills out-of-range indices where NumPy raises IndexError (mode='raise')",
    **{name: "`x[mask] op= v` writes through a boolean mask in place: not lowered yet (runs on NumPy)"
       for name in REGISTRY if name.startswith("masked_")},
    **ufuncs.NOT_LOWERED,
    **{k: v for k, v in numpy_surface_not_lowered(REGISTRY).items() if k not in OUTER_NAMES},
}
_DTYPES = {np.dtype(t) for t in (np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16,
                                 np.uint32, np.uint64, np.float32, np.float64)}


def _spec_dtypes(spec: Any):
    if isinstance(spec, ArraySpec):
        yield spec.dtype
    elif isinstance(spec, tuple):
        for s in spec:
            yield from _spec_dtypes(s)


def refuse_node(node: Node) -> str | None:
    """Engine-wide: dtypes XLA computes differently (float16 keeps float32 intermediates inside a fusion;
    NumPy rounds after every op), complex, and Python-number results (exact in Python)."""
    if node.spec is not None and not isinstance(node.spec, (ArraySpec, tuple)) and not (
            isinstance(node.spec, PyScalarSpec) and (_is_ufunc_op(node.op) or node.op == "sym_size")):
        return "Python number arithmetic stays in Python (arbitrary precision)"
    for value in [node] + list(node.inputs()):
        for dt in _spec_dtypes(value.spec):
            if dt not in _DTYPES:
                return f"dtype {dt} is not lowered (bool, integers, float32 and float64 are)"
    return None


def _is_ufunc_op(op: str) -> bool:
    """A ufunc or an operator applying one (their rule lowers Python-number arithmetic, pynumbers.py)."""
    name = ufuncs.INPLACE_UFUNC.get(op, op)
    return name in REGISTRY and isinstance(REGISTRY[name].impl, np.ufunc)


def _only(*allowed: str, max_args: int = 9):
    """A refuse rule: keywords outside `allowed`, or more positional arguments, stay on NumPy; so do
    non-array parameters that are graph values (a data-dependent shape, axis or count)."""
    def refuse(node: Node) -> str | None:
        extra = sorted(set(node.kwargs) - set(allowed))
        if extra:
            return f"keyword argument(s) {extra} not lowered"
        if len(node.args) > max_args:
            return "more positional arguments than the lowering takes"
        return None
    return refuse


def _const_params(node: Node, first: int = 1) -> str | None:
    params = list(node.args[first:]) + list(node.kwargs.values())
    if any(True for _ in iter_nodes(params)):
        return "a size, axis or count that is a graph value (data-dependent)"
    return None


def _joins_a_list(node: Node) -> str | None:
    return "a join of one array along its first axis (runs as NumPy)" if isinstance(node.args[0], Node) else None


def _both(*checks):
    def refuse(node: Node) -> str | None:
        for check in checks:
            reason = check(node)
            if reason:
                return reason
        return None
    return refuse


def _dtype(node: Node) -> np.dtype:
    return node.spec.dtype


# ---- reductions -------------------------------------------------------------------------------------------

def _reduction(name: str, *, accumulates: bool = False):
    def lower(cx: Any, node: Node) -> Any:
        x = cx.val(node.args[0])
        if name in ("mean", "std", "var") and x.dtype.kind in "iub":
            x = cx.as_dtype(x, _dtype(node))    # NumPy computes these of integers in float64 (jnp: float32)
        kw = {k: cx.val(v) for k, v in node.kwargs.items() if k != "dtype"}
        if len(node.args) > 1:
            kw["axis"] = node.args[1]
        if isinstance(kw.get("axis"), list):
            kw["axis"] = tuple(kw["axis"])
        if accumulates or "dtype" in node.kwargs:
            kw["dtype"] = _dtype(node)        # NumPy accumulates in the result dtype (int32 sums in int64)
        return getattr(jnp, name)(x, **kw)
    allowed = ("axis", "keepdims", "dtype", "ddof") if name in ("std", "var") else (
        ("axis", "keepdims", "dtype") if accumulates or name == "mean" else ("axis", "keepdims"))
    return OpRule(lower, _both(_only(*allowed, max_args=2), _const_params))


def _lower_clip(cx: Any, node: Node) -> Any:
    a = node.args[0]
    lo = node.args[1] if len(node.args) > 1 else node.kwargs.get("a_min", node.kwargs.get("min"))
    hi = node.args[2] if len(node.args) > 2 else node.kwargs.get("a_max", node.kwargs.get("max"))
    out = cx.as_dtype(cx.val(a), _dtype(node))
    if lo is not None:
        out = jnp.maximum(out, cx.as_dtype(cx.val(lo), _dtype(node)))
    if hi is not None:
        out = jnp.minimum(out, cx.as_dtype(cx.val(hi), _dtype(node)))
    return out


def _lower_round(cx: Any, node: Node) -> Any:
    decimals = node.args[1] if len(node.args) > 1 else node.kwargs.get("decimals", 0)
    x = cx.val(node.args[0])
    if _dtype(node).kind in "iub" and decimals >= 0:
        return x
    return jnp.round(x, decimals)


def _refuse_round(node: Node) -> str | None:
    decimals = node.args[1] if len(node.args) > 1 else node.kwargs.get("decimals", 0)
    if not isinstance(decimals, int) or (_dtype(node).kind in "iu" and decimals < 0):
        return "rounding integers to negative decimals, or decimals that are a graph value"
    return _only("decimals", max_args=2)(node)


# ---- shapes -----------------------------------------------------------------------------------------------

def _to_spec_shape(cx: Any, node: Node) -> Any:
    """reshape, ravel, flatten, squeeze, expand_dims: the same elements in C order, in the spec's shape."""
    return jnp.reshape(cx.val(node.args[0]), node.spec.shape)


def _refuse_order(node: Node) -> str | None:
    order = node.kwargs.get("order", "C")
    positional = [a for a in node.args[1:] if isinstance(a, str)]
    if order != "C" or any(p != "C" for p in positional):
        return "memory orders other than 'C' are not lowered"
    return _const_params(node)


def _lower_transpose(cx: Any, node: Node) -> Any:
    axes = node.kwargs.get("axes")
    rest = node.args[1:]
    if axes is None and rest:
        axes = rest[0] if len(rest) == 1 else tuple(rest)
    return jnp.transpose(cx.val(node.args[0]), axes)


def _same_name(name: str, *, cast_seq: bool = False, cast_all: bool = False):
    """jnp.<name>(*args, **kwargs) with nodes replaced by values; cast_seq casts the arrays of a sequence
    argument to the result dtype (concatenate, stack), cast_all every array argument (dot, einsum)."""
    def lower(cx: Any, node: Node) -> Any:
        args = [cx.val(a) for a in node.args]
        if cast_seq:
            args[0] = [cx.as_dtype(v, _dtype(node)) for v in args[0]]
        if cast_all:
            args = [cx.as_dtype(v, _dtype(node)) if isinstance(a, Node) else v for a, v in zip(node.args, args)]
        return getattr(jnp, name)(*args, **{k: cx.val(v) for k, v in node.kwargs.items()})
    return lower


def _lower_split(name: str):
    def lower(cx: Any, node: Node) -> list:
        args = [cx.val(a) for a in node.args]
        return list(getattr(jnp, name)(*args, **node.kwargs))
    return lower


# ---- creation and conversion ------------------------------------------------------------------------------

def _lower_filled(value: Any):
    def lower(cx: Any, node: Node) -> Any:
        return jnp.full(node.spec.shape, value, dtype=_dtype(node))
    return lower


def _lower_full(cx: Any, node: Node) -> Any:
    fill = node.args[1] if len(node.args) > 1 else node.kwargs["fill_value"]
    return jnp.broadcast_to(cx.as_dtype(cx.val(fill), _dtype(node)), node.spec.shape)


def _lower_eye(cx: Any, node: Node) -> Any:
    n, m = node.spec.shape
    k = node.args[2] if len(node.args) > 2 else node.kwargs.get("k", 0)
    return jnp.eye(n, m, k, dtype=_dtype(node))


def _lower_tri(cx: Any, node: Node) -> Any:
    n, m = node.spec.shape          # NumPy's shape rule (negative sizes are empty axes) is in the spec
    k = node.args[2] if len(node.args) > 2 else node.kwargs.get("k", 0)
    return jnp.tri(n, m, k, dtype=_dtype(node))


def _lower_by_numpy(cx: Any, node: Node) -> Any:
    """All arguments are literals: NumPy computes the value at trace time (its own bits)."""
    return jnp.asarray(node.target(*node.args, **node.kwargs))


def _lower_array(cx: Any, node: Node) -> Any:
    if not any(True for _ in node.inputs()):
        return _lower_by_numpy(cx, node)
    return cx.as_dtype(cx.val(node.args[0]), _dtype(node))


def _refuse_literal_only(node: Node) -> str | None:
    return _const_params(node, first=0)


def _refuse_array(node: Node) -> str | None:
    if any(True for _ in node.inputs()) and not isinstance(node.args[0], Node):
        return "a sequence mixing graph values and literals"
    return _only("dtype", "copy")(node) if node.kwargs.get("copy", True) is not False else \
        "copy=False aliases its argument"


def _lower_where(cx: Any, node: Node) -> Any:
    cond, a, b = node.args
    c = cx.as_dtype(cx.val(cond), np.dtype(bool))
    return jnp.where(c, cx.as_dtype(cx.val(a), _dtype(node)), cx.as_dtype(cx.val(b), _dtype(node)))


def _lower_copy(cx: Any, node: Node) -> Any:
    return cx.val(node.args[0])


def _lower_astype(cx: Any, node: Node) -> Any:
    x, src, dst = cx.val(node.args[0]), node.args[0].spec.dtype, _dtype(node)
    if src.kind == "f" and dst.kind in "iu":
        # NumPy warns (invalid value) and gives a platform value for nan, inf and out-of-range values.
        info = np.iinfo(dst)
        cx.check(jnp.all((x > float(info.min) - 1.0) & (x < float(info.max) + 1.0)))
    return cx.as_dtype(x, dst)


def _refuse_astype(node: Node) -> str | None:
    if node.kwargs.get("copy", True) is False:
        return "copy=False may return its argument itself"
    return _only("copy", "dtype", max_args=2)(node)


def _lower_norm(cx: Any, node: Node) -> Any:
    x = cx.as_dtype(cx.val(node.args[0]), _dtype(node))
    return jnp.linalg.norm(x, *node.args[1:], **node.kwargs)


def _lower_einsum(cx: Any, node: Node) -> Any:
    subscripts, *ops = node.args
    return jnp.einsum(subscripts, *[cx.as_dtype(cx.val(o), _dtype(node)) for o in ops])


def _rules() -> dict[str, OpRule]:
    rules: dict[str, OpRule] = {}
    for name, opdef in REGISTRY.items():
        if isinstance(opdef.impl, np.ufunc) and name not in NOT_LOWERED:
            rules[name] = OpRule(ufuncs.lower_ufunc, ufuncs.refuse_ufunc)
    for name in INPLACE_NAMES:
        rules[name] = OpRule(ufuncs.lower_ufunc, ufuncs.refuse_ufunc)
    for name in OUTER_NAMES:
        rules[name] = OpRule(ufuncs.lower_outer, ufuncs.refuse_outer)
    for name in ("sum", "prod", "cumsum", "cumprod"):
        rules[name] = _reduction(name, accumulates=True)
    for name in ("mean", "max", "min", "argmax", "argmin", "std", "var", "any", "all"):
        rules[name] = _reduction(name)
    rules["clip"] = OpRule(_lower_clip, _only("a_min", "a_max", "min", "max", max_args=3))
    rules["round"] = OpRule(_lower_round, _refuse_round)
    for name in ("reshape", "ravel", "flatten", "squeeze", "expand_dims"):
        rules[name] = OpRule(_to_spec_shape, _refuse_order)
    rules["transpose"] = OpRule(_lower_transpose, _both(_only("axes"), _const_params))
    for name in ("swapaxes", "moveaxis", "broadcast_to", "tile", "repeat", "flip", "rot90", "roll", "triu", "tril"):
        rules[name] = OpRule(_same_name(name), _const_params)
    rules["pad"] = OpRule(_same_name("pad"), _both(_only("mode", "constant_values"), _const_params,
                                                   lambda n: None if n.kwargs.get("mode", "constant") in (
                                                       "constant", "edge") else "pad modes other than "
                                                       "constant and edge are not lowered"))
    for name in ("concatenate", "stack", "hstack", "vstack"):
        rules[name] = OpRule(_same_name(name, cast_seq=True), _both(_only("axis"), _const_params, _joins_a_list))
    for name in ("split", "array_split"):
        rules[name] = OpRule(_lower_split(name), _both(_only("axis"), _const_params))
    for name in ("dot", "vdot", "inner", "outer", "tensordot"):
        rules[name] = OpRule(_same_name(name, cast_all=True), _both(_only("axes"), _const_params_2))
    rules["einsum"] = OpRule(_lower_einsum, _only())
    rules["norm"] = OpRule(_lower_norm, _both(_only("ord", "axis", "keepdims"), _const_params))
    literal_shape = _both(_only("dtype", "shape", "fill_value"), _literal_shape)
    rules["zeros"] = rules["zeros_like"] = OpRule(_lower_filled(0), literal_shape)
    rules["ones"] = rules["ones_like"] = OpRule(_lower_filled(1), literal_shape)
    rules["full"] = rules["full_like"] = OpRule(_lower_full, literal_shape)
    rules["eye"] = rules["identity"] = OpRule(_lower_eye, _both(_only("M", "k", "dtype"), _refuse_literal_only))
    rules["tri"] = OpRule(_lower_tri, _both(_only("M", "k", "dtype"), _refuse_literal_only))
    for name in ("arange", "linspace"):
        rules[name] = OpRule(_lower_by_numpy, _refuse_literal_only)
    rules["array"] = rules["asarray"] = rules["asanyarray"] = OpRule(_lower_array, _refuse_array)
    rules["ascontiguousarray"] = OpRule(_lower_array, _only("dtype"))
    rules["copy"] = OpRule(_lower_copy, _only("order"))
    rules["astype"] = OpRule(_lower_astype, _refuse_astype)
    rules["where"] = OpRule(_lower_where, lambda n: None if len(n.args) == 3 and not n.kwargs else
                            "np.where with one argument has a data-dependent shape")
    rules["sym_size"] = OpRule(_lower_sym_size, _refuse_sym_size)
    rules["getitem"] = OpRule(indexing.lower_getitem, indexing.refuse_getitem)
    rules["setitem"] = OpRule(indexing.lower_setitem, indexing.refuse_setitem)
    rules["cond"] = OpRule(control.lower_cond, control.refuse_control)
    rules["while_loop"] = OpRule(control.lower_while, control.refuse_control)
    rules["fori_loop"] = OpRule(fori.lower_fori, fori.refuse_fori)
    return rules


def _lower_sym_size(cx: Any, node: Node) -> Any:
    """x.shape[dim] of a graph specialized to concrete shapes (shapes.py): a constant Python int."""
    value = jnp.asarray(int(node.args[0].spec.shape[node.args[1]]), np.int64)
    cx.py_values.add(id(value))
    return value


def _refuse_sym_size(node: Node) -> str | None:
    base, dim = node.args[0], node.args[1] if len(node.args) > 1 else None
    if not (isinstance(base, Node) and isinstance(base.spec, ArraySpec) and type(dim) is int
            and not isinstance(base.spec.shape[dim], Sym)):
        return "a size that is symbolic here (the backend specializes graphs to concrete shapes first)"
    return None


def _literal_shape(node: Node) -> str | None:
    """zeros(shape)/full(shape, v): the shape must be literal (the *_like forms read their array's spec)."""
    if node.op.endswith("_like") or not node.args:
        return None
    return "a shape that is a graph value" if any(True for _ in iter_nodes(node.args[0])) else None


def _const_params_2(node: Node) -> str | None:
    return _const_params(node, first=2)


def refuse_graph(graph: Any) -> Any:
    """Memory sharing the engine cannot reproduce; writes through sliced views it threads (engine.Trace)."""
    return alias_refusals(graph, sliced_views(graph))


TABLE = LoweringTable("jax", _rules(), NOT_LOWERED, refuse_node=refuse_node, refuse_graph=refuse_graph)
