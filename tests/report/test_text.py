"""report.text and report.records: the text of explain() (one section per captured piece, guards in words,
generated names glossed, breaks grouped by cause), the break-reason lines, and the MINIDYNAMO_LOGS channels."""

from __future__ import annotations

import inspect
import re
import os
import subprocess
import sys
import textwrap

import numpy as np

import minidynamo as md
from minidynamo import pyversion
from minidynamo.capture import break_codes as codes
from minidynamo.capture.breaks import BreakCategory, BreakReason
from minidynamo.examples.tour_programs import fit_logistic, make_inputs, make_regression, mlp_block, sign_switch
from minidynamo.report import CHANNELS, ExplainOutput


def block(x, w):
    return np.tanh(x @ w) * 2.0


def shout(x):
    print("hi")  # SHOUT
    return x + 1.0


def outer(x):
    return shout(x * 3.0)  # OUTER


def _line(fn, marker):
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, t in enumerate(lines) if marker in t)


def _args():
    rng = np.random.default_rng(0)
    return rng.standard_normal((4, 3)), rng.standard_normal((3, 5))


def test_text_of_a_full_graph():
    text = str(md.explain(block)(*_args()))
    head, *rest = text.splitlines()
    assert head.startswith("explain(block): 1 graph, 0 graph breaks, 3 ops, captured in ")
    assert head.endswith(" ms")
    assert "  %0 = matmul(x, w)  # f64[4,5]" in rest
    assert rest[1].startswith("── 1. block ──")
    assert "  `x` is an ndarray of shape (4, 3) and dtype float64" in rest
    assert "  global `np` is the module numpy" in rest
    assert "graph breaks, by cause:" not in rest
    assert "compiled entry (runs after the guards pass):" in rest
    _generated_names_glossed(text)


def test_text_of_a_break_names_file_line_source_and_caller():
    out = md.explain(outer)(np.ones(3))
    text = str(out)
    assert "2 graphs, 1 graph break, 2 ops" in text.splitlines()[0]
    line = _line(shout, "SHOUT")
    assert "graph breaks, by cause:\n  call (1):\n" in text
    assert f"    test_text.py:{line} in shout: " in text
    assert '      `print("hi")  # SHOUT`' in text
    assert f"inlined from outer ({__file__}:{_line(outer, 'OUTER')})" in text


def test_break_reason_without_location_prints_code_category_message_and_hint():
    hint = f"    hint: {codes.UNSUPPORTED.hint}"
    assert str(BreakReason(BreakCategory.UNSUPPORTED, "opcode FOO")) == "[MD0004 unsupported] opcode FOO\n" + hint
    r = BreakReason(codes.BRANCH_ON_ARRAY, "branch on x", filename="/a/b/model.py", lineno=7, function="f",
                    source_line="if x:", stack=["g (/a/b/model.py:3) `f(x)`"])
    assert str(r).splitlines() == ["model.py:7 in f: [MD0009 data_dependent] branch on x", "    `if x:`",
                                   "    inlined from g (/a/b/model.py:3) `f(x)`",
                                   f"    hint: {codes.BRANCH_ON_ARRAY.hint}"]
    assert r.where() == "model.py:7"


def test_empty_output_says_so():
    out = ExplainOutput("nothing")
    assert (out.graph_count, out.graph_break_count, out.op_count, out.ops_per_graph) == (0, 0, 0, [])
    assert "guards: none" in str(out) and "nothing was captured" in str(out)


def test_graph_free_function_counts_no_graph():
    out = md.explain(lambda x: x)(np.ones(2))
    assert (out.graph_count, out.graph_break_count, out.op_count) == (0, 0, 0)


def test_channels():
    assert set(CHANNELS) >= {"graph_breaks", "recompiles", "guards", "graph_code"}


def _run_with_logs(channels: str) -> str:
    program = textwrap.dedent("""
        import numpy as np, minidynamo as md
        def f(x):
            print("body")
            return x + 1.0
        g = md.compile(lambda x: np.tanh(x))
        md.compile(f)(np.ones(2))
        g(np.ones(2)); g(np.ones(3))
    """)
    env = {**os.environ, "MINIDYNAMO_LOGS": channels}
    done = subprocess.run([sys.executable, "-c", program], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stderr


def test_log_channels_from_environment():
    err = _run_with_logs("graph_breaks,recompiles")
    assert "[minidynamo:graph_breaks] graph break in f" in err
    assert "[minidynamo:recompiles] recompiling <lambda>: x.shape[0]: expected 2, got 3" in err
    assert "[minidynamo:graph_code]" not in err


def test_log_channels_all_and_none():
    assert "[minidynamo:graph_code] graph of <lambda>" in _run_with_logs("all")
    assert "[minidynamo:" not in _run_with_logs("")


def _sections(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("── ")]


def _generated_names_glossed(text: str) -> None:
    """Every `___name` in the entry code of a section has a `___name: ...` line under `where:`."""
    for section in text.split("\n── ")[1:]:
        code, _, where = section.partition("  where:\n")
        used = set(re.findall(r"\b___\w+", code.split("compiled entry")[-1]))
        glossed = set(re.findall(r"^    (___\w+): \S", where, re.M))
        assert used <= glossed, used - glossed


def test_branch_gets_a_section_per_piece_named_by_its_line():
    x = np.abs(make_inputs()[0])
    text = str(md.explain(sign_switch)(x))
    line = _line(sign_switch, "if s > 0:")
    assert _sections(text)[0].startswith("── 1. sign_switch ")
    assert _sections(text)[1].startswith(f"── 2. resume at line {line}, after `if s > 0:` was True ")
    assert f"  the branch at line {line} (`if s > 0:`) went True" in text
    assert "___stack0 is" not in text and "is True\n" not in text
    assert f"graph breaks, by cause:\n  data_dependent (1):\n    tour_programs.py:{line} in sign_switch:" in text
    assert text.count("`x` is an ndarray of shape (4, 8) and dtype float64") == 2   # once per piece
    _generated_names_glossed(text)


def test_loop_body_and_builtins_read_as_words():
    text = str(md.explain(fit_logistic)(*make_regression(), 0.05))
    loop = _line(fit_logistic, "while loss > tol:")
    titles = _sections(text)
    assert any(f"loop body of `while loss > tol:` (line {loop}), one call per iteration" in t for t in titles)
    assert any("rest of the loop body: resume at line" in t for t in titles)
    assert "`float` is the builtin (no global shadows it)" in text and "global float is None" not in text
    assert "`tol` is the float 0.05" in text
    # float() of the loss is a number the graph computes: the loop test is the break, each way captured once.
    # 3.11-3.13 test the loop again at the bottom of the body (a break whose resume function is captured per
    # way); 3.14 only at its top, where the driver enters: there `loss` is a parameter, a guarded condition
    if pyversion.WHILE_TESTED_AT_TOP:   # (the exit fails the body's guarded condition: a new path too)
        assert "a new path: the condition `loss > tol` went False" in text
        assert "captured again because" not in text
    else:
        assert f"the branch at line {loop} (`while loss > tol:`) went False" in text
        assert f"a new path: the branch at line {loop} (`while loss > tol:`) went False" in text
        assert "captured again because" not in text           # the loop's exit is no recompile
    _generated_names_glossed(text)


def test_dict_and_int_guards_read_as_words():
    x, params = make_inputs()
    text = str(md.explain(mlp_block)(x, params))
    assert "`params` is a dict\n" in text             # its items are read by key: its other keys may change
    assert "`params['W0']` is an ndarray of shape (8, 8) and dtype float64" in text
    assert "`n_layers` is the int 2" in text
    assert "`range` is the builtin (no global shadows it)" in text

    def keyed(x, d):
        for k in d:                                     # iteration depends on the keys and their order
            x = x + d[k]
        return x

    text = str(md.explain(keyed)(np.ones(2), {"a": 1.0, "b": 2.0}))
    assert "`d` is a dict with keys 'a', 'b' (in this order)" in text


def test_breaks_are_grouped_by_cause_with_counts():
    def many(x):
        print("a")
        y = x + 1.0
        print("b")
        if y.sum() > 0:
            y = y * 2.0
        return y

    text = str(md.explain(many)(np.ones(3)))
    assert "  call (2):\n" in text and "  data_dependent (1):\n" in text
    assert text.index("  call (2):") < text.index("── 1. ")


def test_generated_resume_names_in_break_reasons_read_as_their_line():
    from minidynamo.report.pieces import readable_function
    assert readable_function("f.<__resume_f_at_L19_i67>") == "f (resumed at line 19)"
    assert readable_function("f.<__resume___resume_f_at_L3_i1_at_L19_i67>") == "f (resumed at line 19)"
    assert readable_function("outer (/a/b.py:4) `g(x)`") == "outer (/a/b.py:4) `g(x)`"


def test_two_resume_points_on_one_line_are_numbered():
    def masked(z, c, n):
        for _ in range(n):
            keep = np.abs(z) < 2.0        # (z[keep] itself is a graph value: its length is keep's count)
            z[keep] = z[np.flatnonzero(keep)] ** 2 + c[np.flatnonzero(keep)]
        return z

    text = str(md.explain(masked)(np.linspace(-1.0, 1.0, 6), np.full(6, 0.25), 3))
    line = _line(masked, "z[keep] = ")
    titles = [t for t in _sections(text) if f"line {line}" in t]
    assert any("(point 2 on that line)" in t for t in titles), titles
    assert "<__resume_" not in text.split("── 1.")[0]          # the break list names no generated function


def _prose(text: str) -> list[str]:
    """The lines of explain()'s text a person reads as words: not the graph listings, the entry code or the
    generated names the glossary lists (code may show real code)."""
    out, code = [], False
    for line in text.splitlines():
        if line.startswith(("graph ", "compiled entry")) or line.startswith("shape environment:"):
            code = True
        elif line.startswith(("guards", "── ", "captured in", "lowering:")) or not line.startswith("  "):
            code = False
        if line.startswith("    ___") and ": " in line:          # a glossary entry: its words only
            out.append(line.split(": ", 1)[1])
        elif not code and not line.startswith("  where:"):
            out.append(line)
    return out


INTERNAL = re.compile(r"___\w+|\b[A-Z]\w*Var\b|\bstack\d+\b|:= None|\bpy_(int|float|bool)\b|\bsym_size\b")


def adam(w, g, m, v):
    m *= 0.9
    m += 0.1 * g
    v *= 0.99
    v += 0.01 * g * g
    w -= 0.01 * m / (np.sqrt(v) + 1e-8)
    return w


def test_aliasing_guards_read_right_and_one_line_per_set_of_arrays():
    arrays = [np.ones(4) for _ in range(4)]
    text = str(md.explain(adam)(*arrays))
    assert "  `w`, `g`, `m`, `v` are four distinct arrays\n" in text
    assert "is not" not in text and "equals False" not in text
    cfn = md.compile(adam)
    cfn(*arrays)
    cfn(arrays[0], arrays[1], arrays[2], arrays[2])          # m and v are one array now: captured again
    assert md.stats(cfn).guard_failures == [["m and v are one object now (captured as two distinct objects)"]]


def test_eight_written_arrays_are_one_guard_line_not_twenty_eight():
    def scale_all(a, b, c, d, e, f, g, h):
        for x in (a, b, c, d, e, f, g, h):
            x *= 2.0

    text = str(md.explain(scale_all)(*[np.ones(2) for _ in range(8)]))
    lines = [line for line in text.splitlines() if "distinct" in line]
    assert lines == ["  `a`, `b`, `c`, `d`, `e`, `f`, `g`, `h` are eight distinct arrays"]


def test_relation_lines_say_a_partial_set_value_by_value():
    from minidynamo.guards import Guard, GuardKind
    from minidynamo.report.pieces import relation_lines

    pairs = [Guard(f"(a is {o})", GuardKind.EQUALS, False) for o in "bc"] + [Guard("(p is q)", GuardKind.EQUALS, True)]
    relations = [(g, (g.expr[1], g.expr[-2], g.expected)) for g in pairs]
    words = [w for w, _ in relation_lines(relations, lambda e: f"`{e}`", set())]
    assert words == ["`p` and `q` are one object", "`a` is none of `b`, `c`"]


def test_stack_values_and_break_reasons_name_no_internals():
    x = make_inputs()[0]
    with md.config.patch(auto_cond=False):
        texts = [str(md.explain(sign_switch)(np.abs(x))), str(md.explain(fit_logistic)(*make_regression(), 0.05))]
    for text in texts:
        leaks = [line for line in _prose(text) if INTERNAL.search(line)]
        assert leaks == [], leaks
    assert "branch on the value of a NumPy bool (data-dependent)" in texts[0]
    # no folded loop here: the number comes from float() of an array value
    assert "a Python number the graph computes (`float()` of an array value) is known only at run time" in texts[1]
    assert "folded" not in texts[1].split("── 1.")[0]


def test_a_new_branch_outcome_is_said_in_words_in_failure_reasons():
    with md.api.record_run() as records:
        md.compile(fit_logistic)(*make_regression(), 0.05)
    loop = _line(fit_logistic, "while loss > tol:")
    reasons = [reason for r in records for reason in r.failed_guards]
    if pyversion.WHILE_TESTED_AT_TOP:   # the driven body begins at the test: a guarded Python condition
        assert reasons == ["condition (loss > tol): expected True, got False"]
    else:                               # the test at the bottom breaks: its resume function's stack slot
        assert reasons == [f"the condition of `while loss > tol:` (line {loop}): expected True, got False"]


def test_stats_sum_over_all_pieces_with_a_breakdown():
    w, X, y = make_regression()
    fit = md.compile(fit_logistic)
    fit(w, X, y, 0.05)
    s = md.stats(fit)
    names = [p.name for p in s.pieces]
    loop = _line(fit_logistic, "while loss > tol:")
    assert names[0] == "fit_logistic" and f"fit_logistic (resumed at line {loop})" in names
    assert s.captures == sum(p.captures for p in s.pieces) == 4              # (was 1: the function's own)
    # 3.11-3.13: two pieces per iteration (the body up to the test at its bottom, which breaks, and the rest
    # after it); the loop's exit is a new outcome at that break. 3.14 tests the loop at its top, where the
    # driven body begins: one piece per iteration, and the exit fails that piece's guarded condition (a new
    # outcome of a branch on numbers: a new path as well)
    top = pyversion.WHILE_TESTED_AT_TOP
    assert s.hits == sum(p.hits for p in s.pieces) and s.pieces[0].hits == 0
    assert s.hits > (30 if top else 60)
    assert (s.calls, s.recompiles, s.new_paths) == (1, 0, 1)
    fit(w, X[:32], y[:32], 0.05)                                             # one shape change
    s = md.stats(fit)
    assert s.captures == 8 and s.recompiles == 1 and sum(p.recompiles for p in s.pieces) >= 3
    assert s.guard_failures[:1] == [["X.shape[0]: expected 64, got 32"]]
    assert (s.calls, s.pieces[0].recompiles) == (2, 1)
    # a piece's own stats stay its own
    child = next(c for key, c in fit._minidynamo.children.items() if key[0] == "resume")
    assert md.stats(child).pieces == [] and md.stats(child).captures in (2, 4)


def test_entry_idioms_and_namespace_names_are_glossed():
    text = str(md.explain(mlp_block)(*make_inputs()))
    assert "(x, x := None)[0]: passes the value of `x` on and unbinds `x` here" in text

    def closure_and_global():
        scale = np.ones(3)

        def inner(x):
            return x * scale + _GLOBAL
        return inner

    text = str(md.explain(closure_and_global())(np.ones(3)))
    assert "the globals of module tests.report.test_text" in text or "the globals of module test_text" in text
    assert "a closure cell of your function (`" in text
    assert "a constant captured from your program (<cell object>)" not in text


_GLOBAL = np.full(3, 2.0)


def masked_means(points, assign, k):
    new = np.zeros((k, points.shape[1]))
    for j in range(k):
        # (points[assign == j] is a graph value, of the mask's count as its length: no break there)
        members = points[np.flatnonzero(assign == j)]
        if members.shape[0] > 0:
            new[j] = members.mean(axis=0)
    return new


def test_checks_on_part_of_a_stack_value_name_no_internals():
    rng = np.random.default_rng(0)
    with md.config.patch(auto_cond=False):
        text = str(md.explain(masked_means)(rng.standard_normal((24, 2)), rng.integers(0, 3, 24), 3))
    line = _line(masked_means, "members = points")
    assert f"where <value> is the value of `members = points[np.flatnonzero(assign == j)]` (line {line})" in text
    # graph inputs keep short names: the value stands above the loop's iterator (3.15: two slots, pyversion)
    assert "the_value_of" not in text and f"stack{pyversion.ITER_SLOTS + 1}: i64[" in text
    assert (f"`new`, the value of `members = points[np.flatnonzero(assign == j)]` (line {line}) are four "
            "distinct arrays") in text
    leaks = [t for t in _prose(text) if INTERNAL.search(t)]
    assert leaks == [], leaks


def test_printed_stats_read_as_counts_causes_and_pieces():
    w, X, y = make_regression()
    fit = md.compile(fit_logistic)
    fit(w, X, y, 0.05)
    fit(w, X[:32], y[:32], 0.05)
    lines = str(md.stats(fit)).splitlines()
    assert lines[0].startswith("fit_logistic: 2 calls, 8 captures, ") and "1 recompile, 1 new path" in lines[0]
    assert "  recompile 1: X.shape[0]: expected 64, got 32" in lines
    loop = _line(fit_logistic, "while loss > tol:")
    assert "  pieces:" in lines and "    fit_logistic: 2 calls, 2 captures, 0 cache hits, 1 recompile" in lines
    assert any(t.startswith(f"    fit_logistic (resumed at line {loop}): ") for t in lines)
    assert "Stats(" not in "\n".join(lines)
