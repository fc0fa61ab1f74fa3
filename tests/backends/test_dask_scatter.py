"""The dask backend on a distributed Client (minidynamo/backends/dask_scatter.py): NumPy inputs are scattered
to the workers once and reused while unchanged, never embedded in each call's task graph. Measured from the
outside: the bytes of the graph the client sends (distributed's own "Sending large graph of size" warning,
its threshold set to 1 byte: benchmarks/dask_numpy.graph_bytes) and the client's scatter calls. Results
differential against NumPy eager: element-wise ones bit for bit, reductions within the documented
tolerance and bit for bit what the local-scheduler path (da.from_array) computes.
Skipped, with the pip command, without dask."""

from __future__ import annotations

import gc
import time

import numpy as np
import pytest

import minidynamo as md
from benchmarks.dask_numpy import graph_bytes, measure
from minidynamo.backends import dask_scatter
from tests.backends.dask_helpers import assert_close
from tests.extras import require

MIB = 1 << 20


@pytest.fixture(autouse=True)
def fresh_cache():
    yield
    dask_scatter.release()


class Sent:
    """The client's scatter calls (blocks sent) and the bytes of every graph it sends, while active."""

    def __init__(self, client, monkeypatch):
        self.blocks, self.graphs = 0, []
        scatter = client.scatter

        def counting(data, **kwargs):
            self.blocks += len(data)
            return scatter(data, **kwargs)
        monkeypatch.setattr(client, "scatter", counting)
        self.client, self.monkeypatch = client, monkeypatch

    def call(self, fn, *args):
        with graph_bytes() as sizes:
            out = fn(*args)
        self.graphs.append(sum(sizes))
        return out


def columns(x):
    return np.tanh(x) * 2.0 + 1.0, (x * x).sum(axis=0)


def test_graph_size_does_not_grow_with_the_input(on_cluster, monkeypatch):
    # (was: each call embedded the whole array: the graph grew with it, 4 MiB and 16 MiB here)
    sent = Sent(on_cluster, monkeypatch)
    sizes = {}
    for mode, budget in (("embedded", 0), ("scattered", 1 << 34)):
        for rows in (4096, 16384):          # 4 blocks each: the chunk size grows with the array
            x = np.random.default_rng(rows).random((rows, 128))
            compiled = md.compile(columns, backend="dask",
                                  options={"dask_chunk_bytes": x.nbytes // 4, "dask_scatter_bytes": budget})
            assert_close(columns(x), sent.call(compiled, x))
            sizes[mode, rows] = sent.graphs[-1]
    # the control: the whole array in the graph (the warning rounds to 4 digits)
    assert sizes["embedded", 4096] > 0.99 * 4 * MIB and sizes["embedded", 16384] > 0.99 * 16 * MIB
    assert sizes["scattered", 4096] < 64 * 1024
    assert abs(sizes["scattered", 16384] - sizes["scattered", 4096]) < 2048, sizes


def test_a_second_call_with_the_same_array_scatters_nothing(on_cluster, monkeypatch):
    sent = Sent(on_cluster, monkeypatch)
    x = np.random.default_rng(0).random((2048, 64))
    compiled = md.compile(columns, backend="dask", options={"dask_chunk_bytes": x.nbytes // 4})
    first = sent.call(compiled, x)
    assert sent.blocks == 4
    for _ in range(2):
        again = sent.call(compiled, x)
        assert sent.blocks == 4
        for a, b in zip(first, again):
            assert np.array_equal(a, b)
    assert sent.graphs[1] == sent.graphs[2] < 64 * 1024


def test_a_write_between_calls_gives_eagers_new_result_and_resends_only_its_block(on_cluster, monkeypatch):
    sent = Sent(on_cluster, monkeypatch)
    x = np.random.default_rng(1).random((2048, 64))
    compiled = md.compile(columns, backend="dask", options={"dask_chunk_bytes": x.nbytes // 4})
    compiled(x)
    for row, value in ((5, 7.0), (2047, -3.0), (0, np.nextafter(x[0, 0], 2.0))):   # one ulp is a change too
        blocks = sent.blocks
        x[row, 3] = value
        got, expected = compiled(x), columns(x)
        assert np.array_equal(got[0], expected[0]) and got[1][3] == pytest.approx(expected[1][3], rel=1e-12)
        assert sent.blocks == blocks + 1, "only the written block is sent again"


def test_different_arrays_and_a_new_array_at_a_dead_ones_id(on_cluster, monkeypatch):
    sent = Sent(on_cluster, monkeypatch)
    compiled = md.compile(columns, backend="dask")
    rng = np.random.default_rng(2)
    a, b = rng.random((512, 64)), rng.random((512, 64))
    for x in (a, b, a, b):
        assert_close(columns(x), compiled(x))
    assert sent.blocks == 2
    for seed in range(4):       # a freed array's id is often reused at once: the weak reference tells
        x = np.random.default_rng(10 + seed).random((512, 64))
        assert_close(columns(x), compiled(x))
        del x
    x = a.reshape(256, 128)     # same buffer, another shape: another graph and another scatter
    assert_close(columns(x), md.compile(columns, backend="dask")(x))


def scheduler_holds(client, keys):
    return client.run_on_scheduler(lambda dask_scheduler: [k for k in keys if k in dask_scheduler.tasks])


def wait_for_release(client, keys):
    for _ in range(100):        # the release reaches the scheduler asynchronously
        if not scheduler_holds(client, keys):
            return True
        time.sleep(0.05)
    return False


def test_an_array_that_dies_is_released_on_the_cluster(on_cluster):
    compiled = md.compile(columns, backend="dask", options={"dask_chunk_bytes": 128 * 1024})
    x = np.random.default_rng(3).random((1024, 64))
    compiled(x)
    cache = dask_scatter.current()
    keys = [f.key for e in cache.entries.values() for f in e.futures]
    assert len(keys) == 4 and len(scheduler_holds(on_cluster, keys)) == 4
    del x
    gc.collect()
    assert cache.entries == {} and wait_for_release(on_cluster, keys)


def test_the_cache_is_bounded_but_keeps_a_calls_own_arrays(on_cluster, monkeypatch):
    sent = Sent(on_cluster, monkeypatch)

    def pair(x, y):
        return x + y

    rng = np.random.default_rng(4)
    arrays = [rng.random((1024, 128)) for _ in range(4)]       # 1 MiB each
    compiled = md.compile(pair, backend="dask", options={"dask_scatter_bytes": 3 * MIB})
    for x, y in zip(arrays, arrays[1:]):
        assert np.array_equal(compiled(x, y), x + y)
    cache = dask_scatter.current()
    assert cache.nbytes() <= 3 * MIB and id(arrays[0]) not in cache.entries
    blocks = sent.blocks
    compiled(arrays[0], arrays[0])              # released, so sent again
    assert sent.blocks == blocks + 1
    tight = md.compile(pair, backend="dask", options={"dask_scatter_bytes": MIB // 2})
    assert np.array_equal(tight(arrays[2], arrays[3]), arrays[2] + arrays[3])
    assert {id(arrays[2]), id(arrays[3])} <= cache.entries.keys()    # past the bound, yet this call's own


def test_a_closed_client_and_a_new_one(monkeypatch):
    distributed = require("distributed")
    x = np.random.default_rng(5).random((512, 64))
    compiled = md.compile(columns, backend="dask")
    expected = columns(x)
    for _ in range(2):
        with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as cluster:
            client = distributed.Client(cluster, set_as_default=False)
            with client.as_current():
                assert_close(expected, compiled(x))
                assert dask_scatter.current().client is client and dask_scatter.current().entries
            client.close()
            assert_close(expected, compiled(x))       # no client: dask's local scheduler, nothing kept
            assert dask_scatter.current() is None


def test_on_the_local_scheduler_nothing_is_scattered():
    dask = require("dask")
    x = np.random.default_rng(6).random((512, 64))
    with dask.config.set(scheduler="sync"):
        assert_close(columns(x), md.compile(columns, backend="dask")(x))
    assert dask_scatter.current() is None


LAYOUTS = {
    "C": lambda a: a, "F": np.asfortranarray, "negative strides": lambda a: a[::-1, ::-2],
    "float32": lambda a: a.astype(np.float32), "int64": lambda a: (a * 1000).astype(np.int64),
    "complex": lambda a: a + 1j * a[::-1], "bool": lambda a: a > 0.5,
}


def elementwise(x):
    return np.where(x > x[0], x * 3, x + x), x != x[-1], x.T * 2


def reductions(x):
    return x.sum(), x.sum(axis=0), x.mean(axis=1), x.max(axis=0), np.cumsum(x, axis=1)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_results_as_eager_and_as_the_local_scheduler(on_cluster, layout):
    dask = require("dask")
    x = LAYOUTS[layout](np.random.default_rng(7).random((600, 700)))
    options = {"dask_chunk_bytes": 64 * 1024, "threads": 2}     # up to 50 blocks, digested on 2 threads
    got = md.compile(elementwise, backend="dask", options=options)(x)
    for a, b in zip(elementwise(x), got):
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)      # bit for bit
    if x.dtype == bool:
        return
    scattered = md.compile(reductions, backend="dask", options=options)(x)
    with dask.config.set(scheduler="sync"):
        local = md.compile(reductions, backend="dask", options=options)(x)
    assert_close(reductions(x), scattered)
    for a, b in zip(local, scattered):
        assert np.array_equal(a, b)
    assert dask_scatter.current().scattered > 20


def test_small_and_object_arrays_stay_in_the_graph(on_cluster, monkeypatch):
    sent = Sent(on_cluster, monkeypatch)

    def scale(x, s):
        return x * s

    small, objects = np.arange(100.0), np.array([1, 2.5, "a"] * 10000, dtype=object)
    assert np.array_equal(md.compile(scale, backend="dask")(small, 2.0), small * 2.0)
    assert md.compile(lambda x: x.copy(), backend="dask")(objects).tolist() == objects.tolist()
    assert sent.blocks == 0


def test_the_benchmark_runs_at_a_tiny_size(dask_cluster):
    x = np.random.default_rng(8).standard_normal((512, 256))
    before, after = (measure(dask_cluster, x, scatter, 2, chunk_bytes=128 * 1024) for scatter in (False, True))
    assert before["graph"] > 0.99 * x.nbytes > 50 * after["graph"] and after["first_graph"] == after["graph"]
    assert (before["blocks_first"], after["blocks_first"], after["blocks_later"]) == (0, 8, 0)
    assert before["max_rel_err"] < 1e-9 and after["max_rel_err"] < 1e-9 and after["call"].n == 2
