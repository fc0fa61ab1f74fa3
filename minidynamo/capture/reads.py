"""Reads: the part of CaptureContext that turns a real Python value that existed before the call into a Var
(`wrap(value, source)`), installing the guards its specialization needs, and makes arrays and unspecialized
numbers graph inputs. Imports graph, guards, capture.sources and capture.variables.
"""

from __future__ import annotations

import math
import types
from typing import Any

import numpy as np

from .. import guards as G
from ..graph import lazy_values, ops
from ..graph.ir import ArraySpec, PyScalarSpec
from ..hatches import substitute_for
from .breaks import BreakCategory
from .dynamic_shapes import symbolic_spec
from .lazy_dict import LazyDictVar
from .sources import AttrSource, CallSource, ItemSource, NamespaceSource, Source, input_name, untagged
from .variables.array import ArrayVar
from .variables.base import Var, unsupported
from .variables.builtins import BUILTINS, BuiltinVar, container_method
from .variables.const import ConstVar
from .variables.containers import TupleVar
from .variables.errstate import ErrstateClassVar
from .variables.function_sources import is_module_level
from .variables.functions import BoundMethodVar, UserFunctionVar
from .variables.lazy_array import LazyArrayVar
from .variables.lazy_list import LazyListVar
from .variables.numpy_ns import LibraryModuleVar, wrap_library_value
from .variables.objects import OpaqueVar, UserObjectVar
from .variables.rng import RNG_TYPES, RngClassVar, rng_input
from .variables.scalar import SCALAR_TYPES, ScalarVar
from .variables.sets import SourcedSetVar


def _bound_per_read(value: Any) -> bool:
    """A method of a builtin type bound to its object (`obj.meth` makes a new one on every read); a module's
    function (`math.sqrt`, whose __self__ is the module) is one object."""
    return isinstance(value, (types.BuiltinMethodType, types.MethodWrapperType)) and \
        not isinstance(value.__self__, (types.ModuleType, type(None)))

_CONSTANT_TYPES = (int, float, complex, bool, str, bytes, type(None), type(Ellipsis), range, slice)

_LIBRARIES = (np, np.linalg, np.fft, np.random, math)

def _plain_key(key: Any) -> bool:
    """A dict key whose repr, in a guard (`d[(0, 1)]`, `(0, 1) in d`), is an expression for an equal key: a str,
    an int, or a tuple of them (a cache keyed by `(i, j)`)."""
    return type(key) in (str, int) or type(key) is tuple and all(map(_plain_key, key))

def same_object(a: Source, b: Source, same: bool) -> G.Guard:
    """`(a is b) == same`. The parentheses matter: rendered bare, `a is b is True` would chain."""
    return G.Guard(f"({a.expr()} is {b.expr()})", G.GuardKind.EQUALS, same,
                   f"{a.describe()} is {'' if same else 'not '}{b.describe()}")

class Reads:
    """CaptureContext's recorder of reads (mixed into it): the Vars of values that existed before the call,
    each with the guards that make reusing the capture safe, and the graph inputs they become."""

    def wrap(self, value: Any, source: Source) -> Var:
        """A Var for `value`, read from `source`, with the guards its specialization needs."""
        expr, desc = source.expr(), source.describe()
        t = type(value)
        if (t is np.ndarray or isinstance(value, np.generic)) and value.dtype.hasobject:
            # Object arrays run Python objects' own methods element by element: not modelled, opaque.
            self.guard([G.Guard(expr, G.GuardKind.TYPE, t, desc)])
            return OpaqueVar(value, source)
        if t is np.ndarray or isinstance(value, np.generic):
            return self._graph_input(value, source)
        if lazy_values.is_lazy(value):
            return self._lazy_input(value, source)
        if t in RNG_TYPES:
            return rng_input(self, value, source)
        if isinstance(value, np.ndarray):       # subclasses (matrix, masked) behave differently: opaque
            self.guard([G.Guard(expr, G.GuardKind.TYPE, t, desc)])
            return OpaqueVar(value, source)
        if t in SCALAR_TYPES and untagged(expr) in self.dynamic or t is int and self.shape_policy.mode is True:
            return self._scalar_input(value, source)
        if t in _CONSTANT_TYPES or t is np.dtype:
            return ConstVar(value, source, lambda: self.guard(G.guard_constant(expr, value, desc)))
        if t in (list, tuple, dict):
            return self._wrap_container(value, source)
        if t in (set, frozenset):       # read through guards on what capture reads (variables/sets.py)
            self.guard([G.Guard(expr, G.GuardKind.TYPE, t, desc)])
            return SourcedSetVar(value, source)
        if isinstance(value, types.ModuleType) and value in _LIBRARIES:
            self.guard([G.Guard(expr, G.GuardKind.ID, value, desc)])
            return LibraryModuleVar(value, source)
        if isinstance(value, types.ModuleType):
            self.guard([G.Guard(expr, G.GuardKind.ID, value, desc)])
            return UserObjectVar(value, source)
        if ops.lookup_function(value) is not None or substitute_for(value) is not None:    # (hatches.py)
            self.guard([G.Guard(expr, G.GuardKind.ID, value, desc)])
            return wrap_library_value(value, source)
        if isinstance(value, types.FunctionType) and value in BUILTINS:    # copy.deepcopy (deep_copies.py)
            self.guard([G.Guard(expr, G.GuardKind.ID, value, desc)])
            return BuiltinVar(value, source)
        if isinstance(value, types.FunctionType):
            identity = [G.Guard(expr, G.GuardKind.ID, value, desc)]
            if is_module_level(value):
                self.guard(identity)
                return UserFunctionVar(value, source)
            # Made per call (closure, nested def): guarded by what capture uses of it (function_sources.py).
            self.guard([G.Guard(expr, G.GuardKind.TYPE, types.FunctionType, desc)])
            return UserFunctionVar(value, source, pin=lambda: self.guard(identity))
        if isinstance(value, types.MethodType) and isinstance(value.__func__, types.FunctionType):
            self.guard([G.Guard(f"{expr}.__func__", G.GuardKind.ID, value.__func__, desc)])
            return BoundMethodVar(value.__func__, self.wrap(value.__self__, AttrSource(source, "__self__")))
        if isinstance(value, (types.BuiltinFunctionType, type)) and value in BUILTINS or value is print:
            self.guard([G.Guard(expr, G.GuardKind.ID, value, desc)])
            return BuiltinVar(value, source)
        if isinstance(value, type):
            self.guard([G.Guard(expr, G.GuardKind.ID, value, desc)])
            special = {np.errstate: ErrstateClassVar, np.random.RandomState: RngClassVar}.get(value)
            return special(source) if special is not None else ConstVar(value, source)
        if _bound_per_read(value) and type(value.__self__) in (list, dict):   # `out.append` on a resume's stack
            return container_method(self, value, source)
        if callable(value) and not hasattr(value, "__dict__") and t is not np.errstate and not _bound_per_read(value):
            # (an errstate is made per call, `with np.errstate(...)`, and a builtin's bound method per read,
            # `ctxvar.reset`: a resume function gets them on the stack; guarded like a user object, by type
            # and by what capture reads of it, since capture only hands them to plain Python)
            self.guard([G.Guard(expr, G.GuardKind.ID, value, desc)])
            return OpaqueVar(value, source)
        self.guard([G.Guard(expr, G.GuardKind.TYPE, t, desc)])
        return self._dedupe_mutable(value, source, lambda: UserObjectVar(value, source))

    def wrap_default(self, value: Any) -> Var:
        """A default argument value of an inlined function (fixed by the function's identity guard)."""
        if type(value) in _CONSTANT_TYPES:
            return ConstVar(value)
        return self.wrap(value, NamespaceSource(self.bind(value), "default argument"))

    def array_input(self, value: np.ndarray, source: Source, dims: dict[int, str]) -> ArrayVar:
        """A graph input for an array the entry computes (variables/dynamic_index.py), `dims` symbolic."""
        return self._graph_input(value, source, dims=dims)

    def _graph_input(self, value: Any, source: Source, lazy: bool = False,
                     dims: dict[int, str] | None = None) -> ArrayVar:
        expr = source.expr()
        known = self._inputs_by_expr.get(expr)
        if known is not None:
            return known
        alias = self._inputs_by_id.get(id(value))
        if alias is not None:   # one object reached twice (f(x, x)): one input, so writes show through both
            self.guard([same_object(source, alias.source, True)])
            self._inputs_by_expr[expr] = alias
            return alias
        if lazy:
            self.guard(G.chunked_array_guards(expr, value, source.describe()))
            node = self.graph.add_input(self._input_name(source), ArraySpec(value.shape, value.dtype))
            var: ArrayVar = LazyArrayVar(node, source, type(value))
        else:
            if dims is None:
                dims = self.shape_policy.symbolic_dims(expr, value) if type(value) is np.ndarray else {}
            guards = G.array_guards(expr, value, source.describe())
            if dims:   # the shape guard leaves symbolic sizes open; the shape env guards them (>= 2, relations)
                shape = tuple(None if i in dims else d for i, d in enumerate(value.shape))
                guards[1] = G.Guard(expr, G.GuardKind.SHAPE, shape, source.describe())
            self.guard(guards)
            spec = symbolic_spec(self.shape_env, value, expr, source.describe(), dims) if dims else \
                ArraySpec.of(value)
            node = self.graph.add_input(self._input_name(source), spec)
            var = ArrayVar(node, source)
        self.inputs.append((source, node))
        self._inputs_by_expr[expr] = var
        self._inputs_by_id[id(value)] = var
        self._alive.append(value)      # keeps ids unique while this capture runs
        return var

    def _lazy_input(self, value: Any, source: Source) -> Var:
        """A dask array: a graph input like an ndarray, guarded also on its chunks. Unknown chunk sizes (a
        boolean-mask result: nan in the shape) are a data-dependent shape, so such an array stays opaque."""
        if any(math.isnan(c) for dim in value.chunks for c in dim):
            self.guard([G.Guard(source.expr(), G.GuardKind.TYPE, type(value), source.describe())])
            return OpaqueVar(value, source)
        return self._graph_input(value, source, lazy=True)

    def _scalar_input(self, value: Any, source: Source) -> ScalarVar:
        """An unspecialized int/float: a graph input guarded by type now, by value only if specialized."""
        expr, desc = source.expr(), source.describe()
        known = self._inputs_by_expr.get(expr)
        if known is not None:
            return known
        self.guard([G.Guard(expr, G.GuardKind.TYPE, type(value), desc)])
        node = self.graph.add_input(self._input_name(source), PyScalarSpec(type(value)))
        node.meta["value"] = value
        if type(value) is int:   # a symbolic int: usable as a size or bound, decisions on it guarded
            node.meta["sym"] = self.shape_env.create_symbol(value, expr, desc, lo=-math.inf, reason="int")
        var = ScalarVar(node, value, source,
                        lambda: self.guard([G.Guard(expr, G.GuardKind.EQUALS, value, desc)]))
        self.inputs.append((source, node))
        self._inputs_by_expr[expr] = var
        return var

    def length_input(self, value: list, source: Source, specialize: Any) -> ScalarVar:
        """len(lst) of a list from before the call, as a symbolic int read afresh on every call: a branch
        on it guards the relation (`len(lst) == 0` is False), `specialize` pins the exact length."""
        src = CallSource(source, self.bind(len, "f"), "len({})")
        expr = src.expr()
        known = self._inputs_by_expr.get(expr)
        if known is not None:
            return known
        node = self.graph.add_input(self._input_name(src), PyScalarSpec(int))
        node.meta["value"] = len(value)
        node.meta["sym"] = self.shape_env.create_symbol(len(value), expr, src.describe(), lo=0,
                                                        reason="list length", guard_lo=False)
        var = ScalarVar(node, len(value), src, specialize)
        self.inputs.append((src, node))
        self._inputs_by_expr[expr] = var
        return var

    def _input_name(self, source: Source) -> str:
        name, i = input_name(source), 1
        while name in self.graph.input_names:
            name, i = f"{input_name(source)}_{i}", i + 1
        return name

    def _wrap_container(self, value: Any, source: Source) -> Var:
        expr, desc = source.expr(), source.describe()
        self.guard([G.Guard(expr, G.GuardKind.TYPE, type(value), desc)])
        if type(value) is dict:
            if not all(map(_plain_key, value)):
                raise unsupported(BreakCategory.UNSUPPORTED, f"dict {desc} has keys that are not str/int "
                                                             "(or tuples of them)")
            return self._dedupe_mutable(value, source, lambda: LazyDictVar(self, value, source))
        length = [G.Guard(expr, G.GuardKind.LEN, len(value), desc)]
        if type(value) is tuple:
            self.guard(length)
            return TupleVar([self.wrap(v, ItemSource(source, i)) for i, v in enumerate(value)], source)
        # The list catch_warnings(record=True) records into changes whenever a graph op warns: it is
        # passed through untouched (any use of it is a break), and every other list is guarded not to be it.
        if value is G.warnings_log():
            return OpaqueVar(value, source)
        self.guard([G.Guard(expr, G.GuardKind.NOT_WARNINGS_LOG, None, desc)])
        # A list's length is guarded only once capture reads it (len, items, indexing, iteration): a list
        # that is only appended to (a per-step cache) keeps one capture however long it grows.
        return self._dedupe_mutable(value, source, lambda: LazyListVar(self, value, source,
                                                                      lambda: self.guard(length)))

    def _dedupe_mutable(self, value: Any, source: Source, make: Any) -> Var:
        """One Var per mutable object, so a list passed twice is mutated once; aliasing is guarded."""
        seen = self._mutables.get(id(value))
        if seen is not None:   # the same object under a second source: guard the relation, both ways round
            first = seen[1]
            self.guard([same_object(source, first, True)])
            return seen[0]
        var = make()
        self._mutables[id(value)] = (var, source)
        return var
