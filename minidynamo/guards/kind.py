"""GuardKind: what a guard checks, one enum member per kind (each has its class in guards/kinds/).

Imports nothing of the package. The module-level aliases (TYPE, SHAPE, ...) are the names callers use.
"""

from __future__ import annotations

import enum


class GuardKind(enum.StrEnum):
    """What a guard checks; a plain string ("SHAPE") is accepted wherever a kind is."""

    TYPE = "TYPE"  # type(expr) is expected (exact class, no subclasses)
    ID = "ID"  # expr is expected (functions, modules, classes, singletons)
    EQUALS = "EQUALS"  # expr == expected (immutable constants; NaN and -0.0 compared exactly)
    SHAPE = "SHAPE"  # expr.shape == expected; a None entry is a symbolic size (checked by HOLDS guards)
    DTYPE = "DTYPE"  # expr.dtype == expected
    LEN = "LEN"  # len(expr) == expected
    DICT_KEYS = "DICT_KEYS"  # tuple(expr.keys()) == expected, order included
    HASATTR = "HASATTR"  # hasattr(expr, expected)
    NOT_HASATTR = "NOT_HASATTR"  # not hasattr(expr, expected)
    IS_NONE = "IS_NONE"  # expr is None
    NOT_NONE = "NOT_NONE"  # expr is not None
    HOLDS = "HOLDS"  # expr, a relation between sizes (`x.shape[0] == y.shape[0]`), is true
    NOT_WARNINGS_LOG = "NOT_WARNINGS_LOG"  # expr is not the list catch_warnings(record=True) records into


TYPE, ID, EQUALS, SHAPE, DTYPE, LEN = GuardKind.TYPE, GuardKind.ID, GuardKind.EQUALS, GuardKind.SHAPE, \
    GuardKind.DTYPE, GuardKind.LEN
DICT_KEYS, HASATTR, NOT_HASATTR = GuardKind.DICT_KEYS, GuardKind.HASATTR, GuardKind.NOT_HASATTR
IS_NONE, NOT_NONE, HOLDS = GuardKind.IS_NONE, GuardKind.NOT_NONE, GuardKind.HOLDS
NOT_WARNINGS_LOG = GuardKind.NOT_WARNINGS_LOG
