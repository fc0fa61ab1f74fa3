"""Graph -> Python source of one function (straight-line, plus a real `if`/`while`/`for` per cond / while_loop /
fori_loop node), exec'd under a linecache-registered filename.

Imports graph.ir only. `generate(graph)` returns the source and the globals it needs; `compile_graph(graph)`
execs it and returns the function. The function calls the very callables the nodes hold, in node order,
so its results are bit-identical to `interp.run` and its exceptions are the same; tracebacks and
`inspect.getsource` show the generated text::

    def block_0(x, w):
        t0 = x @ w
        t1 = np.tanh(t0)
        t2 = np.sum(t1)
        return (t1, t2)
"""

from __future__ import annotations

import itertools
import keyword
import linecache
import operator
import re
import weakref
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from . import control, inlining
from . import shortcuts as sc_mod
from .errstate import errstate_of, group_by_errstate
from .ir import CONST, INPUT, ArraySpec, Graph, MethodCall, Node, PyScalarSpec, iter_nodes

BINARY_INFIX: dict[Callable, str] = {
    operator.add: "+", operator.sub: "-", operator.mul: "*", operator.truediv: "/",
    operator.floordiv: "//", operator.mod: "%", operator.pow: "**", operator.matmul: "@",
    operator.and_: "&", operator.or_: "|", operator.xor: "^", operator.lshift: "<<", operator.rshift: ">>",
    operator.lt: "<", operator.le: "<=", operator.eq: "==", operator.ne: "!=", operator.gt: ">",
    operator.ge: ">=",
}
UNARY_PREFIX: dict[Callable, str] = {operator.neg: "-", operator.pos: "+", operator.invert: "~"}
# Namespaces searched, in order, for a readable `np.<name>` spelling of a target.
NUMPY_NAMESPACES = (("np", np), ("np.linalg", np.linalg), ("np.fft", np.fft), ("np.random", np.random))
_LITERAL_TYPES = (bool, int, str, bytes, type(None))
_counter = itertools.count()


@dataclass
class PythonCode:
    """Generated source plus the globals it reads; `str()` gives the source."""

    fn_name: str
    source: str
    globals: dict[str, Any]
    nodes: dict[str, Node] = field(default_factory=dict)     # local name -> the call node it holds
    inlined: dict[str, Node] = field(default_factory=dict)   # expression written inside its reader -> node

    def __str__(self) -> str:
        return self.source


class _Namer:
    """Hands out identifiers that are not keywords and do not collide with each other."""

    def __init__(self, taken: set[str] | None = None) -> None:
        self.taken = set(taken or ())

    def fresh(self, preferred: str) -> str:
        # (an ASCII identifier is its own base: the character loop was a tenth of a large graph's codegen)
        base = preferred if preferred.isascii() and preferred.isidentifier() else \
            "".join(c if c.isalnum() or c == "_" else "_" for c in preferred) or "v"
        if base[0].isdigit():
            base = "_" + base
        name, i = base, 1
        while name in self.taken or keyword.iskeyword(name) or name == "__builtins__":
            name, i = f"{base}_{i}", i + 1
        self.taken.add(name)
        return name


class _Emitter:
    """Renders one graph; locals are named first, so globals can avoid every local name."""

    def __init__(self, graph: Graph, shortcuts: dict[int, list[sc_mod.Shortcut]] | None = None) -> None:
        self.graph = graph
        self.shortcuts = shortcuts
        self.locals = _Namer()
        self.names: dict[Node, str] = {}
        self.carried: dict[Node, list[str]] = {}
        self.inline: dict[int, str] = {}     # id of a node written inside its reader -> its expression
        self.inlined: dict[str, Node] = {}   # ... and that expression -> the node (codegen.node_at)
        self.atoms: set[int] = set()         # ... whose expression is a call or subscript (no parentheses)
        for node in graph.nodes:
            if node.op == INPUT:
                self.names[node] = self.locals.fresh(node.name)
        self._name_calls(graph)
        # the local holding a shortcut's results, named before any global (globals avoid every local)
        self.shortcut_names = {id(s): self.locals.fresh("___s") for group in (shortcuts or {}).values() for s in group}
        self.globals_namer = _Namer(self.locals.taken)
        self.globals: dict[str, Any] = {}
        self._by_id: dict[int, str] = {}

    def _name_calls(self, graph: Graph) -> None:
        """Local names for every call node, also those inside cond / while_loop subgraphs (one namespace:
        the arms are blocks of the same function)."""
        for node in graph.nodes:
            if node.is_call:
                self.names[node] = self.locals.fresh("t" + node.name.lstrip("%"))
                if node.op == control.WHILE_LOOP:    # the loop's carried variables, reassigned each iteration
                    self.carried[node] = [self.locals.fresh(f"{self.names[node]}_c{i}")
                                          for i in range(len(node.args))]
                elif node.op == control.FORI_LOOP:   # the index, then the carried variables
                    self.carried[node] = [self.locals.fresh(f"{self.names[node]}_i")] + \
                        [self.locals.fresh(f"{self.names[node]}_c{i}") for i in range(node.target.n_carried)]
                for _, sub in control.subgraphs(node):
                    self._name_calls(sub)

    # ---- names of outside objects ------------------------------------------------------------------
    def bind(self, value: Any, preferred: str) -> str:
        """A global name for `value` (the same object always gets the same name)."""
        name = self._by_id.get(id(value))
        if name is None:
            name = self.globals_namer.fresh(preferred)
            self._by_id[id(value)] = name
            self.globals[name] = value
        return name

    def callable_name(self, node: Node) -> str:
        target = node.target
        for candidate in (getattr(target, "__name__", None), node.op):
            if not isinstance(candidate, str) or not candidate.isidentifier():
                continue
            for path, module in NUMPY_NAMESPACES:
                if getattr(module, candidate, None) is target:
                    return f"{self.bind(np, 'np')}{path[2:]}.{candidate}"
        return self.bind(target, node.op)

    # ---- expressions ---------------------------------------------------------------------------------
    def expr(self, value: Any) -> str:
        """Python text that evaluates to `value` (with nodes replaced by their names)."""
        if isinstance(value, Node):
            if id(value) in self.inline:
                return self.inline[id(value)]
            return self.names[value] if value.op != CONST else self.bind(value.value, "c" + value.name[1:])
        if type(value) in _LITERAL_TYPES:
            return repr(value)
        if type(value) is float and value == value and value not in (float("inf"), float("-inf")):
            return repr(value)
        if value is Ellipsis:
            return "..."
        if type(value) is tuple:
            inner = ", ".join(self.expr(v) for v in value)
            return f"({inner},)" if len(value) == 1 else f"({inner})"
        if type(value) is list:
            return "[" + ", ".join(self.expr(v) for v in value) + "]"
        if type(value) is slice:
            parts = ", ".join(self.expr(p) for p in (value.start, value.stop, value.step))
            return f"{self.bind(slice, 'slice')}({parts})"
        if type(value) is dict and all(type(k) in _LITERAL_TYPES for k in value):
            return "{" + ", ".join(f"{k!r}: {self.expr(v)}" for k, v in value.items()) + "}"
        return self.bind(value, _readable_name(value))

    def operand(self, value: Any) -> str:
        """An expression safe on either side of an operator: anything but a name gets parentheses."""
        text = self.expr(value)
        if isinstance(value, Node):
            return f"({text})" if id(value) in self.inline and id(value) not in self.atoms else text
        plain_number = type(value) in (int, float) and text[:1].isdigit()     # `1.0 - x`, never `-1.0 ** x`
        return text if plain_number or text.isidentifier() or (type(value) is tuple and value) else f"({text})"

    def subject(self, value: Any) -> str:
        """The text before `[` or `.`: a name; a literal there is bound as a global instead, since the
        compiler warns about subscripting one (`(2)[0]`, SyntaxWarning since 3.8)."""
        if isinstance(value, Node):
            return self.operand(value)
        text = self.expr(value)
        return text if text.isidentifier() else self.bind(value, "const")

    def index(self, value: Any) -> str:
        """The text between `[` and `]`: slices as a:b:c, tuples without their parentheses."""
        if type(value) is slice:
            parts = ["" if p is None else self.expr(p) for p in (value.start, value.stop, value.step)]
            return ":".join(parts[:2]) if value.step is None else ":".join(parts)
        if type(value) is tuple and len(value) > 1:
            return ", ".join(self.index_item(v) for v in value)
        if type(value) is tuple and len(value) == 1:
            return self.index_item(value[0]) + ","
        return self.expr(value)

    def index_item(self, value: Any) -> str:
        """One entry of a subscript tuple: slices inline, a nested tuple keeps its parentheses."""
        return self.index(value) if type(value) is slice else self.expr(value)

    def call_text(self, node: Node) -> str:
        args = [self.expr(a) for a in node.args]
        if isinstance(node.target, MethodCall) and node.args and _is_plain_name(node.target.name):
            # x.sum(axis=1): the method eager code calls, looked up on the value at run time.
            callee = f"{self.subject(node.args[0])}.{node.target.name}"
            return f"{callee}({', '.join(args[1:] + self.kwargs_text(node))})"
        return f"{self.callable_name(node)}({', '.join(args + self.kwargs_text(node))})"

    def kwargs_text(self, node: Node) -> list[str]:
        args = []
        for k, v in node.kwargs.items():
            if isinstance(k, str) and k.isidentifier() and not keyword.iskeyword(k):
                args.append(f"{k}={self.expr(v)}")
            else:
                args.append(f"**{{{k!r}: {self.expr(v)}}}")
        return args

    # ---- statements ----------------------------------------------------------------------------------
    def statements(self, node: Node, used: bool) -> list[str]:
        """The lines computing `node`."""
        if inlining.is_setitem_statement(node):
            # setitem returns None; the name is bound only when something reads it.
            args = node.args
            target = f"{self.subject(args[0])}[{self.index(args[1])}]"
            update = self.augmented(node)
            lines = [f"{target} {update[0]}= {self.expr(update[1])}" if update else f"{target} = {self.expr(args[2])}"]
            return lines + ([f"{self.names[node]} = None"] if used else [])
        return [f"{self.names[node]} = {self.value_text(node)}"]

    @staticmethod
    def is_operator(node: Node) -> bool:
        return is_operator(node)

    def augmented(self, node: Node) -> tuple[str, Any] | None:
        """(operator, right operand) when the subscript assignment `node` writes `a[k] = a[k] <op> rhs`,
        both written inline, over a NumPy or Python scalar (none has an in-place method, so `a[k] <op>= rhs`
        calls the very same getitem, operator and setitem in the same order): printed as eager's `A[i, j]
        += x`, which builds the key once. A loop of scalar updates (seidel_2d) ran 8% slower for the second
        key."""
        value = node.args[2]
        if not isinstance(value, Node) or id(value) not in self.inline or value.kwargs or len(value.args) != 2 or \
                not is_hashable(value.target) or value.target not in AUGMENTED:
            return None
        read = value.args[0]
        if not isinstance(read, Node) or id(read) not in self.inline or not inlining.is_subscript(read) or \
                read.args[0] is not node.args[0] or not _is_scalar(read.spec) or \
                self.index(read.args[1]) != self.index(node.args[1]):
            return None
        return AUGMENTED[value.target], value.args[1]

    def value_text(self, node: Node) -> str:
        """The expression computing `node`; operator targets with exactly their arity print infix."""
        target, args = node.target, node.args
        if not node.kwargs and is_hashable(target):
            if target in BINARY_INFIX and len(args) == 2:
                return f"{self.operand(args[0])} {BINARY_INFIX[target]} {self.operand(args[1])}"
            if target in UNARY_PREFIX and len(args) == 1:
                return f"{UNARY_PREFIX[target]}{self.operand(args[0])}"
            if target is operator.getitem and len(args) == 2:
                return f"{self.subject(args[0])}[{self.index(args[1])}]"
        # In-place operators stay calls (`t5 = iadd(t0, t1)`): `t0 += t1` would rebind the SSA name t0
        # whenever t0 is immutable (a NumPy scalar), and later readers of t0 must see the old value.
        return self.call_text(node)

    def block(self, graph: Graph) -> list[str]:
        """The statements computing `graph`'s nodes (its inputs already named), without the return."""
        used = {id(a) for n in graph.nodes for a in n.inputs()} | {id(o) for o in iter_nodes(graph.outputs)}
        # Free each intermediate right after its last reader, as eager Python does when a temporary's
        # refcount drops: a graph that kept all of them alive until `return` would run far slower than eager
        # (no memory reuse, cold caches; a 600-op GRU ran 4x slower). Outputs and inputs are never deleted.
        last_use: dict[int, Node] = {}
        for n in graph.nodes:
            for a in n.inputs():
                last_use[id(a)] = n
        keep = {id(o) for o in iter_nodes(graph.outputs)}
        shortcuts = sc_mod.by_graph(self.shortcuts, graph)
        # A temporary read once, right where the next expression needs it, is written inside that expression,
        # so NumPy can reuse its buffer as eager's does (graph/inlining.py); it has no name to delete.
        inline = inlining.plan(graph.nodes, graph.outputs, sc_mod.cut_points(graph, shortcuts))
        dying: dict[int, list[str]] = {}
        for n in graph.nodes:
            reader = last_use.get(id(n))
            if n.is_call and reader is not None and id(n) not in keep and id(n) not in inline:
                while id(reader) in inline:      # read inside an expression: deleted after its statement
                    reader = inline[id(reader)]
                dying.setdefault(id(reader), []).append(self.names[n])
        chunks: list[tuple[tuple, list[str]]] = []     # (errstate stack, lines) per node
        inside: dict[int, sc_mod.Shortcut] = {id(n): s for s in shortcuts for n in s.nodes}
        held: list[tuple[tuple, list[str]]] = []      # the chunks of the shortcut being written
        for node in graph.nodes:
            shortcut = inside.get(id(node))
            self.node_chunk(node, inline, used, dying, chunks if shortcut is None else held)
            if shortcut is not None and node is shortcut.nodes[-1]:
                chunks.append((errstate_of(node), self.shortcut_lines(shortcut, held, dying)))
                held = []
        return group_by_errstate(chunks, lambda: f"{self.bind(np, 'np')}.errstate")

    def node_chunk(self, node: Node, inline: dict[int, Node], used: set[int], dying: dict[int, list[str]],
                   chunks: list[tuple[tuple, list[str]]]) -> None:
        """Append the lines computing `node` (none when it is written inside its reader)."""
        if node.is_call and id(node) in inline:
            self.inline[id(node)] = self.value_text(node)
            self.inlined.setdefault(self.inline[id(node)], node)
            if not self.is_operator(node):
                self.atoms.add(id(node))     # a call or a subscript binds tighter than any operator
        elif node.is_call:
            if control.is_control(node):
                lines = self.control_statements(node)
            else:
                lines = self.statements(node, id(node) in used)
            if id(node) in dying:
                lines.append("del " + ", ".join(sorted(set(dying[id(node)]))))
            chunks.append((errstate_of(node), lines))

    def shortcut_lines(self, shortcut: sc_mod.Shortcut, chunks: list[tuple[tuple, list[str]]],
                       dying: dict[int, list[str]]) -> list[str]:
        """`shortcut.fn` computes the outputs, or the nodes' own lines (`chunks`, one errstate) run."""
        own = {self.names[n] for n in shortcut.nodes}
        dropped = sorted({name for n in shortcut.nodes for name in dying.get(id(n), ()) if name not in own})
        call = f"{self.bind(shortcut.fn, '___fast_region')}({', '.join(self.expr(i) for i in shortcut.inputs)})"
        plain = [line for _, lines in chunks for line in lines]
        result = self.shortcut_names[id(shortcut)]
        return sc_mod.statements(call, result, [self.names[o] for o in shortcut.outputs], plain, dropped)

    def tuple_text(self, values: list) -> str:
        texts = [self.expr(v) for v in values]
        return "(" + ", ".join(texts) + ("," if len(texts) == 1 else "") + ")"

    def control_statements(self, node: Node) -> list[str]:
        """A real `if`/`else` or `while`, so only the taken arm runs, exactly as in eager Python."""
        name, target = self.names[node], node.target
        if node.op == control.COND:
            lines = [f"if {self.expr(node.args[0])}:"]
            for label, sub in target.subgraphs:
                for inp, operand in zip(sub.inputs, node.args[1:]):
                    self.names[inp] = self.expr(operand)
                arm = self.block(sub) + [f"{name} = {self.tuple_text(sub.outputs)}"]
                lines += (["else:"] if label == "false" else []) + [f"    {line}" for line in arm]
            return lines
        if node.op == control.FORI_LOOP:
            return self.fori_statements(node)
        carried = self.carried[node]
        for sub in (target.cond_graph, target.body_graph):
            for inp, var in zip(sub.inputs, carried):
                self.names[inp] = var
        assign = (lambda values: [f"{', '.join(carried)}, = {self.tuple_text(values)}"] if carried else [])
        test = self.expr(target.cond_graph.outputs[0])
        loop = self.block(target.cond_graph) + [f"if not {test}:", "    break"]
        loop += self.block(target.body_graph) + assign(target.body_graph.outputs)
        return assign(list(node.args)) + ["while True:"] + [f"    {line}" for line in loop] + \
            [f"{name} = ({''.join(c + ', ' for c in carried)})"]

    def fori_statements(self, node: Node) -> list[str]:
        """A real `for index in range(start, stop, step):` over the body's code: no call per iteration."""
        name, target = self.names[node], node.target
        index, carried = self.carried[node][0], self.carried[node][1:]
        n = target.n_carried
        body = target.body_graph
        for inp, text in zip(body.inputs, [index, *carried, *(self.expr(v) for v in node.args[3 + n:])]):
            self.names[inp] = text
        assign = (lambda values: [f"{', '.join(carried)}, = {self.tuple_text(values)}"] if carried else [])
        loop = self.block(body) + assign(body.outputs[:n])
        if target.breaks:
            loop += [f"if {self.expr(body.outputs[n])}:", "    break"]
        bounds = ", ".join(self.expr(v) for v in node.args[:3])
        head = f"for {index} in {self.bind(range, 'range')}({bounds}):"
        return assign(list(node.args[3:3 + n])) + [head] + [f"    {line}" for line in loop or ["pass"]] + \
            [f"{name} = ({''.join(c + ', ' for c in carried)})"]

    def render(self) -> tuple[str, str]:
        graph = self.graph
        fn_name = self.globals_namer.fresh(graph.name)
        params = ", ".join(self.names[n] for n in graph.nodes if n.op == INPUT)
        body = self.block(graph)
        body.append("return " + self.tuple_text(graph.outputs))
        return fn_name, f"def {fn_name}({params}):\n" + "".join(f"    {line}\n" for line in body)


# Operators a subscript assignment of a scalar prints augmented (`a[k] += x`), the plain and in-place ones.
AUGMENTED: dict[Callable, str] = {f: op for f, op in BINARY_INFIX.items() if op not in ("<", "<=", "==", "!=", ">", ">=")}
AUGMENTED.update({getattr(operator, "i" + f.__name__.strip("_")): op for f, op in list(AUGMENTED.items())})


def _is_scalar(spec: Any) -> bool:
    return isinstance(spec, PyScalarSpec) or (isinstance(spec, ArraySpec) and spec.scalar)


def is_operator(node: Node) -> bool:
    """Printed as a Python operator (`a * b`, `-a`), which is where NumPy may reuse a temporary operand."""
    target, n = node.target, len(node.args)
    return not node.kwargs and is_hashable(target) and \
        (target in BINARY_INFIX and n == 2 or target in UNARY_PREFIX and n == 1)


def _is_plain_name(name: str) -> bool:
    return name.isidentifier() and not keyword.iskeyword(name)


def is_hashable(value: Any) -> bool:
    """`value` can be a dict key (an op table lookup); unhashable targets are looked up no further."""
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _readable_name(value: Any) -> str:
    """A name hinting at what a bound constant is: float32 for a dtype, the function's own name."""
    if isinstance(value, np.dtype):
        return str(value) if str(value).isidentifier() else "dtype"
    name = getattr(value, "__name__", None)
    if isinstance(name, str) and name.isidentifier():
        return name
    if type(value) is float:        # a finite Python float is a literal; a NumPy float64 is a "const"
        return "nan" if value != value else ("inf" if value > 0 else "neg_inf")
    if isinstance(value, np.ndarray):
        return "array"
    return "const"


def generate(graph: Graph, shortcuts: dict[int, list[sc_mod.Shortcut]] | None = None) -> PythonCode:
    """Source text of a function computing `graph`, and the globals that source reads; `shortcuts` maps
    id(graph or subgraph) to the runs of its nodes a backend may compute another way (graph/shortcuts.py)."""
    for gid, group in (shortcuts or {}).items():
        if gid == id(graph):
            sc_mod.check(graph, group)
    emitter = _Emitter(graph, shortcuts)
    fn_name, source = emitter.render()
    return PythonCode(fn_name, source, emitter.globals, {name: node for node, name in emitter.names.items()
                                                         if node.is_call}, emitter.inlined)


def compile_graph(graph: Graph, shortcuts: dict[int, list[sc_mod.Shortcut]] | None = None) -> Callable[..., tuple]:
    """Exec the generated source and return the function; it takes the inputs positionally and returns
    a tuple of outputs. `fn.__minidynamo_source__` holds the source and `fn.__minidynamo_filename__` the
    name under which linecache knows it (dropped again when the function is garbage collected)."""
    code = generate(graph, shortcuts)
    filename = f"<minidynamo-graph {code.fn_name} #{next(_counter)}>"
    lines = code.source.splitlines(keepends=True)
    linecache.cache[filename] = (len(code.source), None, lines, filename)
    namespace = dict(code.globals)
    exec(compile(code.source, filename, "exec"), namespace)
    fn = namespace[code.fn_name]
    fn.__minidynamo_source__ = code.source
    fn.__minidynamo_filename__ = filename
    fn.__minidynamo_graph__ = graph
    _NODES[filename] = (code.nodes, code.inlined)
    weakref.finalize(fn, linecache.cache.pop, filename, None)
    weakref.finalize(fn, _NODES.pop, filename, None)
    return fn


_NODES: dict[str, tuple[dict[str, Node], dict[str, Node]]] = {}   # live generated code's file -> its nodes
_ASSIGNED = re.compile(r"\s*(\w+) = ")


def node_at(filename: str, lineno: int, columns: tuple[int | None, int | None] = (None, None)) -> Node | None:
    """The node that raised at line `lineno` (and `columns`, the failing expression's span) of generated
    graph code `filename` (a traceback entry's place): an operand written inside the line's expression when
    the span is exactly its text, else the node the line assigns; None for another file or a line that
    assigns no node (a write through a subscript, a loop)."""
    found = _NODES.get(filename)
    line = linecache.getline(filename, lineno) if found is not None else ""
    m = _ASSIGNED.match(line)
    if not m:
        return None
    start, end = columns
    span = line[start:end].strip() if start is not None and end is not None else ""
    while span not in found[1] and span.startswith("(") and span.endswith(")"):
        span = span[1:-1]        # (an operand may be written in parentheses)
    return found[1].get(span) or found[0].get(m[1])
