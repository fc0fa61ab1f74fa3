"""Fixtures for the engine backends. `dask_cluster`: one real `distributed.LocalCluster` (2 worker
processes, one thread each, no dashboard) shared by every test of tests/backends, always closed after the
last of them (package scope, not session: a live cluster's client threads allocate in the background and
would disturb the tracemalloc tests that run later); `on_cluster` makes its Client the current one for one
test only, so other tests keep dask's local scheduler."""

from __future__ import annotations

import importlib
import importlib.util

import pytest

from minidynamo.backends import dask_scatter
from minidynamo.backends.engine_rng import kept_global_rng

DASK_MISSING = "dask is not installed: pip install minidynamo[dask]"


@pytest.fixture(scope="package")
def dask_cluster():
    pytest.importorskip("dask.array", reason=DASK_MISSING)
    distributed = pytest.importorskip("distributed", reason=DASK_MISSING)
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                       dashboard_address=None)
    try:
        client = distributed.Client(cluster, set_as_default=False)
        try:
            yield client
        finally:
            dask_scatter.release()      # the backend's scattered inputs (dask_scatter.py) on this client
            client.close()
    finally:
        cluster.close()


@pytest.fixture
def on_cluster(dask_cluster):
    """The session's cluster Client as the current client for this test (dask.compute runs there)."""
    with dask_cluster.as_current():
        yield dask_cluster


@pytest.fixture(autouse=True)
def xla_variants_only(monkeypatch):
    """Tests of XLA's path (its checks, fallbacks, write-backs) call a graph a few times, and the graph's own
    NumPy code, a variant the runner times against XLA's (jax_lowering/choice.ON_NUMPY), would take some of
    those calls: off, except where a test turns it on (tests/backends/test_jax_runner.py)."""
    if importlib.util.find_spec("jax") is None:
        return
    with kept_global_rng():     # importing jax draws from NumPy's global RandomState
        runner = importlib.import_module("minidynamo.backends.jax_lowering.runner")
    monkeypatch.setattr(runner, "NUMPY_VARIANT", False)
