"""backends/aliasing.py: which nodes an engine with immutable arrays must leave on NumPy (no engine needed)."""

from __future__ import annotations

import numpy as np

import minidynamo as md
from minidynamo.backends.aliasing import alias_refusals, alias_root, is_view, same_object_root


def graph_of(fn, *args):
    return md.explain(fn)(*args).graphs[0]


def refused_ops(fn, *args):
    g = graph_of(fn, *args)
    return sorted(n.op for n in g.nodes if id(n) in alias_refusals(g))


def test_views_read_before_the_next_write_are_fine():
    def f(x):
        x[0] = x[1:].sum()       # the slice is read before the write
        return x * 2
    assert refused_ops(f, np.arange(4.0)) == []


def test_a_view_read_after_a_write_keeps_the_view_and_the_writes_on_numpy():
    def f(x):
        v = x[1:]
        x[1] = 5.0
        return v.sum()
    assert refused_ops(f, np.arange(4.0)) == ["getitem", "setitem"]


def test_writes_through_a_view():
    def f(x):
        v = x[:2]
        v += 1.0
        return x.sum()
    assert refused_ops(f, np.arange(4.0)) == ["getitem", "iadd"]


def test_returned_views_of_inputs_and_shared_bases():
    assert refused_ops(lambda x: x.T, np.ones((2, 3))) == ["transpose"]
    assert refused_ops(lambda x: (x * 2)[0], np.ones((2, 3))) == []        # a view of a private temporary
    assert refused_ops(lambda x: ((x * 2)[0], (x * 2)[1]), np.ones((2, 3))) == []   # two temporaries (no CSE)
    assert refused_ops(lambda x: (lambda y: (y, y[0]))(x * 2), np.ones((2, 3))) == ["getitem"]


def test_advanced_indexing_copies_basic_indexing_views():
    g = graph_of(lambda x, i: (x[i], x[1:]), np.ones(4), np.array([0, 1]))
    gathers = [n for n in g.nodes if n.op == "getitem"]
    assert [is_view(n) for n in gathers] == [False, True]


def test_roots():
    def f(x):
        y = x * 2
        y += 1.0
        return y.reshape(-1)
    g = graph_of(f, np.ones((2, 2)))
    mul, iadd, reshape = [n for n in g.nodes if n.is_call]
    assert same_object_root(g)[id(iadd)] is mul and same_object_root(g)[id(reshape)] is reshape
    assert alias_root(g)[id(reshape)] is mul


def test_sliced_views_follow_basic_static_indices_only():
    from minidynamo.backends.aliasing import alias_refusals, sliced_views

    def f(x, i):
        a = x[1:4]          # tracked
        b = a[::2]          # tracked: a view of a tracked view
        c = x.reshape(2, 3)[0]      # a view of a reshape: not tracked
        d = x[i]            # an index that is a graph value: not tracked
        b[0] = 1.0
        return a.sum() + c.sum() + d
    g = md.explain(f)(np.arange(6.0), np.array([1])).graphs[0]
    tracked = sliced_views(g)
    getitems = [n for n in g.nodes if n.op == "getitem"]
    assert [id(n) in tracked for n in getitems] == [True, True, False, False]
    assert tracked[id(getitems[1])][0] is getitems[0]
    refused = alias_refusals(g, tracked)
    assert id(getitems[2]) in refused and id(getitems[1]) not in refused      # c is read after the write
