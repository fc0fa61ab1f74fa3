"""`python -m benchmarks.pythons PYTHON...`: the tables that report a Python (warm overhead, table 1, capture
scaling), run once per interpreter, side by side. Each interpreter runs `python -m benchmarks --only
table1,overhead,capture` into results/python-X.Y/ (its own full tables); results/pythons.md gathers the
target rows of the main tables and of every such folder, one row per Python, so versions compare at a
glance (`python -m benchmarks.pythons` without arguments only gathers). The interpreters run
one after another (never at once: they would time each other's load)."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

from .report import table

ROOT = pathlib.Path(__file__).resolve().parent.parent
RESULTS = pathlib.Path(__file__).parent / "results"
PARTS = "table1,overhead,capture"
# (column, the summary row it reads) from each folder's summary.md
COLUMNS = [("warm overhead, `np.tanh(x @ w) + x`", "warm overhead"), ("corpus overhead", "median overhead"),
           ("table 1: compile correct", "compile correct"), ("capture per op", "capture < 0.5 ms"),
           ("capture scaling (log-log slope)", "capture time grows")]


def run(python: str) -> pathlib.Path:
    """The tables for one interpreter, into results/python-X.Y; returns that folder."""
    version = subprocess.run([python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    out = RESULTS / f"python-{version}"
    env = dict(os.environ, MINIDYNAMO_BENCH_RESULTS=str(out),
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    subprocess.run([python, "-m", "benchmarks", "--only", PARTS], cwd=ROOT, env=env, check=True)
    return out


def _summary(folder: pathlib.Path) -> tuple[str, dict[str, str]]:
    """(the run's header line, {summary row start: measured}) of one folder."""
    text = (folder / "summary.md").read_text(encoding="utf-8")
    header = re.search(r"^_(.*)_$", text, re.M)
    measured = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 3:
            measured[cells[0]] = f"{cells[1]} ({cells[2]})"
    return (header.group(1) if header else ""), measured


def gather() -> str:
    """results/pythons.md from the main tables (results/, `python -m benchmarks`) and every
    results/python-X.Y folder."""
    rows, runs = [], []
    folders = sorted((f for f in RESULTS.glob("python-*") if (f / "summary.md").exists()),
                     key=lambda p: [int(x) for x in p.name[7:].split(".")])
    for folder in [RESULTS, *folders]:
        header, measured = _summary(folder)
        version = re.search(r"Python (\d+\.\d+)", header).group(1) if header else "?"
        where = "the main tables" if folder == RESULTS else f"[{folder.name}/]({folder.name}/)"
        runs.append(f"- {version}: {header}; {where}")
        rows.append([version] + [next((v for k, v in measured.items() if k.startswith(prefix)), "-")
                                 for _, prefix in COLUMNS])
    body = "# Benchmarks per Python\n\n" + "\n".join(runs) + "\n\n" + table(["Python"] + [c for c, _ in COLUMNS], rows)
    path = RESULTS / "pythons.md"
    path.write_text(body + "\n", encoding="utf-8")
    return body


def main(argv: list[str]) -> int:
    for python in argv:
        run(python)
    print(gather())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
