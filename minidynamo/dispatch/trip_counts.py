"""Automatic dynamic for trip counts: which range loops' counts stay open in a piece's next capture.

Imports guards and report. A capture decides a range's whole trip count at its first item
(capture/variables/sym_range.py) and records which relation guards did (CaptureRecord.count_guards); on a
recompile, a loop one of whose count guards fails for the call that missed joins the piece's dynamic set
(CompiledState.dynamic), as a changed int does.
"""

from __future__ import annotations

from ..guards import compiled
from ..report import log


def changed_counts(records: list, scope: dict, known: set[str], name: str) -> set[str]:
    """The keys of range loops a capture among `records` decided the whole count of, by a guard that does not
    hold in `scope` (the arguments of a call that missed): each item decides only that it exists from the
    next capture on, so a bound that changes every call does not capture once per trip count."""
    changed = set()
    for record in records:
        for expr, key in record.count_guards.items():
            if key in known or key in changed:
                continue
            try:
                holds = eval(compiled(expr), scope)     # a relation minidynamo built (compiled once)
            except Exception:
                continue
            if not holds:
                changed.add(key)
                log("recompiles").info("%s: the trip count of a range loop (%s) is not specialized from now "
                                       "on (%s does not hold)", name, key, expr)
    return changed
