"""The docs say what the code does: the README's sample output is what `explain` prints now (compared line
by line, timings normalized), and the tour shows what its section headers promise (a folded cond beside a
real graph break with its resume functions and stitched entry)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import minidynamo as md
from minidynamo.__main__ import tour
from minidynamo.examples.tour_programs import loud_switch

ROOT = Path(__file__).resolve().parents[1]
TIMING = re.compile(r"\d+\.\d+ ms")


def _blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced block of a markdown text."""
    return re.findall(r"^```(\w*)\n(.*?)^```", text, re.M | re.S)


def test_readme_sample_output_is_what_explain_prints():
    readme = (ROOT / "README.md").read_text()
    start = readme.index("## Quick start")
    blocks = _blocks(readme[start:])
    code = next(body for lang, body in blocks if lang == "python")
    sample = next(body for lang, body in blocks if lang == "" and body.startswith("explain(block):"))
    namespace = {"print": lambda *a, **k: None, "__name__": "readme"}
    exec(compile(code, "README.md", "exec"), namespace)      # the quick start, as a new user runs it
    shown = str(md.explain(namespace["block"])(namespace["x"], namespace["w"]))
    assert TIMING.sub("T ms", sample.rstrip("\n")).splitlines() == TIMING.sub("T ms", shown).splitlines()


def _tour_text() -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert tour() == 0
    return out.getvalue()


def _section(text: str, number: int) -> str:
    parts = re.split(r"^={78}\n(?=\d\. )", text, flags=re.M)
    return next(p for p in parts if p.startswith(f"{number}. "))


def test_tour_shows_a_folded_cond_beside_a_real_graph_break():
    text = _tour_text()
    folded, broken = _section(text, 2), _section(text, 3)
    assert "folded into the one graph as a cond node: no break" in folded
    assert "explain(sign_switch): 1 graph, 0 graph breaks" in folded and "= cond(" in folded
    # the break: the graph before the `if`, the stitched entry, and a resume function for each path
    line = loud_switch.__code__.co_firstlineno + 5         # `if s > 0:`
    assert "one arm prints, which a cond node cannot hold" in broken
    assert "explain(loud_switch): " in broken and "graph breaks, by cause:" in broken
    assert f"tour_programs.py:{line} in loud_switch: [MD0009] branch on the value of a NumPy bool" in broken
    assert f"── 2. resume at line {line}, after `if s > 0:` was True " in broken
    assert f"resume at line {line}, after `if s > 0:` was False" in broken
    assert f"resume at line {line + 1}, after `print(\"sum is positive\")`" in broken   # the True path's print
    entry = broken.split("── 1. loud_switch")[1].split("── 2.")[0]
    # (3.13 compiles `s > 0` in an `if` to a comparison that gives a bool: `bool(___o[0] > 0)` there)
    assert "___r = bool(___o[0]" in entry and "return ___e0_resume" in entry and "= cond(" not in broken
    assert "matches eager on both paths: True" in broken


def test_the_report_demo_does_what_its_comments_say():
    import runpy

    from minidynamo import api
    from minidynamo.report.html import function_counts
    from minidynamo.report.run import outputs_of_run

    with api.record_run() as records, contextlib.redirect_stdout(io.StringIO()):
        runpy.run_path(str(ROOT / "docs" / "report_demo.py"), run_name="__main__")
    outputs = {o.function: o for o in outputs_of_run(records)}
    assert list(outputs) == ["mlp_block", "sign_switch", "loud_switch", "fit_logistic"]
    block, switch, loud, fit = outputs.values()
    assert function_counts(block)["recompiles"] == 1 and block.graph_break_count == 0
    assert switch.graph_break_count == 0 and [b.kind for b in switch.folded_branches] == ["if"]
    titles = [t for t in str(loud).splitlines() if t.startswith("── ")]
    assert any("after `if s > 0:` was True" in t for t in titles)
    assert any("after `if s > 0:` was False" in t for t in titles)
    assert any("loop body of `while loss > tol:`" in t for t in str(fit).splitlines() if t.startswith("── "))
