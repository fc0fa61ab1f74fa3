"""Guards: what a cached graph assumed about its inputs, checked inline by the dispatcher.

One class per guard kind (kinds/: TypeGuard, ShapeGuard, ...) knows how its value is read, checked inline,
worded and how a failure is explained; `Guard(expr, kind, expected, description)` builds the right one.
GuardSet orders and de-duplicates an entry's guards and renders them (render.py) as one expression;
`failures` explains why a check returned False. Imports only errors, numpy and the stdlib.
Entry points: GuardSet, Guard, guard_constant, array_guards, failures, compile_check (check.py).
"""

from . import kinds  # noqa: F401 (registers each kind's class)
from .build import array_guards, chunked_array_guards, guard_constant
from .failures import failures
from .guard import Guard, GuardFailure, value_words
from .guard_set import GuardConflictError, GuardSet
from .kind import (
    DICT_KEYS, DTYPE, EQUALS, HASATTR, HOLDS, ID, IS_NONE, LEN, NOT_HASATTR, NOT_NONE, NOT_WARNINGS_LOG, SHAPE, TYPE,
    GuardKind,
)
from .reads import RELEASE_READS, canonical, compiled
from .render import RESERVED_NAMES
from .source import GuardSource
from .warnings_log import warnings_log
from .words import readable_expr, short_repr, with_article

__all__ = [
    "DICT_KEYS", "DTYPE", "EQUALS", "HASATTR", "HOLDS", "ID", "IS_NONE", "LEN", "NOT_HASATTR", "NOT_NONE",
    "NOT_WARNINGS_LOG", "RELEASE_READS", "RESERVED_NAMES", "SHAPE", "TYPE", "Guard", "GuardConflictError",
    "GuardFailure", "GuardKind", "GuardSet", "GuardSource", "array_guards", "canonical", "chunked_array_guards",
    "compiled", "failures", "guard_constant", "readable_expr", "short_repr", "value_words", "warnings_log",
    "with_article",
]
