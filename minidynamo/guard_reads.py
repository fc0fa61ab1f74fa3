"""Common reads of one rendered guard check (guards.GuardSet.expression): a path several guards read is read
once, into a local. Imports only the stdlib.
"""

from __future__ import annotations

import ast

# An entry body line that is just this marks where the dispatcher drops the locals the check bound
# (GuardSet.bound_locals); the lines before the first one read the bound paths from them (reuse_reads).
RELEASE_READS = "___release_reads"


def prefixes(canon: str) -> list[str]:
    """`p['W1'].shape` -> ["p['W1']", 'p'], nearest first: the values read on the way to expr."""
    node = ast.parse(canon, mode="eval").body
    out = []
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
        out.append(ast.unparse(node))
    return out


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
        tree = ast.parse(expr.strip(), mode="eval")
        canon = ast.unparse(tree)
        tree = _Substitute(self.bound).visit(tree)
        text = ast.unparse(tree)
        if gate and canon not in self.bound and self._count.get(canon, 0) > 1 and \
                isinstance(tree.body, (ast.Attribute, ast.Subscript)):
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
        read = isinstance(node, (ast.Attribute, ast.Subscript)) and isinstance(node.ctx, ast.Load)
        local = self.bound.get(ast.unparse(node)) if read else None
        return ast.Name(local, ast.Load()) if local else self.generic_visit(node)
