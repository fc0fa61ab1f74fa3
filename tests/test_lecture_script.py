"""The course's lecture script runs unchanged against minidynamo through a two-line `graph_lab` shim.

The script lives outside the repository (`../shared/seeds/`, beside the checkout, as on CI); it imports
`graph_lab` (our API) and a `console` module of an earlier lecture (printing helpers), which this test
provides in a few lines of its own. Skipped when the seeds are not beside the checkout.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
SEEDS = sorted((ROOT.parent / "shared" / "seeds").glob("*reflowed.py"))

SHIM = "from minidynamo import F, LazyRunner, TraceError, check_guards, run, trace  # noqa: F401\n"
CONSOLE = '''
def print_header(title):
    print("=" * 20, title)

def print_observations(items):
    for item in items:
        print("-", item)

def print_table(header, rows):
    print(" | ".join(map(str, header)))
    for row in rows:
        print(" | ".join(map(str, row)))
'''


@pytest.mark.skipif(not SEEDS, reason="the lecture seeds are not beside this checkout")
def test_the_lecture_script_runs_unchanged(tmp_path):
    # The script puts its own folder and ../lecture01 on sys.path.
    (tmp_path / "lecture01").mkdir()
    (tmp_path / "lecture01" / "console.py").write_text(CONSOLE, encoding="utf-8")
    (tmp_path / "lecture").mkdir()
    (tmp_path / "lecture" / "graph_lab.py").write_text(SHIM, encoding="utf-8")
    script = tmp_path / "lecture" / "01_tracing.py"
    script.write_text(SEEDS[0].read_text(encoding="utf-8"), encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                          cwd=script.parent)
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "TraceError" in out                      # demo 3: mode "error" raised, naming the branch
    assert "0.0e+00" in out                         # demo 1: graph result equals eager exactly
    assert "[3, 1]" in out                          # demo 3: LazyRunner split into graphs of 3 and 1 ops
    rows = [line for line in out.splitlines() if line.startswith(("1 | ", "3 | "))]
    assert rows == ["1 | 有 | 8 | 1 | 1 | 4", "3 | 有 | 14 | 3 | 3 | 4", "3 | 无 | 11 | 3 | 0 | 4"]
