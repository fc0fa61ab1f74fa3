"""Graph -> Graph rewrites: dead code elimination, common subexpression elimination, constant folding.

Imports graph.ir and graph.ops. Each pass returns a new Graph and leaves its argument untouched. No pass
removes, merges or moves an impure node (one that writes an argument or draws random numbers); `is_impure`
says which nodes those are. Because pure ops such as `x[1:]` or `x.reshape(...)` may return views, a
value is also protected when it may alias an output or an argument some impure node writes (`_escaping`).
Every pass also rewrites the subgraphs of cond / while_loop nodes (each is a graph with explicit inputs, so
nothing is merged or folded across an arm's boundary), and DCE never drops an op inside one that can raise.
"""

from __future__ import annotations

import operator
import warnings
from typing import Any

import numpy as np

from . import control, ops
from .ir import CONST, INPUT, Graph, MethodCall, Node, iter_nodes, map_nodes

# Targets that write their first argument; capture front ends use them for `x[i] = v` and `x += y`.
MUTATING_OPERATORS = frozenset({
    operator.setitem, operator.delitem, operator.iadd, operator.isub, operator.imul, operator.itruediv,
    operator.ifloordiv, operator.imod, operator.ipow, operator.imatmul, operator.iand, operator.ior,
    operator.ixor, operator.ilshift, operator.irshift, operator.iconcat,
})
# NumPy functions and ndarray methods that write an argument (used when an op is not in the registry;
# np.sort is pure but x.sort() sorts in place, hence two sets).
MUTATING_FUNCTIONS = frozenset({
    "setitem", "delitem", "copyto", "put", "place", "putmask", "put_along_axis", "fill_diagonal",
    "shuffle", "at",
})
MUTATING_METHODS = frozenset({
    "fill", "sort", "partition", "resize", "itemset", "setfield", "setflags", "put", "byteswap",
    "__setitem__", "__delitem__", "__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__",
    "__imod__", "__ipow__", "__imatmul__", "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__",
})


def is_impure(node: Node) -> bool:
    """True for a call node that mutates an argument, draws random numbers, or whose effects are unknown.

    Registered ops answer through their OpDef flags; otherwise operator.i* / setitem, anything with an
    `out` argument, ufuncs given more positional arguments than operands (a positional out), names in
    MUTATING_FUNCTIONS / MUTATING_METHODS and numpy.random count as impure, and so does any callable
    NumPy does not own.
    """
    if not node.is_call:
        return False
    if control.is_control(node):    # cond / while_loop: impure when anything in a subgraph is
        return any(is_impure(n) for _, g in control.subgraphs(node) for n in g.nodes)
    target = node.target
    opdef = ops.op_named(node.op)
    if opdef is not None and not opdef.pure:
        return True
    if "out" in node.kwargs or _is_in(target, MUTATING_OPERATORS):
        return True
    if isinstance(target, np.ufunc):
        return len(node.args) > target.nin
    if isinstance(target, MethodCall):
        return target.name in MUTATING_METHODS
    if node.op in MUTATING_FUNCTIONS or getattr(target, "__name__", None) in MUTATING_FUNCTIONS:
        return True
    if opdef is not None:
        return False
    module = getattr(target, "__module__", None) or ""
    if module.startswith("numpy.random") or isinstance(getattr(target, "__self__", None), _RANDOM_STATES):
        return True
    return not (module == "numpy" or module.startswith("numpy.") or module == "_operator")


_RANDOM_STATES = (np.random.RandomState, np.random.Generator)


# Operator functions whose result is a new object for arrays (ufunc calls underneath).
FRESH_OPERATORS = frozenset({
    operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv, operator.mod,
    operator.pow, operator.matmul, operator.and_, operator.or_, operator.xor, operator.lshift,
    operator.rshift, operator.lt, operator.le, operator.eq, operator.ne, operator.gt, operator.ge,
    operator.neg, operator.pos, operator.invert, operator.abs,
})


def written_arguments(node: Node) -> list[Any]:
    """What a mutating node writes into: the argument positions its op declares (meta "writes"; not recorded:
    every argument) and its `out=`."""
    written = node.meta.get("writes", range(len(node.args)))
    return [node.args[i] for i in written if i < len(node.args)] + list(iter_nodes(node.kwargs.get("out")))


def returns_fresh(target: Any) -> bool:
    """True when the result never aliases an argument (a ufunc or an arithmetic operator)."""
    return isinstance(target, np.ufunc) or _is_in(target, FRESH_OPERATORS)


def _is_in(target: Any, table: frozenset) -> bool:
    try:
        return target in table
    except TypeError:       # an unhashable callable is never one of the operator functions
        return False


def _escaping(graph: Graph) -> tuple[set[int], set[int]]:
    """Ids of nodes whose value may be (a view of) a graph output, and of one an impure node writes.

    A ufunc or arithmetic operator always returns a fresh array, so the search stops there; any other op
    may return a view of (or the very object of) an argument, so its arguments are marked too.
    """
    def close(seeds: list[Node]) -> set[int]:
        marked: set[int] = set()
        stack = list(seeds)
        while stack:
            node = stack.pop()
            if id(node) in marked:
                continue
            marked.add(id(node))
            if node.is_call and not returns_fresh(node.target):
                stack.extend(node.inputs())
        return marked

    written = [a for n in graph.nodes if is_impure(n) for a in n.inputs()]
    return close(list(iter_nodes(graph.outputs))), close(written)


class _Copier:
    """Copies nodes into a fresh graph, remapping arguments through `self.env`."""

    def __init__(self, graph: Graph, nested: Any = None) -> None:
        self.old = graph
        self.nested = nested        # the same pass, applied to the subgraphs of cond / while_loop nodes
        self.new = Graph(graph.name)
        self.new.guards = list(graph.guards)
        self.env: dict[Node, Any] = {}

    def copy(self, node: Node) -> Node:
        if node.op == INPUT:
            new = self.new.add_input(node.name, node.spec)
        elif node.op == CONST:
            new = self.new.add_const(node.value)
        else:
            args = map_nodes(node.args, self.env.__getitem__)
            kwargs = map_nodes(node.kwargs, self.env.__getitem__)
            target = node.target
            if control.is_control(node) and self.nested is not None:
                target = target.replace([self.nested(g) for _, g in control.subgraphs(node)])
            new = self.new.call(node.op, target, args, kwargs, spec=node.spec)
        new.meta.update(node.meta)
        self.env[node] = new
        return new

    def finish(self) -> Graph:
        self.new.set_outputs([map_nodes(o, self.env.__getitem__) for o in self.old.outputs])
        return self.new


def dce(graph: Graph, *, nested: bool = False) -> Graph:
    """Drop pure calls and constants that no output and no impure node needs; inputs always stay.

    Inside the subgraphs of cond / while_loop nodes (`nested`) only what cannot raise is dropped (constants,
    projections of a tuple result): an arm runs only when taken, so an op that raises there is behaviour,
    not dead code. A control-flow node itself is dropped only when nothing in it is impure or can raise.
    """
    live: set[int] = {id(n) for n in iter_nodes(graph.outputs)}
    for node in reversed(graph.nodes):
        if node.op == INPUT or is_impure(node) or (nested and not _cannot_raise(node)) \
                or (control.is_control(node) and not _cannot_raise(node)):
            live.add(id(node))
        if id(node) in live:
            live.update(id(a) for a in node.inputs())
    copier = _Copier(graph, lambda g: dce(g, nested=True))
    for node in graph.nodes:
        if id(node) in live:
            copier.copy(node)
    return copier.finish()


def _cannot_raise(node: Node) -> bool:
    """Nodes whose evaluation never raises: inputs, constants, `getitem(t, i)` reading one result of a
    node with several (a tuple), and control-flow nodes made only of such nodes."""
    if not node.is_call:
        return True
    if control.is_control(node):
        return all(_cannot_raise(n) for _, g in control.subgraphs(node) for n in g.nodes)
    return (node.target is operator.getitem and len(node.args) == 2 and isinstance(node.args[0], Node)
            and isinstance(node.args[0].spec, tuple) and type(node.args[1]) is int
            and 0 <= node.args[1] < len(node.args[0].spec))


def _key(node: Node, env: dict[Node, Any]) -> Any:
    """What two calls must share to be the same computation; None when the arguments cannot be compared."""
    args = map_nodes((node.args, node.kwargs), lambda n: ("node", id(env[n])))
    plain = [v for v in _leaves(args) if not (isinstance(v, tuple) and v[:1] == ("node",))]
    if not all(type(v) in _KEY_TYPES for v in plain):
        return None     # arrays, NumPy scalars, user objects: equality would not mean "same value"
    key = (node.op, id(node.target), _freeze(args))
    try:
        hash(key)
    except TypeError:
        return None
    return key


# Argument types whose equality (with the type name and, for floats, repr) means identical behaviour.
_KEY_TYPES = (bool, int, float, complex, str, bytes, type(None), type(Ellipsis), np.dtype, type)


def _leaves(value: Any) -> list[Any]:
    if isinstance(value, tuple) and value[:1] == ("node",):
        return [value]
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in _leaves(v)]
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, slice):
        return _leaves((value.start, value.stop, value.step))
    return [value]


def _freeze(value: Any) -> Any:
    """A hashable form that keeps lists, tuples, slices and dicts apart (a list index is not a tuple one)."""
    if isinstance(value, tuple) and value[:1] == ("node",):
        return value
    if isinstance(value, (tuple, list)):
        return (type(value).__name__,) + tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return ("dict",) + tuple((k, _freeze(v)) for k, v in value.items())
    if isinstance(value, slice):
        return ("slice", _freeze(value.start), _freeze(value.stop), _freeze(value.step))
    if isinstance(value, (float, complex)):
        return (type(value).__name__, repr(value))      # keeps 0.0 and -0.0 apart; nan equals nan
    return (type(value).__name__, value)


def cse(graph: Graph) -> Graph:
    """Reuse an earlier identical pure call instead of computing it again.

    Never merges across an impure node (it may have changed what both read), never merges a value that
    an impure node may write, and never replaces a value that may be (a view of) an output, so outputs
    that were distinct objects stay distinct.
    """
    to_output, written = _escaping(graph)
    copier = _Copier(graph, cse)
    seen: dict[Any, Node] = {}
    epoch = 0
    for node in graph.nodes:
        if is_impure(node):
            epoch += 1
        elif node.is_call and id(node) not in written and id(node) not in to_output:
            key = _key(node, copier.env)
            earlier = seen.get((epoch, key)) if key is not None else None
            if earlier is not None:
                copier.env[node] = earlier
                continue
            if key is not None:
                new = copier.copy(node)
                seen[(epoch, key)] = new
                continue
        copier.copy(node)
    return copier.finish()


def const_fold(graph: Graph, max_bytes: int = 1 << 20) -> Graph:
    """Evaluate pure calls whose node arguments are all constants, once, at pass time.

    Skipped: values that may reach an output or be written (eager code makes a fresh array on every
    call), calls reading a constant that some impure node writes, results that are not an ndarray or
    NumPy scalar or exceed `max_bytes`, and calls that raise or warn (so the error happens at run time).
    """
    to_output, written = _escaping(graph)
    copier = _Copier(graph, lambda g: const_fold(g, max_bytes))
    for node in graph.nodes:
        foldable = (node.is_call and not is_impure(node) and not control.is_control(node)
                    and id(node) not in to_output
                    and id(node) not in written
                    and all(copier.env[a].op == CONST and id(a) not in written for a in node.inputs()))
        value = _evaluate(node, copier.env, max_bytes) if foldable else _NOT_FOLDED
        if value is _NOT_FOLDED:
            copier.copy(node)
        else:
            copier.env[node] = copier.new.add_const(value)
            copier.env[node].meta.update(node.meta, folded_from=node.op)
    return copier.finish()


def simplify(graph: Graph) -> Graph:
    """The passes in their useful order: fold constants, merge duplicates, then drop what is dead."""
    return dce(cse(const_fold(graph)))


_NOT_FOLDED = object()
# What folding may swallow: the call would raise the same at run time, so it is left in the graph.
_FOLD_ERRORS = (ArithmeticError, LookupError, TypeError, ValueError)


def _evaluate(node: Node, env: dict[Node, Node], max_bytes: int) -> Any:
    """The value of a call whose node arguments are (now) constants, or _NOT_FOLDED."""
    args = map_nodes(node.args, lambda n: env[n].value)
    kwargs = map_nodes(node.kwargs, lambda n: env[n].value)
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # a warning must still appear when the graph runs
        try:
            value = node.target(*args, **kwargs)
        except (*_FOLD_ERRORS, Warning):
            return _NOT_FOLDED
    if isinstance(value, np.generic) or (type(value) is np.ndarray and value.nbytes <= max_bytes):
        return value
    return _NOT_FOLDED
