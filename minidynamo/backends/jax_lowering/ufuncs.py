"""Lowering rules for NumPy ufuncs (and the Python operators that are ufuncs on arrays) to jax.numpy.

Imports jax (only ever imported by the "jax" backend). NumPy picks a ufunc's loop from its operands' dtypes,
with Python scalars weak (NEP 50): `ufunc.resolve_dtypes` gives that loop, every operand is cast to its loop
dtype before the jnp function runs and the result is cast to the loop's output dtype, so JAX's own promotion
rules never decide a dtype. Integer division, modulo and power, shifts and float-to-int casts differ from
NumPy on some values; their rules register a data check (`cx.check`), and the graph runs on NumPy when a
check fails (see engine.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import jax.numpy as jnp
from jax import lax

from ...graph.ir import ArraySpec, Node, PyScalarSpec
from ...graph.ops import INPLACE_NAMES, REGISTRY, BINARY_OPERATORS
from .pynumbers import lower_python_number, refuse_python_number
from .trig import FAST as FAST_TRIG

NOT_LOWERED = {"isnat": "datetime arrays only; the engine holds no datetimes"}
_DIVISIONS = {"floor_divide", "remainder", "fmod", "divmod"}
_ROUNDING = {"ceil", "floor", "rint", "trunc"}
# in-place operator name -> the ufunc it applies
INPLACE_UFUNC = {op.name: BINARY_OPERATORS[sym[:-1]].name for sym, op in BINARY_OPERATORS.items()
                 if op.name in INPLACE_NAMES}


def operand_dtype(arg: Any) -> Any:
    """What resolve_dtypes takes for one operand: a dtype, or int/float/complex for a weak Python scalar."""
    if isinstance(arg, Node):
        spec = arg.spec
        return spec.type if isinstance(spec, PyScalarSpec) else spec.dtype
    if isinstance(arg, (bool, np.bool_)):
        return np.dtype(bool)
    if isinstance(arg, (int, float, complex)):
        return type(arg)
    if isinstance(arg, np.generic):
        return arg.dtype
    raise TypeError(f"operand {arg!r} is neither a graph value nor a Python/NumPy scalar")


def loop_dtypes(ufunc: np.ufunc, operands: tuple) -> tuple[np.dtype, ...]:
    """NumPy's loop for these operands: nin input dtypes, then nout output dtypes."""
    return ufunc.resolve_dtypes(tuple(operand_dtype(a) for a in operands) + (None,) * ufunc.nout)


def refuse_ufunc(node: Node) -> str | None:
    """Why this ufunc call stays on NumPy, or None."""
    ufunc = ufunc_of(node)
    if isinstance(node.spec, PyScalarSpec):
        return refuse_python_number(node, ufunc.__name__)
    if node.kwargs:
        return f"keyword arguments {sorted(node.kwargs)} are not lowered"
    if len(node.args) != ufunc.nin:
        return "output arguments are not lowered"
    try:
        dts = loop_dtypes(ufunc, node.args)
    except (TypeError, ValueError) as e:
        return f"no NumPy loop resolved for these operands ({e})"
    name = ufunc.__name__
    ints = dts[0].kind in "iu"
    if name == "reciprocal" and ints:
        return "integer reciprocal: NumPy's result for 0 is platform-defined"
    if isinstance(node.spec, ArraySpec) and node.spec.scalar and node.spec.dtype.kind in "iu" and name not in (
            "isfinite", "isinf", "isnan", "signbit"):
        return "arithmetic on NumPy integer scalars warns on overflow; XLA wraps silently"
    return None


def ufunc_of(node: Node) -> np.ufunc:
    name = INPLACE_UFUNC.get(node.op, node.op)
    return REGISTRY[name].impl


def lower_ufunc(cx: Any, node: Node) -> Any:
    """`node` (a ufunc or its operator, in place or not) computed with jnp in NumPy's loop dtypes."""
    ufunc = ufunc_of(node)
    name = ufunc.__name__
    if isinstance(node.spec, PyScalarSpec):
        return lower_python_number(cx, node, name)
    dts = loop_dtypes(ufunc, node.args)
    ins = [cx.as_dtype(cx.val(a), dt) for a, dt in zip(node.args, dts)]
    _data_checks(cx, name, ins, dts)
    if name in _ROUNDING and dts[0].kind in "iub":
        out: Any = ins[0]                       # rounding an integer leaves it unchanged
    elif name == "power" and dts[0].kind == "f" and _small_int_literal(node.args[1]):
        # x ** 2 by multiplication, as NumPy's own fast path (and jnp's x ** 2) does, not by pow()
        out = lax.integer_pow(ins[0], int(node.args[1]))
    elif name in FAST_TRIG and cx.bounded_trig and dts[0] == np.float32:
        out = FAST_TRIG[name](ins[0])           # XLA's own float32 sin/cos are scalar loops (trig.py)
    else:
        out = getattr(jnp, name)(*ins)
    outs = out if ufunc.nout > 1 else (out,)
    outs = tuple(cx.as_dtype(o, dt) for o, dt in zip(outs, dts[ufunc.nin:]))
    if node.op in INPLACE_NAMES and isinstance(node.args[0], Node) and isinstance(node.args[0].spec, ArraySpec):
        outs = (cx.as_dtype(outs[0], node.args[0].spec.dtype),)     # `x += y` casts into x's dtype
    return outs if ufunc.nout > 1 else outs[0]


def outer_ufunc(node: Node) -> np.ufunc:
    """The ufunc of a `name.outer` op (np.add.outer's __self__ is np.add)."""
    return REGISTRY[node.op].impl.__self__


def refuse_outer(node: Node) -> str | None:
    """`uf.outer(a, b)` of two arrays and a binary ufunc with one output lowers as the ufunc on `a` reshaped
    to a.shape + (1,) * b.ndim, broadcast against b (NumPy's definition of outer)."""
    ufunc = outer_ufunc(node)
    if node.kwargs or len(node.args) != 2:      # (table.OUTER_NAMES: binary ufuncs with one output only)
        return "ufunc.outer with keywords is not lowered"
    if not all(isinstance(a, Node) and isinstance(a.spec, ArraySpec) for a in node.args):
        return "ufunc.outer of a Python or NumPy scalar is not lowered"
    if isinstance(node.spec, ArraySpec) and node.spec.scalar:
        return "ufunc.outer of two 0-d arrays is a NumPy scalar (its integer overflow warns)"
    try:
        loop_dtypes(ufunc, node.args)
    except (TypeError, ValueError) as e:
        return f"no NumPy loop resolved for these operands ({e})"
    return None


def lower_outer(cx: Any, node: Node) -> Any:
    ufunc = outer_ufunc(node)
    dts = loop_dtypes(ufunc, node.args)
    x, y = (cx.as_dtype(cx.val(a), dt) for a, dt in zip(node.args, dts))
    x = jnp.reshape(x, tuple(x.shape) + (1,) * y.ndim)
    _data_checks(cx, ufunc.__name__, [x, y], dts)
    return cx.as_dtype(getattr(jnp, ufunc.__name__)(x, y), dts[2])


def _small_int_literal(value: Any) -> bool:
    return type(value) in (int, float) and value in (2, 3, 4)


def _data_checks(cx: Any, name: str, ins: list, dts: tuple) -> None:
    """Values where XLA and NumPy disagree: integer division by 0 (NumPy: 0 and a warning) and MIN // -1,
    negative integer powers (NumPy raises), shifts outside [0, bits) (platform-defined)."""
    if dts[0].kind not in "iu":
        return
    if name in _DIVISIONS:
        a, b = ins
        ok = b != 0
        if dts[1].kind == "i":
            ok = ok & ~((a == np.iinfo(dts[0]).min) & (b == -1))
        cx.check(jnp.all(ok))
    elif name == "power" and dts[1].kind == "i":
        cx.check(jnp.all(ins[1] >= 0))
    elif name in ("left_shift", "right_shift"):
        b = ins[1]
        cx.check(jnp.all((b >= 0) & (b < dts[0].itemsize * 8)))
