"""Memory: minidynamo's caches must not keep the user's objects alive, and must not grow without bound.

- A compiled function the user drops is freed, with its resume functions and compiled graphs (they are
  cached per compiled function, not in a process-wide table keyed by the function).
- An array passed once is not kept: graph inputs are read from their sources on every call, and neither
  guards, entry namespaces, capture records nor the example inputs given to the backend hold it.
- `reset()` frees every graph and resume function while the compiled function itself stays usable.
- Past `cache_size_limit`, new shapes run eagerly without growing memory (tracemalloc), and generated
  sources registered with linecache do not accumulate.
"""

from __future__ import annotations

import gc
import linecache
import re
import tracemalloc
import warnings
import weakref

import numpy as np
import pytest

import minidynamo as md
from minidynamo.api import _state_of

BIG = 200_000      # elements: 1.6 MB in float64, easy to see in tracemalloc


def make(brk: bool):
    """A fresh function object (a closure) per call, so the test can drop every reference to it."""
    k = 3.0

    def f(x, items, params):
        y = x * k + items[0] + params["w"]
        if brk:
            print("break")           # a graph break: the rest runs in a compiled resume function
        return (y * 2.0).sum()
    return f


def args(n: int = BIG):
    return np.ones(n), [np.ones(n)], {"w": np.ones(n)}


def collected(*refs: weakref.ref) -> bool:
    gc.collect()
    return all(r() is None for r in refs)


def compiled_graphs(cfn) -> list:
    """The backend-compiled graphs (and resume functions) reachable from cfn's entries."""
    out = []
    for e in _state_of(cfn).cache.entries:
        out += [v for k, v in e.namespace.items() if k.endswith(("graph", "resume")) or "resume" in k]
    return out


@pytest.mark.parametrize("brk", [False, True], ids=["whole", "with break"])
def test_dropped_compiled_function_is_freed(brk, capsys):
    f = make(brk)
    cfn = md.compile(f)
    cfn(*args(10))
    cfn(*args(20))
    parts = compiled_graphs(cfn)
    assert parts
    refs = [weakref.ref(f), weakref.ref(cfn), weakref.ref(_state_of(cfn))] + [weakref.ref(p) for p in parts]
    if brk:
        resumes = [v for v in _state_of(cfn).children.values()]
        assert resumes, "the break should have produced a compiled resume function"
        refs += [weakref.ref(r) for r in resumes] + [weakref.ref(_state_of(r).fn) for r in resumes]
    del f, cfn, parts
    if brk:
        del resumes
    assert collected(*refs)


@pytest.mark.parametrize("brk", [False, True], ids=["whole", "with break"])
def test_array_passed_once_is_not_kept(brk, capsys):
    cfn = md.compile(make(brk))
    x, items, params = args()
    cfn(x, items, params)
    refs = [weakref.ref(x), weakref.ref(items[0]), weakref.ref(params["w"])]
    del x, items, params
    assert collected(*refs)
    # Same after a warm call and after a recompile.
    x, items, params = args()
    cfn(x, items, params)
    refs = [weakref.ref(x), weakref.ref(items[0]), weakref.ref(params["w"])]
    del x, items, params
    cfn(*args(7))
    assert collected(*refs)


def test_backend_example_inputs_are_not_kept():
    seen = []

    def backend(graph, example_inputs):
        seen.append([weakref.ref(a) for a in example_inputs if isinstance(a, np.ndarray)])
        return md.backends.get_backend("numpy")(graph, example_inputs)
    cfn = md.compile(lambda x, w: np.tanh(x @ w), backend=backend)
    cfn(np.ones((50, 50)), np.ones((50, 50)))
    assert seen and seen[0] and collected(*seen[0])


def test_global_array_rebound_is_not_kept():
    def f(x):
        return x + GLOBAL_W
    globals()["GLOBAL_W"] = np.ones(BIG)
    cfn = md.compile(f)
    cfn(np.ones(BIG))
    ref = weakref.ref(GLOBAL_W)
    globals()["GLOBAL_W"] = np.zeros(BIG)
    assert collected(ref)
    assert cfn(np.ones(BIG))[0] == 1.0
    del globals()["GLOBAL_W"]


def test_reset_frees_graphs_and_resume_functions(capsys):
    cfn = md.compile(make(True))
    cfn(*args(10))
    state = _state_of(cfn)
    refs = [weakref.ref(p) for p in compiled_graphs(cfn)]
    refs += [weakref.ref(v) for v in state.children.values()]
    assert len(refs) >= 2
    md.reset()
    assert collected(*refs)
    assert state.cache.entries == [] and state.records == [] and state.children == {}
    assert not any(re.match(r"___e\d", k) for k in state.cache.namespace), "entry names left behind"
    out = cfn(*args(10))                                  # still works after the reset
    assert out == make(True)(*args(10))


def test_recompiles_past_the_cache_limit_do_not_grow_memory():
    def f(x):
        return np.tanh(x) * 2.0 + x.sum()
    cfn = md.compile(f, dynamic=False, options={"cache_size_limit": 8})
    shapes = [(n % 20 + 1, n // 20 + 1) for n in range(200)]
    tracemalloc.start()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)     # the cache-limit warning, once
            for shape in shapes[:20]:
                cfn(np.ones(shape))
            gc.collect()
            after_limit = tracemalloc.get_traced_memory()[0]
            for shape in shapes[20:]:
                out = cfn(np.ones(shape))
                assert out.shape == shape
            gc.collect()
            growth = tracemalloc.get_traced_memory()[0] - after_limit
    finally:
        tracemalloc.stop()
    assert len(_state_of(cfn).cache.entries) == 8
    assert md.stats(cfn).captures == 8
    assert growth < 64_000, f"memory grew by {growth} bytes over 180 calls past the cache limit"


def test_compile_call_drop_loop_does_not_grow(capsys):
    def round_trip():
        cfn = md.compile(make(True))
        cfn(*args(5))
        cfn(*args(6))
    round_trip()
    gc.collect()
    lines = len(linecache.cache)
    tracemalloc.start()
    try:
        round_trip()
        gc.collect()
        base = tracemalloc.get_traced_memory()[0]
        for _ in range(30):
            round_trip()
        gc.collect()
        growth = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert len(linecache.cache) <= lines + 2, "generated sources accumulate in linecache"
    assert growth < 200_000, f"memory grew by {growth} bytes over 30 compile/call/drop rounds"


def test_dispatcher_recompiles_keep_one_linecache_entry():
    # one for the dispatcher's current code, plus one per entry's chain function while the dispatcher is
    # chained (cache.FunctionCache.add): never one per recompile
    def f(x):
        return x * 2.0 if x.ndim else x
    cfn = md.compile(f, dynamic=False)
    before = len(linecache.cache)
    for n in range(1, 8):
        cfn(np.ones(n))
    entries = len(cfn._minidynamo.cache.entries)
    names = [k for k in linecache.cache if k.startswith(f"<minidynamo dispatcher {f.__qualname__} #")]
    assert entries == 7 and len(names) == entries, names
    assert len(linecache.cache) - before <= 2 * entries     # graph sources live while their graphs do
    assert linecache.getlines(cfn.__code__.co_filename) == cfn.__minidynamo_source__.splitlines(True)
    for _ in range(20):                  # settled: rebuilt flat (the chain functions stay for the next add)
        cfn(np.ones(3))
    assert "___chain_" not in cfn.__minidynamo_source__
    names = [k for k in linecache.cache if k.startswith(f"<minidynamo dispatcher {f.__qualname__} #")]
    assert cfn.__code__.co_filename in names and len(names) == entries, names


def test_reset_repeated_does_not_grow_linecache():
    def f(x):
        return x * 2.0
    cfn = md.compile(f)
    cfn(np.ones(3))
    md.reset()
    gc.collect()
    before = len(linecache.cache)
    for _ in range(50):
        cfn(np.ones(3))
        md.reset()
    gc.collect()
    assert len(linecache.cache) <= before + 1
