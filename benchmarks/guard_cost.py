"""Guard cost: where the warm time of a tiny compiled step goes (a diagnostic for issue 10's recurrent layer).

The sizes table's recurrent layer (benchmarks/sizes.py) steps a 3 µs NumPy body. This times, interleaved with
eager, its settled dispatcher and two variants made from the dispatcher's own source: the same entry with
only the guard's type checks kept (shape and dtype checks dropped), and with no guard at all (the reads
the entry needs still made). Neither variant is sound: they exist to show how much of the overhead exact
guards are, and what is left without them. Run: `python -m benchmarks.guard_cost [--quick]`; writes
benchmarks/results/guard_cost.md.
"""

from __future__ import annotations

import re
import statistics
import sys
import warnings

from .report import table, write
from .sizes import RECURRENT_SIZES, Recurrent, settled_recurrent
from .timing import interleaved

_GUARD = re.compile(r"___hit = True if \((.*)\) else False")
_SHAPE = re.compile(r" and ([\w.]+)\.shape == \([\d, ]*\)")
_DTYPE = re.compile(r" and \(([\w.]+)\.dtype is (\w+) or \1\.dtype == \2\)")
_BIND = re.compile(r"(___e\d+_r\d+) := ([\w.\[\]']+?)\)")


def variants(cstep) -> dict[str, object]:
    """The settled dispatcher's newest entry alone (its miss path returns None), as is and without parts of
    its guard, compiled in the dispatcher's namespace."""
    cache = cstep._minidynamo.cache
    source = cache.source()
    head, rest = source.split("\n", 1)
    tag = cache.entries[-1].tag
    block = rest.split(f"    {' = '.join(cache.entries[-1].guards.bound_locals(tag))} = None\n    try:")[0]
    entry = f"{head}\n{block}    return None\n"
    expr = _GUARD.search(entry).group(1)
    types_only = _DTYPE.sub("", _SHAPE.sub("", expr))
    reads = "; ".join(f"{local} = {path}" for local, path in _BIND.findall(expr))
    no_guard = entry.replace(expr, "True").replace("    try:\n", f"    {reads}\n    try:\n", 1) if reads \
        else entry.replace(expr, "True")
    out = {}
    for name, text in (("compiled", entry), ("type checks only", entry.replace(expr, types_only)),
                       ("no guard", no_guard)):
        scratch: dict = {}
        exec(compile(text, f"<guard_cost {name}>", "exec"), cache.namespace, scratch)
        out[name] = next(iter(scratch.values()))
    return out


def measure(batch: int, d: int, rounds: int) -> dict[str, float]:
    layer, eager_layer, cstep, x = settled_recurrent(None, 50, batch, d)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        fns = variants(cstep)
        if any(f(layer, x) is None for f in fns.values()):
            raise RuntimeError("a variant missed: the dispatcher's source is not what this script expects")
        candidates = {"eager": lambda: Recurrent.step(eager_layer, x)}
        candidates.update({name: (lambda f=f: f(layer, x)) for name, f in fns.items()})
        t = interleaved(candidates, rounds=rounds, batch_ns=2e6)
    out = {"eager µs": statistics.median(t["eager"]) / 1e3}
    out.update({name: statistics.median(c / e for c, e in zip(t[name], t["eager"])) for name in fns})
    return out


def run(quick: bool = False) -> str:
    rows = []
    for batch, d in RECURRENT_SIZES:
        m = measure(batch, d, 7 if quick else 21)
        rows.append([f"batch {batch}, d {d}", f"{m['eager µs']:.2f}",
                     *(f"{m[k]:.2f}x" for k in ("compiled", "type checks only", "no guard"))])
    body = ("The recurrent layer of the sizes table, settled (2 captures), per call against eager (medians of "
            "per-round ratios, rounds interleaved). `type checks only` and `no guard` are the entry with its "
            "shape and dtype checks, or its whole guard, removed: unsound, shown only to measure what exact "
            "guards cost and the floor left without them (the call, the graph's own Python, the write-backs).\n\n"
            + table(["layer", "eager µs", "compiled", "type checks only", "no guard"], rows) + "\n")
    return body


def main(quick: bool = False) -> str:
    body = run(quick)
    path = write("guard_cost", "Guard cost of a tiny compiled step", body, quick)
    print(body)
    print(f"written to {path}")
    return body


if __name__ == "__main__":
    main("--quick" in sys.argv[1:])
