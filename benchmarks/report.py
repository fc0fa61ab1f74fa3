"""Writing results: Markdown tables and, when matplotlib is importable (the `bench` extra), PNG plots."""

from __future__ import annotations

import dataclasses
import datetime
import json
import os
import pathlib
import platform

import numpy as np

# benchmarks.pythons runs the tables once per interpreter, each into its own results/python-X.Y folder.
RESULTS = pathlib.Path(os.environ.get("MINIDYNAMO_BENCH_RESULTS") or pathlib.Path(__file__).parent / "results")


def table(header: list[str], rows: list[list[object]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def machine() -> str:
    return (f"Python {platform.python_version()}, NumPy {np.__version__}, {platform.machine()}, "
            f"{platform.system()}; {datetime.datetime.now().isoformat(timespec='seconds')}")


def write(name: str, title: str, body: str, quick: bool) -> pathlib.Path:
    """Write results/<name>.md; a quick run writes results/quick/<name>.md (ignored by git), so it never
    overwrites a committed full-run table."""
    folder = RESULTS / "quick" if quick else RESULTS
    folder.mkdir(parents=True, exist_ok=True)
    mode = "quick run (`--quick`: small sizes, few repeats)" if quick else "full run"
    path = folder / f"{name}.md"
    path.write_text(f"# {title}\n\n_{mode}; {machine()}_\n\n{body.rstrip()}\n", encoding="utf-8")
    return path


def save_rows(rows: list, path: str) -> None:
    """A part of a split run: its rows (dataclasses) as JSON, rewritten after each row."""
    pathlib.Path(path).write_text(json.dumps([dataclasses.asdict(r) for r in rows], indent=1) + "\n")


def load_items(paths: list[str]) -> list[dict]:
    """The rows saved by save_rows in each of `paths`, as dicts, in order."""
    return [item for path in paths for item in json.loads(pathlib.Path(path).read_text())]


def pyplot():
    """matplotlib.pyplot with a file-only backend, or None when matplotlib is not installed."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    return plt


NO_PLOTS = "_Plots skipped: matplotlib is not installed (`pip install -e '.[bench]'`)._"
