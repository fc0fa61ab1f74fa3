"""Past cache_size_limit (cache.Mode): misses run the original function straight from the dispatcher
without the locked miss path; with too few hits per miss the dispatcher stops checking guards. Results stay
eager's in every mode; speed is measured in benchmarks/past_limit.py, not here."""

from __future__ import annotations

import warnings

import numpy as np

import minidynamo as md
from minidynamo.api import HITS_PER_MISS
from minidynamo.cache import WINDOW, Mode


def scale_rows(x):
    return x * 2.0 + x.sum()


def _fill(compiled, limit):
    for n in range(1, limit + 1):
        compiled(np.ones((n, 2)))


def _calls_with(compiled, rows):
    for n in rows:
        x = np.full((n, 2), float(n))
        np.testing.assert_array_equal(compiled(x), scale_rows(x))


def test_misses_past_the_limit_skip_the_miss_path_then_the_guards():
    compiled = md.compile(scale_rows, dynamic=False, options={"cache_size_limit": 2})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _fill(compiled, 2)
        assert md.stats(compiled).mode is Mode.CAPTURE
        _calls_with(compiled, [3])
        assert md.stats(compiled).mode is Mode.PAST_LIMIT
        assert "___miss" in compiled.__minidynamo_source__ and "% 64" in compiled.__minidynamo_source__
        _calls_with(compiled, [3, 4, 5] * WINDOW)
    s = md.stats(compiled)
    assert s.mode is Mode.EAGER and s.captures == 2
    assert "guard" not in compiled.__minidynamo_source__ and "if " not in compiled.__minidynamo_source__
    _calls_with(compiled, [1, 2, 7])                   # every shape, old or new, now runs eagerly
    md.reset()
    assert md.stats(compiled).mode is Mode.CAPTURE
    _calls_with(compiled, [1])
    assert len(compiled._minidynamo.cache.entries) == 1 and md.stats(compiled).mode is Mode.CAPTURE


def test_frequent_hits_keep_the_guards_and_the_compiled_entries():
    compiled = md.compile(scale_rows, dynamic=False, options={"cache_size_limit": 2})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _fill(compiled, 2)
        rows = [1] * HITS_PER_MISS + [2] + [9]        # more than HITS_PER_MISS hits per miss
        _calls_with(compiled, rows * 3 * WINDOW)
    s = md.stats(compiled)
    assert s.mode is Mode.PAST_LIMIT
    assert s.misses == 3 * WINDOW + 2 and s.hits >= (HITS_PER_MISS + 1) * 3 * WINDOW   # counted exactly


def test_misses_are_counted_exactly_past_the_limit():
    compiled = md.compile(scale_rows, dynamic=False, options={"cache_size_limit": 1})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _fill(compiled, 1)
        _calls_with(compiled, [5] * 10)
    assert md.stats(compiled).misses == 11


def test_past_the_limit_keeps_exceptions_and_side_effects_eager():
    log = []

    def f(x, n):
        log.append(n)
        return x[n]
    compiled = md.compile(f, dynamic=False, options={"cache_size_limit": 1})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for n in list(range(3)) * WINDOW:
            assert compiled(np.arange(3.0), n) == n
    assert log == list(range(3)) * WINDOW
    try:
        compiled(np.arange(3.0), 5)
    except IndexError as e:
        assert "out of bounds" in str(e)
    else:
        raise AssertionError("IndexError expected")
