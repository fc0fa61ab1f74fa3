"""warnings_log(): the list `warnings.catch_warnings(record=True)` records into, which no guard may pin.

Imports only the stdlib.
"""

from __future__ import annotations

import warnings


def warnings_log() -> list | None:
    """The list `warnings.catch_warnings(record=True)` appends to, or None (always None while the hook is a Python
    function: the check tests that first). A graph op that warns appends to it while the graph runs, so capture
    never reads it as a value that stays put (CPython 3.11-3.13 record via `_showwarnmsg_impl = log.append`)."""
    impl = getattr(warnings, "_showwarnmsg_impl", None)
    log = getattr(impl, "__self__", None)
    return log if type(log) is list and getattr(impl, "__name__", "") == "append" else None
