"""benchmarks.pythons gathers the target rows of the main tables and of each results/python-X.Y folder into
one table with a row per Python (the runs themselves are benchmarks, not tests)."""

from __future__ import annotations

from benchmarks import pythons

SUMMARY = """# Benchmark summary: targets

_full run; Python {v}, NumPy 2.5.5, x86_64, Linux; 2026-12-02T02:42:39_

| target (issue 5) | measured | result |
|---|---|---|
| warm overhead of `np.tanh(x @ w) + x` (f32[4,8]) ≤ 1.5 µs | +0.41 µs, 1.32× eager | pass |
| compile correct on 100% of the corpus | {n}/86 | pass |
"""


def test_one_row_per_python_main_tables_first(tmp_path, monkeypatch):
    monkeypatch.setattr(pythons, "RESULTS", tmp_path)
    (tmp_path / "summary.md").write_text(SUMMARY.format(v="3.11.7", n=86))
    for v, n in (("3.15", 85), ("3.14", 86)):
        (tmp_path / f"python-{v}").mkdir()
        (tmp_path / f"python-{v}" / "summary.md").write_text(SUMMARY.format(v=v + ".1", n=n))
    (tmp_path / "python-3.16").mkdir()                   # a run that has not finished: no summary yet
    body = pythons.gather()
    rows = [line for line in body.splitlines() if line.startswith("| 3.")]
    assert [r.split(" | ")[0] for r in rows] == ["| 3.11", "| 3.14", "| 3.15"]
    assert "85/86 (pass)" in rows[2] and "+0.41 µs, 1.32× eager (pass)" in rows[1]
    assert rows[0].count(" - ") == 3                     # columns its summary does not have
    assert (tmp_path / "pythons.md").read_text() == body + "\n"
