"""graph/shortcuts.py through codegen: a shortcut that returns None runs the nodes' own lines, one that
returns values binds them; no operand is written inside a reader across a shortcut's edges; the other
branch deletes what the plain lines delete; malformed shortcuts are refused."""

from __future__ import annotations

import operator

import numpy as np
import pytest

from minidynamo.graph import codegen, shortcuts
from minidynamo.graph.ir import ArraySpec, Graph

F = ArraySpec((4,), np.float64)


def graph():
    g = Graph("f")
    x = g.add_input("x", F)
    a = g.call("multiply", operator.mul, (x, 2.0), spec=F)        # before the shortcut
    b = g.call("add", operator.add, (a, x), spec=F)               # shortcut: b, c
    c = g.call("tanh", np.tanh, (b,), spec=F)
    d = g.call("multiply", operator.mul, (c, 3.0), spec=F)        # after it
    g.outputs = [d]
    return g, x, a, b, c, d


class Fn:
    def __init__(self, result):
        self.result, self.calls = result, []

    def __call__(self, *args):
        self.calls.append(args)
        return self.result(*args) if callable(self.result) else self.result


def test_none_runs_the_plain_lines_and_values_are_bound():
    g, x, a, b, c, d = graph()
    xv = np.arange(4.0)
    want = codegen.compile_graph(g)(xv)[0]
    for result in (None, lambda a_, x_: (np.tanh(a_ + x_),)):
        fn = Fn(result)
        sc = shortcuts.Shortcut((b, c), (a, x), (c,), fn)
        shortcuts.check(g, [sc])
        compiled = codegen.compile_graph(g, {id(g): [sc]})
        assert np.array_equal(compiled(xv)[0], want)
        assert len(fn.calls) == 1 and np.array_equal(fn.calls[0][0], xv * 2)
    src = compiled.__minidynamo_source__
    assert "___fast_region(t0, x)" in src and "if ___s is None:" in src
    # t0 (read last inside the shortcut) is deleted on both branches; c is no operand written into d's line
    assert src.count("del ___s, t0") == 1 and "t3 = t2 * 3.0" in src


def test_without_shortcuts_the_source_is_unchanged():
    g = graph()[0]
    assert codegen.generate(g, {}).source == codegen.generate(g).source


@pytest.mark.parametrize("bad", ["gap", "input", "output"])
def test_malformed_shortcuts_are_refused(bad):
    g, x, a, b, c, d = graph()
    sc = {"gap": shortcuts.Shortcut((a, c), (x, b), (c,), Fn(None)),
          "input": shortcuts.Shortcut((b, c), (x,), (c,), Fn(None)),
          "output": shortcuts.Shortcut((b, c), (a, x), (), Fn(None))}[bad]
    with pytest.raises(ValueError):
        shortcuts.check(g, [sc])


def _chain(n):
    """n (add, tanh, multiply-by-a-scalar) triples: a region-shaped run of ops per triple."""
    g = Graph("long")
    x = g.add_input("x", F)
    v, runs = x, []
    for _ in range(n):
        b = g.call("add", operator.add, (v, x), spec=F)
        c = g.call("tanh", np.tanh, (b,), spec=F)
        v = g.call("multiply", operator.mul, (c, 0.5), spec=F)
        runs.append((b, c, v))
    g.outputs = [v]
    return g, x, runs


def test_checking_many_shortcuts_reads_each_node_a_bounded_number_of_times(monkeypatch):
    # issue 28: a 64-iteration unrolled loop made ~1,000 shortcuts over ~3,000 nodes; each shortcut scanned
    # every node after it for readers (quadratic: a tenth of a capture)
    from minidynamo.backends.fast_path import regions
    from minidynamo.graph import ir
    g, x, runs = _chain(300)
    scs = [shortcuts.Shortcut(run, (prev, x), (run[-1],), Fn(None))
           for prev, run in zip([x] + [r[-1] for r in runs], runs)]
    reads = []
    inputs = ir.Node.inputs
    monkeypatch.setattr(ir.Node, "inputs", lambda self: reads.append(1) or inputs(self))
    shortcuts.check(g, scs)
    assert len(reads) < 4 * len(g.nodes), len(reads)
    reads.clear()
    found = regions.find_regions(g)
    assert found and len(reads) < 4 * len(g.nodes), len(reads)
    assert [s.outputs for s in found] == [[len(s.steps) - 1] for s in found]
