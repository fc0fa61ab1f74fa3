"""Which graph nodes the fast path may run block by block, and how: a node -> Step, or None.

Imports graph.ir and graph.control. Two kinds (StepKind):
- UFUNC: an element-wise ufunc of one or two operands and one result (a NumPy call `np.tanh(x)`, or a
  Python operator over arrays, which ndarray hands to that same ufunc: `a + b` is `np.add(a, b)`); a block
  runs `ufunc(*operand blocks, out=buffer)`. `a ** 2` is NumPy's `square`, `a ** -1` `reciprocal` and
  `a ** 0.5` `sqrt` (ndarray's power shortcut for those exponents): which ufunc an operator runs is asked of
  NumPy itself, once, by calling it on a recording subclass (`operator_ufunc`).
- ROWWISE: a reduction along the last axis (`x.sum(axis=-1, keepdims=True)`, `np.max(x, -1)`, mean, var,
  std, prod, min, any, all, argmax, argmin): rows are independent, so a block of whole rows runs the node's
  own callable with its own arguments, exactly eager's call on fewer rows (no `out=`: `mean`'s float16
  rounding differs with one).
Anything else (other kwargs such as out=/where=/dtype=, in-place operators, object/datetime/longdouble
dtypes, a result dtype NumPy's own resolution does not confirm) is not a step: the region ends there.
"""

from __future__ import annotations

import enum
import operator
import threading
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ...graph import control, ops
from ...graph.codegen import is_hashable
from ...graph.ir import ArraySpec, MethodCall, Node, PyScalarSpec


class StepKind(enum.Enum):
    UFUNC = "ufunc"
    ROWWISE = "rowwise"


@dataclass(frozen=True)
class Step:
    """One node as the fast path runs it: `fn(*args, out=...)` (UFUNC) or `fn(*args, **kwargs)` (ROWWISE),
    args being the node's own operands (Nodes and constants). `wide_rows`: the call's internals broadcast
    a per-row value over rows (var, std), so rows must be whole SIMD groups (backends/fast_path/layout.py)."""

    kind: StepKind
    fn: Callable
    args: tuple
    kwargs: dict
    node: Node
    wide_rows: bool = False


# Python operators over ndarrays run these ufuncs (ndarray's number slots call them with both operands).
OPERATOR_UFUNCS: dict[Callable, np.ufunc] = {
    operator.add: np.add, operator.sub: np.subtract, operator.mul: np.multiply, operator.truediv: np.true_divide,
    operator.floordiv: np.floor_divide, operator.mod: np.remainder, operator.and_: np.bitwise_and,
    operator.or_: np.bitwise_or, operator.xor: np.bitwise_xor, operator.lshift: np.left_shift,
    operator.rshift: np.right_shift, operator.lt: np.less, operator.le: np.less_equal, operator.eq: np.equal,
    operator.ne: np.not_equal, operator.gt: np.greater, operator.ge: np.greater_equal,
    operator.neg: np.negative, operator.pos: np.positive, operator.invert: np.invert, operator.abs: np.absolute,
}
ROWWISE_METHODS = frozenset({"sum", "prod", "max", "min", "mean", "var", "std", "any", "all", "argmax", "argmin"})
_ROWWISE_FUNCTIONS = {id(f): n for n, f in (("sum", np.sum), ("prod", np.prod), ("max", np.max), ("max", np.amax),
                                             ("min", np.min), ("min", np.amin), ("mean", np.mean), ("var", np.var),
                                             ("std", np.std), ("any", np.any), ("all", np.all),
                                             ("argmax", np.argmax), ("argmin", np.argmin))}
_WIDE_ROWS = frozenset({"var", "std"})
_KINDS = "biufc"          # bool, ints, floats, complex; no longdouble (below), object, datetime, strings
_PY_SCALARS = (bool, int, float, complex)


def is_plain_dtype(dtype: np.dtype) -> bool:
    """A native-order numeric dtype other than long double (x87 padding bytes, its own loops)."""
    return dtype.kind in _KINDS and dtype.isnative and dtype not in (np.dtype(np.longdouble), np.dtype(np.clongdouble))


def is_array(value: Any) -> bool:
    """A node holding an ndarray (not a NumPy scalar) of a plain dtype."""
    spec = getattr(value, "spec", None) if isinstance(value, Node) else None
    return isinstance(spec, ArraySpec) and not spec.scalar and is_plain_dtype(spec.dtype)


def operand_dtype(value: Any) -> Any:
    """What NumPy's promotion sees of an operand: a dtype (arrays, NumPy scalars) or the Python type of a weak
    Python scalar; None when the operand is of no kind a step takes."""
    if isinstance(value, Node):
        spec = value.spec
        if isinstance(spec, ArraySpec):
            return spec.dtype if is_plain_dtype(spec.dtype) else None
        if isinstance(spec, PyScalarSpec) and spec.type in (int, float):
            return spec.type
        return None
    if type(value) is bool:             # a Python bool is no weak scalar: it promotes as np.bool_
        return np.dtype(bool)
    return type(value) if type(value) in _PY_SCALARS else None


def classify(node: Node) -> Step | None:
    """The Step running `node`, or None when the fast path leaves it to run whole."""
    if not node.is_call or control.is_control(node) or not is_array(node):
        return None
    return _ufunc_step(node) or _rowwise_step(node)


def _ufunc_step(node: Node) -> Step | None:
    target, args = node.target, node.args
    if node.kwargs or not is_hashable(target):
        return None
    if target is operator.pow and len(args) == 2:
        found = operator_ufunc(target, args)
        if found is None:
            return None
        uf, args = found
    elif target in OPERATOR_UFUNCS:
        uf = OPERATOR_UFUNCS[target]
    elif isinstance(target, np.ufunc) and ops.is_numpy_ufunc(target):
        uf = target     # (another library's ufunc, a generic op: its loops' thread safety is not NumPy's to vouch)
    else:
        return None
    if uf.nout != 1 or uf.nin not in (1, 2) or uf.signature is not None or len(args) != uf.nin:
        return None
    dtypes = [operand_dtype(a) for a in args]
    if any(d is None for d in dtypes) or not any(is_array(a) for a in args):   # (dtype == None is float64)
        return None
    try:
        resolved = uf.resolve_dtypes((*dtypes, None))
    except Exception:        # noqa: BLE001 -- NumPy's own refusal (no loop, a cast it forbids): not a step
        return None
    if resolved[-1] != node.spec.dtype:     # what the graph expects is not what NumPy says: leave it whole
        return None
    return Step(StepKind.UFUNC, uf, tuple(args), {}, node)


def _rowwise_step(node: Node) -> Step | None:
    target, args, kwargs = node.target, node.args, dict(node.kwargs)
    name = target.name if isinstance(target, MethodCall) else _ROWWISE_FUNCTIONS.get(id(target))
    if name not in ROWWISE_METHODS or not args or not is_array(args[0]):
        return None
    ndim = args[0].spec.ndim
    if len(args) > 2 or (len(args) == 2 and "axis" in kwargs):
        return None
    axis = args[1] if len(args) == 2 else kwargs.get("axis")
    allowed = {"axis", "keepdims"} | ({"ddof"} if name in _WIDE_ROWS else set())
    if set(kwargs) - allowed or type(kwargs.get("keepdims", False)) is not bool:
        return None
    if type(kwargs.get("ddof", 0)) not in (int, float):
        return None
    if isinstance(axis, tuple) and len(axis) == 1:
        axis = axis[0]
    if ndim < 2 or type(axis) is not int or axis not in (-1, ndim - 1):
        return None
    return Step(StepKind.ROWWISE, target, tuple(args), kwargs, node, wide_rows=name in _WIDE_ROWS)


class _Recorder(np.ndarray):
    """An ndarray subclass that records the ufunc calls NumPy makes for an operator over it."""

    calls: list = []
    lock = threading.Lock()         # captures of different functions may run in different threads

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        _Recorder.calls.append((ufunc, method, inputs, kwargs))
        plain = [np.asarray(i) if isinstance(i, _Recorder) else i for i in inputs]
        return getattr(ufunc, method)(*plain, **kwargs)


def operator_ufunc(target: Callable, args: tuple) -> tuple[np.ufunc, tuple] | None:
    """(ufunc, its operands among `args`) that `target(*args)` runs, asked of NumPy on one-element stand-ins
    of the array operands; None when it runs anything but exactly one plain ufunc call, or depends on a value
    known only at run time (a Python number passed in, as the exponent of `x ** n` would be)."""
    stand_ins, origin = [], {}
    for a in args:
        if is_array(a):
            probe = np.ones((1,) * a.spec.ndim, a.spec.dtype).view(_Recorder)
            origin[id(probe)] = a
            stand_ins.append(probe)
        elif isinstance(a, Node) or type(a) not in _PY_SCALARS:
            return None                     # a NumPy scalar or run-time number: its value could decide
        else:
            stand_ins.append(a)
    with _Recorder.lock:
        _Recorder.calls = []
        try:
            with np.errstate(all="ignore"):     # (ones: no warning but for an integer power's error)
                target(*stand_ins)
        except Exception:        # noqa: BLE001 -- the operator refuses these operands: not a step
            return None
        finally:
            calls, _Recorder.calls = _Recorder.calls, []
    if len(calls) != 1 or calls[0][1] != "__call__" or calls[0][3]:
        return None
    uf, _, inputs, _ = calls[0]
    mapped = []
    for i in inputs:
        if id(i) in origin:
            mapped.append(origin[id(i)])
        elif any(i is s for s in stand_ins):
            mapped.append(i)
        else:
            return None                     # an operand NumPy made itself (a converted scalar): leave it whole
    return uf, tuple(mapped)
