"""Break codes: one stable code per kind of graph break or eager fallback (MD0001 ...), each with a title,
a one-line hint naming the rewrite where one exists, and a page docs/breaks/<code>.md (an example that
breaks and its fixed form, run by tests/capture/test_break_codes.py). Imports nothing of the package but
capture.breaks' enum.

A handler raises `unsupported(code, message)`; a site that passes a BreakCategory gets that category's
general code (GENERAL), so no reason is ever without a code. Codes are never renumbered or reused: a
retired one stays in CODES with its page saying what replaced it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from .breaks import BreakCategory

# the checkout's docs/breaks/ (absent in an installed wheel: reports then name the page without a link)
DOCS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                        "docs", "breaks")


@dataclass(frozen=True)
class BreakCode:
    """One kind of break: `code` (MD0001), the category reports group it under, a title and a hint."""

    code: str
    category: BreakCategory
    title: str
    hint: str

    @property
    def page(self) -> str:
        """The page's path in the repository (docs/breaks/MD0001.md)."""
        return f"docs/breaks/{self.code}.md"

    @property
    def url(self) -> str:
        """A file:// link to the page in this checkout, or "" when the docs are not beside the package."""
        path = os.path.join(DOCS_DIR, f"{self.code}.md")
        return "file://" + path if os.path.exists(path) else ""

    def __str__(self) -> str:
        return self.code


CODES: dict[str, BreakCode] = {}


def _code(number: int, category: BreakCategory, title: str, hint: str) -> BreakCode:
    code = BreakCode(f"MD{number:04d}", category, title, hint)
    assert code.code not in CODES, code.code
    CODES[code.code] = code
    return code


C = BreakCategory
# ---- one general code per category: what a site raising only a category gets -------------------------
DATA_DEPENDENT = _code(1, C.DATA_DEPENDENT, "a Python decision needs an array's values",
                       "keep the decision in NumPy (np.where, np.maximum, a mask multiplied in) so it stays a "
                       "graph value")
CALL = _code(2, C.CALL, "a call capture cannot see into",
             "call it outside the compiled function and pass its result in, or use a NumPy equivalent")
SIDE_EFFECT = _code(3, C.SIDE_EFFECT, "a mutation capture cannot replay",
                    "return the new value and store it outside, or write an ordinary attribute, item or global")
UNSUPPORTED = _code(4, C.UNSUPPORTED, "an operation capture does not model",
                    "write it with plain Python values and registered NumPy ops (constant arguments)")
INLINE = _code(5, C.INLINE, "the inlining depth limit",
               "turn the recursion into a loop, or raise config.patch(inline_depth_limit=...)")
RECONSTRUCT = _code(6, C.RECONSTRUCT, "a value that cannot be rebuilt outside the graph",
                    "make the value before the break or after it, not across it")
EXCEPTION = _code(7, C.EXCEPTION, "the code raises here, as it does eagerly",
                  "nothing to rewrite for capture: fix the error (eager raises the same exception)")
LOOP = _code(8, C.LOOP, "a loop stepped in plain Python",
             "loop over a range, a list or an array's rows (unrolled or folded), not a live iterator")
# ---- specific codes ------------------------------------------------------------------------------------
BRANCH_ON_ARRAY = _code(9, C.DATA_DEPENDENT, "an if/while on an array's value",
                        "with pure arms this is already a cond (no break); an arm that prints or writes breaks: "
                        "move the print after the computation, or compute both sides and pick with np.where")
ARRAY_TO_PYTHON = _code(10, C.DATA_DEPENDENT, "an array's values read as Python values (.tolist(), .item())",
                        "keep it an array (np ops on it, x[k] with it); int(v) or float(v) of a 0-d value is "
                        "fine, no break; convert once, after the compiled function returns")
VALUE_SHAPE = _code(11, C.DATA_DEPENDENT, "a result whose shape depends on the values",
                    "keep shapes fixed: np.where(mask, x, 0) instead of x[mask], a sum over a mask instead "
                    "of counting a selection")
BUILTIN_CALL = _code(12, C.CALL, "a builtin with effects outside the graph (print, input, open)",
                     "move the print after the computation (one break at the end) or return the values and "
                     "print them outside")
STDLIB_CALL = _code(13, C.CALL, "a standard-library function (random, copy, statistics...)",
                    "call it outside the compiled function and pass the result in, or use the NumPy "
                    "equivalent (np.random, x.copy(), np.mean)")
NUMPY_NO_OP = _code(14, C.CALL, "a NumPy function without a registered op",
                    "use a registered equivalent (np.sum, np.where, np.einsum...), or call it outside")
UNROLL_LIMIT = _code(15, C.LOOP, "a loop longer than unroll_limit",
                     "a range loop whose body is graph code folds into one fori_loop; otherwise raise "
                     "config.patch(unroll_limit=...) or vectorize the body")
FRAME_READER = _code(16, C.CALL, "a call that reads the running frame (locals(), eval, sys._getframe)",
                     "pass the values explicitly (a dict argument, eval with its own namespace)")
NOT_SPLIT = _code(17, C.UNSUPPORTED, "a break the frame cannot be split at: the whole frame runs eagerly",
                  "move the breaking line into a helper function of its own, so only the helper runs eagerly")
META_UNMODELLED = _code(18, C.UNSUPPORTED, "a NumPy call with arguments its op does not model",
                        "pass NumPy's defaults or constants for the keywords and modes named in the reason")
DISABLED = _code(19, C.CALL, "a function marked minidynamo.disable",
                 "nothing to rewrite: the call runs as plain Python, as asked; remove disable() to capture it")
USER_META = _code(20, C.UNSUPPORTED, "a registered function whose meta rule failed on these arguments",
                  "make the meta rule given to register_op/allow_in_graph return an ArraySpec (or a tuple of them) "
                  "for every argument the function accepts")
del C

GENERAL: dict[BreakCategory, BreakCode] = {c.category: c for c in
                                           (DATA_DEPENDENT, CALL, SIDE_EFFECT, UNSUPPORTED, INLINE, RECONSTRUCT,
                                            EXCEPTION, LOOP)}


def code_of(kind: "BreakCode | BreakCategory") -> BreakCode:
    """The code a raise site stands for: itself, or its category's general code."""
    return kind if isinstance(kind, BreakCode) else GENERAL[BreakCategory(kind)]
