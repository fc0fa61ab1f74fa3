"""The report of a whole run (`python -m minidynamo report script.py`): the captures of every compiled
function, grouped under the function the user compiled (resume functions and loop bodies under theirs)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .html import write_page
from .records import CaptureRecord, ExplainOutput
from .text import plural


def outputs_of_run(records: list[CaptureRecord]) -> list[ExplainOutput]:
    """One ExplainOutput per compiled function, in the order of their first capture."""
    groups: dict[int, tuple[Any, list[CaptureRecord]]] = {}
    for r in records:
        root = r.root if r.root is not None else r.fn
        groups.setdefault(id(root), (root, []))[1].append(r)
    return [ExplainOutput.from_records(root, recs) for root, recs in groups.values()]


def write_run_page(path: Any, script: str, records: list[CaptureRecord], note: str = "") -> Path:
    outputs = outputs_of_run(records)
    return write_page(path, f"run of {script}", outputs, note or plural(len(outputs), "compiled function"))
