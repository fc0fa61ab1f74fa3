"""Whether the rest of a function may hand a graph's results to a step that turns a rounding difference
into a different answer (backends/amplifiers.py: eig, svd, argsort, argmax, unique, ...).

Imports graph (graph/amplifying.py: the names, shared with backends/amplifiers.py). A graph whose outputs go
on to Python (a graph break, a loop body handed back to its driver) does not see what the code after it does
with them, so this looks by name: the function's code, the code nested in it (comprehensions, lambdas) and
the Python functions and methods it names (its globals, the builtins, attributes of its first argument's
class), a few calls deep. A name found marks the graph's float outputs (`amplifying.HANDED_ON`), and every
engine then computes them with NumPy. Over-approximate on purpose: a name that is never reached costs speed,
never correctness; an amplifying step reached only through a value (a callback passed in) is not seen.
"""

from __future__ import annotations

import builtins
import inspect
import types
from typing import Any

from ..graph.amplifying import AMPLIFYING_NAMES, HANDED_ON
from ..graph.ir import ArraySpec, Graph, PyScalarSpec, iter_nodes

DEPTH = 3       # calls followed below the function itself


def _codes(code: types.CodeType) -> list[types.CodeType]:
    """`code` and every code object nested in its constants."""
    out = [code]
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            out += _codes(c)
    return out


def _callee(name: str, fn: types.FunctionType, owner: type | None) -> types.FunctionType | None:
    """The Python function `name` stands for in `fn`'s code: a global, a builtin or a method of `owner`."""
    value = fn.__globals__.get(name, getattr(builtins, name, None))
    if owner is not None and not isinstance(value, (types.FunctionType, types.MethodType)):
        value = inspect.getattr_static(owner, name, None)   # a method, read from the class: no code of it runs
    if isinstance(value, (staticmethod, classmethod, types.MethodType)):
        value = value.__func__
    return value if isinstance(value, types.FunctionType) else None


def amplifying_name(fn: types.FunctionType, args: tuple) -> str | None:
    """The first amplifying name the function (and what it calls, DEPTH deep) mentions, or None."""
    owner = type(args[0]) if args else None
    seen: set[int] = set()
    todo: list[tuple[types.FunctionType, int]] = [(fn, 0)]
    while todo:
        where, depth = todo.pop()
        for code in _codes(where.__code__):
            if id(code) in seen:
                continue
            seen.add(id(code))
            found = [n for n in code.co_names if n in AMPLIFYING_NAMES]
            if found:
                return found[0]
            if depth < DEPTH:
                callees = (_callee(n, where, owner) for n in sorted(code.co_names))
                todo += [(c, depth + 1) for c in callees if c is not None]
    return None


def mark_handed_on(graph: Graph, fn: types.FunctionType, args: tuple) -> None:
    """Mark the float outputs of `graph`, which go on to the rest of `fn`, when that may reach an
    amplifying step (see the module docstring)."""
    name = amplifying_name(fn, args)
    if name is None:
        return
    for node in iter_nodes(graph.outputs):
        if node.is_call and _is_float(node.spec):
            node.meta[HANDED_ON] = name


def _is_float(spec: Any) -> bool:
    specs = spec if isinstance(spec, tuple) else (spec,)
    return any(isinstance(s, ArraySpec) and s.dtype.kind in "fc" or isinstance(s, PyScalarSpec) and
               s.type in (float, complex) for s in specs)
