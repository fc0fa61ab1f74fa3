"""ExplainOutput (graphs, breaks, guards, ops, and the records behind them), CaptureRecord, log channels.

Imports graph.ir and config. Log channels follow TORCH_LOGS: `MINIDYNAMO_LOGS=graph_breaks,recompiles`
switches on `logging` output for those channels (read once, in config).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from .. import config
from ..graph.ir import Graph
from .html import write_page
from .pieces import Recapture
from .text import render_text

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
    """One capture: its cache entry, its graph (None if it broke), its break reason, its time; `root` is the
    compiled function it belongs to (a resume function's is the function it resumes), `failed_guards` why
    the entries before it missed (empty for a first capture)."""

    fn: Any
    entry: Any
    graph: Graph | None
    reason: Any
    seconds: float
    root: Any = None
    failed_guards: list[str] = field(default_factory=list)
    shape_env: Any = None       # graph.symbolic.ShapeEnv of the capture (symbols, relation guards)
    recapture: Recapture = Recapture.FIRST
    cause: "CaptureRecord | None" = field(default=None, repr=False)   # the recompile (of an enclosing
                                # piece, in the same call) that made this piece capture again, if any
    # What it did, over all its passes: "passes" (symbolic runs of the code: a break restarts once unless
    # the first pass stopped cleanly), "steps" (instructions executed, arms and loop bodies included),
    # "fold attempts" (branches, while and for loops tried as cond / while_loop / fori_loop nodes)
    work: dict[str, int] = field(default_factory=dict)
    # guards that decided a range loop's whole trip count -> that loop's key (capture/variables/sym_range.py)
    count_guards: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class FoldedBranch:
    """A data-dependent `if` (kind "if"), `while` (kind "while") or a `for` loop (kind "for") captured as a
    cond / while_loop / fori_loop node instead of a graph break or a loop driver: where it is in the user's
    code."""

    kind: str
    filename: str
    lineno: int | None
    source_line: str
    function: str

    def __str__(self) -> str:
        import os
        return f"{os.path.basename(self.filename)}:{self.lineno} in {self.function}: [{self.kind}] " \
               f"`{self.source_line}`"


def folded_branches(graph: Graph) -> list[FoldedBranch]:
    """The branches folded into `graph`'s control-flow nodes, nested ones included, in graph order."""
    found = []
    for node in graph.nodes:
        if "folded" in node.meta:
            m = node.meta
            found.append(FoldedBranch(m["folded"], m["filename"], m["lineno"], m["source_line"], m["function"]))
        for _, sub in getattr(node.target, "subgraphs", ()) if node.is_call else ():
            found += folded_branches(sub)
    return found


def _same_break(a: Any, b: Any) -> bool:
    return (a.filename, a.lineno, a.category, a.message) == (b.filename, b.lineno, b.category, b.message)


@dataclass
class ExplainOutput:
    """The report of `explain(fn)(*args)`: `str()` is what a person reads, `to_html(path)` writes a page.
    `records` are the captures behind it, in order: the function, its resume functions and loop bodies."""

    function: str
    graphs: list[Graph] = field(default_factory=list)
    break_reasons: list[Any] = field(default_factory=list)
    guards: list[str] = field(default_factory=list)
    entry_code: list[str] = field(default_factory=list)
    capture_time: float = 0.0
    lowering: list[str] = field(default_factory=list)   # lowering backends: what ran on the engine and why not
    records: list[CaptureRecord] = field(default_factory=list)
    fn: Any = None
    shape_env: list[str] = field(default_factory=list)   # symbols, their sources, the relations guarded
    folded_branches: list[FoldedBranch] = field(default_factory=list)   # ifs/whiles/fors kept inside a graph

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
        out = ExplainOutput(getattr(fn, "__qualname__", str(fn)), records=list(records), fn=fn)
        for r in records:
            if r.graph is not None and r.graph.count() > 0:
                out.graphs.append(r.graph)
                out.folded_branches += [b for b in folded_branches(r.graph) if b not in out.folded_branches]
            # A helper that breaks is reported by its caller (at the call site, with the inlining stack)
            # and again by its own capture: the same break, counted once.
            if r.reason is not None and not any(_same_break(r.reason, b) for b in out.break_reasons):
                out.break_reasons.append(r.reason)
            out.guards += str(r.entry.guards).splitlines()
            out.entry_code += r.entry.code
            out.capture_time += r.seconds
            plans = [getattr(v, "__minidynamo_lowering__", None) for v in r.entry.namespace.values()]
            out.lowering += [f"graph {p.graph.name}: {p.summary()}" for p in plans if p is not None]
            if r.shape_env is not None and r.shape_env.symbols:
                out.shape_env += [f"{r.graph.name if r.graph is not None else out.function}:"] + \
                    [f"  {line}" for line in str(r.shape_env).splitlines()]
        return out

    def __str__(self) -> str:
        return render_text(self)

    def to_html(self, path: Any) -> None:
        """Write one self-contained HTML page (inline CSS, JS and SVG; nothing fetched) to `path`."""
        write_page(path, f"explain({self.function})", [self])
