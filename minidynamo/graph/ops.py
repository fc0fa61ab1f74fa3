"""The op registry: name -> OpDef (NumPy implementation, meta rule, flags).

Imports graph.meta and numpy only. Front ends look ops up here (`lookup_function(np.tanh)`, `get("sum")`,
`BINARY_OPERATORS["+"]`), record them into a Graph with `spec = opdef.meta(*spec_args)`, and backends run
`node.target`. A meta rule takes the op's arguments with every array replaced by its ArraySpec and returns
the result's ArraySpec (or a tuple of them, or None for an op that only mutates); it raises MetaError where
NumPy would raise.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from . import meta as M


@dataclass(frozen=True)
class OpDef:
    """One operation the graph can hold.

    name:    NumPy's own name (`matmul`, `tanh`, `sum`); what `node.op` holds and the listing prints.
    impl:    the callable the default backends run (normally the NumPy function itself).
    meta:    spec rule, see the module docstring.
    mutates: argument positions written in place (slice assignment, `out=`, in-place operators); such a
             node is never removed or reordered by passes.
    data_dependent_shape: the output shape depends on values (boolean masks, np.nonzero); front ends
             that need static shapes must break before it.
    random:  draws from global random state (never folded or deduplicated).
    """

    name: str
    impl: Callable
    meta: Callable[..., Any]
    mutates: tuple[int, ...] = ()
    data_dependent_shape: bool = False
    random: bool = False
    doc: str = field(default="", compare=False)

    @property
    def pure(self) -> bool:
        return not self.mutates and not self.random


REGISTRY: dict[str, OpDef] = {}
BY_FUNCTION: dict[int, OpDef] = {}      # id(np.tanh) -> OpDef, for resolving `np.<name>(...)` calls
METHODS: dict[str, OpDef] = {}          # "sum" -> OpDef, for resolving `x.sum(...)` on arrays
BINARY_OPERATORS: dict[str, OpDef] = {}  # "+" -> add via operator.add, "+=" -> iadd via operator.iadd
UNARY_OPERATORS: dict[str, OpDef] = {}   # "-" -> negative via operator.neg, "~", "+", "abs"


def register(opdef: OpDef, *, functions: tuple = (), methods: tuple[str, ...] = ()) -> OpDef:
    """Add an op; `functions` are the public callables (np.tanh) and `methods` the ndarray method names
    that resolve to it."""
    if opdef.name in REGISTRY:
        raise ValueError(f"op {opdef.name!r} registered twice")
    REGISTRY[opdef.name] = opdef
    for fn in functions:
        BY_FUNCTION[id(fn)] = opdef
    for m in methods:
        METHODS[m] = opdef
    return opdef


def get(name: str) -> OpDef:
    try:
        return REGISTRY[name]
    except KeyError:
        raise KeyError(f"no op named {name!r} is registered") from None


def lookup_function(fn: Any) -> OpDef | None:
    """The op for a public callable such as np.tanh or np.linalg.inv, or None."""
    return BY_FUNCTION.get(id(fn))


# ---- seed entries (the full table is filled in below this line) --------------------------------------

def _ufunc(uf: np.ufunc, name: str | None = None, methods: tuple[str, ...] = ()) -> OpDef:
    return register(OpDef(name or uf.__name__, uf, M.ufunc_meta(uf)), functions=(uf,), methods=methods)


for _uf in (np.add, np.subtract, np.multiply, np.true_divide, np.tanh, np.exp):
    _ufunc(_uf)

register(OpDef("matmul", np.matmul, M.matmul_meta), functions=(np.matmul,))

BINARY_OPERATORS.update({
    "+": REGISTRY["add"], "-": REGISTRY["subtract"], "*": REGISTRY["multiply"], "/": REGISTRY["divide"],
    "@": REGISTRY["matmul"],
})
_ = operator  # operator-form impls (operator.add ...) are attached by the capture front ends via node.target
