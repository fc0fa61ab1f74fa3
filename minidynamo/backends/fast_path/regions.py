"""Partition a graph into regions the fast path runs over blocks of rows, at compile time.

Imports graph.ir, graph.symbolic, graph.errstate and fast_path.steps. A region is a run of consecutive
steps (steps.py) under one errstate whose values all share axis 0 (size `n`, the blocked axis): every
step's result has `n` rows, and an operand is either a value of the region with the step result's number of
dimensions (so its axis 0 lines up under broadcasting), an outside array with `n` rows and as many
dimensions (BLOCKED: sliced like the values), or something that broadcasts over axis 0 (WHOLE: an array
with fewer dimensions or one row, a NumPy or Python scalar, a constant), passed unchanged to every block.
A reduction reduces the last axis only (rows stay whole), so axis 0 survives it.

`Slot` numbers what a block reads: the region's inputs (outside nodes, whole or as row blocks) and the
values its steps compute; constants stay in the step's arguments as they are.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from ...graph.errstate import errstate_of
from ...graph.ir import Graph, Node, last_reads
from ...graph.symbolic import same_size
from .steps import Step, StepKind, classify, is_array, operand_dtype


class Role(enum.Enum):
    BLOCKED = "blocked"     # an outside array with n rows: each block reads its rows
    WHOLE = "whole"         # an outside value that broadcasts over the rows: each block reads all of it


@dataclass(frozen=True)
class Slot:
    """Operand `index` of `values` (a step result) or of the region's input list (role BLOCKED / WHOLE)."""

    index: int
    role: Role | None = None        # None: a value computed by the region


@dataclass
class RegionSpec:
    """What compile time knows of one region: its steps in graph order, the outside nodes they read, which
    of their values are read after the region, the number of rows `n` (an int or a Sym)."""

    steps: list[Step]
    n: Any
    inputs: list[Node] = field(default_factory=list)
    roles: list[Role] = field(default_factory=list)          # per input
    args: list[tuple] = field(default_factory=list)          # per step: Slot or constant per operand
    outputs: list[int] = field(default_factory=list)         # indices of values read after the region

    @property
    def nodes(self) -> list[Node]:
        return [s.node for s in self.steps]

    def __str__(self) -> str:
        ops = ", ".join(s.node.op for s in self.steps)
        return f"region of {len(self.steps)} steps over {self.n} rows: {ops}"


def find_regions(graph: Graph) -> list[RegionSpec]:
    """The regions of `graph`'s own nodes (not of its subgraphs), in order, each with its outputs."""
    regions: list[RegionSpec] = []
    current: _Builder | None = None
    for node in graph.nodes:
        step = classify(node)
        if step is not None and current is not None and current.add(step):
            continue
        if current is not None:
            regions.append(current.spec)
        current = _Builder.start(step) if step is not None else None
    if current is not None:
        regions.append(current.spec)
    last = last_reads(graph) if regions else {}
    for spec in regions:
        _mark_outputs(graph, spec, last)
    return [spec for spec in regions if spec.steps]


class _Builder:
    """Grows one region step by step; `add` refuses a step whose rows do not line up with the region's."""

    def __init__(self, first: Step, n: Any) -> None:
        self.spec = RegionSpec([], n)
        self.errstate = errstate_of(first.node)
        self.value_of: dict[int, int] = {}          # id(node) -> value index
        self.input_of: dict[tuple[int, Role], int] = {}

    @staticmethod
    def start(step: Step) -> "_Builder | None":
        shape = step.node.spec.shape
        if not shape or (type(shape[0]) is int and shape[0] < 2):
            return None
        builder = _Builder(step, shape[0])
        return builder if builder.add(step) else None

    def add(self, step: Step) -> bool:
        spec = step.node.spec
        if errstate_of(step.node) != self.errstate or not spec.shape or not same_size(spec.shape[0], self.spec.n):
            return False
        ndim = spec.ndim if step.kind is StepKind.UFUNC else step.args[0].spec.ndim
        slots = []
        for i, a in enumerate(step.args):
            slot = self._slot(a, ndim, row_input=step.kind is StepKind.ROWWISE and i == 0)
            if slot is False:
                return False
            slots.append(slot)
        self.value_of[id(step.node)] = len(self.spec.steps)
        self.spec.steps.append(step)
        self.spec.args.append(tuple(slots))
        return True

    def _slot(self, a: Any, ndim: int, row_input: bool) -> Any:
        """The Slot (or constant) of operand `a` of a step whose rows have `ndim` dimensions; False when `a`
        cannot be read block by block. A reduction's own input must have the rows (`row_input`)."""
        if not isinstance(a, Node):
            return a                                    # a Python constant, passed as it is
        if id(a) in self.value_of:
            vspec = a.spec
            return Slot(self.value_of[id(a)]) if vspec.ndim == ndim else False
        if is_array(a):
            shape = a.spec.shape
            rows = len(shape) == ndim and not (type(shape[0]) is int and shape[0] == 1)
            if rows and not same_size(shape[0], self.spec.n):
                return False
            role = Role.BLOCKED if rows else Role.WHOLE
        elif row_input or operand_dtype(a) is None:
            return False
        else:
            role = Role.WHOLE                           # a NumPy scalar or a Python number
        if row_input and role is not Role.BLOCKED:
            return False
        key = (id(a), role)
        if key not in self.input_of:
            self.input_of[key] = len(self.spec.inputs)
            self.spec.inputs.append(a)
            self.spec.roles.append(role)
        return Slot(self.input_of[key], role)


def _mark_outputs(graph: Graph, spec: RegionSpec, last: dict[int, int]) -> None:
    """spec.outputs: the values read by a node after the region or returned by the graph (`last`:
    ir.last_reads of the graph)."""
    end = graph.nodes.index(spec.steps[-1].node)
    spec.outputs = [i for i, s in enumerate(spec.steps) if last.get(id(s.node), -1) > end]
