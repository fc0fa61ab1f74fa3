"""GuardSource: where a guard's value comes from, the expression a check reads and its name in words.

Imports guards.words. Capture gives each guard its expr and description (capture.sources' expr() and
describe()); the source answers what reports and failure reasons ask of it: its name, whether it is a value
on a resume function's stack, whether it guards a builtin.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from .words import readable_expr

# A resume function's stack values are its `___stackN` parameters (stitch/resume.py).
_STACK = re.compile(r"\b___stack\d+\b")
# A builtin's two guards (capture/builtin_scope.py): `'n' in G` is False, `B['n']` is the value.
_BUILTIN = re.compile(r"^(?:(['\"])(?P<a>\w+)\1 in ___\w*?G\d*|___\w*?B\d*\[(['\"])(?P<b>\w+)\3\])$")


@dataclass(frozen=True)
class GuardSource:
    """`GuardSource("___G['scale']", "global scale")`: read by the check as the expr, named by the description."""

    expr: str
    description: str = ""

    @property
    def readable(self) -> str:
        """The expr with generated names in words (`___G['scale']` -> `global scale`)."""
        return readable_expr(self.expr)

    @property
    def name(self) -> str:
        """The value's name for people: capture's description unless it names generated values, else the expr."""
        return self.description if self.description and "___" not in self.description else self.readable

    @property
    def reason_name(self) -> str:
        """The value's name in failure reasons: the description (or the expr), generated names in words."""
        return readable_expr(self.description or self.expr)

    @functools.cached_property
    def stack_slot(self) -> str | None:
        """The resume function's stack value (`___stack1`) the expr reads, if it reads one."""
        m = _STACK.search(self.expr)
        return m.group(0) if m else None

    @property
    def is_stack_value(self) -> bool:
        """Whether the expr is a stack value itself (a branch outcome passed on the stack, for one)."""
        return self.stack_slot == self.expr

    def over(self, placeholder: str) -> str:
        """The expr in words with its stack value said as `placeholder` (`<value>.shape[0]`)."""
        return readable_expr(_STACK.sub(placeholder, self.expr))

    @functools.cached_property
    def builtin(self) -> str | None:
        """The builtin's name when the expr is one of the two reads guarding it (no global shadows `n`, the
        builtins' `n` is the value), else None."""
        m = _BUILTIN.match(self.expr)
        return None if m is None else m["a"] or m["b"]

    def __str__(self) -> str:
        return self.name
