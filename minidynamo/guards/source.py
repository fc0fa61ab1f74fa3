"""GuardSource: where a guard's value comes from, the expression a check reads and its name in words.

Imports guards.words. Capture gives each guard its expr and description (capture.sources' expr() and
describe()); the source answers what reports and failure reasons ask of it.
"""

from __future__ import annotations

from dataclasses import dataclass

from .words import readable_expr


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

    def __str__(self) -> str:
        return self.name
