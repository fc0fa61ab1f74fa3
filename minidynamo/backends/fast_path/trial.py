"""Whether a graph's regions pay: its code with the shortcuts and without them, timed against each other.

Imports fast_path.runner. A region can lose to NumPy's own whole-array calls: two cheap steps over a matmul's
result still hot in the cache (the MLP row of benchmarks/results/fast_path.md: 1.03x fast_path=False), a
region whose pool thread competes with BLAS's own threads, one that keeps failing. No rule known before the
call says so, so `timed(fast, plain)` returns the graph function the backend hands out: its first calls
alternate between `fast` (the code with the shortcuts) and `plain` (exactly the code without them, as
`fast_path=False` compiles it), TRIAL of each, fast first, each timed in wall time (the pool's threads work
for the call too); the way that wins the median pair (each fast call against the plain call after it, so a
drift of the machine's load hits both; plain on a tie: no added cost) then runs alone for RETRY_AFTER
calls, and the timing starts again, the wait doubling each time the same way wins again (load and data
change; the share of timed calls tends to nothing). Both ways give eager's bits, warnings and exceptions,
so the choice changes speed only. A call that raises counts no time.
"""

from __future__ import annotations

import statistics
import time
import types
from typing import Any, Callable

from .runner import Region

TRIAL = 7           # timed calls of each way before choosing
RETRY_AFTER = 256   # calls of the chosen way before timing again (doubled after each repeated win): a
                    # timing costs its TRIAL calls of the slower way, so it comes ever less often

clock = time.perf_counter_ns     # (wall time: the pool's threads work for the call too)
_ENTRY = "def {name}(*args):\n    return ___choice.way(*args)\n"


class Choice:
    """The state of one graph's choice; `way` is what a call runs (the timing method, or a chosen way
    behind a countdown). `wins` counts the choices made: 'fast' / 'plain' (tests, benchmarks)."""

    def __init__(self, fast: Callable[..., Any], plain: Callable[..., Any]) -> None:
        self.fast, self.plain = fast, plain
        self.samples: dict[str, list[int]] = {"fast": [], "plain": []}
        self.wins: dict[str, int] = {"fast": 0, "plain": 0}
        self.last = ""
        self.wait = RETRY_AFTER
        self.left = 0
        self.chosen: Callable[..., Any] = fast
        self.way: Callable[..., Any] = self.timing

    def timing(self, *args: Any) -> Any:
        name = "fast" if len(self.samples["fast"]) <= len(self.samples["plain"]) else "plain"
        start = clock()
        out = (self.fast if name == "fast" else self.plain)(*args)
        self.samples[name].append(clock() - start)
        if len(self.samples["plain"]) >= TRIAL:
            self.choose()
        return out

    def choose(self) -> None:
        ratio = statistics.median(f / max(1, p) for f, p in zip(self.samples["fast"], self.samples["plain"]))
        name = "fast" if ratio < 1 else "plain"
        self.wins[name] += 1
        self.wait = self.wait * 2 if name == self.last else RETRY_AFTER
        self.last, self.left = name, self.wait
        self.samples = {"fast": [], "plain": []}
        self.chosen = self.fast if name == "fast" else self.plain
        self.way = self.counting
        if name == "plain":         # the regions' kept outputs and buffers would only hold memory meanwhile
            for value in list(self.fast.__globals__.values()):
                if isinstance(value, Region):
                    value.release()

    def counting(self, *args: Any) -> Any:
        self.left -= 1
        if self.left <= 0:
            self.way = self.timing
        return self.chosen(*args)


def timed(fast: Callable[..., Any], plain: Callable[..., Any]) -> Callable[..., Any]:
    """The graph function: `fast` or `plain` per call, as the Choice decides. It lives in `fast`'s own
    globals (where its regions are found: tests, benchmarks/causes.py) and shows `fast`'s source."""
    namespace = fast.__globals__
    namespace["___choice"] = choice = Choice(fast, plain)
    # (a file of its own: a traceback through it names no node of the graph, codegen.node_at)
    module = compile(_ENTRY.format(name=fast.__name__), f"<minidynamo fast-path choice {fast.__name__}>", "exec")
    code = next(c for c in module.co_consts if isinstance(c, types.CodeType))
    entry = types.FunctionType(code, namespace, fast.__name__)
    for attr in ("__minidynamo_source__", "__minidynamo_filename__", "__minidynamo_graph__"):
        setattr(entry, attr, getattr(fast, attr))
    entry.__minidynamo_choice__ = choice
    return entry
