"""tools/numpy_suite: the pytest plugin really runs test functions through compile(), and the runner's report.

One pytest subprocess (a handful of NumPy's own tests and a small local module): a few seconds.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from tools.numpy_suite import run as suite_run

ROOT = Path(__file__).resolve().parent.parent


TINY = """
import numpy as np
from hypothesis import given, settings, strategies as st

def test_function():
    x = np.arange(6.0)
    y = np.tanh(x) + x
    assert y.shape == (6,) and y.dtype == np.float64

class TestMethods:
    def test_method(self):
        y = np.ones((2, 3)) * 2.0 - 1.0
        assert y.shape == (2, 3)

@settings(max_examples=5, database=None)
@given(st.integers(1, 4))
def test_hypothesis(n):
    assert (np.zeros(n) + 1.0).shape == (n,)

async def test_coroutine():
    pass
"""


@pytest.fixture(scope="module")
def plugin_run(tmp_path_factory) -> tuple[str, dict]:
    """One pytest subprocess with the plugin: a local module of each kind of test function, and two classes
    of NumPy's own tests (test_twodim_base's TestEye and TestFliplr)."""
    tmp = tmp_path_factory.mktemp("numpy_suite")
    (tmp / "test_tiny.py").write_text(TINY)
    numpy_tests = Path(np.__file__).parent / "lib" / "tests" / "test_twodim_base.py"
    results = tmp / "results.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           "-p", "tools.numpy_suite.plugin", "--minidynamo", f"--minidynamo-results={results}",
                           "test_tiny.py", f"{numpy_tests}::TestEye", f"{numpy_tests}::TestFliplr"],
                          cwd=tmp, env=env, capture_output=True, text=True, timeout=120)
    assert results.exists(), proc.stdout + proc.stderr
    return proc.stdout, json.loads(results.read_text())


def test_plugin_wraps_numpy_tests(plugin_run):
    out, data = plugin_run
    m = re.search(r"minidynamo: wrapped (\d+) of (\d+) test functions with compile\(\) \(graph (\d+), ", out)
    assert m, out
    wrapped, ran, with_graph = map(int, m.groups())
    assert 0 < wrapped < ran and with_graph > 0
    assert re.search(r"minidynamo: captures \d+, graphs \d+, ops \d+, breaks \d+", out), out
    numpy_tests = {k: t for k, t in data["tests"].items() if "test_twodim_base.py::" in k}
    assert len(numpy_tests) > 5 and all(t["outcome"] == "passed" for t in numpy_tests.values())
    assert any(t["compiled"] == "graph" and t["ops"] > 0 for t in numpy_tests.values())
    assert len(data["tests"]) == ran
    assert data["meta"]["compiled"] is True and data["meta"]["numpy"] == np.__version__


def test_plugin_kinds_of_test_functions(plugin_run):
    out, data = plugin_run
    tests = {k.split("test_tiny.py::", 1)[1]: v for k, v in data["tests"].items() if "test_tiny.py::" in k}
    for name in ("test_function", "TestMethods::test_method", "test_hypothesis"):
        assert tests[name]["outcome"] == "passed", (name, tests[name], out)
        assert tests[name]["compiled"] == "graph" and tests[name]["ops"] >= 2, (name, tests[name])
    assert tests["test_coroutine"]["compiled"] == "not-compiled"
    assert "generator or coroutine" in tests["test_coroutine"]["note"]
    assert "not compiled 1)" in out and "minidynamo: not compiled: generator or coroutine 1" in out, out


def test_plugin_forces_the_fast_path_on_small_arrays(tmp_path):
    """--minidynamo-fast-path: every region of the tiny tests' graphs runs in blocks (their arrays are far
    below fast_path_min_bytes), and each test records its region calls by outcome."""
    (tmp_path / "test_tiny.py").write_text(TINY)
    results = tmp_path / "results.json"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p",
                           "tools.numpy_suite.plugin", "--minidynamo", "--minidynamo-fast-path",
                           f"--minidynamo-results={results}", "test_tiny.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert results.exists(), proc.stdout + proc.stderr
    data = json.loads(results.read_text())
    tests = {k.split("test_tiny.py::", 1)[1]: v for k, v in data["tests"].items()}
    for name in ("test_function", "TestMethods::test_method"):     # (test_hypothesis's np.zeros(n) + 1.0: no
        assert tests[name]["outcome"] == "passed" and tests[name]["fast_path"] == {"fast": 1}, tests[name]
    assert tests["test_hypothesis"]["outcome"] == "passed"          # region: NumPy's own temporary elision)
    assert data["meta"]["fast_path"]["fast"] == sum(t["fast_path"].get("fast", 0) for t in tests.values())
    assert re.search(r"minidynamo: fast-path region calls by outcome: fast \d+", proc.stdout), proc.stdout


def test_runner_report():
    eager = {"meta": {"python": "3.x", "numpy": "2.x", "date": "today"}, "status": "exit 1: x", "seconds": 1.0,
             "tests": {"a": {"outcome": "passed"}, "b": {"outcome": "passed"}, "c": {"outcome": "failed"},
                       "d": {"outcome": "skipped"}}}
    compiled = {**eager, "tests": {
        "a": {"outcome": "passed", "compiled": "graph", "breaks": 1, "graphs": 2},
        "b": {"outcome": "failed", "compiled": "no-ops", "error": "AssertionError: 1 != 2", "note": ""},
        "c": {"outcome": "failed", "compiled": "eager"}, "d": {"outcome": "skipped", "compiled": ""}}}
    cmp = suite_run.compare(eager, compiled)
    assert (cmp["ran"], cmp["passed"], cmp["still"]) == (3, 2, 1)
    assert cmp["broken"] == {"b": "failed: AssertionError: 1 != 2"}
    assert cmp["kinds"] == Counter({"graph": 1, "no-ops": 1})
    text = suite_run.report([("mod", eager, compiled, cmp)])
    assert "50.0%" in text and "failures only compiled (1):" in text and "AssertionError: 1 != 2" in text
    assert "fast path forced" not in text


def test_runner_report_with_the_fast_path_forced():
    eager = {"meta": {}, "status": "exit 1: x", "seconds": 1.0,
             "tests": {"a": {"outcome": "passed"}, "b": {"outcome": "passed"}}}
    compiled = {"meta": {"fast_path": {"fast": 5, "layout": 1}}, "status": "exit 1: x", "seconds": 1.0, "tests": {
        "a": {"outcome": "passed", "compiled": "graph", "fast_path": {"fast": 3}},
        "b": {"outcome": "failed", "compiled": "graph", "error": "AssertionError", "fast_path": {"fast": 2, "layout": 1}}}}
    text = suite_run.report([("mod", eager, compiled, suite_run.compare(eager, compiled))])
    assert "region calls by outcome: fast 5, layout 1" in text
    assert "[fast-path region calls: {'fast': 2, 'layout': 1}]" in text


if __name__ == "__main__":
    sys.exit(pytest.main([__file__, "-q"]))
