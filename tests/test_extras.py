"""A fresh clone with only the `test` extra: every test of an optional engine (jax, dask, the browser)
skips with the command that installs it, and nothing fails to collect. One pytest subprocess with the
engines made unimportable (tests/without_extras.py), over the whole suite's collection and the tests
that name an engine: about 10 s."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ENGINE_TESTS = "(jax or dask or browser or engine) and not test_extras"   # never this test itself


def test_tests_of_missing_engines_skip_with_the_install_hint():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider",
                           "-p", "tests.without_extras", "-k", ENGINE_TESTS, "tests"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out[-4000:]
    skips = [line for line in out.splitlines() if line.startswith("SKIPPED")]
    assert skips and int(re.search(r"(\d+) skipped", out).group(1)) > 100, out[-4000:]
    assert [s for s in skips if "pip install" not in s] == []
