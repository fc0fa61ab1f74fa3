"""ArrayProxy, the stand-in array of the operator-overloading front ends, and Recorder, the graph it writes to.

Imports graph.ir and graph.ops only. `trace()` (tracer.py) and `LazyRunner` (lazy.py) are the two Recorders.
Every NumPy-visible thing a program does with a proxy ends in one of two Recorder calls:

* `record(opdef, args, kwargs)` for an operation (`x @ w`, `x.sum(axis=0)`, `np.tanh(x)`, `x[1:]`): it
  appends a node and returns a new proxy;
* `decide(proxy, kind)` when Python needs an actual value (`if s > 0`, `float(s)`, `np.asarray(x)`): each
  front end answers differently (raise, follow the example, guard, or run the pending graph).
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ..graph import ops
from ..graph.ir import ArraySpec, Graph, MethodCall, Node, map_nodes

MISSING: Any = type("Missing", (), {"__repr__": lambda self: "MISSING"})()   # "no concrete value known"

_NUMBER = (bool, int, float, complex)
# Leaf values that may stand inline in a node's arguments (besides Nodes): what NumPy calls take as
# axes, shapes, indices, dtypes and option strings.
_INLINE = _NUMBER + (str, slice, type(None), type(Ellipsis), np.dtype, type)

# How `decide` turns a concrete value into what Python asked for; the key is also the guard's kind.
CONVERSIONS = {
    "bool": bool, "int": int, "float": float, "complex": complex, "index": operator.index,
    "item": lambda v: v.item(), "tolist": lambda v: v.tolist(), "array": np.asarray,
}


def describe(value: Any) -> str:
    """A short name for a value in error messages: `TracedArray f64[4,8]`, `list [1, 2]`."""
    if isinstance(value, ArrayProxy):
        return f"{type(value).__name__} {value.spec}"
    if isinstance(value, (np.ndarray, np.generic)):
        return f"{type(value).__name__} {ArraySpec.of(value)}"
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 40 else text[:37] + '...'}"


class Recorder:
    """Base of the front ends: lifts arguments into nodes, runs meta rules, appends nodes.

    Subclasses provide `graph`, `node_for(proxy)`, `make_proxy(node, value)`, `decide(proxy, kind)`, and may
    override `compute(opdef, args, kwargs)` to evaluate ops on concrete values alongside the graph.
    """

    graph: Graph

    def __init__(self) -> None:
        self._consts: dict[int, tuple[Any, Node]] = {}   # id(array) -> (array kept alive, its const node)

    # ---- hooks ---------------------------------------------------------------------------------
    def node_for(self, proxy: "ArrayProxy") -> Node:
        raise NotImplementedError

    def make_proxy(self, node: Node, value: Any) -> "ArrayProxy":
        raise NotImplementedError

    def decide(self, proxy: "ArrayProxy", kind: str) -> Any:
        raise NotImplementedError

    def compute(self, target: Any, args: tuple, kwargs: dict) -> Any:
        """The concrete result of `target` on lifted arguments (Nodes inside); MISSING if unknown."""
        return MISSING

    # ---- lifting ---------------------------------------------------------------------------------
    def lift(self, value: Any, what: str) -> Any:
        """Replace proxies by their nodes and arrays by const nodes; refuse anything else not inline."""
        if isinstance(value, ArrayProxy):
            if value._rec is not self:
                raise TypeError(f"{what}: {describe(value)} belongs to another trace or LazyRunner")
            return self.node_for(value)
        if isinstance(value, (np.ndarray, np.generic)):
            return self.const(value)
        if isinstance(value, (tuple, list)):
            return type(value)(self.lift(v, what) for v in value)
        if isinstance(value, slice):
            return slice(*(self.lift(p, what) for p in (value.start, value.stop, value.step)))
        if isinstance(value, _INLINE):
            return value
        raise TypeError(f"{what}: unsupported value {describe(value)}")

    def const(self, array: Any) -> Node:
        """The const node of an array (one node per array object, however often the program uses it)."""
        hit = self._consts.get(id(array))
        if hit is None:
            hit = self._consts[id(array)] = (array, self.graph.add_const(array))
        return hit[1]

    # ---- recording -------------------------------------------------------------------------------
    def record(self, opdef: ops.OpDef, args: tuple, kwargs: dict | None = None, target: Any = None) -> Any:
        """Append `opdef(*args, **kwargs)` to the graph and return the proxy of its result.

        `target` is what the node calls: by default `opdef.impl`; the form the program used where it
        differs (`MethodCall("sum")` for `x.sum()`, `operator.mul` for `a * b`), so the graph runs
        exactly what eager Python runs.
        """
        kwargs = kwargs or {}
        target = opdef.impl if target is None else target
        largs = self.lift(tuple(args), opdef.name)
        lkwargs = {k: self.lift(v, f"{opdef.name}({k}=...)") for k, v in kwargs.items()}
        spec = opdef.meta(*_specs(largs), **_specs(lkwargs))
        if spec is not None and not isinstance(spec, ArraySpec):
            raise TypeError(f"{opdef.name}: ops with several results are not supported here yet")
        if opdef.user:      # a registered function: its result checked against its rule's spec, as compile()
            target = opdef.impl.at(spec)    # checks it (graph/user_ops.py), at the example and when run
        value = self.compute(target, largs, lkwargs)
        node = self.graph.call(opdef.name, target, largs, lkwargs, spec=spec)
        return None if spec is None else self.make_proxy(node, value)

    def operator(self, symbol: str, operands: tuple, target: Any) -> Any:
        """Record a Python operator (`+`, `-=`, unary `-`) through the registry's operator tables;
        `target` is the `operator` module function (operator.add, operator.iadd, operator.neg)."""
        table = ops.UNARY_OPERATORS if len(operands) == 1 else ops.BINARY_OPERATORS
        opdef = table.get(symbol)
        if opdef is None:
            raise TypeError(f"operator {symbol!r} on {', '.join(map(describe, operands))}: no op is registered")
        for v in operands:
            if not isinstance(v, (ArrayProxy, np.ndarray, np.generic) + _NUMBER):
                raise TypeError(f"unsupported operand for {symbol!r}: {describe(v)}")
        return self.record(opdef, operands, target=target)


def _specs(value: Any) -> Any:
    return map_nodes(value, lambda n: n.spec)


def _recorder_of(values: Any) -> Recorder:
    """The one Recorder behind the proxies among `values` (NumPy's dispatch protocols pass them mixed)."""
    found = {id(v._rec): v._rec for v in _iter_proxies(values)}
    if len(found) != 1:
        raise TypeError("an operation mixes arrays from different traces or LazyRunners")
    return next(iter(found.values()))


def _iter_proxies(value: Any):
    if isinstance(value, ArrayProxy):
        yield value
    elif isinstance(value, (tuple, list)):
        for v in value:
            yield from _iter_proxies(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _iter_proxies(v)


class ArrayProxy:
    """An array whose operations are recorded; `spec` (shape and dtype) is known, the data may not be.

    Shapes are plain Python values here, as in the traced program: `x.shape` is a tuple of ints, so
    `T, d = x.shape` and `x.reshape(T, 2, d // 2)` bake the traced sizes into the graph.
    """

    __slots__ = ("_rec", "_node", "_value", "spec", "__weakref__")
    __hash__ = None  # type: ignore[assignment]   # like ndarray: == is elementwise, so no hashing

    def __init__(self, rec: Recorder, node: Node | None, spec: ArraySpec, value: Any = MISSING) -> None:
        self._rec = rec
        self._node = node
        self.spec = spec
        self._value = value

    # ---- static facts: answered from the spec, no data needed ------------------------------------
    shape = property(lambda self: self.spec.shape)
    dtype = property(lambda self: self.spec.dtype)
    ndim = property(lambda self: self.spec.ndim)
    size = property(lambda self: self.spec.size)

    @property
    def T(self) -> "ArrayProxy":
        return self._rec.record(ops.get("transpose"), (self,), target=MethodCall("transpose"))

    def __len__(self) -> int:
        if self.spec.ndim == 0:
            raise TypeError("len() of unsized object")
        return self.spec.shape[0]

    def __iter__(self):
        # Iterating unrolls over the first axis, whose length is baked like every other shape.
        for i in range(len(self)):
            yield self[i]

    # ---- methods (`x.sum(axis=-1)`, `x.reshape(4, 2)`) resolved through ops.METHODS ----------------
    def __getattr__(self, name: str) -> Any:
        opdef = ops.METHODS.get(name) if not name.startswith("_") else None
        if opdef is None:
            raise AttributeError(f"{type(self).__name__} has no attribute {name!r} "
                                 f"(no op is registered for ndarray.{name})")

        def method(*args: Any, **kwargs: Any) -> Any:
            if name in ("reshape", "transpose") and len(args) > 1:
                args = (args,)   # x.reshape(4, 2) is x.reshape((4, 2)): one shape argument for the meta rule
            return self._rec.record(opdef, (self,) + args, kwargs, target=MethodCall(name))

        method.__name__ = name
        return method

    def __getitem__(self, index: Any) -> Any:
        return self._rec.record(ops.get("getitem"), (self, index), target=operator.getitem)

    def __setitem__(self, index: Any, value: Any) -> None:
        self._rec.record(ops.get("setitem"), (self, index, value), target=operator.setitem)

    # ---- NumPy's dispatch protocols: np.tanh(x), np.sum(x), W @ x with W an ndarray -----------------
    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method != "__call__" or "out" in kwargs:
            raise TypeError(f"np.{ufunc.__name__}.{method}(..., out=...) cannot be recorded; "
                            "call the ufunc itself without out=")
        return _record_function(ufunc, inputs, kwargs)

    def __array_function__(self, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
        return _record_function(func, args, kwargs)

    # ---- Python needs a value: the front end decides -------------------------------------------------
    def __bool__(self) -> bool:
        return self._rec.decide(self, "bool")

    def __int__(self) -> int:
        return self._rec.decide(self, "int")

    def __float__(self) -> float:
        return self._rec.decide(self, "float")

    def __complex__(self) -> complex:
        return self._rec.decide(self, "complex")

    def __index__(self) -> int:
        return self._rec.decide(self, "index")

    def item(self) -> Any:
        return self._rec.decide(self, "item")

    def tolist(self) -> Any:
        return self._rec.decide(self, "tolist")

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        array = np.asarray(self._rec.decide(self, "array"))
        if dtype is not None:
            array = array.astype(dtype, copy=False)
        return array.copy() if copy else array

    def __repr__(self) -> str:
        where = self._node.name if self._node is not None else "concrete"
        return f"{type(self).__name__}({where}: {self.spec})"


def _record_function(func: Any, args: tuple, kwargs: dict) -> Any:
    opdef = ops.lookup_function(func)
    if opdef is None:
        name = getattr(func, "__name__", repr(func))
        raise TypeError(f"np.{name} is not a registered op, so it cannot be applied to "
                        f"{', '.join(describe(p) for p in _iter_proxies((args, kwargs)))}")
    return _recorder_of((args, kwargs)).record(opdef, args, kwargs, target=func)


# ---- Python operators, generated from one table ---------------------------------------------------------

_BINARY = {"add": "+", "sub": "-", "mul": "*", "truediv": "/", "floordiv": "//", "mod": "%", "pow": "**",
           "matmul": "@", "and": "&", "or": "|", "xor": "^", "lshift": "<<", "rshift": ">>"}
# Python swaps comparisons itself (`0 < s` calls s.__gt__(0)), so they need no reflected forms.
_COMPARE = {"lt": "<", "le": "<=", "gt": ">", "ge": ">=", "eq": "==", "ne": "!="}
_UNARY = {"neg": "-", "pos": "+", "invert": "~", "abs": "abs"}


def _operator_fn(name: str) -> Any:
    return getattr(operator, name + "_" if name in ("and", "or") else name)


def _binary(name: str, symbol: str):
    plain, inplace_fn = _operator_fn(name), getattr(operator, "i" + name, None)

    def forward(self, other):
        return self._rec.operator(symbol, (self, other), plain)

    def reflected(self, other):
        # `0.5 * h` arrives here as h.__rmul__(0.5); record mul(0.5, h), the order Python evaluates.
        return self._rec.operator(symbol, (other, self), plain)

    def inplace(self, other):
        if symbol + "=" not in ops.BINARY_OPERATORS:
            return NotImplemented   # Python then falls back to the plain operator and rebinds the name
        return self._rec.operator(symbol + "=", (self, other), inplace_fn)

    return forward, reflected, inplace


def _install_operators() -> None:
    for name, symbol in _BINARY.items():
        forward, reflected, inplace = _binary(name, symbol)
        for prefix, fn in (("", forward), ("r", reflected), ("i", inplace)):
            fn.__name__ = f"__{prefix}{name}__"
            setattr(ArrayProxy, fn.__name__, fn)
    for name, symbol in _COMPARE.items():
        fn = _binary(name, symbol)[0]
        fn.__name__ = f"__{name}__"
        setattr(ArrayProxy, fn.__name__, fn)
    for name, symbol in _UNARY.items():
        def unary(self, _symbol=symbol, _fn=_operator_fn(name)):
            return self._rec.operator(_symbol, (self,), _fn)
        unary.__name__ = f"__{name}__"
        setattr(ArrayProxy, unary.__name__, unary)


_install_operators()
