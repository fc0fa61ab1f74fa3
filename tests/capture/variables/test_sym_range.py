"""range() over symbolic ints (capture/variables/sym_range.py): differential on many bounds, 0 and 1 and
negative ones included, and a loop handed to a loop driver keeps one capture for every longer bound."""

from __future__ import annotations

import numpy as np
import pytest

import minidynamo as md
from tests.conftest import check


def weighted_rows(x):
    acc = np.zeros(x.shape[1])
    for i in range(x.shape[0]):
        acc = acc + x[i] * i
    return acc


def stepped(x, n):
    acc = np.zeros(x.shape[1])
    for i in range(1, n, 3):
        acc = acc + x[i % x.shape[0]] * i
    for i in range(n, 2, -2):
        acc = acc - x[0] / i
    return acc, list(range(n // 2)), len(range(n))


def _rows(n):
    return np.arange(3.0 * n).reshape(n, 3)


@pytest.mark.filterwarnings("ignore:minidynamo")
@pytest.mark.parametrize("dynamic", [None, True])
def test_loops_over_a_symbolic_bound_match_eager(dynamic):
    sizes = [5, 2, 1, 0, 7, 70, 90, 3, 131]
    compiled = md.compile(weighted_rows, dynamic=dynamic, options={"suppress_errors": False})
    check(weighted_rows, _rows(6), calls=[(_rows(n),) for n in sizes], compiled=compiled)
    compiled = md.compile(stepped, dynamic=dynamic, options={"suppress_errors": False})
    check(stepped, _rows(4), 5, calls=[(_rows(4), n) for n in (0, 1, 2, -3, 9, 8, 100, 77, 3)], compiled=compiled)


def test_a_driven_loop_keeps_one_capture_for_every_longer_bound():
    compiled = md.compile(weighted_rows, dynamic=True, options={"suppress_errors": False, "fori_loops": False})
    check(weighted_rows, _rows(70), calls=[(_rows(n),) for n in (80, 65, 200, 97)], compiled=compiled)
    assert md.stats(compiled).pieces[0].captures == 1          # the function: `x.shape[0] > 64`, not one per size
    state = compiled._minidynamo
    guards = "\n".join(str(g) for r in state.records for g in r.entry.guards)
    assert "x.shape[0] > 64" in guards and "x.shape[0] ==" not in guards
    bodies = [c for c in state.children.values() if getattr(c, "_minidynamo", None) is not None]
    assert bodies and all(md.stats(b).captures == 1 for b in bodies)


def test_a_short_loop_guards_its_exact_count():
    compiled = md.compile(weighted_rows, dynamic=True, options={"suppress_errors": False})
    check(weighted_rows, _rows(5), calls=[(_rows(5),), (_rows(6),), (_rows(5),)], compiled=compiled)
    assert md.stats(compiled).captures == 2          # 5 rows unrolled, then 6: one entry each


def triangle(table, seq):
    """nussinov's shape: an inner range whose bounds change every iteration, and a body that breaks (the
    builtin max compares NumPy scalars: a data-dependent branch), so the inner loop's rest runs in a resume
    function called with other bounds each time."""
    n = table.shape[0]
    for i in range(n - 1, -1, -1):
        for j in range(i + 1, n):
            for k in range(i + 1, j):
                table[i, j] = max(table[i, j], table[i, k] + table[k + 1, j] + seq[k])
            print(i, j, int(table[i, j]))
    return table



@pytest.mark.filterwarnings("ignore:minidynamo")
@pytest.mark.parametrize("dtype", ["int32", "float64"])
def test_a_trip_count_that_changes_is_not_specialized_again(dtype):
    """The first capture of a piece decides a range's whole trip count; once that guard fails, the loop's
    count stays open (automatic dynamic), so a resume function whose inner bound changes every call
    captures about twice, not once per trip count up to the cache limit (before: 8 recompiles, the limit,
    for `(i + 2) >= j`, `(i + 3) >= j`, ...)."""
    seq = (np.arange(12) % 4).astype(dtype)
    result = check(triangle, np.zeros((12, 12), dtype), seq, calls=[(np.ones((12, 12), dtype), seq)] * 2)
    pieces = md.stats(result.compiled).pieces
    assert max(p.recompiles for p in pieces) <= 1, [str(p) for p in pieces]
    assert md.stats(result.compiled).recompiles <= 3
