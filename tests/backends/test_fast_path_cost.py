"""What the fast path costs where it cannot gain (issue 29): no shortcut for a region whose arrays can never
reach fast_path_min_bytes (a slice sized by a folded loop's index), and a region of one step runs in one
block per thread, not in blocks of cache size (it keeps nothing in cache between steps), and only from
fast_path_one_step_bytes. Each case is
differential: results, mutated arguments and warnings bit for bit eager's."""

from __future__ import annotations

import numpy as np
import pytest

from minidynamo import config
from minidynamo.backends.fast_path.runner import Region

from .fast_path_support import assert_bits, check_fast, compile_fast, layouts, run, tricky

DEFAULT_MIN = config.Config().fast_path_min_bytes


def triangle(alpha, beta, C, A):
    """syrk's style: row i updates its first i + 1 entries, slices sized by the loop index."""
    for i in range(A.shape[0]):
        C[i, :i + 1] *= beta
        for k in range(A.shape[1]):
            C[i, :i + 1] += alpha * A[i, k] * A[:i + 1, k]
    return C


def test_a_slice_sized_by_a_folded_loops_index_gets_no_shortcut():
    rng = np.random.default_rng(0)
    args = (1.5, 1.2, rng.random((80, 80)), rng.random((80, 3)))
    cfn, rec = compile_fast(triangle, fast_path_min_bytes=DEFAULT_MIN)
    for _ in range(3):
        want, got = run(triangle, args), run(cfn, args)
        assert_bits(want[0], got[0])        # the result and every argument after the call
        assert want[1:] == got[1:]          # no exception, the same warnings
    sources = [fn.__minidynamo_source__ for fn in rec.fns]
    assert any("for " in s for s in sources), sources      # the loop is a fori_loop node ...
    assert not rec.regions and not any("___fast_region" in s for s in sources), sources   # ... with no region


def test_a_loop_index_sized_slice_that_may_be_large_keeps_its_region():
    def f(x):
        out = 0.0
        for i in range(70):                 # past unroll_limit: a fori_loop node
            out = out + (np.tanh(x[i:]) * 2.0).sum()
        return out

    x = tricky("float64", (1 << 16, 8), 1)     # x[i:] holds up to 4 MiB: the region decides per call
    rec = check_fast(f, x, fast_path_min_bytes=DEFAULT_MIN, fast_path_block_bytes=0)
    assert rec.regions


def counted_blocks(monkeypatch) -> list:
    blocks: list = []
    real = Region.block

    def counting(self, plan, r0, r1, views, bufs):
        blocks.append((r0, r1))
        return real(self, plan, r0, r1, views, bufs)

    monkeypatch.setattr(Region, "block", counting)
    return blocks


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("shape, layout", [((3001, 7), "C"), ((100_003,), "C"), ((2000, 640), "C"),
                                           ((2000, 640), "row slice")])
def test_a_single_step_region_runs_one_block_per_thread(monkeypatch, threads, shape, layout):
    blocks = counted_blocks(monkeypatch)
    x = layouts(tricky("float64", shape, 2))[layout] if len(shape) == 2 else tricky("float64", shape, 2)
    check_fast(lambda a: a * 1.5, x, threads=threads, fast_path_min_bytes=1, fast_path_block_bytes=0)
    rows = x.size if x.flags.c_contiguous else x.shape[0]   # contiguous: a flat region, one long row
    step = max(64, rows // threads // 64 * 64)
    n = max(1, rows // step)
    assert sorted(blocks) == [(i * step, rows if i == n - 1 else (i + 1) * step) for i in range(n)]
    assert n == min(threads, rows // 64)


def test_a_region_of_several_steps_keeps_blocks_of_cache_size(monkeypatch):
    blocks = counted_blocks(monkeypatch)
    x = tricky("float64", (16384, 64), 3)       # 8 MiB: eight 1 MiB blocks
    check_fast(lambda a: np.tanh(a) * 1.5, x, threads=1, fast_path_min_bytes=1, fast_path_block_bytes=0)
    assert len(blocks) == 8


def test_a_single_step_region_with_an_error_falls_back_as_eager():
    x = tricky("float64", (5000, 8), 4)
    check_fast(lambda a: np.log(a), x, expect=None, errstate={"all": "raise"}, threads=2,
               fast_path_min_bytes=1, fast_path_block_bytes=0)
    check_fast(lambda a: np.log(a), x, expect=None, errstate={"invalid": "warn", "divide": "warn"}, threads=2,
               fast_path_min_bytes=1, fast_path_block_bytes=0)


def test_a_single_operator_step_on_a_dying_temporary_is_left_to_numpys_elision():
    """gemver's `np.outer(u1, v1) + np.outer(u2, v2)`: eager adds into the first temporary's buffer; so does
    the graph's code with no region (the temporary written inside the `+`). `alpha * a` (a is the caller's)
    and np.add(...) (a function call: NumPy elides for operators only) keep theirs."""
    rng = np.random.default_rng(5)
    u, v, w, z = (rng.random(1200) for _ in range(4))
    a = rng.random((1200, 1200))
    cases = [(lambda u, v, w, z: np.outer(u, v) + np.outer(w, z), (u, v, w, z), 0),
             (lambda alpha, a: alpha * a, (1.5, a), 1),
             (lambda u, v, a: np.add(np.outer(u, v), a), (u, v, a), 1)]
    for fn, args, regions in cases:
        cfn, rec = compile_fast(fn, fast_path_min_bytes=DEFAULT_MIN, fast_path_one_step_bytes=0,
                                fast_path_block_bytes=0)
        for _ in range(3):
            want, got = run(fn, args), run(cfn, args)
            assert_bits(want[0], got[0])
            assert want[1:] == got[1:]
        assert len(rec.regions) == regions and rec.stats() == ({"fast": 3} if regions else {}), rec.stats()


def test_a_single_step_region_needs_an_array_malloc_would_not_keep_warm():
    """gesummv's `alpha * A` (2000 x 2000 float64, 30.5 MiB): eager's fresh result reuses memory malloc kept
    from the last call, and a region of one step only added work (1.09x eager's CPU time on one thread, 1.19x
    on two). From 32 MiB (glibc's largest mmap threshold: freed arrays go back to the system and each new
    one is faulted in) the region's reused output pays, so it is kept there; a region of two steps keeps
    the 4 MiB bar (its blocks stay in cache from one step to the next)."""
    rng = np.random.default_rng(6)
    one_step = config.Config().fast_path_one_step_bytes
    assert one_step == 1 << 25
    small, big = rng.random((2000, 2000)), rng.random((2048, 2048))
    cases = [(lambda alpha, a: alpha * a, (1.5, small), 0),
             (lambda alpha, a: alpha * a, (1.5, big), 1),
             (lambda alpha, a: np.tanh(a) * alpha, (1.5, small), 1)]
    for fn, args, regions in cases:
        cfn, rec = compile_fast(fn, fast_path_min_bytes=DEFAULT_MIN, fast_path_one_step_bytes=one_step,
                                fast_path_block_bytes=0)
        for _ in range(2):
            want, got = run(fn, args), run(cfn, args)
            assert_bits(want[0], got[0])
            assert want[1:] == got[1:]
        assert len(rec.regions) == regions, (args[1].shape, rec.regions)
