"""A graph drawn as an SVG DAG: inputs on top, each op one layer below its deepest argument, the outputs at
the bottom; within a layer nodes are ordered by the mean position of their arguments (one barycenter
pass), which keeps chains straight and crossings few. Plain strings, no library.

A node whose arguments (or `node.meta["subgraphs"]`) hold Graphs, as control-flow nodes (cond, while_loop)
do, is drawn as a box with those graphs drawn inside it, recursively. Every IR node is one
`<g class="node">` (a child of the `<svg>`, or of its control-flow node's `<g class="sub">`); the `return`
box is a `<g class="ret">`, so counting `.node` elements counts the IR.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from ..graph.ir import CONST, INPUT, Graph, Node, format_spec, iter_nodes

CHAR_W, LINE_H, PAD, H_GAP, V_GAP, NODE_H = 6.6, 14, 8, 14, 34, 36
MIN_W, MAX_W = 56, 230


@dataclass
class _Box:
    node: Node | None                 # None: the `return` box
    label: str
    spec: str
    kind: str                         # input, const, op, ret
    w: float = 0.0
    h: float = NODE_H
    x: float = 0.0
    y: float = 0.0
    layer: int = 0
    args: list["_Box"] = field(default_factory=list)
    inner: list[tuple[Graph, "_Drawing"]] = field(default_factory=list)


@dataclass
class _Drawing:
    w: float
    h: float
    body: str


def subgraphs(node: Node) -> list[Graph]:
    """Graphs held by a node: control-flow bodies in its arguments or listed in its meta."""
    found = [v for v in (*node.args, *node.kwargs.values()) if isinstance(v, Graph)]
    return found + [g for g in node.meta.get("subgraphs", ()) if isinstance(g, Graph) and g not in found]


def draw_graph(graph: Graph, gid: str) -> str:
    """The whole `<svg>` of one graph; `gid` is unique on the page."""
    d = _draw(graph, gid, 0)
    return (f'<svg class="dag" data-graph="{gid}" data-nodes="{len(graph.nodes)}" data-ops="{graph.count()}" '
            f'width="{d.w:.0f}" height="{d.h:.0f}" viewBox="0 0 {d.w:.0f} {d.h:.0f}" '
            f'xmlns="http://www.w3.org/2000/svg" role="img" aria-label="graph {escape(graph.name)}">'
            f'{d.body}</svg>')


def _boxes(graph: Graph, gid: str, depth: int) -> list[_Box]:
    boxes: dict[Node, _Box] = {}
    for n in graph.nodes:
        kind = "input" if n.op == INPUT else "const" if n.op == CONST else "op"
        label = n.name if n.op == INPUT else f"{n.name} {n.op}" if n.op != CONST else f"{n.name} const"
        b = _Box(n, label, format_spec(n.spec), kind)
        b.args = [boxes[a] for a in dict.fromkeys(n.inputs()) if a in boxes]
        b.layer = 1 + max((a.layer for a in b.args), default=-1)
        b.inner = [(g, _draw(g, f"{gid}-{n.index}-{k}", depth + 1)) for k, g in enumerate(subgraphs(n))]
        text_w = max(len(b.label), len(b.spec)) * CHAR_W + 2 * PAD
        inner_w = sum(dd.w for _, dd in b.inner) + H_GAP * max(0, len(b.inner) - 1) + 2 * PAD
        b.w = min(MAX_W, max(MIN_W, text_w)) if not b.inner else max(text_w, inner_w)
        if b.inner:
            b.h = NODE_H + max(dd.h for _, dd in b.inner) + PAD
        boxes[n] = b
    out_nodes = list(dict.fromkeys(iter_nodes(graph.outputs)))
    consts = [o for o in graph.outputs if not any(True for _ in iter_nodes(o))]
    ret = _Box(None, "return", f"{len(graph.outputs)} value(s)" + (" incl. constants" if consts else ""), "ret")
    ret.args = [boxes[o] for o in out_nodes if o in boxes]
    ret.layer = 1 + max((b.layer for b in boxes.values()), default=-1)
    ret.w = max(MIN_W, len(ret.spec) * CHAR_W + 2 * PAD)
    return [*boxes.values(), ret]


def _place(boxes: list[_Box]) -> tuple[float, float]:
    layers: dict[int, list[_Box]] = {}
    for b in boxes:
        layers.setdefault(b.layer, []).append(b)
    y, width = PAD, 0.0
    center: dict[int, float] = {}
    for k in sorted(layers):
        row = layers[k]
        # Barycenter ordering: children sit under the mean x of their arguments (index order breaks ties).
        row.sort(key=lambda b: sum(center[id(a)] for a in b.args) / len(b.args) if b.args else -1.0)
        x = PAD
        for b in row:
            b.x, b.y = x, y
            center[id(b)] = x + b.w / 2
            x += b.w + H_GAP
        width = max(width, x - H_GAP + PAD)
        y += max(b.h for b in row) + V_GAP
    # Center each layer under the widest one.
    for row in layers.values():
        span = row[-1].x + row[-1].w - row[0].x
        shift = (width - span) / 2 - row[0].x
        for b in row:
            b.x += shift
    return width, y - V_GAP + PAD


def _draw(graph: Graph, gid: str, depth: int) -> _Drawing:
    boxes = _boxes(graph, gid, depth)
    w, h = _place(boxes)
    parts = []
    for b in boxes:
        for a in b.args:
            x1, y1, x2, y2 = a.x + a.w / 2, a.y + a.h, b.x + b.w / 2, b.y
            bend = max(12.0, (y2 - y1) / 2)
            parts.append(f'<path class="edge" d="M{x1:.1f},{y1:.1f} C{x1:.1f},{y1 + bend:.1f} '
                         f'{x2:.1f},{y2 - bend:.1f} {x2:.1f},{y2:.1f}"/>')
    for b in boxes:
        parts.append(_box_svg(b, gid))
    return _Drawing(w, h, "".join(parts))


def _box_svg(b: _Box, gid: str) -> str:
    cls = "ret" if b.node is None else f"node {b.kind}"
    title = escape(str(b.node) if b.node is not None else "return (" + ", ".join(
        a.node.name for a in b.args if a.node is not None) + ")")
    index = "" if b.node is None else f' data-index="{b.node.index}"'
    out = [f'<g class="{cls}"{index} transform="translate({b.x:.1f},{b.y:.1f})">',
           f"<title>{title}</title>",
           f'<rect width="{b.w:.1f}" height="{b.h:.1f}" rx="6"/>',
           f'<text x="{PAD}" y="15" class="lbl">{escape(_clip(b.label, b.w))}</text>',
           f'<text x="{PAD}" y="29" class="spec">{escape(_clip(b.spec, b.w))}</text>']
    x = PAD
    for g, d in b.inner:
        out.append(f'<g class="sub" transform="translate({x:.1f},{NODE_H})"><rect class="subframe" '
                   f'width="{d.w:.1f}" height="{d.h:.1f}" rx="4"/>{d.body}</g>')
        x += d.w + H_GAP
    out.append("</g>")
    return "".join(out)


def _clip(text: str, width: float) -> str:
    room = int((width - 2 * PAD) / CHAR_W)
    return text if len(text) <= room else text[: max(1, room - 1)] + "…"

