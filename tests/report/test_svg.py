"""report.svg: the layered DAG drawing (one `g.node` per IR node, layers below their arguments, control-flow
subgraphs nested inside their node)."""

from __future__ import annotations

import re

import numpy as np

from minidynamo.graph.ir import ArraySpec, Graph
from minidynamo.report.svg import draw_graph

from .pages import chain_graph

SPEC = ArraySpec((4,), np.float64)


def _positions(svg: str) -> dict[int, tuple[float, float]]:
    """Node index -> (x of its center, y of its top)."""
    found = re.findall(r'class="node [a-z]+" data-index="(\d+)" '
                       r'transform="translate\(([\d.]+),([\d.]+)\)"><title>[^<]*</title><rect width="([\d.]+)"', svg)
    return {int(i): (float(x) + float(w) / 2, float(y)) for i, x, y, w in found}


def _diamond() -> Graph:
    g = Graph("diamond")
    x = g.add_input("x", SPEC)
    a = g.call("tanh", np.tanh, (x,), spec=SPEC)
    b = g.call("exp", np.exp, (x,), spec=SPEC)
    c = g.call("add", np.add, (a, b), spec=SPEC)
    k = g.add_const(np.arange(4.0))
    d = g.call("multiply", np.multiply, (c, k), spec=SPEC)
    g.set_outputs([d, a])
    return g


def test_one_drawn_node_per_ir_node_and_one_edge_per_argument():
    g = _diamond()
    svg = draw_graph(g, "g")
    assert svg.count('<g class="node ') == len(g.nodes) == 6
    assert svg.count('<g class="node op"') == g.count() == 4
    assert svg.count('class="node input"') == 1 and svg.count('class="node const"') == 1
    assert svg.count('<g class="ret"') == 1
    # tanh, exp: 1 argument each; add 2; multiply 2 (add and the const); return: 2 outputs
    assert svg.count('<path class="edge"') == 1 + 1 + 2 + 2 + 2
    assert 'data-nodes="6" data-ops="4"' in svg
    assert "<title>%2 = add(%0, %1)  # f64[4]</title>" in svg


def test_every_node_sits_below_its_arguments():
    g = chain_graph(40)
    pos = _positions(draw_graph(g, "g"))
    assert len(pos) == 40
    for n in g.nodes:
        for a in n.inputs():
            assert pos[n.index][1] > pos[a.index][1], (n, a)


def test_a_straight_chain_stays_in_one_column():
    g = Graph("chain")
    v = g.add_input("x", SPEC)
    for _ in range(5):
        v = g.call("tanh", np.tanh, (v,), spec=SPEC)
    g.set_outputs([v])
    xs = {round(x) for x, _ in _positions(draw_graph(g, "g")).values()}
    assert len(xs) == 1


def test_subgraphs_of_a_control_flow_node_are_drawn_inside_it():
    then, other = Graph("then"), Graph("else")
    for sub, op in ((then, np.tanh), (other, np.exp)):
        t = sub.add_input("x", SPEC)
        sub.set_outputs([sub.call(op.__name__, op, (t,), spec=SPEC)])
    g = Graph("outer")
    x = g.add_input("x", SPEC)
    p = g.call("greater", np.greater, (x, 0.0), spec=ArraySpec((4,), np.bool_))
    c = g.call("cond", lambda *a: None, (p, then, other, x), spec=SPEC)
    g.set_outputs([c])
    svg = draw_graph(g, "g")
    assert svg.count('<g class="sub"') == 2
    assert svg.count('<g class="node ') == len(g.nodes) + len(then.nodes) + len(other.nodes)
    nested = svg[svg.index('<g class="sub"'):svg.rindex('<g class="ret"')]
    assert nested.count('<g class="node ') == len(then.nodes) + len(other.nodes)
    # the nested drawings come after the cond node's own box opens, and before it closes
    start = svg.index('data-index="2"')
    assert start < svg.index('<g class="sub"') < svg.rindex("</g></g>")


class _WhileTarget:
    """A control-flow target as graph/control.py shapes them: `subgraphs` lists (label, Graph) pairs."""

    def __init__(self, cond: Graph, body: Graph) -> None:
        self.subgraphs = (("cond", cond), ("body", body))

    def __call__(self, *carried):
        return carried


def test_labelled_subgraphs_of_a_node_target_are_nested_with_their_labels():
    cond, body = Graph("cond"), Graph("body")
    c = cond.add_input("c0", SPEC)
    cond.set_outputs([cond.call("any", np.any, (c,), spec=ArraySpec((), np.bool_))])
    b = body.add_input("c0", SPEC)
    body.set_outputs([body.call("tanh", np.tanh, (b,), spec=SPEC)])
    g = Graph("loop")
    x = g.add_input("x", SPEC)
    g.set_outputs([g.call("while_loop", _WhileTarget(cond, body), (x,), spec=(SPEC,))])
    svg = draw_graph(g, "g")
    assert '<text x="10.0" y="46" class="sublabel">cond</text>' in svg and 'class="sublabel">body</text>' in svg
    assert svg.count('<g class="sub"') == 2
    assert svg.count('<g class="node ') == len(g.nodes) + len(cond.nodes) + len(body.nodes)


def test_long_edges_run_through_waypoints_beside_the_nodes():
    g = Graph("skip")
    x = g.add_input("x", SPEC)
    v = x
    for _ in range(4):
        v = g.call("tanh", np.tanh, (v,), spec=SPEC)
    g.set_outputs([g.call("add", np.add, (v, x), spec=SPEC)])
    svg = draw_graph(g, "g")
    pos = _positions(svg)
    column = pos[1][0]
    skip = re.findall(r'<path class="edge" d="([^"]*)"/>', svg)
    long = [d for d in skip if d.count("L") == 4]          # x -> add passes the 4 tanh rows
    assert len(long) == 1
    xs = [float(p.split(",")[0]) for p in re.findall(r"L([\d.]+,[\d.]+)", long[0])]
    assert all(abs(x - column) > 20 for x in xs), (xs, column)   # beside the tanh column, not through it
