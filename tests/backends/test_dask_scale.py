"""benchmarks/dask_scale.py at a tiny size on the session's LocalCluster: the workload captures as one
graph, stays lazy until computed, matches the NumPy slice reference, and reports both workers' memory."""

from __future__ import annotations

import pytest

from tests.backends.conftest import DASK_MISSING


def test_scale_benchmark_runs_at_a_tiny_size(dask_cluster):
    pytest.importorskip("dask.array", reason=DASK_MISSING)
    from benchmarks.dask_scale import render, run
    res = run(dask_cluster, rows=400, cols=48, chunk_rows=100, check_cols=8)
    assert res["lazy"] and (res["graphs"], res["breaks"]) == (1, 0)
    assert res["max_err_slice"] < 1e-9 and res["max_err_reduction"] < 1e-9 and res["finite"]
    assert len(res["peaks"]) == 2 and all(p > 0 for p in res["peaks"].values())
    assert "peak RSS of worker 1" in render(res, 2, 24.0)
