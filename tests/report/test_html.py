"""report.html: the page is self-contained (nothing fetched) and shows what the records say: source with
break markers carrying category, reason and inlining stack, breaks by cause, recompiles with the guard that
failed, pieces with graphs, guards in words, glossed entry code and resume bytecode."""

from __future__ import annotations

import html
import re

import numpy as np

import minidynamo as md
from minidynamo.examples.tour_programs import fit_logistic, make_inputs, make_regression, sign_switch
from minidynamo.report.html import render_page

from .pages import big_page


def shout(x):
    print("hi")
    return x + 1.0


def outer(x):
    return shout(x * 3.0)


def _urls(page: str) -> list[str]:
    """What a page could fetch: URLs, but for the SVG namespace and links (never fetched) to break code pages."""
    page = re.sub(r'<a href="file://[^"]*/docs/breaks/MD\d{4}\.md">', "<a>", page)
    return [u for u in re.findall(r"""(?:https?:|//)[^\s"'<>)]+""", page) if u != "http://www.w3.org/2000/svg"]


def test_page_is_self_contained(tmp_path):
    out = md.explain(sign_switch)(make_inputs()[0])
    out.to_html(tmp_path / "p.html")
    page = (tmp_path / "p.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and page.endswith("</html>")
    assert _urls(page) == []
    assert "<link" not in page and " src=" not in page and "@import" not in page
    assert page.count("<style>") == 1 and page.count("<script>") == 1


def test_markers_carry_category_reason_and_inlining_stack():
    out = md.explain(outer)(np.ones(3))
    page = render_page("t", [out])
    (reason,) = out.break_reasons
    buttons = re.findall(r'<button class="brk"[^>]*>', page)
    lines = [int(n) for n in re.findall(r'<span class="no">(\d+)</span><button class="brk"', page)]
    # the call site in outer, the print in shout's own listing, and the entry in the list of breaks
    assert sorted(lines) == [shout.__code__.co_firstlineno + 1, outer.__code__.co_firstlineno + 1]
    assert len(buttons) == 3
    for b in buttons:
        assert f'data-category="{reason.category}"' in b
        assert f'data-reason="{html.escape(reason.message)}"' in b
        assert "outer (" in html.unescape(re.search(r'data-stack="([^"]*)"', b).group(1))


def test_marker_sits_on_the_breaking_line_of_the_source():
    x = make_inputs()[0]
    out = md.explain(sign_switch)(np.abs(x))
    page = render_page("t", [out])
    line = out.break_reasons[0].lineno
    marked = re.search(r'<span class="ln hasbrk"><span class="no">(\d+)</span><button class="brk"', page)
    assert marked and int(marked.group(1)) == line


def test_pieces_show_graph_guards_entry_glossary_and_resume_bytecode():
    x = make_inputs()[0]
    cs = md.compile(sign_switch)
    with md.api.record_run() as records:
        cs(np.abs(x)), cs(-np.abs(x))
    out = md.report.ExplainOutput.from_records(sign_switch, records)
    page = render_page("t", [out])
    assert page.count('<article class="piece"') == 3
    assert page.count('<svg class="dag"') == 3
    assert "the branch at line" in page and "went <" not in page
    assert "Bytecode of the resume function __resume_sign_switch_at_L" in page
    assert "<dt>___o</dt><dd>the graph&#x27;s outputs" in page
    # the other way of the `if` is a new path, not a recompile
    assert "Recompiles" not in page and "a new path: the branch at line" in page


def test_a_thousand_node_page_stays_under_two_megabytes(tmp_path):
    page = big_page(tmp_path, 1000)
    text = page.path.read_text()
    assert page.path.stat().st_size < 2_000_000
    assert text.count('<g class="node ') == 1000


def _counts(page: str) -> dict[str, tuple[int, str]]:
    return {k: (int(n), words) for k, n, words in re.findall(r'data-count="(\w+)"><b>(\d+)</b> ([^<]*)<', page)}


def test_header_counts_all_pieces_and_recompiles_once_per_cause():
    w, X, y = make_regression()
    fit = md.compile(fit_logistic)
    with md.api.record_run() as records:
        fit(w, X, y, 0.05)
        fit(w, X[:32], y[:32], 0.05)          # one shape change: the function and its loop bodies capture again
    page = render_page("t", [md.report.ExplainOutput.from_records(fit_logistic, records)])
    counts = _counts(page)
    # (3.14: the while loop's exit fails its driven body's guarded condition: a new path, as at a break)
    recompiles = (1, "recompile")
    assert counts["captures"] == (8, "captures") and counts["recompiles"] == recompiles
    assert counts["calls"] == (2, "calls")
    assert counts["hits"][0] == sum(p.hits for p in md.stats(fit).pieces) > 0      # (was: 0 hits, the function's)
    assert counts["breaks"] == (1, "break")                                           # (was: 1 breaks)
    n = recompiles[0]
    recompiles = re.search(rf"<h3>Recompiles \({n}\)</h3><ul>(.*?)</ul>", page).group(1)
    assert recompiles.count('<li class="recompile">') == n and "X.shape[0]: expected 64, got 32" in recompiles
    assert "in the same call, so also captured again:" in recompiles
    assert "went False" not in recompiles                  # the loop's exit is a new path, not a recompile
