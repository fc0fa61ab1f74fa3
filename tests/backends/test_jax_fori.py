"""jax_lowering/fori.py: fori_loop nodes (capture/fori.py) lowered whole to lax.fori_loop / lax.while_loop.
Each test compares with eager NumPy (results, written arguments, warnings, exceptions) and asserts what was
lowered: the loop node on XLA with no fallback, or on NumPy with the reason."""

from __future__ import annotations

import copy
import operator
import warnings

import numpy as np
import pytest

from tests.backends.jax_support import Recorder, assert_close, md
from tests.conftest import check

from minidynamo.backends.jax_lowering.fori import refuse_fori     # noqa: E402  (after jax_support's skip)
from minidynamo.graph import control                              # noqa: E402
from minidynamo.graph.ir import ArraySpec, Graph, PyScalarSpec     # noqa: E402


def ops_of(rec: Recorder) -> list[str]:
    return [n.op for p in rec.plans for n in p.graph.nodes if n.is_call]


def both(fn, args_list, rec):
    """Eager and compiled (backend `rec`) on copies of each argument tuple: results, written arguments and
    warnings agree (within the backend's tolerance for floats)."""
    compiled = md.compile(fn, backend=rec, options={"suppress_errors": False})
    for args in args_list:
        eager_in, compiled_in = copy.deepcopy(args), copy.deepcopy(args)
        with warnings.catch_warnings(record=True) as expected:
            warnings.simplefilter("always")
            want = fn(*eager_in)
        with warnings.catch_warnings(record=True) as got_warnings:
            warnings.simplefilter("always")
            got = compiled(*compiled_in)
        assert_close(got, want)
        for k, (g, e) in enumerate(zip(compiled_in, eager_in)):
            assert_close(g, e, f"argument {k}")
        assert [str(w.message) for w in got_warnings] == [str(w.message) for w in expected]
    return compiled


def jacobi_1d(steps, A, B):
    for t in range(1, steps):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])


def test_a_loop_writing_two_inputs_runs_whole_on_xla():
    rec = Recorder()
    A = np.linspace(0.0, 1.0, 40)
    both(jacobi_1d, [(100, A, np.zeros(40)), (100, A * 3, np.ones(40))], rec)
    assert "fori_loop" in ops_of(rec) and rec.fully_lowered and rec.fallbacks == 0


def row_sweep(A):
    for i in range(1, A.shape[0] - 1):
        A[i, 1:-1] += A[i - 1, :-2] + A[i + 1, 2:]
        A[i, 1:2] = A[i, 1:2] // 3 + A[i - 1, 1:2]     # (NumPy integer scalars warn on overflow: arrays)
    return A


def test_views_placed_by_the_loop_index_are_written_through():
    rec = Recorder()
    A = np.arange(90 * 7, dtype=np.int64).reshape(90, 7) % 11
    check(row_sweep, A, calls=[(A * 2,), (A + 5,)], backend=rec)
    assert "fori_loop" in ops_of(rec) and rec.fully_lowered and rec.fallbacks == 0


def carried(acc, x, n):
    for i in range(n):
        acc = acc * 3 + x[i % 4]
    return acc


@pytest.mark.parametrize("n", [0, 1, 90])
def test_a_carried_array_over_zero_one_and_many_iterations(n):
    rec = Recorder()
    acc, x = np.arange(3, dtype=np.int64), np.arange(12, dtype=np.int64).reshape(4, 3)
    res = check(carried, acc, x, 90, calls=[(acc, x, n), (acc + 1, x, 90)], backend=rec)   # (and aliasing)
    assert "fori_loop" in ops_of(rec) and "fori_loop" not in rec.not_lowered() and res.reasons == []


def gathered(A, idx):
    for i in range(80):
        A[i % 10] += A[idx[i % 4]]
    return A


def test_an_index_out_of_bounds_in_the_body_raises_as_numpy_with_its_partial_writes():
    rec = Recorder()
    A = np.arange(200, dtype=np.int64).reshape(100, 2)     # rows: arrays (NumPy integer scalars stay)
    check(gathered, A, np.array([3, 50, -7, 99]),
          calls=[(A, np.array([3, 50, 100, 0])), (A, np.array([1, 2, 3, -101]))], backend=rec)
    assert "fori_loop" in ops_of(rec) and rec.fully_lowered and len(rec.plans) == 1
    assert rec.fallbacks == 2          # idx[2] = 100 and idx[3] = -101 are out of bounds: NumPy raised


def growth(x, scale):
    for i in range(1, 70):
        x[i] = np.exp(x[i - 1] * scale)
    return x


@pytest.mark.parametrize("scale", [0.01, 40.0])
def test_an_overflow_in_the_body_warns_as_numpy(scale):
    rec = Recorder()
    both(growth, [(np.full(70, 0.5), 0.01), (np.full(70, 0.5), scale)], rec)
    assert "fori_loop" in ops_of(rec) and rec.fully_lowered
    assert rec.fallbacks == (1 if scale > 1 else 0)


def first_big(x, limit):
    total = np.zeros(1)
    for i in range(x.shape[0]):
        if x[i] > limit:
            break
        total = total + x[i]
    return total


def test_a_loop_with_a_break_stays_on_numpy():
    rec = Recorder()
    x = np.linspace(0.0, 10.0, 100)
    both(first_big, [(x, 5.0), (x, 20.0), (x, -1.0)], rec)
    assert "fori_loop" in ops_of(rec) and "break" in rec.not_lowered()["fori_loop"]


def column_into_itself(A):
    col = A[:, 0]
    for i in range(1, A.shape[0]):
        col[i] = A[i - 1, 1] + col[i - 1]      # rows of 2: arrays
    return A


def test_a_written_operand_sharing_memory_with_another_stays_on_numpy():
    rec = Recorder()
    A = np.arange(90 * 6, dtype=np.int64).reshape(90, 3, 2)
    check(column_into_itself, A, calls=[(A * 2,)], backend=rec)
    assert "memory another operand shares" in rec.not_lowered()["fori_loop"]


def trisolv(L, x, b):
    for i in range(x.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


def test_a_slice_whose_size_follows_the_index_stays_on_numpy():
    rec = Recorder()
    rng = np.random.default_rng(0)
    L = np.tril(rng.standard_normal((80, 80))) + 80 * np.eye(80)
    check(trisolv, L, np.zeros(80), rng.standard_normal(80), backend=rec)
    assert "fori_loop" in rec.not_lowered()


def test_one_array_given_twice_to_a_body_that_writes_it_stays_on_numpy():
    """Capture gives each array once, but a graph built by hand may pass one twice: the body's two inputs
    would be traced as two arrays, so a write through one would not show in the other."""
    vec, row = ArraySpec((4, 2), np.dtype(np.float64)), ArraySpec((2,), np.dtype(np.float64))
    g = Graph("twice")
    x = g.add_input("x", vec)
    body = Graph("body")
    i, a, b = body.add_input("a0", PyScalarSpec(int)), body.add_input("a1", vec), body.add_input("a2", vec)
    read = body.call("getitem", operator.getitem, (b, i), spec=row)
    body.call("setitem", operator.setitem, (a, i, read), spec=None)
    body.set_outputs([])
    node = control.add_fori_loop(g, (0, 4, 1), body, (), (x, x), False)
    assert "whose memory another operand shares" in refuse_fori(node)
