"""CaptureContext: what one capture builds: the graph, its guards, the entry namespace, graph inputs and
side effects. Imports graph, guards, capture.sources and capture.variables.

`wrap(value, source)` turns a real Python value that existed before the call into a Var and installs the
guards that make reusing the capture safe; `record(opdef, args, kwargs, target)` appends an op node.
"""

from __future__ import annotations

import functools
import inspect
import math
import types
from typing import Any

import numpy as np

from .. import guards as G
from ..graph import ops
from ..graph.ir import ArraySpec, Graph, Node, PyScalarSpec, RngSpec, iter_nodes, map_nodes
from ..graph import lazy_values
from ..graph.errstate import ERRSTATE
from ..graph.symbolic import ShapeEnv
from .frame import locate
from .dynamic_shapes import STATIC, ShapePolicy, symbolic_spec
from .known_values import KnownValues
from .op_meta import PY_INT, meta_spec, value_ints
from .lazy_dict import LazyDictVar
from .side_effects import SideEffects
from .sources import NamespaceSource, Source, input_name, untagged
from .variables.array import ArrayVar
from .variables.base import Var, unsupported
from .variables.builtins import BUILTINS, BuiltinVar, container_method
from .variables.const import ConstVar
from .variables.containers import ListVar, SliceVar, TupleVar
from .variables.functions import BoundMethodVar, CellBox, UserFunctionVar
from .variables.function_sources import is_module_level
from .variables.lazy_array import LazyArrayVar
from .variables.lazy_list import LazyListVar
from .variables.numpy_ns import LibraryModuleVar, wrap_library_value
from ..hatches import substitute_for
from .variables.objects import OpaqueVar, UserObjectVar
from .variables.errstate import ErrstateClassVar
from .variables.rng import RNG_TYPES, RngClassVar, RngVar, rng_input
from .variables.scalar import SCALAR_TYPES, ScalarVar
from .variables import deep_copies, stdlib  # noqa: F401  (register copy.deepcopy, map, operator.* ... in BUILTINS)
# the providers of variables.hooks.HOOKS, the core kinds' calls into the kinds above them:
from .variables import class_calls, descriptors, dynamic_index, lazy_iterators, sets, strings  # noqa: F401
from .variables.sets import SourcedSetVar  # (the module registers set in BUILTINS)
from .signatures import code_signature
from . import break_codes as codes, mask_counts
from .breaks import BreakCategory

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


class CaptureContext:
    """State shared by the root frame and every inlined frame of one capture."""

    def __init__(self, name: str, tag: str = "") -> None:
        self.tag = tag                    # keeps this capture's namespace names apart from other entries'
        self.dynamic: set[str] = set()    # source expressions of ints/floats kept unspecialized (ScalarVar)
        self.shape_policy: ShapePolicy = STATIC   # which array sizes become symbols of shape_env
        self.shape_env = ShapeEnv(self._relation_guard)
        mask_counts.install(self)         # x[mask] of a graph mask may get a count symbol (ctx.mask_counts)
        self.graph = Graph(name)
        self.graph.on_call = functools.partial(locate, self)      # each node: where the program is
        self.guards = G.GuardSet()
        self.namespace: dict[str, Any] = {}
        self.inputs: list[tuple[Source, Node]] = []
        self.side_effects = SideEffects(lambda: len(self.graph.nodes))
        self.mutating_nodes: list[Node] = []
        self.known = KnownValues()        # small arrays computed from constants only (known_values.py)
        # Nodes recorded while some frame of the capture was inside a try/with region: if one raises,
        # a handler of the user's code may catch it (see stitch/guarded_call.py).
        self.nodes_in_try: list[Node] = []
        self.active_frame: Any = None     # the innermost frame being executed (set by interpreter.run_frame)
        self.auto_cond = False            # fold pure-arm data-dependent branches into cond nodes (branches.py)
        self.fori: Any = None             # fori.ForiState: for loops folded into fori_loop nodes, when enabled
        self.arm_depth = 0                # > 0 while an arm of such a branch is being captured
        self.arm_steps = 0                # symbolic steps spent in arms (bounded by branches.ARM_STEP_BUDGET)
        self.folding: set[tuple[int, int]] = set()   # (frame id, jump index) of branches being folded
        self.loop_tests: set[tuple[int, int]] = set()  # (frame id, jump index) ending while bodies being folded
        self.folded: list[Node] = []      # the cond / while_loop nodes made from the user's control flow
        self.folded_log: list[str] = []   # why branches were not folded (for logs and tests)
        self.counting: str | None = None      # a range loop deciding its whole count (sym_range.count_key)
        self.count_guards: dict[str, str] = {}    # the guards it made -> its key (minidynamo/dispatch/trip_counts.py)
        self.fold_attempts = 0            # branches and while loops whose arms / body were run to fold them
        self.lint: Any = None             # lint.state.LintState during a lint pass (branch outcomes forced), else None
        self.errstate: list[tuple] = []   # keywords of the np.errstate blocks being captured, outermost first
        self._ns_keys: dict[int, str] = {}
        self._inputs_by_expr: dict[str, ArrayVar] = {}
        self._inputs_by_id: dict[int, ArrayVar] = {}
        self._alive: list[Any] = []
        self._mutables: dict[int, tuple[Var, Source]] = {}
        self._signatures: dict[Any, inspect.Signature] = {}
        self._cell_boxes: dict[int, CellBox] = {}

    # ---- namespace -------------------------------------------------------------------------------------
    def bind(self, obj: Any, kind: str = "k") -> str:
        """A namespace name for `obj` (one name per object), for guards and the compiled entry."""
        key = self._ns_keys.get(id(obj))
        if key is None:
            key = f"___{self.tag}{kind}{len(self.namespace)}"
            self._ns_keys[id(obj)] = key
            self.namespace[key] = obj
        return key

    def cell_box(self, real: Any, key: str | None = None, owner: str = "") -> CellBox:
        """The one CellBox of a real cell in this capture: a write through one closure is seen by every
        other reader of that cell."""
        box = self._cell_boxes.get(id(real))
        if box is None:
            box = self._cell_boxes[id(real)] = CellBox(real=real, key=key, owner=owner)
        return box

    def cell_expr(self, box: CellBox) -> str:
        """How guards and the entry spell a real cell: its key, or a name bound in the namespace."""
        return box.key or self.bind(box.real, "cell")

    def signature(self, fn: Any) -> inspect.Signature:
        sig = self._signatures.get(fn)
        if sig is None:
            sig = self._signatures[fn] = code_signature(fn)
        return sig

    def guard(self, guards: list[G.Guard]) -> None:
        for g in guards:
            self.guards.add(g)

    def release(self) -> None:
        """The capture is over: drop the references it kept to the caller's arrays (to keep their ids
        unique while it ran). A cache entry outlives its capture, and an array it kept alive would stay in
        memory and have one reference too many (`ndarray.resize` would refuse it where eager allows it)."""
        for held in (self._alive, self._inputs_by_id, self._inputs_by_expr, self._mutables):   # (Vars too)
            held.clear()
        self.shape_env.on_guard = self.graph.on_call = None

    def _relation_guard(self, python: str, text: str) -> None:
        """A decision the shape environment took on symbolic sizes becomes a dispatcher guard."""
        self.guards.add(G.Guard(python, G.GuardKind.HOLDS, True))
        if self.counting is not None:
            self.count_guards.setdefault(python, self.counting)

    # ---- values from before the call ----------------------------------------------------------------
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
            from .sources import AttrSource
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
            self.guard([_same_object(source, alias.source, True)])
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
        from .sources import CallSource
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
        from .sources import ItemSource
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
            self.guard([_same_object(source, first, True)])
            return seen[0]
        var = make()
        self._mutables[id(value)] = (var, source)
        return var

    def guard_identity(self, a: Var, b: Var) -> bool | None:
        """`a is b` for two pre-existing objects read from sources, guarded as a relation between the two
        sources (not by pinning either object), or None when capture does not know their objects."""
        inputs = {id(node) for _, node in self.inputs}
        if isinstance(a, ArrayVar) and isinstance(b, ArrayVar) and id(a.node) in inputs and id(b.node) in inputs:
            same = a.node is b.node       # one object reached twice is one input (see _graph_input)
            self.guard([_same_object(a.source, b.source, same)])
            return same
        real = [getattr(v, "value", None) if isinstance(v, (UserObjectVar, OpaqueVar)) else
                v.fn if isinstance(v, UserFunctionVar) and v.bound_self is None else None for v in (a, b)]
        if real[0] is None or real[1] is None or a.source is None or b.source is None:
            return None
        same = real[0] is real[1]
        self.guard([_same_object(a.source, b.source, same)])
        return same

    def distinctness_guards(self) -> None:
        """Mutated objects must stay distinct from every other wrapped mutable of the same type; when the
        graph writes into arrays, its array inputs must stay distinct objects too (aliases share one input)."""
        if self.mutating_nodes:      # numbers are immutable: whether two are one object does not matter
            sources = [src for src, node in self.inputs if isinstance(node.spec, ArraySpec)]
            for i, s1 in enumerate(sources):
                for s2 in sources[i + 1:]:
                    self.guard([_same_object(s1, s2, False)])
        for box in self.side_effects.cells:   # a written cell read from a source must not be another cell read
            for other in self._cell_boxes.values():
                if other is not box and other.real is not None and (box.key or other.key):
                    a, b = self.cell_expr(box), self.cell_expr(other)
                    self.guard([G.Guard(f"({a} is {b})", G.GuardKind.EQUALS, False,
                                        f"written cell {G.readable_expr(a)} is not {G.readable_expr(b)}")])
        for a, b in self.side_effects.distinct_pairs(self._mutables.values()):
            self.guard([_same_object(a, b, False)])

    # ---- graph building ------------------------------------------------------------------------------
    def to_arg(self, var: Var) -> Any:
        """The graph argument for a Var: a Node for arrays, the value for constants, nested for containers."""
        if isinstance(var, (ArrayVar, ScalarVar, RngVar)):
            return var.node
        if isinstance(var, TupleVar):
            return tuple(self.to_arg(v) for v in var.items)
        if isinstance(var, ListVar):
            return [self.to_arg(v) for v in var.items]
        if isinstance(var, SliceVar):
            return slice(*(self.known.slice_bound(p, self.to_arg) for p in var.parts))
        if var.is_constant():
            return var.as_constant()
        raise unsupported(BreakCategory.UNSUPPORTED, f"{var.describe()} cannot be an argument of a graph op")

    def note_in_try(self, node: Node) -> None:
        """A node that may raise, inside a try/with region (the instruction being executed, in the active
        frame or a frame that inlined it, is covered by an exception-table entry: a try, except, finally or
        with region): its exception re-runs eagerly, writes undone (stitch/guarded_call.py)."""
        frame = self.active_frame
        while frame is not None and not frame.ins.in_try[frame.current]:
            frame = frame.parent
        if frame is not None:
            self.nodes_in_try.append(node)

    def record(self, opdef: ops.OpDef, args: list[Var], kwargs: dict[str, Var], target: Any) -> Var:
        """Append `target(*args, **kwargs)` as an `opdef.name` node; returns the result's Var."""
        g_args = tuple(self.to_arg(a) for a in args)
        g_kwargs = {k: self.to_arg(v) for k, v in kwargs.items()}
        lazy = next((n.meta["lazy"] for n in iter_nodes((g_args, g_kwargs)) if "lazy" in n.meta), None)
        if lazy is not None:    # an op on a dask value is captured only if dask computes what NumPy would
            why = lazy_values.refusal(opdef.name, target, g_args, g_kwargs) or (
                "dask computes it later, outside `with np.errstate(...)`" if self.errstate else None)
            if why is not None:
                raise unsupported(BreakCategory.UNSUPPORTED, f"{opdef.name} on a dask array: {why}")
        values = value_ints(opdef.name, args, kwargs)
        if not opdef.symbolic or not (opdef.symbolic_ints or opdef.weak_int_operands):
            # A rule that knows no symbols gets concrete values: symbolic sizes and unspecialized ints
            # are specialized here, each with its guard (an int may become a size, an index, an axis).
            # So does a symbolic rule whose ints are not all weak operands (`x.sum(axis=k)`, `np.stack(xs, k)`).
            for var in _scalar_vars(list(args) + list(kwargs.values())):
                if type(var.value) is int and not (var.is_runtime_only() and id(var.node) in values):
                    var.as_constant()
        late = [v for v in _scalar_vars(list(args) + list(kwargs.values()))
                if v.is_runtime_only() and type(v.value) is int and id(v.node) not in values] \
            if opdef.symbolic_ints else []
        if late:
            raise unsupported(codes.VALUE_SHAPE, f"{opdef.name}: a size or bound from a Python "
                              f"number known only at run time ({late[0].runtime_origin()})")
        # Meta rules see arrays as specs and unspecialized scalars as their capture-time value (a weak
        # Python scalar, as NumPy treats them), or as their symbol when the rule understands symbols.
        to_spec = lambda n: PY_INT if id(n) in values else _meta_value(n, opdef.symbolic_ints)  # noqa: E731
        s_args = [_spec_of_constant(a) for a in map_nodes(g_args, to_spec)]
        s_kwargs = {k: _spec_of_constant(v) for k, v in map_nodes(g_kwargs, to_spec).items()}
        mask_counts.hand_count(self, opdef.name, g_args, s_kwargs)
        spec = meta_spec(opdef, self.shape_env, s_args, s_kwargs)
        if lazy is not None:    # dask reduces to a 0-d dask array where NumPy gives a NumPy scalar
            spec = _unscalar(spec)
        node = self.graph.call(opdef.name, opdef.impl.at(spec) if opdef.user else target, g_args, g_kwargs, spec=spec)
        if self.errstate:
            node.meta[ERRSTATE] = tuple(self.errstate)
        mutating = bool(opdef.mutates) or "out" in g_kwargs
        if mutating:
            self.mutating_nodes.append(node)
            node.meta["writes"] = opdef.mutates     # argument positions written (stitch/snapshots.py)
        self.known.note(opdef, target, args, kwargs, node, spec, mutating)
        if opdef.checks or opdef.user:     # its exception must re-run eagerly (a user op's: a wrong meta rule)
            self.nodes_in_try.append(node)
        else:
            self.note_in_try(node)
        if spec is None:
            return ConstVar(None)
        if isinstance(spec, RngSpec):
            return RngVar(node)
        if isinstance(spec, PyScalarSpec):     # `np.random.uniform()`: a Python number known at run time only
            return ScalarVar.runtime(node, spec.type(1), f"the Python number `{opdef.name}` returns")
        make = (lambda n: LazyArrayVar(n, cls=lazy)) if lazy is not None else ArrayVar
        if isinstance(spec, tuple):
            getitem = ops.get("getitem")
            parts = []
            for i, s in enumerate(spec):
                parts.append(make(self.graph.call(getitem.name, getitem.impl, (node, i), {}, spec=s)))
            return ListVar(parts) if opdef.name in ops.LIST_RESULTS else TupleVar(parts)
        return make(node)


def _same_object(a: Source, b: Source, same: bool) -> G.Guard:
    """`(a is b) == same`. The parentheses matter: rendered bare, `a is b is True` would chain."""
    return G.Guard(f"({a.expr()} is {b.expr()})", G.GuardKind.EQUALS, same,
                   f"{a.describe()} is {'' if same else 'not '}{b.describe()}")


def _unscalar(spec: Any) -> Any:
    if isinstance(spec, tuple):
        return tuple(_unscalar(s) for s in spec)
    return ArraySpec((), spec.dtype) if isinstance(spec, ArraySpec) and spec.scalar else spec


def _meta_value(node: Node, symbolic: bool) -> Any:
    if isinstance(node.spec, PyScalarSpec):
        return node.meta.get("sym", node.meta["value"]) if symbolic else node.meta["value"]
    return node.spec


def _scalar_vars(values: list[Var]) -> list[ScalarVar]:
    """The unspecialized scalars among meta-rule arguments, also inside tuples, lists and slices."""
    out: list[ScalarVar] = []
    for v in values:
        if isinstance(v, ScalarVar):
            out.append(v)
        elif isinstance(v, (TupleVar, ListVar)):
            out += _scalar_vars(list(v.items))
        elif isinstance(v, SliceVar):
            out += _scalar_vars(list(v.parts))
    return out


def _spec_of_constant(value: Any) -> Any:
    """NumPy scalar constants take part in promotion as arrays (not weak like Python scalars)."""
    if isinstance(value, np.generic):
        return ArraySpec.of(value)
    return value
