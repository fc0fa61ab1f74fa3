"""NOT_WARNINGS_LOG: a value is not the list `warnings.catch_warnings(record=True)` records into (a graph op
that warns appends to it while the graph runs). Imports guards.guard, guards.kind, guards.warnings_log.
"""

from __future__ import annotations

import types
import warnings
from typing import Any

from ..guard import Guard, GuardFailure
from ..kind import GuardKind
from ..warnings_log import warnings_log


class NotWarningsLogGuard(Guard):
    """`x is not the list warnings are being recorded into`."""

    KIND = GuardKind.NOT_WARNINGS_LOG

    def show(self, e: str) -> str:
        return f"{e} is not the list warnings are being recorded into"

    def code(self, text: str, e: str, r: Any) -> str:
        names = r.names
        hook = f"{names.helper(type)}({names.bind(warnings, 'warnings')}._showwarnmsg_impl)"   # no log if a function
        slow = f"{e} is not {names.helper(warnings_log)}()"
        return f"({hook} is {names.bind(types.FunctionType, 'function')} or {slow})" if \
            hasattr(warnings, "_showwarnmsg_impl") else slow

    def explain(self, value: Any, name: str) -> None:
        if value is warnings_log():
            raise GuardFailure(f"{name}: is the list warnings are being recorded into")
