"""A graph drawn as an SVG DAG: inputs on top, each op one layer below its deepest argument (a constant just
above its first user), the outputs at the bottom. An edge that spans several layers runs through a chain of
invisible waypoints, one per layer and shared by all edges of its source, so long edges run beside the
nodes instead of through them; within a layer nodes and waypoints are ordered by the mean position of
what they connect to above (one barycenter pass). Plain strings, no library.

A control-flow node (cond, while_loop) whose target lists `subgraphs` as (label, Graph) pairs, or whose
arguments or `node.meta["subgraphs"]` hold Graphs, is drawn as a box with those graphs inside, recursively. Every IR node is one
`<g class="node">` (a child of the `<svg>`, or of its control-flow node's `<g class="sub">`); the `return`
box is a `<g class="ret">`, so counting `.node` elements counts the IR.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html import escape
from ..graph.ir import CONST, INPUT, Graph, Node, format_spec, iter_nodes

CHAR_W, LINE_H, PAD, H_GAP, V_GAP, NODE_H = 6.6, 14, 8, 14, 34, 36
MIN_W, MAX_W, WAYPOINT_W = 56, 230, 4


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
    up: list["_Box"] = field(default_factory=list)      # what it hangs from in the layer above (for ordering)
    inner: list[tuple[str, "_Drawing"]] = field(default_factory=list)


@dataclass
class _Drawing:
    w: float
    h: float
    body: str


def subgraphs(node: Node) -> list[tuple[str, Graph]]:
    """(label, graph) pairs a node holds: its target's `subgraphs` (cond: true/false, while_loop:
    cond/body), Graphs among its arguments, or listed in its meta."""
    found = [(str(label), g) for label, g in getattr(node.target, "subgraphs", ()) if isinstance(g, Graph)]
    found += [("", v) for v in (*node.args, *node.kwargs.values()) if isinstance(v, Graph)]
    found += [("", g) for g in node.meta.get("subgraphs", ()) if isinstance(g, Graph)]
    seen: set[int] = set()
    return [(label, g) for label, g in found if not (id(g) in seen or seen.add(id(g)))]


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
        b.inner = [(label, _draw(g, f"{gid}-{n.index}-{k}", depth + 1)) for k, (label, g) in enumerate(subgraphs(n))]
        text_w = (max(len(b.label), len(b.spec)) + 1) * CHAR_W + 2 * PAD
        inner_w = sum(dd.w for _, dd in b.inner) + H_GAP * max(0, len(b.inner) - 1) + 2 * PAD
        b.w = min(MAX_W, max(MIN_W, text_w)) if not b.inner else max(text_w, inner_w)
        if b.inner:
            b.h = NODE_H + LINE_H + max(dd.h for _, dd in b.inner) + PAD
        boxes[n] = b
    for n, b in boxes.items():     # a constant sits just above its first user, not at the top
        if n.op == CONST:
            users = [u.layer for u in boxes.values() if b in u.args]
            b.layer = max(0, min(users, default=1) - 1)
    out_nodes = list(dict.fromkeys(iter_nodes(graph.outputs)))
    consts = [o for o in graph.outputs if not any(True for _ in iter_nodes(o))]
    ret = _Box(None, "return", f"{len(graph.outputs)} value{'' if len(graph.outputs) == 1 else 's'}" + (" incl. constants" if consts else ""), "ret")
    ret.args = [boxes[o] for o in out_nodes if o in boxes]
    ret.layer = 1 + max((b.layer for b in boxes.values()), default=-1)
    ret.w = max(MIN_W, len(ret.spec) * CHAR_W + 2 * PAD)
    return [*boxes.values(), ret]


def _route(boxes: list[_Box]) -> tuple[list[_Box], dict[tuple[int, int], list[_Box]]]:
    """Waypoint chains for edges spanning more than one layer: (all waypoints, (source, user) -> chain).
    One chain per source, as deep as its deepest user; capped so a pathological graph stays small (the
    remaining long edges are drawn straight)."""
    cap = 3 * len(boxes) + 64
    waypoints: list[_Box] = []
    routes: dict[tuple[int, int], list[_Box]] = {}
    users: dict[int, list[_Box]] = {}
    for b in boxes:
        for a in b.args:
            users.setdefault(id(a), []).append(b)
    for a in boxes:
        far = [b for b in users.get(id(a), ()) if b.layer - a.layer > 1]
        deepest = max((b.layer for b in far), default=a.layer)
        if not far or len(waypoints) + deepest - a.layer - 1 > cap:
            continue
        chain, prev = [], a
        for layer in range(a.layer + 1, deepest):
            prev = _Box(None, "", "", "waypoint", w=WAYPOINT_W, layer=layer, up=[prev])
            chain.append(prev)
        waypoints += chain
        for b in far:
            routes[(id(a), id(b))] = chain[: b.layer - a.layer - 1]
    for b in boxes:
        b.up = [routes[(id(a), id(b))][-1] if (id(a), id(b)) in routes else a for a in b.args]
    return waypoints, routes


def _place(boxes: list[_Box]) -> tuple[float, float]:
    layers: dict[int, list[_Box]] = {}
    for b in boxes:
        layers.setdefault(b.layer, []).append(b)
    y, width = PAD, 0.0
    center: dict[int, float] = {}
    for k in sorted(layers):
        row = layers[k]
        # Barycenter ordering: children sit under the mean x of their arguments (index order breaks ties).
        row.sort(key=lambda b: sum(center[id(a)] for a in b.up) / len(b.up) if b.up else -1.0)
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
    waypoints, routes = _route(boxes)
    w, h = _place(boxes + waypoints)
    parts = []
    for b in boxes:
        for a in b.args:
            parts.append(_edge([a, *routes.get((id(a), id(b)), ()), b]))
    for b in boxes:
        parts.append(_box_svg(b, gid))
    return _Drawing(w, h, "".join(parts))


def _edge(path: list[_Box]) -> str:
    """A smooth path from the bottom of the first box through each waypoint to the top of the last."""
    a = path[0]
    x, y = a.x + a.w / 2, a.y + a.h
    d = [f"M{x:.1f},{y:.1f}"]
    for k, b in enumerate(path[1:], 1):
        nx, ny = b.x + b.w / 2, b.y
        bend = max(10.0, (ny - y) / 2)
        d.append(f"C{x:.1f},{y + bend:.1f} {nx:.1f},{ny - bend:.1f} {nx:.1f},{ny:.1f}")
        x, y = nx, ny
        if k < len(path) - 1:          # through the waypoint's whole row
            y = b.y + b.h
            d.append(f"L{x:.1f},{y:.1f}")
    return f'<path class="edge" d="{" ".join(d)}"/>'


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
    for label, d in b.inner:
        out.append(f'<text x="{x + 2:.1f}" y="{NODE_H + 10}" class="sublabel">{escape(label)}</text>'
                   f'<g class="sub" transform="translate({x:.1f},{NODE_H + LINE_H})"><rect class="subframe" '
                   f'width="{d.w:.1f}" height="{d.h:.1f}" rx="4"/>{d.body}</g>')
        x += d.w + H_GAP
    out.append("</g>")
    return "".join(out)


def _clip(text: str, width: float) -> str:
    room = int((width - 2 * PAD) / CHAR_W)
    return text if len(text) <= room else text[: max(1, room - 1)] + "…"

