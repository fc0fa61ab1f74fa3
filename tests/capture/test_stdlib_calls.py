"""The pure-Python standard library runs as one plain call (statistics, fractions: bookkeeping per value that
broke deeper and recaptured per value), an allow-list of modules is walked, and operator.itemgetter /
attrgetter objects are called in capture as the subscripts and attribute reads they stand for."""

import fractions
import operator
import statistics
from operator import attrgetter, itemgetter

import numpy as np
import pytest

import minidynamo as md
from tests.conftest import check


def centred(x):
    m = statistics.mean(x.tolist())
    return x - m, statistics.median([1.0, m]), statistics.pstdev(x.tolist())


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
def test_statistics_is_one_plain_call_not_a_capture_per_value(dtype):
    xs = [np.arange(4).astype(dtype) + i for i in range(12)]
    r = check(centred, xs[0], calls=[(x,) for x in xs[1:]])
    stats = md.stats(r.compiled)
    # one capture per piece, none per value (was 27 captures and 2 recompiles for mean alone)
    assert stats.captures == len(stats.pieces) and stats.recompiles == 0, str(stats)
    breaks = md.explain(centred)(xs[0]).break_reasons
    assert any("statistics.mean() runs as plain Python" in b.message for b in breaks)
    check(centred, np.zeros(0),
          expect_graph=False)                         # statistics' own StatisticsError, as eagerly


def test_fractions_run_plain_and_exactly():
    def ratio(x, n):
        f = fractions.Fraction(n, 3) + fractions.Fraction(1, 6)
        return x * float(f), f
    check(ratio, np.arange(3.0), 4, calls=[(np.arange(3.0), 5)])


def test_which_modules_are_walked():
    from minidynamo.capture.frame import runs_plain
    assert runs_plain("statistics") and runs_plain("random") and runs_plain("fractions") and runs_plain("json.decoder")
    assert not any(runs_plain(m) for m in ("functools", "contextlib", "dataclasses", "collections.abc",
                                           "numpy", "numpy.linalg", "__main__", "mymodel", None))


def keyed(d, spec, x):
    keys = sorted(d, key=itemgetter(0))
    firsts = list(map(itemgetter(0), spec))
    pairs = [itemgetter(1, 0)(s) for s in spec]
    return keys, firsts, pairs, attrgetter("shape", "T.shape")(x), [d[k] * 2 for k in keys]


@pytest.mark.parametrize("shape", [(2, 3), (0,), ()])
def test_itemgetter_and_attrgetter_capture_in_one_graph(shape):
    d = {"ba": np.ones(shape), "ab": np.zeros(shape), "ca": np.full(shape, 3.0)}
    spec = [(1, "a"), (3, "b")]
    r = check(keyed, d, spec, np.ones(shape), calls=[(d, [(5, "c")], np.ones(shape))])
    assert not r.reasons


GET_FIRST = operator.itemgetter(0)


def test_a_getter_read_from_a_global_or_an_argument_is_guarded_by_identity():
    def first(rows, get):
        return GET_FIRST(rows) + get(rows)
    rows = (np.arange(3.0), np.ones(3))
    r = check(first, rows, itemgetter(1), calls=[(rows, itemgetter(0)), (rows, itemgetter(0, 1))])
    assert not any("itemgetter" in b.message and b.category.value == "call" for b in r.reasons)

    def wrong(rows):
        return itemgetter(0)(), itemgetter(5)(rows)     # TypeError and IndexError: Python's, as eagerly
    check(wrong, rows, expect_graph=False)



ROWS = [np.array([1.0, 3.0, 2.0]), np.array([np.nan, 1.0, 2.0]), np.array([1.0, np.nan, 0.5]),
        np.array([-0.0, 0.0, -0.0]), np.array([3, -7, 3], np.int8), np.array([True, False, True])]


@pytest.mark.parametrize("row", ROWS, ids=lambda r: f"{r.dtype}-{r.tolist()}")
def test_max_and_min_over_an_arrays_elements_break_with_their_own_reason(row):
    """numpy-ml's `m = max(row)` over a 1-d array compares NumPy scalars the graph computes, one by one:
    a break at the call, named as such (not "a branch"), with np.max as the rewrite; results are Python's
    (a NaN first stays, -0.0 before 0.0). Recorded as selects in the graph it cost 2.5x-23x eager."""
    def extremes(r):
        return max(r) + 0.0, min(r) * 1
    r = check(extremes, row, calls=[(row[::-1].copy(),)])
    assert r.reasons and all("over NumPy scalars the graph computes compares them one by one" in b.message
                             for b in r.reasons), r.reasons
