"""Replays every shrunk fuzz reproducer in tests/fuzz/regressions/ differentially (eager vs compiled).

Each file holds SOURCE (a tiny module defining f), make_calls() (argument tuples) and MISMATCH (the class
seen when it was found). A failing test here is a known bug: the file is the spec for its fix.
"""

from __future__ import annotations

import pytest

from . import runner

FILES = sorted(runner.REGRESSIONS.glob("r*.py"))


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_regression(path):
    mismatches = runner.replay(path)
    assert not mismatches, f"{path.name}:\n" + "\n".join(str(m) for m in mismatches)
