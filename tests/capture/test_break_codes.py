"""Break codes (capture/break_codes.py): every code has a page whose "Breaks" example breaks with that code
and whose "Fixed" example captures without it (and still computes what eager computes); every reason capture
can raise carries a code of the registry."""

from __future__ import annotations

import ast
import copy
import os
import re

import numpy as np
import pytest

import minidynamo as md
from minidynamo.capture import break_codes as codes
from minidynamo.capture.breaks import BreakCategory, BreakReason
from tests.conftest import captured, check

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PAGES = os.path.join(ROOT, "docs", "breaks")
PACKAGE = os.path.join(ROOT, "minidynamo")


def _page(code: str) -> str:
    with open(os.path.join(PAGES, f"{code}.md")) as f:
        return f.read()


def _example(text: str, section: str) -> str:
    m = re.search(rf"^## {section}\n\n```python\n(.*?)\n```", text, re.S | re.M)
    assert m, f"no {section} example"
    return m.group(1)


def _run(source: str) -> tuple:
    """(codes of the breaks and fallbacks explain() reports, compiled result, eager result, compiled function)
    of an example: its `f` called on its `args` (each run on its own copy of the arguments)."""
    ns: dict = {"__name__": "docs_example"}
    exec(compile(source, "<docs example>", "exec"), ns)
    f, args = ns["f"], ns["args"]
    out = md.explain(f)(*copy.deepcopy(args))
    found = {str(c) for r in out.break_reasons for c in (r.code, r.fallback_code) if c is not None}
    compiled = md.compile(f)
    compiled(*copy.deepcopy(args))
    return found, compiled(*copy.deepcopy(args)), f(*copy.deepcopy(args)), compiled


def _same(a, b) -> bool:
    """Equal values of equal types, bit for bit for arrays, attribute by attribute for objects."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
    if hasattr(a, "__dict__") and not isinstance(a, type):
        return vars(a).keys() == vars(b).keys() and all(_same(v, vars(b)[k]) for k, v in vars(a).items()
                                                        if v is not a)
    return a == b


@pytest.mark.parametrize("code", sorted(codes.CODES))
def test_each_page_breaks_with_its_code_and_its_fix_captures_without_it(code, capsys):
    md.reset()
    text = _page(code)
    c = codes.CODES[code]
    assert text.startswith(f"# {code}: {c.title}\n")
    assert f"- category: `{c.category.value}`\n- hint: {c.hint}\n" in text      # the page says what reports say
    found, got, want, _ = _run(_example(text, "Breaks"))
    assert code in found, found
    found, got, want, compiled = _run(_example(text, "Fixed"))
    assert code not in found, found
    assert _same(got, want)
    result = captured(compiled)                 # the fix is captured: a graph, and f itself never runs eagerly
    assert any(r.graph is not None and r.graph.count() for r in result.all_records), result.reasons
    assert not [r for r in result.reasons if r.fallback], result.reasons


def test_every_page_is_a_code_and_the_index_lists_every_code():
    pages = {name[:-3] for name in os.listdir(PAGES) if name.startswith("MD")}
    assert pages == set(codes.CODES)
    with open(os.path.join(PAGES, "README.md")) as f:
        index = f.read()
    for c in codes.CODES.values():
        assert f"[{c.code}]({c.code}.md) | `{c.category.value}` | {c.title} |" in index


def test_every_category_has_a_general_code_and_a_reason_always_has_a_registered_code():
    assert set(codes.GENERAL) == set(BreakCategory)
    for category in BreakCategory:
        r = BreakReason(category, "why")
        assert r.code is codes.GENERAL[category] and r.category is category
        assert codes.CODES[r.code.code] is r.code and r.hint
    r = BreakReason(codes.BRANCH_ON_ARRAY, "why")
    assert (r.code, r.category) == (codes.BRANCH_ON_ARRAY, BreakCategory.DATA_DEPENDENT)
    import dataclasses
    assert dataclasses.replace(r, lineno=3).code is codes.BRANCH_ON_ARRAY       # copies keep the code


def _raise_sites():
    """(file, line, first argument) of every `unsupported(...)`, `BreakReason(...)` and `CannotResume(..., code)`
    call in the package."""
    for folder, _, files in os.walk(PACKAGE):
        for name in files:
            if not name.endswith(".py"):
                continue
            path = os.path.join(folder, name)
            with open(path) as f:
                tree = ast.parse(f.read())
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.args:
                    if node.func.id in ("unsupported", "BreakReason"):
                        yield path, node.lineno, node.args[0]
                    elif node.func.id == "CannotResume" and len(node.args) > 1:
                        yield path, node.lineno, node.args[1]


def test_every_reason_capture_raises_names_a_registered_code_or_a_category():
    """No reason without a code: each raise site names a code of the registry (codes.NAME) or a category
    (BreakCategory.NAME, its general code); a site passing anything else would have to be read by hand."""
    sites = list(_raise_sites())
    assert len(sites) > 150
    named = 0
    for path, line, arg in sites:
        where = f"{os.path.relpath(path, ROOT)}:{line}"
        if isinstance(arg, ast.Name) and arg.id in ("category", "code", "kind"):
            continue        # the helper itself (variables/base.unsupported) and BreakReason's own callers
        assert isinstance(arg, (ast.Attribute, ast.IfExp)), where
        for a in ([arg.body, arg.orelse] if isinstance(arg, ast.IfExp) else [arg]):
            assert isinstance(a, ast.Attribute) and isinstance(a.value, ast.Name), where
            if a.value.id == "BreakCategory":
                assert a.attr in BreakCategory.__members__, where
            else:
                assert a.value.id in ("codes", "_codes"), where
                assert isinstance(getattr(codes, a.attr), codes.BreakCode), where
                named += 1
    assert named >= 12


def test_codes_show_in_explain_logs_and_the_page(caplog, capsys):
    def loud(x):
        if x.sum() > 0:
            print("positive")
        return x * 2

    md.reset()
    import logging
    with caplog.at_level(logging.INFO, logger="minidynamo.graph_breaks"):
        out = md.explain(loud)(np.ones(3))
    text = str(out)
    assert f"[MD0009] branch on the value" in text and f"hint: {codes.BRANCH_ON_ARRAY.hint}" in text
    assert any("[MD0009 data_dependent]" in rec.getMessage() for rec in caplog.records)
    from minidynamo.report.html import render_page
    page = render_page("t", [out])
    assert 'data-code="MD0009"' in page and ">MD0009</span>" in page
    assert 'href="file://' + os.path.join(PAGES, "MD0009.md") + '"' in page


def _slice_by_run_time_bounds(a_row, a_col, x):
    out = np.zeros(a_row.shape[0] - 1)
    for i in range(a_row.shape[0] - 1):               # spmv's row loop: the slice bounds are array values
        cols = a_col[a_row[i]:a_row[i + 1]]
        out[i] = x[cols].sum()
    return out


def _einsum_operand_form(a, b):
    return np.einsum(a, [0, 1], b, [1, 2], [0, 2])


def _linspace_of_array_ends(a):
    return np.linspace(a[0], a[1], 5) * 2


def _arange_of_a_float_array(a):
    return np.arange(a.max()) + 1


@pytest.mark.parametrize("fn, args, code", [
    (_slice_by_run_time_bounds, (np.array([0, 2, 3, 3]), np.array([0, 1, 1]), np.arange(1.0, 3.0)),
     codes.VALUE_SHAPE),
    (_einsum_operand_form, (np.ones((2, 3)), np.ones((3, 4))), codes.META_UNMODELLED),
    (_linspace_of_array_ends, (np.array([1.0, 3.0]),), codes.META_UNMODELLED),
    (_arange_of_a_float_array, (np.array([1.5, 3.0]),), codes.META_UNMODELLED),
])
def test_a_limitation_of_capture_is_never_reported_as_the_programs_exception(fn, args, code):
    # these rules used to raise MetaError, read as "the code raises here, as it does eagerly" (MD0007)
    # where eager runs fine: what capture cannot model is a limitation (or a data-dependent shape)
    out = md.explain(fn)(*[a.copy() for a in args])
    found = [b.code for b in out.break_reasons]
    assert code in found and codes.EXCEPTION not in found, [str(b) for b in out.break_reasons]
    check(fn, *args, expect_graph=False)
