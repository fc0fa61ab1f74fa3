"""Relation guards of one check that the others imply, so the dispatcher need not evaluate them.

A symbolic size gets a lower-bound guard when it is created (`x.shape[1] >= 2`: sizes 0 and 1 stay static),
and an equality guard when capture decides two sizes are equal (`x.shape[1] == w.shape[0]`, a matmul). All
guards of a check must hold together, and equality of ints is transitive, so within a class of sizes
joined by equality guards the largest lower bound implies every other one: the others are skipped. Nothing
else is: an equality, a bound with no equal partner, or any other relation is always checked.
`guards.failures.failures` still evaluates every guard, so a failing check explains itself in full.
Also here: identity relations (two values are, or are not, one object), read back from their guards for the
words reports and failure reasons use. Imports only the stdlib.
"""

from __future__ import annotations

import ast


def implied_bounds(relations: list[str]) -> set[str]:
    """The lower-bound relations among `relations` (`A >= k`, A a read such as `x.shape[1]`, k an int) that
    the others imply: every bound of a class of equal sizes except its largest (the first of equal ones)."""
    parent: dict[str, str] = {}

    def root(a: str) -> str:
        while parent.get(a, a) != a:
            a = parent[a]
        return a

    bounds: list[tuple[str, str, int]] = []
    for text in relations:
        try:
            node = ast.parse(text.strip(), mode="eval").body
        except SyntaxError:
            continue
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and _is_read(node.left)):
            continue
        op, right = node.ops[0], node.comparators[0]
        if isinstance(op, ast.Eq) and _is_read(right):
            a, b = root(ast.unparse(node.left)), root(ast.unparse(right))
            if a != b:
                parent[a] = b
        elif isinstance(op, ast.GtE) and isinstance(right, ast.Constant) and type(right.value) is int:
            bounds.append((text, ast.unparse(node.left), right.value))
    strongest: dict[str, tuple[str, int]] = {}
    for text, read, k in bounds:
        best = strongest.get(root(read))
        if best is None or k > best[1]:
            strongest[root(read)] = (text, k)
    kept = {text for text, _ in strongest.values()}
    return {text for text, _, _ in bounds if text not in kept}


def _is_read(node: ast.AST) -> bool:
    """A plain read: a name, or attributes and constant subscripts of one (`x.shape[1]`, `self.W.shape[0]`)."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        if isinstance(node, ast.Subscript) and not isinstance(node.slice, ast.Constant):
            return False
        node = node.value
    return isinstance(node, ast.Name)


def identity_relation(kind: str, expr: str, expected: object) -> tuple[str, str, bool] | None:
    """(a, b, same) for a guard that two values are (same=True) or are not one object, `(a is b) == same`
    (an EQUALS guard: capture.reads.same_object), else None."""
    if kind != "EQUALS" or type(expected) is not bool or " is " not in expr:
        return None
    try:
        tree = ast.parse(expr, mode="eval").body
    except SyntaxError:
        return None
    if not (isinstance(tree, ast.Compare) and len(tree.ops) == 1 and isinstance(tree.ops[0], ast.Is)):
        return None
    return ast.unparse(tree.left), ast.unparse(tree.comparators[0]), expected


def identity_failure(a: str, b: str, same: bool) -> str:
    """Why an identity relation no longer holds, as what changed (not as `(a is b) == False`)."""
    return f"{a} and {b} are two distinct objects now (captured as one object)" if same else \
        f"{a} and {b} are one object now (captured as two distinct objects)"
