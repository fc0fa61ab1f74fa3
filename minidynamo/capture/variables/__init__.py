"""Symbolic values (Vars). The core kinds (base, const, scalar, array, containers, operators) call the kinds
built on them through hooks.HOOKS; the modules filling its slots are imported here, so a Var of any kind
finds them filled.
"""

from . import class_calls, descriptors, dynamic_index, lazy_iterators, sets, stdlib, strings  # noqa: F401
