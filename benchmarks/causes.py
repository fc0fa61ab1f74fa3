"""What a compiled call does beyond eager's work, measured on one steady-state call (for the real-code table).

Reads the compiled function's state and its children (resume functions, loop bodies, callees that broke),
runs one call, and reports the differences in counters: pieces called (a loop driver calls a body per
iteration), captures during the call (recompiles), pieces past the cache limit, entries that snapshot
written arrays or save random states before their graph call, and binary operators whose operand is a
large single-use temporary that the graph's code holds in a local (NumPy reuses such a temporary's buffer
when code hands it over directly, as graph code does for operands written inside their reader's expression),
and fast-path region calls that ran nothing (each a call and a check, and operands named around it).
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any, Callable

from minidynamo.backends.fast_path.runner import Region
from minidynamo.graph import codegen

ELIDE_BYTES = 256 * 1024       # NumPy's NPY_MIN_ELIDE_BYTES: smaller temporaries are never reused
_COMMUTATIVE = {operator.add, operator.mul, operator.and_, operator.or_, operator.xor}
_BINARY = _COMMUTATIVE | {operator.sub, operator.truediv, operator.floordiv, operator.pow, operator.mod,
                          operator.lshift, operator.rshift}


@dataclass
class Causes:
    piece_calls: int = 0            # compiled pieces called, beyond the function itself
    captures: int = 0               # captures made during a steady-state call
    past_limit: int = 0             # pieces whose dispatcher runs the original (cache full)
    snapshots: int = 0              # entries run that copied written arrays before their graph
    rng_saves: int = 0              # entries run that saved a random state before their graph
    fresh_temps: int = 0            # large operator temporaries a graph allocates where eager reuses one
    plain_loops: int = 0            # loop choices (stitch/loop_choice.py) that run their loops as plain Python
    idle_regions: int = 0           # fast-path region calls that handed back None (too small, a layout, ...)
    notes: list[str] = field(default_factory=list)

    def text(self, extra_ns: float) -> str:
        """The causes in words; extra_ns is the compiled call's time over eager's."""
        parts = []
        if self.captures:
            parts.append(f"recompiles: {self.captures} captures per call")
        if self.past_limit:
            parts.append(f"{self.past_limit} piece(s) past the cache limit")
        if self.piece_calls:
            each = extra_ns / self.piece_calls / 1e3
            parts.append(f"{self.piece_calls} piece calls per call (driver/resume), {each:+.2f} µs each")
        if self.snapshots:
            parts.append(f"write-back snapshot ×{self.snapshots}")
        if self.rng_saves:
            parts.append(f"RNG state saved ×{self.rng_saves}")
        if self.fresh_temps:
            parts.append(f"{self.fresh_temps} temporaries not reused (extra allocations)")
        if self.idle_regions:
            parts.append(f"{self.idle_regions} fast-path region calls that ran nothing (small or refused)")
        if self.plain_loops:
            parts.append(f"{self.plain_loops} loop nest(s) run as plain Python (faster than driven)")
        return "; ".join(parts + self.notes) or "—"


def states(compiled: Any) -> list[Any]:
    """The CompiledState of `compiled` and of every compiled child it made so far."""
    root = getattr(getattr(compiled, "__func__", compiled), "_minidynamo", None)
    if root is None:
        return []
    found = [root]
    for child in list(root.children.values()):
        state = getattr(child, "_minidynamo", None)
        if state is not None and state not in found:
            found.append(state)
    return found


def _counts(all_states: list[Any]) -> dict[int, tuple]:
    return {id(s): (s.cache.stats.misses, s.cache.stats.captures,
                    [e.hits[0] for e in s.cache.entries]) for s in all_states}


def _fresh_temps(graph: Any) -> int:
    handed_over = {id(n) for n in codegen.generate(graph).inlined.values()}   # no local holds these
    uses: dict[int, int] = {}
    for n in graph.nodes:
        for a in n.inputs():
            uses[id(a)] = uses.get(id(a), 0) + 1
    outputs = {id(o) for o in graph.outputs if hasattr(o, "op")}
    count = 0
    for n in graph.nodes:
        if not n.is_call or n.kwargs or len(n.args) != 2 or n.target not in _BINARY:
            continue
        candidates = n.args if n.target in _COMMUTATIVE else n.args[:1]
        for a in candidates:
            spec = getattr(a, "spec", None)
            size = getattr(spec, "size", None)
            if getattr(a, "is_call", False) and uses.get(id(a)) == 1 and id(a) not in outputs | handed_over and \
                    not getattr(spec, "scalar", True) and isinstance(size, int) and \
                    size * spec.dtype.itemsize >= ELIDE_BYTES and spec.dtype == getattr(n.spec, "dtype", None):
                count += 1
                break
    return count


def _region_idle(all_states: list[Any]) -> dict[int, int]:
    """id(region) -> its calls so far that handed back None, for every fast-path region of the graphs the
    entries call (backends/fast_path/runner.py's Region, found in the graph functions' globals)."""
    found = {}
    for s in all_states:
        for e in s.cache.entries:
            for fn in e.namespace.values():
                for v in getattr(fn, "__globals__", {}).values() if hasattr(fn, "__minidynamo_source__") else ():
                    if isinstance(v, Region):
                        found[id(v)] = sum(v.stats.values()) - v.stats["fast"]
    return found


def measure(compiled: Any, call: Callable[[], Any]) -> Causes:
    """Run `call()` (one call of `compiled`) and report what its pieces did."""
    before = _counts(states(compiled))
    idle = _region_idle(states(compiled))
    call()
    after_states = states(compiled)
    causes = Causes()
    causes.idle_regions = sum(n - idle.get(k, 0) for k, n in _region_idle(after_states).items())
    for s in after_states:
        misses0, captures0, hits0 = before.get(id(s), (0, 0, []))
        causes.captures += s.cache.stats.captures - captures0
        if s.cache.stats.mode.value != "capture":
            causes.past_limit += 1
        graphs = {id(r.entry): r.graph for r in s.records}
        calls = s.cache.stats.misses - misses0
        for i, e in enumerate(s.cache.entries):
            ran = e.hits[0] - (hits0[i] if i < len(hits0) else 0)
            if ran <= 0:
                continue
            calls += ran
            text = "\n".join(e.body)
            causes.plain_loops += sum(type(v).__name__ == "LoopChoice" and v.eager for v in e.namespace.values())
            causes.snapshots += ran * ("___snap" in text)
            causes.rng_saves += ran * ("_get_rng(" in text or ".bit_generator.state" in text)
            graph = graphs.get(id(e))
            if graph is not None:
                causes.fresh_temps += ran * _fresh_temps(graph)
        causes.piece_calls += calls
    causes.piece_calls = max(0, causes.piece_calls - 1)      # the call itself
    return causes
