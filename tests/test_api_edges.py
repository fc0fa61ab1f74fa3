"""Edges of the public API (issue 28 item 8): a bad argument raises at the call, naming the argument and
what it accepts; a missing extra says what to install; the error of a loop too long for fullgraph names the
knob. Each test failed before."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import minidynamo as md
from minidynamo.backends import register_backend

ROOT = Path(__file__).resolve().parent.parent


def f(x):
    return x + 1.0


@pytest.mark.parametrize("value", ["yes", 1, 0, None, np.True_])
def test_fullgraph_must_be_a_bool(value):
    for call in (lambda: md.compile(f, fullgraph=value), lambda: md.compile(fullgraph=value)):
        with pytest.raises(TypeError, match=r"compile\(fullgraph=\.\.\.\) must be True or False, got "):
            call()


@pytest.mark.parametrize("value", [1, 0, "auto"])
def test_dynamic_must_be_none_or_a_bool(value):     # (1 and 0 used to pass as True and False)
    with pytest.raises(TypeError, match=r"compile\(dynamic=\.\.\.\) must be None, True or False"):
        md.compile(f, dynamic=value)


def test_options_must_be_a_dict():
    with pytest.raises(TypeError, match=r"compile\(options=\.\.\.\) must be a dict of config option names"):
        md.compile(f, options=[("unroll_limit", 3)])


def test_config_patch_fails_at_the_call_not_at_with():
    with pytest.raises(TypeError, match="unknown config option.*unknown"):
        md.config.patch(unknown=1)
    with pytest.raises(TypeError, match="cache_size_limit must be an int"):
        md.config.patch(cache_size_limit="8")
    before = md.config.current()
    with md.config.patch(unroll_limit=3) as cfg:
        assert cfg.unroll_limit == 3 == md.config.current().unroll_limit
    assert md.config.current() == before


def test_other_entry_points_name_their_bad_argument():
    with pytest.raises(TypeError, match=r"register_backend\(name, fn\): name must be a non-empty str"):
        register_backend(3, lambda graph, inputs: None)
    with pytest.raises(TypeError, match=r"run\(graph, inputs\): graph must be a Graph"):
        md.run(3, [])
    with pytest.raises(TypeError, match=r"check_guards\(graph, inputs\): graph must be a Graph"):
        md.check_guards("g", {})
    with pytest.raises(TypeError, match=r"trace\(fn, input_shapes\): fn must be callable"):
        md.trace(3, {"x": (3,)})


def test_fullgraph_loop_error_names_unroll_limit():
    def steps(x):
        for i in range(100):
            x = x + i
        return x
    with pytest.raises(md.GraphBreakError, match="unroll_limit") as info:
        md.compile(steps, fullgraph=True, options={"fori_loops": False})(np.ones(3))     # (else a fori_loop)
    assert "loop ran 64 iterations" in str(info.value)
    out = md.compile(steps, fullgraph=True, options={"unroll_limit": 200})(np.ones(3))   # the knob works
    np.testing.assert_array_equal(out, steps(np.ones(3)))


def test_report_screenshot_without_selenium_says_what_to_install(tmp_path):
    script = tmp_path / "prog.py"
    ran = tmp_path / "ran"
    script.write_text(f"open({str(ran)!r}, 'w').close()\n")
    code = ("import sys; sys.modules['selenium'] = None\n"       # as in a venv without the report extra
            "from minidynamo.__main__ import main\n"
            f"sys.exit(main(['report', {str(script)!r}, '-o', {str(tmp_path / 'r.html')!r}, "
            f"'--screenshot', {str(tmp_path / 'r.png')!r}]))\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "--screenshot needs headless Chromium" in proc.stderr and "pip install 'minidynamo[report]'" in proc.stderr
    assert not ran.exists()                     # said before the script ran, not after
