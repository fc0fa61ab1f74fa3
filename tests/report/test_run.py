"""`python -m minidynamo report script.py [args] -o page.html` and report.run: the script runs as __main__
with its own arguments, every compiled function's captures are filed under it (resume functions and loop
bodies included), and the page has an index of them; a failing script still gets its page."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np

import minidynamo as md
from minidynamo import api
from minidynamo.__main__ import _options_last
from minidynamo.report.run import outputs_of_run

from .pages import ROOT, SCRIPT


def _report(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "minidynamo", "report", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)


def test_report_command_writes_one_page_with_an_index(tmp_path):
    page = tmp_path / "run.html"
    done = _report(str(SCRIPT), "10", "-o", str(page))
    assert done.returncode == 0, done.stderr
    assert "noisy: halfway" in done.stdout and "shrink: 7" in done.stdout     # the script saw its argument
    assert f"wrote {page}" in done.stderr
    text = page.read_text()
    index = re.findall(r'<tr><td><a href="#(fn\d+)">([\w.<>]+)</a>', text)
    assert [name for _, name in index] == ["layer", "noisy", "clamp", "shrink"]
    for anchor, _ in index:
        assert f'<section class="function" id="{anchor}">' in text


def test_failing_script_still_gets_a_page(tmp_path):
    script = tmp_path / "fails.py"
    script.write_text("import numpy as np, minidynamo as md\n"
                      "f = md.compile(lambda x: np.tanh(x))\nf(np.ones(3))\nraise ValueError('boom')\n")
    page = tmp_path / "fails.html"
    done = _report(str(script), "-o", str(page))
    assert done.returncode == 1 and "ValueError: boom" in done.stderr
    assert "the script exited with status 1" in page.read_text()


def test_trailing_report_options_are_not_the_scripts():
    assert _options_last(["s.py", "a", "-o", "r.html"]) == ["-o", "r.html", "s.py", "a"]
    assert _options_last(["-o", "r.html", "s.py", "-x"]) == ["-o", "r.html", "s.py", "-x"]
    assert _options_last(["s.py", "-o", "r.html", "--screenshot", "p.png"]) == \
        ["-o", "r.html", "--screenshot", "p.png", "s.py"]


def test_resume_functions_are_filed_under_their_function():
    def branchy(x):
        if x.sum() > 0:
            return x * 2.0
        return x - 1.0

    def plain(x):
        return np.tanh(x)

    with api.record_run() as records:
        b, p = md.compile(branchy), md.compile(plain)
        b(np.ones(3)), b(-np.ones(3)), p(np.ones(3)), b(np.ones(3))
    outputs = outputs_of_run(records)
    assert [o.function for o in outputs] == [branchy.__qualname__, plain.__qualname__]
    assert len(outputs[0].records) == 3 and len(outputs[1].records) == 1
    assert all(r.root is branchy for r in outputs[0].records)
    line = branchy.__code__.co_firstlineno + 1
    assert outputs[0].records[2].failed_guards == [f"the condition of `if x.sum() > 0:` (line {line}): expected True, "
                                                   "got False"]
