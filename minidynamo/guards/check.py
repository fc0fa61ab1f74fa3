"""compile_check: a GuardSet as a standalone generated function `___check(*argnames) -> bool`.

Imports guards.guard_set and errors. The dispatcher (dispatch/cache.py) inlines guard expressions itself; this is for
front ends and tests that want one callable per guard set, with its source registered in linecache.
"""

from __future__ import annotations

import ast
import builtins
import itertools
import linecache
from typing import Any, Callable

from ..errors import InternalError
from .guard_set import GuardSet

_check_ids = itertools.count()


def compile_check(guard_set: GuardSet, argnames: list[str], extra_namespace: dict[str, Any] | None = None
                  ) -> Callable[..., bool]:
    """Generate `def ___check(<argnames>): return <guard expression>`; raising counts as False.

    The source is registered with linecache (tracebacks and `inspect` show it) and kept in
    `___check.__source__`. `extra_namespace` binds `___G`, `___closure` and the like.
    """
    extra = dict(extra_namespace or {})
    for a in argnames:
        if not a.isidentifier() or a.startswith("___"):
            raise InternalError(f"bad argument name for a guard function: {a!r}")
    namespace = guard_set.namespace()
    for k in namespace.keys() & extra.keys():
        if namespace[k] is not extra[k]:
            raise InternalError(f"extra_namespace redefines guard name {k}")
    expr = guard_set.expression()
    _check_names(expr, set(argnames) | namespace.keys() | extra.keys())
    n = next(_check_ids)
    filename = f"<minidynamo guard {n}>"
    # try/except costs nothing when nothing raises (zero-cost exceptions since 3.11). Catching
    # Exception is deliberate: a guard that cannot even be evaluated (an attribute gone, a user
    # __eq__ raising) means "this entry does not apply", never an error of the user's call.
    source = (f"def ___check({', '.join(argnames)}):\n"
              f"    try:\n"
              f"        return True if ({expr}) else False\n"
              f"    except Exception:\n"
              f"        return False\n")
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    scope = {**namespace, **extra, "__builtins__": builtins}
    exec(compile(source, filename, "exec"), scope)
    check = scope["___check"]
    check.__source__ = check.source = source
    return check


def _check_names(expr: str, known: set[str]) -> None:
    """A guard naming a variable the check does not have is a capture bug: fail now, not at call time."""
    tree = ast.parse(expr, mode="eval")
    known = known | {n.target.id for n in ast.walk(tree) if isinstance(n, ast.NamedExpr)}   # walrus locals
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in known and not hasattr(builtins, node.id):
            raise InternalError(f"guard expression refers to unknown name {node.id!r}")

