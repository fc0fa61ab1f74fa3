"""The instructions a `for` loop's iterations run: its span (the FOR_ITER header to the last back edge) and
the blocks laid out elsewhere. Imports capture.instructions and fold.postdom.

3.14 and 3.15 lay the body of a `while` nested in a `for` out of line, after the for loop's last back edge
(docs/bytecode_facts_314.md): the while's test jumps out of the span to its body, which jumps back into the
span to the test. Those blocks belong to every iteration, so a folded loop scans them for the locals it
carries and its arms' joins in them are inside the iteration. They are found exactly as a natural loop's
nodes are: the instructions from which a back edge to the header (a jump to it from after it) is reached
without passing through the header. Code after a `break` never comes back (it returns, or leaves the loop
and reaches the header only through an enclosing loop's header, which the body's code does not pass).
"""

from __future__ import annotations

import types
from functools import lru_cache

from ..instructions import decode
from .postdom import EXIT, successors


@lru_cache(maxsize=256)
def loop_region(code: types.CodeType, span: tuple[int, int]) -> frozenset[int] | None:
    """The span's instructions and the loop's out-of-line blocks; None when code outside them jumps (or falls
    through) into them anywhere but the header: such a loop is not folded."""
    header, end = span
    succ = successors(code)
    preds: dict[int, list[int]] = {}
    for i, out in enumerate(succ):
        for s in out:
            preds.setdefault(s, []).append(i)
    ins = decode(code)
    stack = [i for i, t in ins.targets.items() if t == header and i > header]
    found: set[int] = set()
    while stack:
        n = stack.pop()
        if n == header or n in found:
            continue
        found.add(n)
        stack.extend(preds.get(n, ()))
    if any(n < header for n in found):
        return None                     # (code before the loop reaches its body past the header)
    region = frozenset(range(header, end + 1)) | found
    for i, out in enumerate(succ):
        if i not in region and any(s in region and s != header for s in out if s != EXIT):
            return None
    return region
