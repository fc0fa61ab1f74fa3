"""Nested loops at any depth (stitch/partial.py, stitch/drivers.py): a loop past `unroll_limit`, or with a
break in its body, inside other loops gets a driver per loop level, and each driven body is one resume
function captured once. These kernels become fori_loop nodes by default (tests/capture/test_fori.py); here
folding is off, so the drivers they fall back to stay tested.

Kernels in the style of NPBench/PolyBench (stencils over t and i, LU, Cholesky, Gram-Schmidt, triangular
updates, convolution over output pixels), each checked differentially against eager and for its captures.
"""

from __future__ import annotations

import numpy as np
import pytest

import minidynamo as md
from tests.conftest import CompileCounter, check

SMALL = {"suppress_errors": False, "unroll_limit": 4, "fori_loops": False}    # long loops, short captures


def compiled(fn, **options):
    counter = CompileCounter()
    cfn = md.compile(fn, backend=counter, options={**SMALL, **options})
    cfn.counter = counter
    return cfn


def child_captures(cfn) -> dict[str, int]:
    """Captures of the compiled function and of each resume function it made, by name."""
    state = cfn._minidynamo
    out = {"<entry>": md.stats(cfn).pieces[0].captures}
    for child in state.children.values():
        inner = getattr(child, "_minidynamo", None)
        if inner is not None:
            out[inner.fn.__name__] = md.stats(child).captures
    return out


def no_eager_frames(cfn) -> None:
    for state in [cfn._minidynamo] + [c._minidynamo for c in cfn._minidynamo.children.values()]:
        for record in state.records:
            assert record.reason is None or not record.reason.fallback, str(record.reason)


def jacobi_1d(A, B, steps):
    n = A.shape[0]
    for t in range(steps):
        for i in range(1, n - 1):
            B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1])
        for i in range(1, n - 1):
            A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1])
    return A, B


def test_jacobi_sweeps_inside_a_time_loop_capture_each_body_once():
    A, B = np.linspace(0.0, 1.0, 30), np.zeros(30)
    cfn = compiled(jacobi_1d)
    res = check(jacobi_1d, A, B, 9, compiled=cfn, calls=[(A * 2, B, 9)])
    no_eager_frames(cfn)
    counts = child_captures(res.compiled)
    # entry, two inner bodies and exits, the time-loop body and its exit: one capture each, whatever the
    # trip counts, and no frame ran eagerly
    assert set(counts.values()) == {1}, counts
    assert len(counts) <= 8, counts


def seidel_2d(A, steps):
    n = A.shape[0]
    for t in range(steps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                A[i, j] = (A[i - 1, j - 1] + A[i - 1, j] + A[i - 1, j + 1] + A[i, j - 1] + A[i, j]
                           + A[i, j + 1] + A[i + 1, j - 1] + A[i + 1, j] + A[i + 1, j + 1]) / 9.0
    return A


def test_three_level_stencil_has_a_driver_per_level():
    A = np.random.default_rng(0).standard_normal((12, 12))
    cfn = compiled(seidel_2d)
    res = check(seidel_2d, A, 6, compiled=cfn)
    no_eager_frames(cfn)
    counts = child_captures(res.compiled)
    assert set(counts.values()) == {1}, counts
    assert res.compiled.counter.frame_count >= 4, "every level's body is a graph"


def lu(A):
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
            A[i, j] /= A[j, j]
        for j in range(i, n):
            A[j, i] -= A[j, :i] @ A[:i, i]
    return A


def cholesky(A):
    n = A.shape[0]
    for i in range(n):
        for j in range(i):
            A[i, j] -= np.dot(A[i, :j], A[j, :j])
            A[i, j] /= A[j, j]
        A[i, i] -= np.dot(A[i, :i], A[i, :i])
        A[i, i] = np.sqrt(A[i, i])
    return A


def gram_schmidt(A):
    m, n = A.shape
    Q, R = np.zeros_like(A), np.zeros((n, n))
    for k in range(n):
        nrm = np.dot(A[:, k], A[:, k])
        R[k, k] = np.sqrt(nrm)
        Q[:, k] = A[:, k] / R[k, k]
        for j in range(k + 1, n):
            R[k, j] = np.dot(Q[:, k], A[:, j])
            A[:, j] = A[:, j] - Q[:, k] * R[k, j]
    return Q, R


def triangular_scale(C, beta):
    n = C.shape[0]
    for i in range(n):
        C[i, :i + 1] *= beta
        for k in range(i):
            C[i, k] += 0.5 * C[k, k]
    return C


@pytest.mark.parametrize("kernel", [lu, cholesky, gram_schmidt])
def test_factorizations_with_triangular_inner_loops(kernel):
    rng = np.random.default_rng(1)
    M = rng.standard_normal((10, 10))
    A = M @ M.T + 10 * np.eye(10)
    cfn = compiled(kernel)
    res = check(kernel, A, compiled=cfn, calls=[(A + np.eye(10),)])
    assert res.compiled.counter.frame_count >= 2, "graphs, not an eager frame"
    assert not res.reasons or not res.reasons[0].fallback


def test_triangular_updates_produce_graphs_while_shapes_vary_per_row():
    C = np.random.default_rng(2).standard_normal((14, 14))
    cfn = compiled(triangular_scale)
    res = check(triangular_scale, C, 0.5, compiled=cfn, calls=[(C * 3, 0.25)])
    assert res.compiled.counter.frame_count >= 3
    assert not res.reasons[0].fallback


def conv2d(x, w):
    H, W = x.shape[0] - w.shape[0] + 1, x.shape[1] - w.shape[1] + 1
    out = np.zeros((H, W))
    for i in range(H):
        for j in range(W):
            out[i, j] = np.sum(x[i:i + w.shape[0], j:j + w.shape[1]] * w)
    return out


def test_convolution_over_output_pixels():
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((11, 9)), rng.standard_normal((3, 3))
    cfn = compiled(conv2d)
    res = check(conv2d, x, w, compiled=cfn, calls=[(x * 2, w)])
    no_eager_frames(cfn)
    # the window `x[i:i + 3, j:j + 3]` has symbolic bounds (i and j are symbolic loop indices), so the
    # pixel body is captured once, not per pixel: the function, the row body and the pixel body
    assert 3 <= cfn.counter.frame_count <= 4


def logged_sweeps(u, steps):
    for t in range(steps):
        for i in range(1, u.shape[0] - 1):
            u[i] = 0.5 * (u[i - 1] + u[i + 1])
        print("sweep", t, "done")
    return u


def test_a_print_in_the_outer_loop_after_a_long_inner_loop(capsys):
    u = np.linspace(0, 1, 20)
    cfn = compiled(logged_sweeps)
    res = check(logged_sweeps, u, 7, compiled=cfn)
    no_eager_frames(cfn)
    assert set(child_captures(res.compiled).values()) == {1}


def branchy_nest(x, rows, cols):
    total = np.zeros(x.shape[1])
    for r in range(rows):
        for c in range(cols):
            v = x[r % x.shape[0]] * c
            if v.sum() > 0:                 # a data-dependent break in the inner body
                total = total + v
            else:
                total = total - 0.5 * v
    return total


def test_a_break_in_an_inner_body_is_driven_at_both_levels():
    x = np.random.default_rng(4).standard_normal((5, 3))
    cfn = compiled(branchy_nest)
    res = check(branchy_nest, x, 6, 9, compiled=cfn, calls=[(-x, 6, 9)])
    no_eager_frames(cfn)
    assert max(child_captures(res.compiled).values()) <= 3      # one per branch outcome, not per iteration


def exits_from_inner_loops(x, limit):
    out = np.zeros_like(x[0])
    for i in range(x.shape[0]):
        for j in range(x.shape[1]):
            if j % 3 == 2:
                continue
            out = out + x[i, j]
            if float(out.sum()) > limit:
                break
        if i > 50:
            return out, "early"
    return out, "done"


def test_break_continue_and_return_inside_nested_driven_loops():
    x = np.random.default_rng(5).standard_normal((12, 10, 2))
    cfn = compiled(exits_from_inner_loops)
    check(exits_from_inner_loops, x, 2.0, compiled=cfn, calls=[(x, -100.0), (x, 1e9), (x[:, :3], 0.5)])
    no_eager_frames(cfn)


def while_inside_for(x, n):
    for i in range(n):
        k = 0
        while k < 7:
            x = x * 0.9 + k
            k += 1
        x = x - i
    return x


def nested_whiles(x, n):
    i = 0
    while i < n:
        j = 0
        while j < n:
            x[j % x.shape[0]] += i * j
            j += 1
        i += 1
    return x


@pytest.mark.parametrize("kernel", [while_inside_for, nested_whiles])
def test_while_loops_nested_in_loops(kernel):
    x = np.arange(6.0)
    cfn = compiled(kernel)
    check(kernel, x, 9, compiled=cfn, calls=[(x * 2, 9), (x, 2)])
    no_eager_frames(cfn)


def raises_in_a_nested_body(x, n):
    for t in range(3):
        for i in range(n):
            x[i] = x[i] + t          # IndexError once i reaches x.shape[0]
    return x


def test_an_exception_inside_a_driven_inner_body_is_the_eager_one():
    check(raises_in_a_nested_body, np.zeros(8), 8, calls=[(np.zeros(8), 12)], compiled=compiled(raises_in_a_nested_body))


def test_default_unroll_limit_on_a_long_nest():
    A, B = np.linspace(0.0, 1.0, 150), np.zeros(150)
    res = check(jacobi_1d, A, B, 3)
    assert set(child_captures(res.compiled).values()) == {1}
