"""Tracebacks as eager's: an exception raised in generated code (the entry's breaking instruction, a loop
driver's next(), a graph) is re-raised by a *raiser*, a function cut from the user's own code that raises
it where the failing instruction stands (stitch/resume.py, `raises=True`), so its innermost traceback
entries are the user's file, line, source text and function name. Imports nothing of the package (a leaf).

`below(exc)` gives exc back with the traceback a raiser adds its frame to: what lay below the generated
frame that caught it, without minidynamo's own frames (a compiled callee's dispatcher, graph code, the
miss path). Frames above the raiser (the dispatcher that called it, on a capturing call also the miss
path) stay: the user's part of the stack is the innermost one.
"""

from __future__ import annotations

import os
import types

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep    # minidynamo/
_USER_CODE = (os.path.join(_PACKAGE, "examples") + os.sep,)      # programs bundled with the package


def internal(code: types.CodeType) -> bool:
    """Whether code is minidynamo's own: generated code (dispatchers, graphs, forwarders, movers: named
    `<minidynamo ...>`) or a module of the package."""
    name = code.co_filename
    return name.startswith("<minidynamo") or (name.startswith(_PACKAGE) and not name.startswith(_USER_CODE))


def below(exc: BaseException) -> BaseException:
    """exc, its traceback cut to the entries below the frame that caught it and freed of internal ones."""
    tb = exc.__traceback__
    kept = []
    tb = tb.tb_next if tb is not None else None
    while tb is not None:
        if not internal(tb.tb_frame.f_code):
            kept.append(tb)
        tb = tb.tb_next
    for outer, inner in zip(kept, kept[1:]):
        outer.tb_next = inner
    if kept:
        kept[-1].tb_next = None
    return exc.with_traceback(kept[0] if kept else None)
