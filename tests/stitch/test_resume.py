"""Resume functions (stitch/resume.py): the original code entered after a break, with locals that are not
identifiers renamed (pytest's assertion rewriting names them `@py_assert1`) while cell loads stay as they
are (3.13 builds a closure with `LOAD_FAST CellVar(name)`, which is no local to rename)."""

from __future__ import annotations

import numpy as np

import minidynamo as md
from tests.conftest import check


def _with_odd_local(src: str, odd: str):
    """The function `src` defines, its local `odd` renamed `@odd` (a name no Python source can spell)."""
    ns = {"np": np}
    exec(src, ns)
    f = ns["f"]
    names = tuple("@" + n if n == odd else n for n in f.__code__.co_varnames)
    return type(f)(f.__code__.replace(co_varnames=names), ns, "f")


CLOSURE_AND_ODD_LOCAL = (
    "def f(x):\n"
    "    y = x * 2.0\n"
    "    h = lambda: y\n"
    "    odd = x.sum().item()\n"       # the break: .item() of an array
    "    y = y + odd\n"                # the lambda made before the break sees the cell's new value
    "    return h() * 3.0, odd\n")


def test_a_closure_and_a_renamed_local_resume_after_the_break():
    # NumPy's TestVectorize::test_otypes_object_28624 ran eagerly on 3.13: "unhashable type: 'CellVar'"
    fn = _with_odd_local(CLOSURE_AND_ODD_LOCAL, "odd")
    res = check(fn, np.ones(3), calls=[(np.arange(4.0),)])
    assert res.reasons and all(r.opname == "CALL" and not r.fallback for r in res.reasons), res.reasons
    out = md.explain(fn)(np.ones(3))
    resumed = [r for r in out.records if "__resume" in r.fn.__name__]
    assert resumed and any(r.graph is not None and r.graph.count() for r in resumed), str(out)
