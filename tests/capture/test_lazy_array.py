"""Dask arrays as inputs to capture (capture/variables/lazy_array.py, Reads._lazy_input in capture/reads.py): captured
like ndarrays of known shape and dtype, guarded on type, shape, dtype and chunks; only ops that dask computes
as NumPy does are recorded, anything else breaks and runs as Python. Works with the default NumPy backend
too (the graph then calls the same functions eager code calls, which dispatch to dask). Runs on dask's
synchronous local scheduler; skipped, with the pip command, without dask."""

from __future__ import annotations

import numpy as np
import pytest

import minidynamo as md
from tests.backends.conftest import DASK_MISSING
from tests.backends.dask_helpers import assert_close, computed
from tests.conftest import captured

dask = pytest.importorskip("dask", reason=DASK_MISSING)
da = pytest.importorskip("dask.array", reason=DASK_MISSING)
BACKENDS = ["numpy", "dask"]


@pytest.fixture(autouse=True)
def sync_scheduler():
    with dask.config.set(scheduler="sync"):
        yield


class CountComputes(dask.callbacks.Callback):
    """Counts scheduler runs (one per compute(), bool(), float() of a dask value)."""

    def __init__(self):
        super().__init__()
        self.runs = 0

    def _start(self, dsk):
        self.runs += 1


def data(shape=(12, 8), chunks=(4, 4), seed=0):
    x = np.random.default_rng(seed).standard_normal(shape)
    return x, da.from_array(x, chunks=chunks)


def block(x, w):
    h = np.tanh(x @ w) + x.mean(axis=0)
    return h.sum(axis=1), h.std() * 2.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_one_lazy_graph_equal_to_eager(backend):
    x, xd = data()
    w = np.random.default_rng(1).random((8, 8))
    compiled = md.compile(block, backend=backend)
    with CountComputes() as counter:
        out = compiled(xd, w)
    assert counter.runs == 0, "the compiled call computed something"
    assert all(type(v) is da.Array for v in out)
    assert_close(computed(block(xd, w)), computed(out))
    assert_close(block(x, w), computed(out))
    report = md.explain(compiled)(xd, w)
    assert report.graph_count == 1 and report.graph_break_count == 0
    assert "x.chunks == ((4, 4, 4), (4, 4))" in report.guards and "type(x) is Array" in report.guards


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_new_chunking_captures_again(backend):
    x, xd = data()
    w = np.ones((8, 8))
    compiled = md.compile(block, backend=backend)
    compiled(xd, w)
    compiled(da.from_array(x, chunks=(4, 4)), w)              # same chunks: a hit
    out = compiled(xd.rechunk((6, 8)), w)
    stats = md.stats(compiled)
    assert stats.captures == 2 and stats.hits == 1
    assert "x.chunks: expected ((4, 4, 4), (4, 4)), got ((6, 6), (8,))" in stats.guard_failures[0]
    assert_close(block(x, w), computed(out))


def branchy(x, w):
    h = np.tanh(x @ w)
    if h.sum() > 0:            # data-dependent: computes this one scalar
        return h * 2 + x
    return h - 1


@pytest.mark.counts_calls
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_break_computes_only_its_scalar_and_resumes_lazily(backend, sign):
    x, xd = data()
    w = sign * np.abs(np.random.default_rng(3).random((8, 8)))
    xd = abs(xd) if sign > 0 else xd
    compiled = md.compile(branchy, backend=backend, options={"auto_cond": False})   # the break, not a cond
    compiled(xd, w)                                        # captures the entry and the resume function
    with CountComputes() as counter:
        out = compiled(xd, w)
    assert counter.runs == 1, "only the branch condition may be computed"
    assert type(out) is da.Array
    assert_close(computed(branchy(xd, w)), out.compute())
    report = md.explain(compiled)(xd, w)
    assert report.graph_count == 2 and report.graph_break_count == 1
    assert report.break_reasons[0].category == "data_dependent"
    resume = report.graphs[1]
    assert all(n.meta.get("lazy") is da.Array for n in resume.inputs if n.spec.ndim == 2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_ops_that_dask_does_differently_run_as_python(backend):
    def writes(x):
        y = x * 1.0
        y[0] = 5.0            # dask rebuilds y: item assignment is a break
        y += 1.0              # dask rebinds y: an in-place operator is a break
        return y.sum(axis=0), y

    x, xd = data()
    compiled = md.compile(writes, backend=backend)
    out = compiled(xd)
    assert_close(computed(writes(xd)), computed(out))
    assert_close(writes(x.copy()), computed(out))
    np.testing.assert_array_equal(xd.compute(), x)        # the input is untouched, as eagerly
    records = captured(compiled).assert_graph_ran().all_records       # graphs before and after the breaks
    reasons = [r.reason.message for r in records if r.reason is not None]
    assert any("item assignment into a dask array" in m for m in reasons)
    assert any("iadd on a dask array" in m for m in reasons)


def test_dask_types_and_methods_are_dasks_own():
    def inspect(x):
        s = x.sum()
        return type(s).__name__, isinstance(s, np.floating), x.rechunk((6, 4)).chunks, s + 1

    _, xd = data()
    expected = inspect(xd)
    compiled = md.compile(inspect)
    got = compiled(xd)
    assert got[:3] == expected[:3] == ("Array", False, ((6, 6), (4, 4)))
    assert type(got[3]) is da.Array and got[3].compute() == expected[3].compute()
    records = captured(compiled).assert_graph_ran().all_records       # x.sum() and s + 1 in graphs,
    reasons = [r.reason.message for r in records if r.reason is not None]     # dask's own methods in Python
    assert any("'rechunk' has no registered op" in m for m in reasons), reasons
    assert any("'chunks' of a dask array is not modelled" in m for m in reasons), reasons


def test_unknown_chunks_are_a_data_dependent_shape_so_the_array_stays_opaque():
    def scale(v):
        return v * 2, v.shape

    x, xd = data()
    masked = xd[xd > 0]                                  # shape (nan,)
    compiled = md.compile(scale)
    out = compiled(masked)
    assert np.isnan(out[1][0])
    np.testing.assert_array_equal(out[0].compute(), x[x > 0] * 2)
    records = captured(compiled).all_records             # no graph input: each use of it runs as Python
    assert records and not any(r.graph is not None and r.graph.count() for r in records)
    reasons = [r.reason.message for r in records if r.reason is not None]
    assert len(reasons) == 2 and all("(not modelled by capture)" in m for m in reasons), reasons
