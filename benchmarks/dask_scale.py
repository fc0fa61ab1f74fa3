"""`python -m benchmarks.dask_scale`: a NumPy function on an array larger than a quarter of this machine's
memory, through `compile(..., backend="dask")` on a 2-worker LocalCluster. Writes benchmarks/results/dask.md.

The workload standardizes the columns of x and projects them, then reduces:
`y = (x - x.mean(0)) / x.std(0) @ w; r = (y * y).mean(0)`. x (default 42,000 x 20,000 float64, 6.3 GiB) is
generated lazily by dask.array.random, so no process ever holds it whole. Reported: capture time, compute
time, the peak resident memory of each worker process, and a check against NumPy computed on a slice.

The check: the last column of w is zero outside its first `--check-cols` rows, so y[:, -1] depends only on
x[:, :check_cols]; NumPy standardizes and projects that column slice (all rows) as reference. The other
columns of y are the dense workload; r is checked against NumPy's reduction of the returned y.
Not run by the test suite (tests/backends/test_dask_scale.py runs `run` once at a tiny size).
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import numpy as np

import minidynamo as md

from .report import table, write


def standardize_project(x, w):
    z = (x - x.mean(axis=0)) / x.std(axis=0)
    y = z @ w
    return y, (y * y).mean(axis=0)


def _peak_rss_bytes() -> int:
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024     # Linux reports KiB


def run(client: Any, rows: int, cols: int, k: int = 16, chunk_rows: int = 625, check_cols: int = 256,
        seed: int = 0) -> dict:
    """Run the workload once on `client`'s cluster; returns the figures the report prints."""
    import dask
    import dask.array as da

    x = da.random.default_rng(seed).random((rows, cols), chunks=(chunk_rows, cols))
    w = np.random.default_rng(seed + 1).standard_normal((cols, k))
    w[check_cols:, -1] = 0.0
    compiled = md.compile(standardize_project, backend="dask")
    with client.as_current():
        start = time.perf_counter()
        y_lazy, r_lazy = compiled(x, w)                 # capture + lowering: builds the dask graph only
        built = time.perf_counter()
        y, r = dask.compute(y_lazy, r_lazy)
        done = time.perf_counter()
        peaks = client.run(_peak_rss_bytes)
        xs = x[:, :check_cols].compute()
    ref = ((xs - xs.mean(axis=0)) / xs.std(axis=0)) @ w[:check_cols, -1]
    report = md.explain(compiled)(x, w)
    return {"rows": rows, "cols": cols, "k": k, "gib": rows * cols * 8 / 2**30, "chunks": x.numblocks,
            "capture_s": built - start, "compute_s": done - built, "peaks": peaks,
            "lazy": type(y_lazy).__module__.startswith("dask"),
            "max_err_slice": float(np.max(np.abs(y[:, -1] - ref))),
            "max_err_reduction": float(np.max(np.abs(r - (y * y).mean(axis=0)) / np.abs(r))),
            "finite": bool(np.isfinite(y).all()), "graphs": report.graph_count, "breaks": report.graph_break_count,
            "ops": report.op_count, "graph": str(report.graphs[0]) if report.graphs else "",
            "load": os.getloadavg()[0], "cpus": os.cpu_count()}


def render(res: dict, workers: int, total_gib: float) -> str:
    rows = [["x", f"{res['rows']:,} x {res['cols']:,} float64 = {res['gib']:.2f} GiB "
             f"({res['gib'] / total_gib:.0%} of {total_gib:.1f} GiB RAM), {res['chunks'][0]} x {res['chunks'][1]} "
             "chunks, generated lazily"],
            ["capture + lowering (first call, builds the dask graph)", f"{res['capture_s']:.2f} s"],
            ["compute on the cluster", f"{res['compute_s']:.1f} s"],
            ["result stays lazy until computed", str(res["lazy"])],
            ["graphs / breaks / ops", f"{res['graphs']} / {res['breaks']} / {res['ops']}"]]
    rows += [[f"peak RSS of worker {i}", f"{peak / 2**30:.2f} GiB"]
             for i, peak in enumerate(sorted(res["peaks"].values()))]
    rows += [["max abs error of y[:, -1] vs NumPy on x[:, :check_cols]", f"{res['max_err_slice']:.2e}"],
             ["max rel error of the reduction vs NumPy on the returned y", f"{res['max_err_reduction']:.2e}"],
             ["y all finite", str(res["finite"])]]
    return (f"{workers}-worker `distributed.LocalCluster` (processes, 1 thread each); load average at the end "
            f"{res.get('load', float('nan')):.1f} on {res.get('cpus', '?')} CPUs (a shared machine: times are "
            "indicative).\n\n" + table(["what", "measured"], rows) + "\n\n" + NOTE
            + "\n\nThe captured graph:\n\n```\n" + res["graph"] + "\n```\n")


NOTE = ("Each worker peaks at about half the array: the column statistics need every chunk before any chunk "
        "can be standardized, and dask keeps the generated chunks (spread over the workers) rather than "
        "generating them again. No process ever holds x whole; `compiled(x, w)` itself only builds the graph.")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.dask_scale", description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=42_000)
    parser.add_argument("--cols", type=int, default=20_000)
    parser.add_argument("--chunk-rows", type=int, default=625)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    from distributed import Client, LocalCluster
    total_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    with LocalCluster(n_workers=args.workers, processes=True, threads_per_worker=1,
                      dashboard_address=None) as cluster, Client(cluster, set_as_default=False) as client:
        res = run(client, args.rows, args.cols, chunk_rows=args.chunk_rows)
    body = render(res, args.workers, total_gib)
    print(body)
    path = write("dask", "Dask backend at scale: standardize and project", body, quick=False)
    print(f"wrote {path}")
    ok = res["max_err_slice"] < 1e-9 and res["max_err_reduction"] < 1e-9 and res["finite"]
    return 0 if ok else 1


if __name__ == "__main__":       # worker processes are spawned: they must not run the benchmark again
    raise SystemExit(main())
