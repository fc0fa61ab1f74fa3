"""What people read: ExplainOutput (graphs, breaks, guards, ops), CaptureRecord, and log channels.

Imports graph.ir and config. Log channels follow TORCH_LOGS: `MINIDYNAMO_LOGS=graph_breaks,recompiles`
switches on `logging` output for those channels (read once, in config).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from . import config
from .graph.ir import Graph

CHANNELS = ("graph_breaks", "recompiles", "guards", "graph_code", "bytecode")
_configured = False


def log(channel: str) -> logging.Logger:
    """The logger of one channel; enabled (to stderr) when MINIDYNAMO_LOGS names it."""
    global _configured
    if not _configured:
        _configured = True
        wanted = config.current().log_channels
        for name in CHANNELS:
            logger = logging.getLogger(f"minidynamo.{name}")
            if name in wanted or "all" in wanted:
                logger.setLevel(logging.DEBUG)
                if not logger.handlers:
                    handler = logging.StreamHandler()
                    handler.setFormatter(logging.Formatter(f"[minidynamo:{name}] %(message)s"))
                    logger.addHandler(handler)
    return logging.getLogger(f"minidynamo.{channel}")


@dataclass
class CaptureRecord:
    """One capture: its cache entry, its graph (None if it broke), its break reason, its time."""

    fn: Any
    entry: Any
    graph: Graph | None
    reason: Any
    seconds: float


def _same_break(a: Any, b: Any) -> bool:
    return (a.filename, a.lineno, a.category, a.message) == (b.filename, b.lineno, b.category, b.message)


@dataclass
class ExplainOutput:
    """The report of `explain(fn)(*args)`; `str()` is what a person reads."""

    function: str
    graphs: list[Graph] = field(default_factory=list)
    break_reasons: list[Any] = field(default_factory=list)
    guards: list[str] = field(default_factory=list)
    entry_code: list[str] = field(default_factory=list)
    capture_time: float = 0.0
    lowering: list[str] = field(default_factory=list)   # lowering backends: what ran on the engine and why not

    @property
    def graph_count(self) -> int:
        return len(self.graphs)

    @property
    def graph_break_count(self) -> int:
        return len(self.break_reasons)

    @property
    def ops_per_graph(self) -> list[dict[str, int]]:
        return [g.ops() for g in self.graphs]

    @property
    def op_count(self) -> int:
        return sum(g.count() for g in self.graphs)

    @staticmethod
    def from_records(fn: Any, records: list[CaptureRecord]) -> "ExplainOutput":
        out = ExplainOutput(getattr(fn, "__qualname__", str(fn)))
        for r in records:
            if r.graph is not None and r.graph.count() > 0:
                out.graphs.append(r.graph)
            # A helper that breaks is reported by its caller (at the call site, with the inlining stack)
            # and again by its own capture: the same break, counted once.
            if r.reason is not None and not any(_same_break(r.reason, b) for b in out.break_reasons):
                out.break_reasons.append(r.reason)
            out.guards += str(r.entry.guards).splitlines()
            out.entry_code += r.entry.body
            out.capture_time += r.seconds
            plans = [getattr(v, "__minidynamo_lowering__", None) for v in r.entry.namespace.values()]
            out.lowering += [f"graph {p.graph.name}: {p.summary()}" for p in plans if p is not None]
        return out

    def __str__(self) -> str:
        lines = [f"explain({self.function}): {self.graph_count} graph(s), {self.graph_break_count} graph break(s), "
                 f"{self.op_count} op(s), captured in {self.capture_time * 1e3:.2f} ms"]
        for g in self.graphs:
            lines += ["", str(g)]
        if self.break_reasons:
            lines += ["", "graph breaks:"]
            for i, r in enumerate(self.break_reasons, 1):
                lines.append(f"  {i}. {r}")
        lines += ["", "guards:"] + [f"  {g}" for g in self.guards] if self.guards else ["", "guards: none"]
        lines += ["", "compiled entry:"] + [f"  {c}" for c in self.entry_code]
        if self.lowering:
            lines += ["", "lowering:"] + [f"  {line}" for text in self.lowering for line in text.splitlines()]
        return "\n".join(lines)
