"""An exception a graph raised, re-raised where the user's program stands, so its innermost traceback
entries are eager's (file, line, source text, function name) with no generated frame in between.

Used where a graph's exception leaves the function as it is (stitch/guarded_call.py: a writing graph
with nothing to undo; the other graphs re-run the function eagerly). The graph line in the traceback
names the node that raised (graph.codegen.node_at), and the node where the program was when it was
recorded (capture's `meta[WHERE]`: code, instruction and globals per frame, the root first); each frame's
raiser, a function cut from that code that raises at that instruction (stitch/resume.py), re-raises it,
innermost first, so the frames nest as eager's did. Backends that run no generated graph code leave the
traceback as it is.
"""

from __future__ import annotations

import itertools
import types
from typing import Any

from ..errors import CannotResume
from ..graph import codegen
from ..graph.ir import WHERE
from . import tracebacks
from .resume import resume_code

_RAISERS: dict[tuple, Any] = {}


def at_user(exc: BaseException) -> BaseException:
    """exc with the traceback eager would have given it below the compiled function (or as it was)."""
    try:
        return _at_user(exc)
    except Exception:          # an internal error here must not replace the program's exception
        return exc


def _at_user(exc: BaseException) -> BaseException:
    tb, found = exc.__traceback__, None
    while tb is not None:
        code = tb.tb_frame.f_code
        columns = next(itertools.islice(code.co_positions(), tb.tb_lasti // 2, None), (None,) * 4)[2:]
        node = codegen.node_at(code.co_filename, tb.tb_lineno, columns)
        if node is not None:
            found = (tb, node)
        tb = tb.tb_next
    where = found[1].meta.get(WHERE) if found else None
    raisers = [_raiser(*w) for w in reversed(where or ())]
    if not raisers or None in raisers:
        return exc
    exc = tracebacks.below(exc.with_traceback(found[0]))       # what the op's own callees added
    for raiser in raisers:
        try:
            raiser(exc)
        except BaseException as e:            # (the raiser raised exc; its traceback now starts there)
            exc = tracebacks.below(e)
    return exc


def _raiser(code: types.CodeType, index: int, globals_: dict) -> Any:
    """A function that raises its argument at instruction `index` of `code` (None if none can be cut)."""
    key = (code, index, id(globals_))
    if key not in _RAISERS:
        try:
            cut = resume_code(code, index, (), (), f"__raise_{code.co_name}_at_i{index}", raises=True)
        except CannotResume:
            _RAISERS[key] = None
        else:
            cells = tuple(types.CellType() for _ in cut.co_freevars)
            _RAISERS[key] = types.FunctionType(cut, globals_, cut.co_name, None, cells)
    return _RAISERS[key]
