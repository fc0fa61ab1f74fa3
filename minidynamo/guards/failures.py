"""failures(): why a GuardSet's check fails for given values, one line per guard, each guard explaining its
own failure (Guard.explain raises GuardFailure).

Imports guards.guard, guards.guard_set and guards.reads.
"""

from __future__ import annotations

import builtins
from typing import Any

from .guard import GuardFailure
from .guard_set import GuardSet
from .reads import compiled, prefixes


def failures(guard_set: GuardSet, values: dict[str, Any], limit: int | None = None) -> list[str]:
    """Why the check fails for `values` (argument names plus ___G/___closure), one line per guard, at most
    `limit` lines (later guards are not evaluated). A failed gate (type, identity, None-ness, len, keys,
    hasattr) or an expr that cannot be evaluated hides the rest of that expr and everything read through
    it: no shape complaint about a list that should have been an array. An expr reads sources and the
    entry's namespace (in `values`), never the names rendering binds: nothing is rendered here."""
    scope, blocked, out = {**values, "__builtins__": builtins}, set(), []
    for g in guard_set.ordered():
        if limit is not None and len(out) >= limit:
            break
        canon = guard_set.canonical(g.expr)
        if canon in blocked or any(p in blocked for p in prefixes(canon)):
            continue
        label = name = g.source.reason_name
        try:  # the same rule as the generated check: raising means failing
            value = eval(compiled(g.expr), scope)
            label = g.label(name)
            g.explain(value, name)
        except GuardFailure as failure:
            out.append(str(failure))
            if g.is_gate:
                blocked.add(canon)
        except Exception as e:
            out.append(f"{label}: could not evaluate ({type(e).__name__}: {e})")
            blocked.add(canon)
    return out
