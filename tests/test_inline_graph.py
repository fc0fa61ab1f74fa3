"""The graph's statements inlined into the dispatcher (minidynamo/inline_graph.py): the same results,
exceptions, warnings and references as eager, on every path the graph call had."""

from __future__ import annotations

import sys
import warnings

import numpy as np
import pytest

import minidynamo as md
from minidynamo.graph.codegen import INLINE_MAX_NODES

from .conftest import check


def small(x, w):
    return np.tanh(x @ w) + x


def long_chain(x):
    for _ in range(INLINE_MAX_NODES):
        x = x * 1.0001 + 0.5
    return x


def _source(compiled) -> str:
    return compiled.__minidynamo_source__


def test_a_small_graph_runs_inline_and_a_large_one_is_called():
    rng = np.random.default_rng(0)
    x, w = rng.random((4, 8)), rng.random((8, 8))
    c = md.compile(small)
    assert np.array_equal(c(x, w), small(x, w))
    src = _source(c)
    assert "___e0_graph(" not in src and "___ge0_np.tanh(" in src
    big = md.compile(long_chain)
    assert np.array_equal(big(x), long_chain(x))
    assert "___o = ___e0_graph(x)" in _source(big) and "___ge0_" not in _source(big)


def test_names_of_user_code_never_meet_the_inlined_ones():
    def f(t0, np_, ___o_like):
        t1 = t0 * 2
        return t1 + np_ + ___o_like
    check(f, np.arange(3.0), np.ones(3), np.full(3, 2.0))


def singular_after_work(a):
    b = a * 2.0
    c = b + 1.0
    return np.linalg.inv(c)            # singular: raises after two ops ran inline


def test_an_inlined_graph_that_raises_midway_reruns_eagerly():
    r = check(singular_after_work, np.eye(3), calls=[(np.full((3, 3), -0.5),), (np.eye(3) * 2,)])
    assert r.counter.frame_count == 1 and r.stats.hits == 2


def printed_then_raises(a, i):
    y = a * 3
    print("before", y.sum())
    return y[i] + 1


def test_raising_after_a_break_keeps_prints_once():
    check(printed_then_raises, np.arange(4.0), 2)
    check(printed_then_raises, np.arange(4.0), 7)      # IndexError inside the resumed graph


def warns(x):
    y = np.log(x)
    with np.errstate(divide="ignore"):
        z = np.log(x - x)
    return y + z


def test_warnings_and_errstate_blocks_inline():
    x = np.array([-1.0, 2.0])
    with warnings.catch_warnings(record=True) as eager_w:
        warnings.simplefilter("always")
        expected = warns(x.copy())
    c = md.compile(warns)
    with warnings.catch_warnings(record=True) as compiled_w:
        warnings.simplefilter("always")
        got = c(x.copy())
    assert np.array_equal(expected, got, equal_nan=True)
    assert [str(w.message) for w in eager_w] == [str(w.message) for w in compiled_w]
    assert "errstate(" in _source(c) and "___e0_graph(" not in _source(c)
    with np.errstate(invalid="raise"):
        with pytest.raises(FloatingPointError):
            c(x.copy())


def test_in_place_writes_and_their_snapshot_inline():
    def f(a, b, i):
        a += 1.0
        a[i] = b.sum()
        return a * 2
    check(f, np.zeros(4), np.ones(3), 1)
    check(f, np.zeros(4), np.ones(3), 9)       # the write raises: the snapshot restores a, eager re-runs


def test_no_reference_outlives_the_inlined_graph():
    """The caller resizes what came back and what it passed: nothing in the dispatcher still holds them."""
    def f(x):
        y = x * 2
        z = y + 1
        return z
    c = md.compile(f)
    for _ in range(3):
        x = np.arange(4.0)
        z = c(x)
        z.resize(8)
        x.resize(2)
        assert sys.getrefcount(z) == 2


def test_outputs_resized_after_a_break_in_the_same_entry():
    def f(x):
        y = x * 2
        print("mid")
        y.resize(6, refcheck=True)
        return y
    check(f, np.arange(3.0), calls=[(np.arange(3.0),), (np.arange(5.0),)])


def test_control_flow_nodes_inline():
    def f(x, n):
        i = 0
        while i < n:
            x = x * 0.5 + 1.0
            i += 1
        return x
    check(f, np.arange(3.0), 4, calls=[(np.arange(3.0), 4), (np.arange(3.0), 0)])
