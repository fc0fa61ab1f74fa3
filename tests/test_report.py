"""report.py: the text of explain() output, the break-reason lines, and the MINIDYNAMO_LOGS channels."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
import textwrap

import numpy as np

import minidynamo as md
from minidynamo.capture.breaks import BreakCategory, BreakReason
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
    assert head.startswith("explain(block): 1 graph(s), 0 graph break(s), 3 op(s), captured in ")
    assert head.endswith(" ms")
    assert "  %0 = matmul(x, w)  # f64[4,5]" in rest
    assert "guards:" in rest and "  x.shape == (4, 3)" in rest
    assert "graph breaks:" not in rest
    assert "compiled entry:" in rest


def test_text_of_a_break_names_file_line_source_and_caller():
    out = md.explain(outer)(np.ones(3))
    text = str(out)
    assert "1 graph break(s)" in text.splitlines()[0]
    line = _line(shout, "SHOUT")
    assert f"  1. test_report.py:{line} in shout: [call] " in text
    assert '    `print("hi")  # SHOUT`' in text
    assert f"inlined from outer ({__file__}:{_line(outer, 'OUTER')})" in text


def test_break_reason_without_location_prints_category_and_message():
    assert str(BreakReason(BreakCategory.UNSUPPORTED, "opcode FOO")) == "[unsupported] opcode FOO"
    r = BreakReason(BreakCategory.DATA_DEPENDENT, "branch on x", filename="/a/b/model.py", lineno=7, function="f",
                    source_line="if x:", stack=["g (/a/b/model.py:3) `f(x)`"])
    assert str(r).splitlines() == ["model.py:7 in f: [data_dependent] branch on x", "    `if x:`",
                                   "    inlined from g (/a/b/model.py:3) `f(x)`"]
    assert r.where() == "model.py:7"


def test_empty_output_says_so():
    out = ExplainOutput("nothing")
    assert (out.graph_count, out.graph_break_count, out.op_count, out.ops_per_graph) == (0, 0, 0, [])
    assert "guards: none" in str(out)


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
