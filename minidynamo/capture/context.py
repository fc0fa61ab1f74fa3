"""CaptureContext: what one capture builds: the graph, its guards, the entry namespace, graph inputs and
side effects, shared by the root frame and every inlined frame. Its jobs live in three modules: this one (the
state, namespace names, guards, cells, identity relations), reads.py (Reads: `wrap(value, source)`, values
from before the call as Vars with their guards) and graph_builder.py (GraphBuilder: `record(opdef, args,
kwargs, target)` appends an op node). Imports graph, guards, capture.sources and capture.variables.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any

from .. import guards as G
from ..graph.ir import ArraySpec, Graph, Node
from ..graph.symbolic import ShapeEnv
from . import mask_counts
from .dynamic_shapes import STATIC, ShapePolicy
from .frame import locate
from .graph_builder import GraphBuilder
from .known_values import KnownValues
from .reads import Reads, same_object
from .side_effects import SideEffects
from .signatures import code_signature
from .sources import Source
from .variables.array import ArrayVar
from .variables.base import Var
from .variables.functions import CellBox, UserFunctionVar
from .variables.objects import OpaqueVar, UserObjectVar
# Modules imported for what they register: copy.deepcopy, map, operator.* ... and set in BUILTINS, and the
# providers of variables.hooks.HOOKS (the core kinds' calls into the kinds above them).
from .variables import (class_calls, deep_copies, descriptors, dynamic_index, lazy_iterators,  # noqa: F401
                        sets, stdlib, strings)


class CaptureContext(Reads, GraphBuilder):
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
        self.auto_cond = False            # fold pure-arm data-dependent branches into cond nodes (fold/branches.py)
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

    def guard_identity(self, a: Var, b: Var) -> bool | None:
        """`a is b` for two pre-existing objects read from sources, guarded as a relation between the two
        sources (not by pinning either object), or None when capture does not know their objects."""
        inputs = {id(node) for _, node in self.inputs}
        if isinstance(a, ArrayVar) and isinstance(b, ArrayVar) and id(a.node) in inputs and id(b.node) in inputs:
            same = a.node is b.node       # one object reached twice is one input (see _graph_input)
            self.guard([same_object(a.source, b.source, same)])
            return same
        real = [getattr(v, "value", None) if isinstance(v, (UserObjectVar, OpaqueVar)) else
                v.fn if isinstance(v, UserFunctionVar) and v.bound_self is None else None for v in (a, b)]
        if real[0] is None or real[1] is None or a.source is None or b.source is None:
            return None
        same = real[0] is real[1]
        self.guard([same_object(a.source, b.source, same)])
        return same

    def distinctness_guards(self) -> None:
        """Mutated objects must stay distinct from every other wrapped mutable of the same type; when the
        graph writes into arrays, its array inputs must stay distinct objects too (aliases share one input)."""
        if self.mutating_nodes:      # numbers are immutable: whether two are one object does not matter
            sources = [src for src, node in self.inputs if isinstance(node.spec, ArraySpec)]
            for i, s1 in enumerate(sources):
                for s2 in sources[i + 1:]:
                    self.guard([same_object(s1, s2, False)])
        for box in self.side_effects.cells:   # a written cell read from a source must not be another cell read
            for other in self._cell_boxes.values():
                if other is not box and other.real is not None and (box.key or other.key):
                    a, b = self.cell_expr(box), self.cell_expr(other)
                    self.guard([G.Guard(f"({a} is {b})", G.GuardKind.EQUALS, False,
                                        f"written cell {G.readable_expr(a)} is not {G.readable_expr(b)}")])
        for a, b in self.side_effects.distinct_pairs(self._mutables.values()):
            self.guard([same_object(a, b, False)])
