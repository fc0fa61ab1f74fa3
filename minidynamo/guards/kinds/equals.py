"""EQUALS: a value equals an immutable constant, compared exactly (NaN equal to NaN, 0.0 unequal to -0.0, a
bool by identity). An EQUALS guard on `(a is b)` is an identity relation, said as what changed.

Imports guards.guard, guards.kind, guards.exact, guards.relations, guards.words.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from ..exact import equals_holds, is_nan
from ..guard import Guard, GuardFailure
from ..kind import GuardKind
from ..relations import identity_failure, identity_relation
from ..words import readable_expr, value_repr


class EqualsGuard(Guard):
    """`x == 3`, `isnan(x)`, or `(a is b) == False` (an identity relation)."""

    KIND, READS_SHAPES, WORDS_ORDER = GuardKind.EQUALS, True, 1    # (symbolic-int conditions read shape locals)

    @functools.cached_property
    def relation(self) -> tuple[str, str, bool] | None:
        """(a, b, same) when this guard says two values are (same) or are not one object, else None."""
        return identity_relation(self.kind, self.expr, self.expected)

    def show(self, e: str) -> str:
        return f"isnan({e})" if is_nan(self.expected) else f"{e} == {self.expected!r}"

    def code(self, text: str, e: str, r: Any) -> str:
        v, names = self.expected, r.names
        if v is None or type(v) is bool:
            return f"{e} is {v!r}"
        if isinstance(v, (float, np.floating)):
            if math.isnan(v):
                return f"{e} != {e}"  # NaN is the only value unequal to itself
            if v == 0:
                # 0.0 == -0.0, yet 1/x and copysign tell them apart: check the sign bit too.
                sign = ">" if math.copysign(1.0, v) > 0 else "<"
                return f"{e} == 0.0 and {names.helper(math.copysign)}(1.0, {e}) {sign} 0"
        return f"{e} == {names.literal(v)}"

    def words(self, name: str, group: dict) -> str | None:
        v = self.expected
        return f"{name} is the {type(v).__name__} {v!r}" if GuardKind.TYPE in group else f"{name} equals {v!r}"

    def explain(self, value: Any, name: str) -> None:
        if self.relation is not None:     # said as what changed, not as `(a is b) == False`
            if value is not self.expected:
                raise GuardFailure(identity_failure(*map(readable_expr, self.relation[:2]), self.expected))
            return
        if not equals_holds(self.expected, value):
            raise GuardFailure(f"{name}: expected {self.expected!r}, got {value_repr(value)}")
