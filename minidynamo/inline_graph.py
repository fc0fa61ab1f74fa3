"""The graph's own statements in the dispatcher, in place of the call to the graph function (NumPy backend).

Imports nothing of the package (the graph function brings its `__minidynamo_inline__`, graph/codegen.py).
On a small function the call costs more than it seems: a frame, packing the outputs into a tuple, and the
code of two functions in play instead of one (on a 3 µs recurrent step, about 0.05x of eager). The lines run
the same NumPy calls in the same order with the same intermediates freed at the same points, inside the same
`try` as the call, so an exception still re-runs the function eagerly. Every name the lines bind starts with
`___g<tag>` (nothing else the package generates does), and all of them are cleared right after the outputs
are taken and when the graph raised: what the graph function's frame held dies where it died before.
"""

from __future__ import annotations

import ast
from typing import Any, Callable, Iterator


def inlined(body: list[str], tag: str, graph_fn: Callable | None) -> tuple[list[str], dict[str, Any]] | None:
    """(body with the graph call of entry `tag` replaced by the graph's statements, the globals those read),
    or None when the graph function cannot be inlined (another backend, a large graph, an unusual call)."""
    make = getattr(graph_fn, "__minidynamo_inline__", None)
    calls = [i for i, line in enumerate(body) if line.lstrip().startswith(f"___o = ___{tag}graph(")]
    if make is None or len(calls) != 1:
        return None
    i = calls[0]
    indent = body[i][:len(body[i]) - len(body[i].lstrip())]
    outer = indent[:-4]
    if i == 0 or body[i - 1] != f"{outer}try:" or i + 1 == len(body):
        return None
    call = ast.parse(body[i].strip()).body[0].value
    if (not isinstance(call, ast.Call) or call.keywords or any(isinstance(a, ast.Starred) for a in call.args)
            or any(isinstance(n, ast.NamedExpr) for a in call.args for n in _walk(a))):
        return None
    prefix = f"___g{tag}"
    names, binds = [], []
    for j, arg in enumerate(call.args):        # evaluated in order, before the first statement, as a call does
        if isinstance(arg, ast.Name):
            names.append(arg.id)
        else:
            names.append(f"{prefix}a{j}")
            binds.append(f"{prefix}a{j} = {ast.unparse(arg)}")
    code = make(prefix, names)
    if code is None:
        return None
    bound = [*code.locals, *(b.split(" = ", 1)[0] for b in binds)]
    clear = [" = ".join(bound) + " = None"] if bound else []
    statements = [*binds, *code.lines, f"___o = {code.result}", *clear]
    out = body[:i] + [indent + line for line in statements] + body[i + 1:]
    after = i + len(statements)
    if out[after] == f"{outer}except Exception:":      # the graph raised: drop what it had computed
        out[after + 1:after + 1] = [indent + line for line in clear]
    return out, code.globals


def _walk(node: ast.AST) -> Iterator[ast.AST]:
    """ast.walk without its import: it imports collections on every call, which a program that replaced
    builtins.__import__ would see (capture runs nothing the program can observe)."""
    yield node
    for child in ast.iter_child_nodes(node):
        yield from _walk(child)
