"""`script(fn, example_inputs=None)` and ScriptedFunction: binding arguments to graph inputs, one compiled graph
per argument signature (specs and Python types, never values), and running it through a backend.
Imports scripting.compiler, graph, backends and errors.

Arguments: ndarrays and NumPy scalars become array inputs; Python int/float/bool become scalar inputs (their
value is never guarded, so a threshold or a step count may change freely); tuples and str-keyed dicts of
those are opened up; None and str stay constants of that graph. An annotation `int`/`float`/`bool` on a
parameter is checked at every call.
"""

from __future__ import annotations

import functools
import inspect
import types
from typing import Any, Callable, Sequence

import numpy as np

from ..backends import get_backend
from ..graph.ir import ArraySpec, Graph, Node, PyScalarSpec
from .compiler import _FALLS_THROUGH, Compiler, parse
from .merge import flatten, rebuild
from .expressions import _ABSENT as _ABSENT_READ
from .scope import Scope

_SCALARS = (int, float, bool)
_BY_NAME = {"int": int, "float": float, "bool": bool}


class ScriptedFunction:
    """A function compiled by `script`; call it like the function. `.graph` is the graph of the example
    inputs (or of the last call); `.graphs` maps each argument signature to its graph."""

    def __init__(self, fn: types.FunctionType, example_inputs: Sequence[Any] | None, backend: Any) -> None:
        self.fn = fn
        self.backend = get_backend(backend)
        self.tree, self.where = parse(fn)
        self.signature = inspect.signature(fn)
        self.graphs: dict[tuple, Graph] = {}
        self._runners: dict[tuple, tuple[Callable, Any]] = {}
        self._reads: list[tuple] = []      # globals / closure cells read at script time (see _unchanged)
        self._last: tuple | None = None
        functools.update_wrapper(self, fn)
        if example_inputs is not None:
            if not isinstance(example_inputs, (tuple, list)):
                raise TypeError(f"script(): example_inputs must be a tuple or list of arguments, got "
                                f"{type(example_inputs).__name__}")
            self._entry(self._bind(tuple(example_inputs), {}))

    @property
    def graph(self) -> Graph:
        if self._last is None:
            raise RuntimeError(f"script({self.fn.__qualname__}) has no graph yet: pass example_inputs or call it")
        return self.graphs[self._last]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        bound = self._bind(args, kwargs)
        key, runner, template = self._entry(bound)
        outputs = runner(*[leaf for _, leaf in _leaves(bound)])
        return rebuild(template, list(outputs))

    # ---- binding ---------------------------------------------------------------------------------------
    def _bind(self, args: tuple, kwargs: dict) -> dict[str, Any]:
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{self.fn.__qualname__}(): {e}") from None
        bound.apply_defaults()
        for name, value in bound.arguments.items():
            wanted = self.signature.parameters[name].annotation
            wanted = _BY_NAME.get(wanted, wanted) if isinstance(wanted, str) else wanted   # postponed annotations
            if wanted in _SCALARS and type(value) is not wanted:
                raise TypeError(f"{self.fn.__qualname__}(): argument {name!r} is annotated {wanted.__name__}, got "
                                f"{type(value).__name__}")
            try:
                _check_argument(self.fn, name, value)
            except TypeError as e:
                raise self.where.error(self.tree, f"parameter {name!r}", str(e).split(": ", 1)[1]) from None
        return dict(bound.arguments)

    def _entry(self, bound: dict[str, Any]) -> tuple:
        key = _key(bound)
        if self._reads and not _unchanged(self._reads):    # a global or closure variable was rebound
            self._runners.clear()
            self.graphs.clear()
            self._reads = []
        entry = self._runners.get(key)
        if entry is None:
            graph, template = self._compile(bound)
            examples = [leaf for _, leaf in _leaves(bound)]
            entry = self._runners[key] = (self.backend(graph, examples), template)
            self.graphs[key] = graph
        self._last = key
        return key, entry[0], entry[1]

    def _compile(self, bound: dict[str, Any]) -> tuple[Graph, Any]:
        graph = Graph(self.fn.__name__)
        scope = Scope(graph)
        for name, value in bound.items():
            scope.env[name] = _as_inputs(graph, name, value)
        returned = Compiler(self.where, self.fn, self._reads).block(self.tree.body, scope)
        leaves, template = flatten(None if returned is _FALLS_THROUGH else returned)
        graph.set_outputs(leaves)
        graph.lint()
        return graph, template

    def __repr__(self) -> str:
        return f"<scripted {self.fn.__qualname__}>"


def script(fn: Callable | None = None, example_inputs: Sequence[Any] | None = None, *,
           backend: Any = "numpy") -> Any:
    """Compile `fn`'s source into one graph; data-dependent control flow becomes cond / while_loop nodes.
    Usable as `@script`, `script(fn)`, `script(fn, example_inputs=(x, 0.5))` or `@script(backend="eager")`."""
    get_backend(backend)
    if fn is None:
        return functools.partial(script, example_inputs=example_inputs, backend=backend)
    if isinstance(fn, ScriptedFunction):
        fn = fn.fn
    if not isinstance(fn, types.FunctionType):
        raise TypeError(f"script() expects a Python function, got {type(fn).__name__} {fn!r}")
    return ScriptedFunction(fn, example_inputs, backend)


# ---- arguments as graph inputs ------------------------------------------------------------------------

def _check_argument(fn: Callable, name: str, value: Any) -> None:
    if type(value) in (tuple, list):
        for i, v in enumerate(value):
            _check_argument(fn, f"{name}[{i}]", v)
    elif type(value) is dict:
        for k, v in value.items():
            if type(k) is not str:
                raise TypeError(f"{fn.__qualname__}(): argument {name!r} has a non-str key {k!r}")
            _check_argument(fn, f"{name}[{k!r}]", v)
    elif not (type(value) is np.ndarray or isinstance(value, np.generic) or type(value) in (*_SCALARS, str)
              or value is None) or (isinstance(value, (np.ndarray, np.generic)) and value.dtype.hasobject):
        raise TypeError(f"{fn.__qualname__}(): argument {name!r} is a {type(value).__name__}; scripted functions "
                        "take arrays, Python numbers, str/None, and tuples, lists or str-keyed dicts of them")


def _leaves(value: Any, path: str = "") -> list[tuple[str, Any]]:
    """(path, value) of every graph input inside the bound arguments, in a fixed order."""
    if isinstance(value, dict) and not path:
        return [leaf for k, v in value.items() for leaf in _leaves(v, k)]
    if type(value) in (tuple, list):
        return [leaf for i, v in enumerate(value) for leaf in _leaves(v, f"{path}_{i}")]
    if type(value) is dict:
        return [leaf for k, v in value.items() for leaf in _leaves(v, f"{path}_{k}")]
    if type(value) is np.ndarray or isinstance(value, np.generic) or type(value) in _SCALARS:
        return [(path, value)]
    return []


def _key(bound: dict[str, Any]) -> tuple:
    def one(v: Any) -> Any:
        if type(v) in (tuple, list):
            return (type(v).__name__,) + tuple(one(x) for x in v)
        if type(v) is dict:
            return ("dict",) + tuple((k, one(x)) for k, x in v.items())
        if type(v) is np.ndarray or isinstance(v, np.generic):
            return ("array", str(ArraySpec.of(v)))
        if type(v) in (int, bool):     # ints become shapes and indices: one graph per value
            return ("int", type(v).__name__, v)
        if type(v) is float:           # a threshold or a step size: one graph for every value
            return ("float",)
        return ("const", type(v).__name__, repr(v))
    return tuple((k, one(v)) for k, v in bound.items())


def _as_inputs(graph: Graph, path: str, value: Any) -> Any:
    if type(value) in (tuple, list):
        return tuple(_as_inputs(graph, f"{path}_{i}", v) for i, v in enumerate(value))
    if type(value) is dict:
        return {k: _as_inputs(graph, f"{path}_{k}", v) for k, v in value.items()}
    name = "".join(c if c.isalnum() or c == "_" else "_" for c in path)
    if type(value) is np.ndarray or isinstance(value, np.generic):
        return graph.add_input(_fresh(graph, name), ArraySpec.of(value))
    if type(value) in _SCALARS:
        node: Node = graph.add_input(_fresh(graph, name), PyScalarSpec(type(value)))
        if type(value) is not float:       # ints and bools are keyed by value (see _key): their value is exact
            node.meta["value"] = value
        return node
    return value


def _unchanged(reads: list[tuple]) -> bool:
    """Every global, closure cell and function read at script time still holds the same object."""
    for holder, name, value in reads:
        if isinstance(holder, dict):
            now = holder.get(name, _ABSENT)
            if (now is not value) if value is not _ABSENT_READ else (now is not _ABSENT):
                return False
        elif name is None:
            try:
                if holder.cell_contents is not value:
                    return False
            except ValueError:
                return False
        elif getattr(holder, name) is not value:
            return False
    return True


_ABSENT = object()


def _fresh(graph: Graph, name: str) -> str:
    base = name if name.isidentifier() else f"_{name}"
    out, i = base, 1
    while out in graph.input_names:
        out, i = f"{base}_{i}", i + 1
    return out
