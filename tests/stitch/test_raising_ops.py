"""Operations that may raise run exactly as eagerly (issue 15 §1, §2): an unused result still runs its op,
and an exception raised inside a try/with region reaches that region's handler with each write before it
done once. Differential throughout (tests/conftest.py::check), over calls whose sizes make the op raise."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import minidynamo as md
from tests.conftest import captured, check

SINGULAR, REGULAR = np.ones((2, 2)), np.array([[2.0, 1.0], [1.0, 3.0]])


# ---- §1: an op whose result is unused still runs ----------------------------------------------------------

def solve_unused(A, b):
    np.linalg.solve(A, b)
    return b


def inv_unused(A):
    np.linalg.inv(A)
    return A.shape


def cholesky_unused(A):
    np.linalg.cholesky(A)
    return 1.0


def index_unused(x, n):
    x[n + 1, -1]
    return x


def take_unused(x, n):
    np.take(x, [n])
    return 0


def power_unused(a, b):
    a ** b                      # integer arrays: a negative exponent raises ValueError
    return a


def reshape_unused(x, n):
    x.reshape(n, -1)
    return x


def matmul_unused(x, y):
    x @ y                       # shape mismatch raises ValueError
    return y


@pytest.mark.parametrize("fn, calls", [
    (solve_unused, [(REGULAR, np.ones(2)), (SINGULAR, np.ones(2))]),
    (inv_unused, [(REGULAR,), (SINGULAR,)]),
    (cholesky_unused, [(REGULAR,), (-REGULAR,)]),
    (index_unused, [(np.ones((3, 2)), 0), (np.ones((3, 2)), 1), (np.ones((3, 2)), 2)]),
    (take_unused, [(np.ones(3), 1), (np.ones(3), 2), (np.ones(3), 5)]),
    (power_unused, [(np.arange(3), np.arange(3)), (np.arange(3), np.array([1, -1, 2]))]),
    (reshape_unused, [(np.ones(6), 2), (np.ones(6), 3), (np.ones(6), 4)]),
    (matmul_unused, [(np.ones((2, 3)), np.ones((3, 2))), (np.ones((2, 3)), np.ones((3, 2)))]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_unused_result_still_runs(fn, calls):
    check(fn, *calls[0], calls=calls[1:])


def test_the_graph_keeps_the_unused_op_and_the_entry_calls_it():
    out = md.explain(solve_unused)(REGULAR, np.ones(2))
    assert out.op_count == 1 and out.graph_break_count == 0
    assert re.search(r"___e\d+_graph[(,]", str(out)) and "solve" in str(out.graphs[0])   # the entry calls it


def test_unused_op_keeps_its_warning():
    def log_unused(x):
        np.log(x)
        return x

    x = np.array([1.0, -1.0])
    compiled = md.compile(log_unused)
    for run in (log_unused, compiled, compiled):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            run(x.copy())
        assert [w.category for w in seen] == [RuntimeWarning], run
    assert captured(compiled).assert_graph_ran().graphs[0].count("log") == 1     # kept, though unused


def solve_in_try(A, b):
    try:
        z = np.linalg.solve(A, b)       # noqa: F841 (unused on purpose)
    except np.linalg.LinAlgError as e:
        print("singular:", e)
    return b


def index_in_try(x, n):
    try:
        x[n]
    except IndexError as e:
        print("caught", e)
        return -1
    return n


def test_unused_raising_ops_inside_try():
    check(solve_in_try, REGULAR, np.ones(2), calls=[(SINGULAR, np.ones(2))])
    check(index_in_try, np.ones(3), 0, calls=[(np.ones(3), 2), (np.ones(3), 3), (np.ones(3), -4)])


def driven_loop(x, n):
    for i in range(n):
        print("step", i)        # a break in the loop: its body is driven, one captured call per iteration
        x[i + 1, 0]             # unused; IndexError on the last iteration when n == len(x)
    return x


def in_resume(A, b):
    print("before")             # a break: the rest runs in a resume function
    np.linalg.solve(A, b)
    return b


def test_unused_raising_ops_in_driven_loops_and_resume_functions():
    check(driven_loop, np.ones((3, 2)), 2, calls=[(np.ones((3, 2)), 3), (np.ones((3, 2)), 1)])
    check(in_resume, REGULAR, np.ones(2), calls=[(SINGULAR, np.ones(2)), (REGULAR, np.ones(2))])


# ---- §2: an exception inside try reaches its handler after earlier in-place writes -------------------------

def write_then_solve(x, A, b):
    x[0] *= 0.5
    try:
        s = np.linalg.solve(A, b)
    except np.linalg.LinAlgError:
        print("singular")
        s = np.zeros_like(b)
    return s


def write_then_index(x, n):
    x *= 2.0
    try:
        r = x[n] + 1.0
    except IndexError:
        print("caught")
        r = x[0]
    return r


def write_in_try_then_raise(x, n):
    try:
        x += 1.0
        x[n] = 7.0
    except IndexError:
        print("caught, x is", x)
    finally:
        print("finally")
    return x.sum()


def _helper_with_try(x, n):
    try:
        return x[n] * 2.0
    except IndexError:
        return x[-1]


def write_then_helper(x, n):
    x[...] = x + 1.0
    return _helper_with_try(x, n) + 1.0


def try_around_loop(x, n):
    x += 1.0
    try:
        for i in range(3):
            x[i] = x[i + n]
    except IndexError:
        print("stopped")
    return x


def write_into_read_only(x, i):
    a = x * 2.0
    a.flags.writeable = False           # NumPy's test_ufunc_at_readonly: the graph's add.at raises
    try:
        np.add.at(a, [i], 1.0)
    except ValueError as e:
        return str(e), a
    return None, a


def write_then_python_division(x, n):
    x[0] = 5.0
    try:
        k = 1 / n                       # n unspecialized from the second call: Python arithmetic in the graph
    except ZeroDivisionError:
        k = 0.5
    return x * k


@pytest.mark.parametrize("fn, calls", [
    (write_then_python_division, [(np.ones(3), 2), (np.ones(3), 3), (np.ones(3), 0), (np.ones(3), 4)]),
    (write_into_read_only, [(np.ones(3), 0), (np.ones(2), 1)]),
    (write_then_solve, [(np.ones(2), REGULAR, np.ones(2)), (np.ones(2), SINGULAR, np.ones(2))]),
    (write_then_index, [(np.ones(3), 0), (np.ones(3), 1), (np.ones(3), 7), (np.ones(3), -1)]),
    (write_in_try_then_raise, [(np.ones(3), 0), (np.ones(3), 5), (np.ones(3), 2)]),
    (write_then_helper, [(np.ones(3), 1), (np.ones(3), 4), (np.ones(3), 0)]),
    (try_around_loop, [(np.arange(6.0), 1), (np.arange(6.0), 4), (np.arange(6.0), 2)]),
], ids=lambda v: getattr(v, "__name__", ""))
def test_exception_in_try_after_inplace_write(fn, calls):
    check(fn, *calls[0], calls=calls[1:])


def test_no_snapshot_without_try_or_writebacks():
    def scale(x):
        x *= 2.0
        return x[0]

    out = md.explain(scale)(np.ones(3))
    entry = "\n".join(out.entry_code)
    assert "___snap" not in entry and "___eager" not in entry
    assert "___snap" in str(md.explain(write_then_index)(np.ones(3), 0))


def step_then_log(W, dW, a, history):
    W -= 0.1 * dW                       # written in place, then an op that may raise, then the log
    r = np.linalg.inv(a)
    history.append(float(np.abs(dW).sum()))
    return r


def log_then_step(W, dW, a, history):
    history.append(1)                   # the caller sees this before the op that raises: eager made it
    W -= 0.1 * dW
    return np.linalg.inv(a)


@pytest.mark.parametrize("fn, snapshot", [(step_then_log, False), (log_then_step, True)])
def test_snapshot_only_when_a_visible_mutation_precedes_an_op(fn, snapshot):
    """A write-back the caller can see made only after every op of the graph: if an op raises, eager has not
    made it either, so the exception leaves straight from the graph with the partial writes eager leaves (no
    copy of W per call); one made before needs the snapshot and the eager re-run."""
    W = np.arange(6.0).reshape(2, 3)
    check(fn, W, np.ones((2, 3)), REGULAR, [0.5],
          calls=[(W, np.ones((2, 3)), SINGULAR, []), (W * 2, np.ones((2, 3)), REGULAR, [2.0])])
    entry = "\n".join(md.explain(fn)(W.copy(), np.ones((2, 3)), REGULAR, []).entry_code)
    assert ("___snap" in entry) is snapshot


# ---- the eager re-run after the graph raised leaves no trace of the graph's exception --------------------

def inv_plus_one(A):
    return np.linalg.inv(A * 2) + 1


def scale_then_inv(A, out):
    out *= 2                          # a write into an input: the re-run restores it from a snapshot first
    print("scaled")
    return np.linalg.inv(A) + out


@pytest.mark.parametrize("fn, extra", [(inv_plus_one, ()), (scale_then_inv, (np.ones(2),))])
def test_rerun_exception_has_eager_context(fn, extra):
    """Re-run inside the except clause, eager's exception would carry the graph's as __context__ (a
    traceback saying "During handling of the above exception, another exception occurred")."""
    compiled = md.compile(fn, options={"suppress_errors": False})
    compiled(REGULAR.copy(), *(e.copy() for e in extra))              # capture on an invertible matrix
    raised = []
    for f in (fn, compiled):
        with pytest.raises(np.linalg.LinAlgError) as info:
            f(SINGULAR.copy(), *(e.copy() for e in extra))
        raised.append((info.value.__context__, info.value.__cause__, info.value.__suppress_context__))
    assert raised[0] == raised[1] == (None, None, False)
    captured(compiled).assert_graph_ran()
