"""Common reads of one rendered guard check (guards.guard_set.GuardSet.expression): a path several guards read is read
once, into a local; and the cached text functions of guard expressions. Imports only the stdlib.
"""

from __future__ import annotations

import ast
import functools
import types

# An entry body line that is just this marks where the dispatcher drops the locals the check bound
# (GuardSet.bound_locals); the lines before the first one read the bound paths from them (reuse_reads).
RELEASE_READS = "___release_reads"


# Capture renders thousands of guard expressions, most of them the same few paths (`self.W`, `p['b']`): the
# pure functions of their text below are cached, since parsing is most of a capture's time otherwise.
_CACHE_SIZE = 1 << 14


@functools.lru_cache(maxsize=_CACHE_SIZE)
def prefixes(canon: str) -> tuple[str, ...]:
    """`p['W1'].shape` -> ("p['W1']", 'p'), nearest first: the values read on the way to expr."""
    node = ast.parse(canon, mode="eval").body
    out = []
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
        out.append(ast.unparse(node))
    return tuple(out)


@functools.lru_cache(maxsize=_CACHE_SIZE)
def compiled(expr: str) -> types.CodeType:
    """A guard expression compiled once (every miss evaluates each guard again to say why it failed)."""
    return compile(expr.strip(), "<guard>", "eval")


@functools.lru_cache(maxsize=_CACHE_SIZE)
def canonical(expr: str) -> str:
    """The expression as ast.unparse writes it (SyntaxError if it is none)."""
    return ast.unparse(ast.parse(expr.strip(), mode="eval"))


def _is_read(node: ast.AST) -> bool:
    """A value the check may read once into a local: an attribute or item read, or a call of one of
    minidynamo's own pure helpers on one value (`___e0_as_index1(idx)`, `___e0_f1(lst)`: names starting
    with `___`, which user code cannot bind)."""
    if isinstance(node, (ast.Attribute, ast.Subscript)):
        return isinstance(node.ctx, ast.Load)
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id.startswith("___")
            and len(node.args) == 1 and not node.keywords)


Span = tuple[int, int, tuple[str, ...]]   # where a plain path sits in a canonical text, and its spine


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _paths(canon: str) -> tuple[Span, ...] | None:
    """The outermost plain paths of canon (a name, then attributes and subscripts by constants:
    `self.layers[0].W`), each with (itself, *prefixes) nearest first; None when canon reads an attribute or
    item any other way (`f(x).a`, `d[k.j]`): then only the tree walk finds what to substitute."""
    if not canon.isascii():             # (offsets are in bytes)
        return None
    spans: list[Span] = []

    def visit(node: ast.AST) -> bool:
        if isinstance(node, (ast.Attribute, ast.Subscript)):
            base = node
            while isinstance(base, (ast.Attribute, ast.Subscript)):
                if isinstance(base, ast.Subscript) and not isinstance(base.slice, ast.Constant):
                    return False
                base = base.value
            if not isinstance(base, ast.Name):      # (a helper's call: the tree walk substitutes it)
                return False
            text = canon[node.col_offset:node.end_col_offset]
            spine = (text, *prefixes(text))
            spans.append((node.col_offset, node.end_col_offset, spine))
            return all(text.startswith(p) for p in spine)
        return not _is_read(node) and all(visit(child) for child in ast.iter_child_nodes(node))

    return tuple(spans) if visit(ast.parse(canon, mode="eval").body) else None


class Reads:
    """Common reads of one rendered check: an attribute or item path that several guards read (`self.W`
    for its type, shape and dtype; `self.d` for `self.d['C']`) is read once, bound to a local by the
    first guard on it when that guard is a gate (`type(___r0 := self.W) is ndarray`), and later guards
    read the local. Only later ones: the check is one `and` chain, so a guard runs only after every
    guard to its left ran (and held), the binding gate included."""

    def __init__(self, tag: str, canons: list[str], later: list[str] = ()) -> None:
        self.tag, self.bound = tag, {}
        self._count: dict[str, int] = {}
        for canon in [*canons, *later]:      # later: paths the entry reads again after the check
            for read in {canon, *prefixes(canon)}:
                self._count[read] = self._count.get(read, 0) + 1

    def rewrite(self, expr: str, gate: bool) -> str:
        if not self.bound and not gate:
            return expr
        canon = canonical(expr)
        spans = _paths(canon)
        if spans is not None:   # each plain path's nearest bound prefix (what _Substitute finds), by text
            parts, end, is_path = [], 0, False
            for start, stop, spine in spans:
                hit = next((p for p in spine if p in self.bound), None)
                if hit is not None:
                    parts += [canon[end:start], self.bound[hit], canon[start + len(hit):stop]]
                    end = stop
                is_path = (start, stop) == (0, len(canon)) and len(spine) > 1 and hit != canon
            text = "".join(parts) + canon[end:]
        else:
            tree = _Substitute(self.bound).visit(ast.parse(canon, mode="eval"))
            text = ast.unparse(tree)
            is_path = _is_read(tree.body)
        if gate and canon not in self.bound and self._count.get(canon, 0) > 1 and is_path:
            local = self.bound[canon] = f"___{self.tag}r{len(self.bound)}"
            return f"{local} := {text}"
        return text

    def reuse(self, code: str) -> str:
        """Statements with every bound path read from its local (code that runs right after the check)."""
        if not self.bound:
            return code
        return ast.unparse(_Substitute(self.bound).visit(ast.parse(code)))


class _Substitute(ast.NodeTransformer):
    def __init__(self, bound: dict[str, str]) -> None:
        self.bound = bound

    def visit(self, node: ast.AST) -> ast.AST:
        # Only reads: a write target (`obj.w = v`) stays a write into the object (its value part is a read).
        read = _is_read(node)
        local = self.bound.get(ast.unparse(node)) if read else None
        return ast.Name(local, ast.Load()) if local else self.generic_visit(node)
