"""Concurrency: a compiled function called from many threads at once.

The warm path takes no lock: the dispatcher's `__code__` is swapped and its namespace grows while other
threads run it, so `FunctionCache.add` must publish an entry's names before the code that reads them. The
miss path holds the function's lock, and a thread that waited on it must first look at what the thread
before it added (two threads missing on the same new shape capture once).
"""

from __future__ import annotations

import sys
import threading
import time

import numpy as np
import pytest

import minidynamo as md
from minidynamo.dispatch.cache import Entry, FunctionCache
from minidynamo.guards import SHAPE, Guard, GuardSet
from tests.conftest import CompileCounter

THREADS = 8


def run_threads(target, n: int = THREADS) -> list:
    """Start n threads together (a barrier), join them, re-raise the first error; returns their results."""
    barrier = threading.Barrier(n)
    results: list = [None] * n
    errors: list = []

    def work(i: int) -> None:
        barrier.wait()
        try:
            results[i] = target(i)
        except BaseException as e:   # handed back to the test thread
            errors.append(e)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return results


@pytest.fixture(autouse=True)
def fast_switching():
    """Switch threads every few bytecodes so that races show up in a short test."""
    saved = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(saved)


def block(x, w):
    h = np.tanh(x @ w)
    return h * 2.0 + x.sum(axis=0)


def block_with_break(x, w):
    h = np.tanh(x @ w)
    if h.sum() > -1e9:          # data-dependent branch: a graph break and a resume function
        h = h + 1.0
    return h * 2.0


@pytest.mark.parametrize("fn", [block, block_with_break])
def test_eight_threads_eight_shapes(fn):
    counter = CompileCounter()
    cfn = md.compile(fn, backend=counter, dynamic=False)   # one capture per shape
    inputs = [(np.random.default_rng(i).random((i + 1, 4)), np.eye(4)) for i in range(THREADS)]
    expected = [fn(*a) for a in inputs]

    def call(i: int):
        return [cfn(*inputs[(i + k) % THREADS]) for k in range(3 * THREADS)]
    results = run_threads(call)
    for i, outs in enumerate(results):
        for k, out in enumerate(outs):
            want = expected[(i + k) % THREADS]
            assert out.shape == want.shape and np.array_equal(out, want), (i, k)
    stats = md.stats(cfn)
    assert stats.captures == THREADS, stats
    assert stats.fallbacks == 0
    assert len(cfn._minidynamo.cache.entries) == THREADS
    assert len({str(e.guards) for e in cfn._minidynamo.cache.entries}) == THREADS, "duplicate entries"
    # The cache is intact: each shape is served by its entry (a hit), with no further capture.
    frames = counter.frame_count
    for a, want in zip(inputs, expected):
        hits = md.stats(cfn).hits
        assert np.array_equal(cfn(*a), want)
        assert md.stats(cfn).hits == hits + 1
    assert counter.frame_count == frames and md.stats(cfn).captures == THREADS


class SlowCounter(CompileCounter):
    """Compiles slowly, so every thread reaches the miss path while the first one is still capturing."""

    def __call__(self, graph, example_inputs):
        time.sleep(0.05)
        return super().__call__(graph, example_inputs)


def test_same_new_shape_from_eight_threads_captures_once():
    counter = SlowCounter()
    cfn = md.compile(block, backend=counter)
    x, w = np.ones((5, 3)), np.ones((3, 3))
    results = run_threads(lambda i: cfn(x, w))
    for out in results:
        assert np.array_equal(out, block(x, w))
    stats = md.stats(cfn)
    assert stats.captures == 1, stats
    assert stats.recompiles == 0, stats
    assert len(cfn._minidynamo.cache.entries) == 1
    assert counter.frame_count == 1


def test_guard_failure_storm_under_cache_limit():
    """More shapes than the cache holds, from all threads: results stay right, the limit holds."""
    cfn = md.compile(block, dynamic=False, options={"cache_size_limit": 3})
    shapes = [(n, 2) for n in range(1, 11)]
    w = np.eye(2)

    def call(i: int):
        return [(n, cfn(np.full((n, 2), float(i)), w)) for n, _ in shapes]
    results = run_threads(call)
    for i, outs in enumerate(results):
        for n, out in outs:
            assert np.array_equal(out, block(np.full((n, 2), float(i)), w))
    assert md.stats(cfn).captures == 3
    assert len(cfn._minidynamo.cache.entries) == 3


def test_threads_past_the_limit_through_a_trial_get_eager_results_and_the_trial_ends():
    """Frequent hits past the limit start a timed trial (dispatch/mode_trial.py) while all threads call: each call's
    result is eager's, and the trial decides once its calls ended, however the threads interleaved."""
    cfn = md.compile(block, dynamic=False, options={"cache_size_limit": 2})
    w = np.eye(2)
    rows = [1, 2, 1, 2, 1, 2, 1, 2, 5]                # 8 hits per miss

    def call(i: int):
        return [(n, cfn(np.full((n, 2), float(i)), w)) for n in rows * 40]
    results = run_threads(call)
    for i, outs in enumerate(results):
        for n, out in outs:
            assert np.array_equal(out, block(np.full((n, 2), float(i)), w))
    state = cfn._minidynamo
    assert "___trial" in state.cache.namespace and md.stats(cfn).captures == 2
    for k in range(1000):                             # a trial still running ends after its 96 calls
        if md.stats(cfn).mode.value != "timing":
            break
        cfn(np.full((rows[k % len(rows)], 2), 1.0), w)
    assert md.stats(cfn).mode.value in ("past_limit", "eager") and state.past_limit.trial is None


def test_add_publishes_names_before_code():
    """A reader running the dispatcher while entries are added never meets a missing name: cache.add
    installs the new code only after the namespace has everything it uses."""
    def f(x):
        return x

    cache = FunctionCache(f, lambda generation, x: "miss")
    stop = threading.Event()
    seen: list = []

    def reader() -> None:
        while not stop.is_set():
            for n in range(1, 30):
                try:
                    out = cache.dispatcher(np.zeros(n))
                except BaseException as e:   # a NameError here would be a half-published entry
                    seen.append(e)
                    return
                if out != "miss" and out != n:
                    seen.append(out)
    readers = [threading.Thread(target=reader) for _ in range(4)]
    for t in readers:
        t.start()
    try:
        for n in range(1, 30):
            tag = cache.new_tag()
            # A shape guard is inlined (it needs no namespace name), so only the body can meet a missing one.
            entry = Entry(GuardSet([Guard("x", SHAPE, (n,))]), [f"return ___{tag}n"], {f"___{tag}n": n}, tag)
            cache.add(entry)
    finally:
        stop.set()
        for t in readers:
            t.join()
    assert seen == []
    for n in range(1, 30):
        assert cache.dispatcher(np.zeros(n)) == n


def test_reset_while_threads_run_keeps_results_right():
    cfn = md.compile(block)
    w = np.eye(3)
    stop = threading.Event()

    def call(i: int):
        outs = []
        while not stop.is_set() and len(outs) < 200:
            x = np.full((i % 3 + 1, 3), float(i))
            outs.append(np.array_equal(cfn(x, w), block(x, w)))
        return outs

    def resetter(i: int):
        if i == 0:
            for _ in range(20):
                md.reset()
        return [True]
    results = run_threads(lambda i: resetter(i) if i == 0 else call(i))
    stop.set()
    assert all(all(outs) for outs in results)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_eager_fallbacks_calling_each_other_do_not_deadlock():
    """Past the cache limit a call runs eagerly; it must not hold its function's lock meanwhile, or two
    compiled functions calling each other from two threads would wait on each other forever."""
    def f(x, depth):
        time.sleep(0.02)
        return g_c(x + 1.0, depth - 1) if depth else x

    def g(x, depth):
        time.sleep(0.02)
        return f_c(x * 2.0, depth - 1) if depth else x
    f_c = md.compile(f, options={"cache_size_limit": 0})
    g_c = md.compile(g, options={"cache_size_limit": 0})
    results: dict = {}
    threads = [threading.Thread(target=lambda: results.update(f=f_c(np.ones(2), 3)), daemon=True),
               threading.Thread(target=lambda: results.update(g=g_c(np.ones(2), 3)), daemon=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert not any(t.is_alive() for t in threads), "deadlock between two compiled functions' locks"
    assert np.array_equal(results["f"], f(np.ones(2), 3)) and np.array_equal(results["g"], g(np.ones(2), 3))
