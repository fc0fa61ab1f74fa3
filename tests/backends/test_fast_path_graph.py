"""The fast path in the compiled program: which graphs get regions (none for small ones: today's code,
byte for byte), symbolic sizes decided per call, threads, regions inside cond / while_loop subgraphs,
concurrent callers, the operator table against NumPy's own dispatch, config checks."""

from __future__ import annotations

import operator
import threading

import numpy as np
import pytest

import minidynamo as md
from minidynamo import config
from minidynamo.backends.fast_path import steps

from .fast_path_support import Recorder, assert_bits, check_fast, compile_fast, tricky


def gelu(x):
    return 0.5 * x * (1 + np.tanh(0.79788456 * (x + 0.044715 * x * x * x)))


def sources(fn, x, **options):
    rec = Recorder(**options)
    md.compile(fn, backend=rec)(x)
    return [f.__minidynamo_source__ for f in rec.fns], rec


def test_small_graphs_compile_as_without_the_fast_path():
    x = np.ones((64, 64), np.float32)       # 16 KiB: below the default threshold
    default, rec = sources(gelu, x, fast_path_min_bytes=config.Config().fast_path_min_bytes)
    off, _ = sources(gelu, x, fast_path=False)
    assert default == off and not rec.regions
    assert "___fast_region" not in default[0]


def test_large_graph_gets_one_region_with_its_plain_lines_as_fallback():
    x = np.ones(1 << 20, np.float32)        # 4 MiB
    (src,), rec = sources(gelu, x, fast_path_min_bytes=config.Config().fast_path_min_bytes)
    (plain,), _ = sources(gelu, x, fast_path=False)
    assert len(rec.regions) == 1 and rec.stats() == {"fast": 1}
    body = [ln[8:] for ln in src.splitlines() if ln.startswith("        ") and "___s" not in ln]
    assert body == [ln[4:] for ln in plain.splitlines()[1:-1]]      # the same statements, indented


def test_symbolic_sizes_decide_per_call():
    cfn, rec = compile_fast(gelu, fast_path_min_bytes=1 << 16)
    cfn = md.compile(gelu, backend=rec, dynamic=True)
    for n in (1000, 50_000, 30, 70_000):
        x = tricky("float32", (n,), n)
        with np.errstate(all="ignore"):
            assert_bits(gelu(x), cfn(x))
    assert rec.stats() == {"small": 2, "fast": 2}, rec.stats()


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_threads_give_the_same_bits(threads):
    check_fast(gelu, tricky("float64", (5000,), 1), threads=threads)
    check_fast(lambda x: np.exp(x - x.max(-1, keepdims=True)), tricky("float32", (700, 64), 2), threads=threads)


def test_regions_inside_cond_and_while_loop():
    def f(x):
        if x.sum() > 0:
            y = np.tanh(x) * 2 + x
        else:
            y = np.exp(x) - x
        while y.max() > 1:
            y = y * 0.5 + 0.01
        return y

    for seed in (1, 2):
        x = np.random.default_rng(seed).standard_normal((300, 64)) + (seed == 1)
        rec = check_fast(f, x, expect=None)
        assert rec.stats().get("fast", 0) >= 2


def test_concurrent_callers_get_their_own_results():
    cfn, rec = compile_fast(gelu, threads=2)
    xs = [tricky("float64", (4000,), i) for i in range(8)]
    with np.errstate(all="ignore"):
        want = [gelu(x) for x in xs]
    got: dict = {}

    def call(i):
        with np.errstate(all="ignore"):
            for _ in range(5):
                got[i] = cfn(xs[i])

    threads = [threading.Thread(target=call, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for i in range(8):
        assert_bits(want[i], got[i])
    assert rec.stats()["fast"] >= 8


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "complex128", "uint8"])
def test_operator_table_is_numpys_own_dispatch(dtype):
    x = np.ones((2, 2), dtype)
    node_like = type("N", (), {})
    for op, uf in steps.OPERATOR_UFUNCS.items():
        arity = 1 if op in (operator.neg, operator.pos, operator.invert, operator.abs) else 2
        probe = x.view(steps._Recorder)
        steps._Recorder.calls = []
        try:
            op(*([probe] * arity))
        except TypeError:
            continue                 # the operator does not apply to this dtype (NumPy refuses it)
        assert [c[0] for c in steps._Recorder.calls] == [uf], (op, dtype)
    del node_like


def test_threads_config_is_checked():
    with pytest.raises(TypeError, match="threads must be an int >= 1"):
        config.set_config(threads=0)
    assert config.current().threads >= 1


def test_fast_path_off():
    (src,), rec = sources(gelu, np.ones(1 << 20, np.float32), fast_path=False)
    assert not rec.regions and "___fast_region" not in src


def test_symbolic_region_reading_a_number_made_from_sizes():
    def f(x):
        n, m = x.shape
        return x * (n + m + x.size) - 1.5        # a py_int input once the sizes are symbolic

    cfn, rec = compile_fast(f)
    for rows in (300, 400, 520):
        x = tricky("float64", (rows, 64), rows)
        with np.errstate(all="ignore"):
            assert_bits(f(x), cfn(x))
    assert rec.stats().get("fast", 0) >= 2, rec.stats()


def test_regions_inside_a_fori_loop_body():
    def f(x, w):
        y = x
        for i in range(100):                    # past unroll_limit: one fori_loop node
            y = np.tanh(y) * 0.5 + x * i
            w[i % 3] = y[0, 0]                  # a write in the body ends the region
        return y, w

    rec = check_fast(f, tricky("float64", (300, 64), 1), np.zeros(3))
    sources = [fn.__minidynamo_source__ for fn in rec.fns]
    assert any("for " in s and "___fast_region" in s for s in sources), sources
    assert rec.stats().get("fast", 0) >= 100, rec.stats()


def test_a_dropped_output_is_written_again_and_a_held_one_never():
    """Eager writes `cholesky(A) * 0.5 + upper` into the dying temporary (NumPy's elision); the region writes
    into the output it handed out last time once the program dropped it, and never into one still held:
    by a name, a view or a weak reference, nor one the program made read-only."""
    def kernel(a):
        upper = np.triu(a, k=1)
        a[:] = np.linalg.cholesky(a) * 0.5 + upper

    def g(x):
        return np.tanh(x) * 2.0 + x

    m = np.random.default_rng(0).random((200, 200))
    m = m @ m.T + 200 * np.eye(200)
    cfn, rec = compile_fast(kernel)
    for _ in range(4):
        want, got = m.copy(), m.copy()
        kernel(want)
        cfn(got)
        assert_bits(want, got)
    assert rec.regions[0].reused == 3 and rec.stats() == {"fast": 4}

    cfn, rec = compile_fast(g)
    x = tricky("float64", (300, 70), 3)
    with np.errstate(all="ignore"):
        want = g(x)
        held = [cfn(x) for _ in range(3)]                  # names
        view = cfn(x)[5:]                                  # a view
        made_ro = cfn(x)
        made_ro.flags.writeable = False
        dropped_ro = cfn(x)
        dropped_ro.flags.writeable = False
        del dropped_ro                                     # read-only: not what np.empty makes
        weak = cfn(x)
        ref = __import__("weakref").ref(weak)
        del weak
        fresh = cfn(x)
        writeable = bool(fresh.flags.writeable)
        del fresh
        assert rec.regions[0].reused == 0 and ref() is None and writeable
        again = cfn(x)
        assert rec.regions[0].reused == 1
        for a in (*held, made_ro, again):
            assert_bits(want, a)
        assert_bits(want[5:], view)
        assert not any(np.shares_memory(a, b) for i, a in enumerate(held) for b in held[i + 1:] + [view, again])
