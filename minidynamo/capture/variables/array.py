"""ArrayVar: an ndarray or NumPy scalar that lives in the graph (a Node with an ArraySpec).

Imports graph.ir, graph.ops and variables.base/const. Operators, methods, attributes and indexing on an
ArrayVar record op nodes through `frame.ctx.record(...)`; anything that needs the array's values (bool(),
.item(), a boolean mask's result shape) raises a data-dependent graph break.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

import numpy as np

from ...graph import ops
from ...graph.ir import ArraySpec, MethodCall, Node, PyScalarSpec
from ...graph.ops import sym_size
from ...graph.symbolic import Sym
from .. import break_codes as codes
from ..breaks import BreakCategory
from .base import Var, unsupported
from .const import ConstVar, all_constant, fold
from .hooks import HOOKS
from .containers import TupleVar, wrap_constant
from .scalar import ScalarVar

if TYPE_CHECKING:
    from ..frame import Frame

# Attributes that are Python values determined by the spec alone (`shape`, `size` and `nbytes` of symbolic
# sizes are symbolic ints instead: ArrayVar.dim, ArrayVar.size).
_SPEC_ATTRS = {"ndim": lambda s: s.ndim, "dtype": lambda s: s.dtype, "itemsize": lambda s: s.dtype.itemsize}
# Methods whose result needs the data: a graph break, as Dynamo does for .item() and .tolist().
_VALUE_METHODS = {"item", "tolist", "tobytes", "__bool__", "__float__", "__int__", "__index__"}
_KNOWN_VALUE_METHODS = {"item", "tolist", "__bool__", "__float__", "__int__", "__index__"}   # results: numbers, lists
# ndarray methods taking a shape or axes as varargs (x.reshape(2, 3)) or as one tuple (x.reshape((2, 3))).
_VARARGS_METHODS = {"reshape", "transpose"}


def _op(name: str) -> ops.OpDef:
    """The registered op `name`; an op nobody registered yet is a graph break, not an internal error."""
    opdef = ops.REGISTRY.get(name)
    if opdef is None:
        raise unsupported(BreakCategory.UNSUPPORTED, f"array operation {name!r} has no registered op")
    return opdef


class ArrayVar(Var):
    """A graph value. `spec` is its ArraySpec; `node` the graph node that computes it."""

    def __init__(self, node: Node, source=None) -> None:
        self.node = node
        self.source = source

    @property
    def spec(self) -> ArraySpec:
        return self.node.spec

    def describe(self) -> str:
        return spec_words(self.spec)

    def python_type(self) -> type:
        return self.spec.dtype.type if self.spec.scalar else np.ndarray

    def as_bool(self, frame: "Frame") -> bool:
        known = self.known(frame)
        if known is not None:
            return fold(frame, bool, known).as_constant()
        err = unsupported(codes.BRANCH_ON_ARRAY, f"branch on the value of {self.describe()} (data-dependent)")
        if frame.ctx.lint is not None and not frame.ctx.arm_depth:    # lint: recorded, each way followed
            outcome = frame.ctx.lint.branch(frame, err.reason)
            if outcome is not None:
                return outcome
        raise err

    def known(self, frame: "Frame") -> Any:
        """The value, when it was computed from capture-time constants only (capture/known_values.py);
        using it installs those constants' guards. None for values that depend on inputs."""
        return frame.ctx.known.value_of(self)

    def setattr(self, frame: "Frame", name: str, value: Var) -> None:
        if name == "shape":     # not modelled: the same object changes shape, seen by every reference to it
            raise unsupported(BreakCategory.SIDE_EFFECT, f"setting `shape` on {self.describe()}: an in-place "
                              "reshape of that very array object (every reference to it sees the new shape; "
                              "AttributeError where a copy would be needed; a DeprecationWarning since NumPy "
                              "2.5), not modelled: np.reshape gives a view the graph captures")
        super().setattr(frame, name, value)

    def getattr(self, frame: "Frame", name: str) -> Var:
        if name == "shape":
            return TupleVar([self.dim(frame, i) for i in range(self.spec.ndim)])
        if name in ("size", "nbytes"):
            return self.size(frame, self.spec.dtype.itemsize if name == "nbytes" else 1)
        if name in _SPEC_ATTRS:
            return wrap_constant(_SPEC_ATTRS[name](self.spec))
        if name == "T":
            return frame.ctx.record(_op("transpose"), [self], {}, target=MethodCall("transpose"))
        if name in ("real", "imag"):
            return frame.ctx.record(_op(name), [self], {}, target=operator.attrgetter(name))
        if name in _VALUE_METHODS or callable(getattr(np.ndarray, name, None)):
            return ArrayMethodVar(self, name)
        raise unsupported(BreakCategory.UNSUPPORTED, f"array attribute {name!r}")

    def call_method(self, frame: "Frame", name: str, args: list[Var], kwargs: dict[str, Var]) -> Var:
        if name in _VALUE_METHODS:
            known = self.known(frame) if name in _KNOWN_VALUE_METHODS and all_constant(args, kwargs) else None
            if known is not None:
                return fold(frame, getattr(known, name), *[a.as_constant() for a in args],
                            **{k: v.as_constant() for k, v in kwargs.items()})
            raise unsupported(codes.ARRAY_TO_PYTHON, f"x.{name}() needs the array's values")
        opdef = ops.METHODS.get(name)
        if opdef is None:
            raise unsupported(BreakCategory.UNSUPPORTED, f"array method {name!r} has no registered op")
        if name in _VARARGS_METHODS and len(args) > 1:
            args = [TupleVar(list(args))]
        return frame.ctx.record(opdef, [self, *args], kwargs, target=MethodCall(name))

    def getitem(self, frame: "Frame", key: Var) -> Var:
        key = HOOKS.dynamic_index(frame, key)
        return frame.ctx.record(_op("getitem"), [self, key], {}, target=operator.getitem)

    def setitem(self, frame: "Frame", key: Var, value: Var) -> None:
        if self.spec.scalar:
            raise unsupported(BreakCategory.EXCEPTION, "NumPy scalars do not support item assignment")
        frame.ctx.record(_op("setitem"), [self, key, value], {}, target=operator.setitem)

    def iterate(self, frame: "Frame") -> list[Var]:
        n = self.length(frame)
        return [self.getitem(frame, ConstVar(i)) for i in range(n)]

    def make_iterator(self, frame: "Frame") -> Var:
        # each step reads x[i] when the loop reaches it (an iteration sees earlier iterations' writes)
        return HOOKS.array_iterator(frame, self)

    def length(self, frame: "Frame") -> int:
        """len() as a Python int (a symbolic first size is specialized, with its guard); `len(x)` itself
        gives dim(0), a symbolic int."""
        if self.spec.ndim == 0:
            raise unsupported(BreakCategory.EXCEPTION, "len() of a 0-d array raises TypeError")
        return operator.index(self.spec.shape[0])

    def dim(self, frame: "Frame", i: int) -> Var:
        """x.shape[i]: a constant, or a symbolic int computed in the graph as x.shape[i] (ScalarVar)."""
        size = self.spec.shape[i]
        if not isinstance(size, Sym):
            return ConstVar(size)
        node = frame.ctx.graph.call("sym_size", sym_size, (self.node, i), {}, spec=PyScalarSpec(int))
        node.meta.update(value=size.hint, sym=size, expr=None if size.env.varies(size) else size.python())
        return ScalarVar(node, size.hint, install_guard=lambda: size.env.specialize(size))

    def size(self, frame: "Frame", factor: int = 1) -> Var:
        """x.size (times `factor`: x.nbytes): a constant, or the product of the symbolic dims, computed as
        Python multiplies the ints of x.shape, so it stays symbolic."""
        from .operators import binary_op
        if not any(isinstance(d, Sym) for d in self.spec.shape):
            return ConstVar(operator.index(self.spec.size) * factor)
        out = self.dim(frame, 0)
        for i in range(1, self.spec.ndim):
            out = binary_op(frame, "*", out, self.dim(frame, i))
        return binary_op(frame, "*", out, ConstVar(factor)) if factor != 1 else out

    def contains(self, frame: "Frame", item: Var) -> Var:
        known = self.known(frame) if item.is_constant() else None
        if known is not None:
            return fold(frame, operator.contains, known, item.as_constant())
        raise unsupported(BreakCategory.DATA_DEPENDENT, "`in` on an array depends on its values")

    def reconstruct(self, out: Any) -> str:
        return out.graph_value(self)


class ArrayMethodVar(Var):
    """`x.sum` before it is called."""

    def __init__(self, array: ArrayVar, name: str) -> None:
        self.array, self.name = array, name

    def describe(self) -> str:
        return f"method ndarray.{self.name}"

    def call(self, frame: "Frame", args: list[Var], kwargs: dict[str, Var]) -> Var:
        return self.array.call_method(frame, self.name, args, kwargs)


def spec_words(spec: Any) -> str:
    """An array value's spec in words: "a float64 array of shape (4, 8)", "a NumPy bool" (a 0-d result)."""
    if not isinstance(spec, ArraySpec):
        return "an array value"
    if spec.scalar:
        return f"a NumPy {spec.dtype.name}"
    shape = "(" + ", ".join(map(str, spec.shape)) + ("," if len(spec.shape) == 1 else "") + ")"
    return f"a {spec.dtype.name} array of shape {shape}"
