"""`python -m benchmarks.dask_numpy`: `compile(..., backend="dask")` called on a NumPy array, on a 2-worker
LocalCluster (worker processes), against eager NumPy. Writes benchmarks/results/dask_numpy.md.

The workload `(np.tanh(x) * x).sum(axis=0)` is element-wise work with a small result: it parallelizes over
row blocks, and only a row comes back. Two sizes, each timed side by side with eager (rounds of one eager
call and one compiled call each, medians):
- medium (fits a worker): inputs embedded in every call's graph (`dask_scatter_bytes=0`, the backend before
  issue 26) against scattered once (the default);
- large (default 2 GiB, larger than one worker's `memory_limit`, so the workers spill to disk): scattered
  only; embedding it would send the whole array with every call.
Reported per call: time, the bytes of the task graph the client sends (distributed's own "Sending large
graph" measure) and the blocks scattered; the first call (which scatters) apart. Results are checked
against eager NumPy (rtol 1e-9: chunked sums add in another order). "The content check" is the SHA-256 of
every block that each call computes to reuse the scattered blocks exactly, timed alone once.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import time
import warnings
from typing import Any, Callable, Iterator

import numpy as np

import minidynamo as md

from .report import table, write
from .timing import Spread


def tanh_moment(x):
    return (np.tanh(x) * x).sum(axis=0)


@contextlib.contextmanager
def graph_bytes() -> Iterator[list[int]]:
    """Bytes of each task graph a distributed client sends inside the block (its "Sending large graph of size"
    warning, with the threshold at 1 byte; format_bytes rounds to 4 digits)."""
    import dask
    from dask.utils import parse_bytes
    sizes: list[int] = []
    with dask.config.set({"distributed.admin.large-graph-warning-threshold": "1B"}), \
            warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        yield sizes
    for w in seen:
        found = re.search(r"Sending large graph of size (\S+ \S+?)\.", str(w.message))
        if found:
            sizes.append(parse_bytes(found.group(1)))


def _timed(fn: Callable[[], Any]) -> tuple[float, Any, int]:
    with graph_bytes() as sizes:
        start = time.perf_counter()
        out = fn()
        took = time.perf_counter() - start
    return took, out, sum(sizes)


def _spilled_bytes(dask_worker: Any) -> int:
    """Bytes of this worker's data on disk now (run on each worker by client.run)."""
    return int(getattr(getattr(dask_worker.data, "spilled_total", None), "disk", 0))


def _digest_seconds(x: np.ndarray, chunk_bytes: int) -> float:
    """Seconds the exact reuse check takes on x alone: every block's SHA-256, as each call computes it."""
    import dask.array as da
    from minidynamo.backends import dask_scatter
    chunks = da.core.normalize_chunks("auto", x.shape, limit=chunk_bytes or None, dtype=x.dtype)
    start = time.perf_counter()
    dask_scatter.digested([x[s] for s in da.core.slices_from_chunks(chunks)], md.config.current().threads)
    return time.perf_counter() - start


def measure(client: Any, x: np.ndarray, scatter: bool, rounds: int, chunk_bytes: int) -> dict:
    """First call and `rounds` side-by-side rounds of eager and compiled calls on `client`."""
    from minidynamo.backends import dask_scatter
    options = {"dask_chunk_bytes": chunk_bytes, **({} if scatter else {"dask_scatter_bytes": 0})}
    compiled = md.compile(tanh_moment, backend="dask", options=options)
    with client.as_current():
        first_s, first, first_graph = _timed(lambda: compiled(x))
        cache = dask_scatter.current()
        sent_first = cache.scattered if cache else 0
        eager, calls, graphs, errors = [], [], [], []
        for _ in range(rounds):
            took, expected, _ = _timed(lambda: tanh_moment(x))
            eager.append(took)
            took, got, graph = _timed(lambda: compiled(x))
            calls.append(took)
            graphs.append(graph)
            errors.append(float(np.max(np.abs(got - expected) / np.abs(expected))))
        sent_later = (cache.scattered if cache else 0) - sent_first
        spilled = sum(client.run(_spilled_bytes).values())
    digest_s = _digest_seconds(x, chunk_bytes) if scatter else None
    errors.append(float(np.max(np.abs(first - expected) / np.abs(expected))))
    dask_scatter.release()
    return {"first_s": first_s, "first_graph": first_graph, "eager": Spread.of(eager), "call": Spread.of(calls),
            "ratio": Spread.of([c / e for c, e in zip(calls, eager)]), "graph": max(graphs),
            "blocks_first": sent_first, "blocks_later": sent_later, "max_rel_err": max(errors),
            "spilled": spilled, "digest_s": digest_s}


def run(client: Any, medium_rows: int, large_rows: int, cols: int, rounds: int, chunk_bytes: int = 32 << 20,
        seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    out: dict = {"load_start": os.getloadavg()[0], "cols": cols, "rows": {}, "chunk_bytes": chunk_bytes}
    for size, rows, modes in (("medium", medium_rows, (False, True)), ("large", large_rows, (True,))):
        x = rng.standard_normal((rows, cols))
        out["rows"][size] = rows
        for scatter in modes:
            out[size, scatter] = measure(client, x, scatter, rounds, chunk_bytes)
        del x
    out["load_end"] = os.getloadavg()[0]
    return out


def _mib(n: float) -> str:
    return f"{n / 2**20:,.2f} MiB" if n >= 2**20 else f"{n / 2**10:,.1f} KiB"


def render(res: dict, workers: int, memory_limit: int) -> str:
    rows = []
    for (size, scatter), r in ((k, v) for k, v in res.items() if isinstance(k, tuple)):
        n = res["rows"][size] * res["cols"] * 8
        rows.append([f"{size}: {res['rows'][size]:,} x {res['cols']:,} f64 = {_mib(n)}",
                     "scattered once" if scatter else "embedded per call (before)",
                     f"{r['first_s']:.2f} s, graph {_mib(r['first_graph'])}, {r['blocks_first']} blocks sent",
                     f"{r['eager'].median:.2f} s", f"{r['call'].median:.2f} s [{r['call'].q1:.2f}, "
                     f"{r['call'].q3:.2f}]", f"{r['ratio'].median:.2f}x",
                     "" if r["digest_s"] is None else f"{r['digest_s']:.2f} s", _mib(r["graph"]),
                     str(r["blocks_later"]), _mib(r["spilled"]), f"{r['max_rel_err']:.1e}"])
    head = ["x", "NumPy input", "first call", "eager (median)", "compiled (median [IQR])", "compiled / eager",
            "of which the content check", "graph sent per later call", "blocks sent by later calls",
            "on the workers' disks after", "max rel err"]
    return (f"{workers}-worker `distributed.LocalCluster` (processes, 1 thread each, memory_limit "
            f"{_mib(memory_limit)} per worker); chunks of {_mib(res['chunk_bytes'])}; "
            "workload `(np.tanh(x) * x).sum(axis=0)`; "
            f"{res['large', True]['call'].n} side-by-side rounds per row. Load average (1 min) "
            f"{res['load_start']:.1f} at the start, {res['load_end']:.1f} at the end, on {os.cpu_count()} CPUs "
            "shared with other jobs: times are indicative.\n\n" + table(head, rows) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.dask_numpy", description=__doc__.split("\n")[0])
    parser.add_argument("--medium-rows", type=int, default=16_384)
    parser.add_argument("--large-rows", type=int, default=131_072)
    parser.add_argument("--cols", type=int, default=2_048)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--memory-limit", type=int, default=3 << 29, help="bytes per worker (default 1.5 GiB)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--chunk-bytes", type=int, default=32 << 20, help="config dask_chunk_bytes")
    args = parser.parse_args(argv)
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=args.workers, processes=True, threads_per_worker=1, dashboard_address=None,
                      memory_limit=args.memory_limit) as cluster, \
            Client(cluster, set_as_default=False) as client:
        res = run(client, args.medium_rows, args.large_rows, args.cols, args.rounds, args.chunk_bytes)
    body = render(res, args.workers, args.memory_limit)
    print(body)
    path = write("dask_numpy", "Dask backend on NumPy inputs: scattered once, not embedded per call", body,
                 quick=False)
    print(f"wrote {path}")
    return 0 if all(r["max_rel_err"] < 1e-9 for k, r in res.items() if isinstance(k, tuple)) else 1


if __name__ == "__main__":       # worker processes are spawned: they must not run the benchmark again
    raise SystemExit(main())
