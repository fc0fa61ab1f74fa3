"""Exact comparison of guard expectations: NaN equal to NaN, 0.0 unequal to -0.0, 1 unequal to True.

Imports only numpy and the stdlib. Used to de-duplicate guards (same_expected) and by the EQUALS kind.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


def is_nan(v: Any) -> bool:
    return isinstance(v, (float, np.floating)) and math.isnan(v)


def has_special_float(v: complex) -> bool:
    return any(math.isnan(p) or p == 0 for p in (v.real, v.imag))


def _same_float(a: Any, b: Any) -> bool:
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)


def same_expected(a: Any, b: Any) -> bool:
    """Whether two guard expectations are the same (for de-duplication): same type and value."""
    if a is b:
        return True
    if isinstance(a, np.dtype) and isinstance(b, np.dtype):
        return a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, (float, np.floating)):
        return _same_float(a, b)
    if type(a) is tuple:
        return len(a) == len(b) and all(same_expected(x, y) for x, y in zip(a, b))
    return bool(a == b)


def equals_holds(expected: Any, value: Any) -> bool:
    """What the inline code of an EQUALS guard computes, for failure reasons."""
    if expected is None or type(expected) is bool:
        return value is expected
    if isinstance(expected, (float, np.floating)) and (math.isnan(expected) or expected == 0):
        return bool(value != value) if math.isnan(expected) else \
            bool(value == 0.0) and math.copysign(1.0, value) == math.copysign(1.0, expected)
    return bool(value == expected)
