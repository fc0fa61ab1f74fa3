"""The report pages the HTML and browser tests open, with what the IR says each should show: the tour's
programs, corpus models with breaks, recompiles and loops, a script with several compiled functions (run
through `python -m minidynamo report`), and a 1,000-node graph."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

import minidynamo as md
from minidynamo import api, config
from minidynamo.examples.tour_programs import fit_logistic, make_inputs, make_regression, mlp_block, sign_switch
from minidynamo.dispatch.cache import Entry
from minidynamo.graph.ir import ArraySpec, Graph
from minidynamo.guards import GuardSet
from minidynamo.report import CaptureRecord, ExplainOutput
from minidynamo.report.run import outputs_of_run, write_run_page

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(__file__).resolve().parent / "scripts" / "several_functions.py"
CORPUS_MODELS = ("first_hot_row", "spring_chain", "sign_dependent")


@dataclass
class Page:
    name: str
    path: Path
    graphs: list[tuple[int, int]]       # (nodes, ops) of every drawn graph, in page order
    breaks: list[str]                   # the message of every break, in page order
    functions: int
    run: bool = True                    # a run's page (with an index of its functions), not explain's


def expected(outputs: list[ExplainOutput]) -> tuple[list[tuple[int, int]], list[str]]:
    graphs = [(len(r.graph.nodes), r.graph.count()) for o in outputs for r in o.records
              if r.graph is not None and r.graph.count() > 0]
    return graphs, [b.message for o in outputs for b in o.break_reasons]


def _page(name: str, path: Path, outputs: list[ExplainOutput], run: bool = True) -> Page:
    graphs, breaks = expected(outputs)
    return Page(name, path, graphs, breaks, len(outputs), run)


def tour_pages(directory: Path) -> list[Page]:
    x, params = make_inputs()
    runs = {"mlp_block": (mlp_block, (x, params)), "sign_switch": (sign_switch, (x,)),
            "fit_logistic": (fit_logistic, (*make_regression(), 0.05))}
    pages = []
    for name, (fn, args) in runs.items():
        out = md.explain(fn)(*args)
        out.to_html(directory / f"{name}.html")
        pages.append(_page(name, directory / f"{name}.html", [out], run=False))
    return pages


def corpus_pages(directory: Path) -> list[Page]:
    sys.path.insert(0, str(ROOT))
    try:
        from benchmarks.corpus import MODELS
    finally:
        sys.path.remove(str(ROOT))
    pages = []
    for model in (m for m in MODELS if m.name in CORPUS_MODELS):
        with api.record_run() as records:
            fn = md.compile(model.function("small"))
            fn(*model.build("small", 0))
            fn(*model.build("small", 1))
            fn(*model.other("small", 0))
        path = write_run_page(directory / f"{model.name}.html", model.name, records)
        pages.append(_page(model.name, path, outputs_of_run(records)))
    return pages


def script_page(directory: Path) -> tuple[Page, subprocess.CompletedProcess]:
    """The script run through the command line (so the test covers it), and the page it wrote."""
    path = directory / "script.html"
    done = subprocess.run([sys.executable, "-m", "minidynamo", "report", str(SCRIPT), "2", "-o", str(path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    # the same run in this process: what the page should show (with the command line's default config)
    with api.record_run() as records, config.patch(auto_cond=config.Config().auto_cond):
        saved = sys.argv
        sys.argv = [str(SCRIPT), "2"]
        try:
            exec(compile(SCRIPT.read_text(), str(SCRIPT), "exec"), {"__name__": "__main__"})
        finally:
            sys.argv = saved
    return _page("script", path, outputs_of_run(records)), done


def chain_graph(n: int) -> Graph:
    """A graph of n nodes: one input and n - 1 ops, each reading the previous two (a long, narrow DAG)."""
    g = Graph("chain")
    spec = ArraySpec((8,), np.float64)
    prev = [g.add_input("x", spec)]
    for i in range(n - 1):
        args = (prev[-1], prev[-2]) if len(prev) > 1 and i % 3 == 0 else (prev[-1],)
        prev.append(g.call("add" if len(args) == 2 else "tanh", np.add if len(args) == 2 else np.tanh, args,
                           spec=spec))
    g.set_outputs([prev[-1]])
    return g


def wide_graph(n: int) -> Graph:
    """One input and n ops that each read it: one layer n nodes wide."""
    g = Graph("wide")
    spec = ArraySpec((8,), np.float64)
    x = g.add_input("x", spec)
    g.set_outputs([g.call("tanh", np.tanh, (x,), spec=spec) for _ in range(n)])
    return g


def fit_page(directory: Path) -> Page:
    """A wide graph (40 nodes in one layer) and a tall one (a chain of 80): both must fit their box."""
    entry = Entry(GuardSet(), ["return ___o[0]"], {}, "e0")
    records = [CaptureRecord(wide_graph, entry, wide_graph(40), None, 0.0),
               CaptureRecord(wide_graph, entry, chain_graph(80), None, 0.0)]
    out = ExplainOutput.from_records(wide_graph, records)
    out.to_html(directory / "fit.html")
    return _page("fit", directory / "fit.html", [out], run=False)


def big_page(directory: Path, n: int = 1000) -> Page:
    g = chain_graph(n)
    entry = Entry(GuardSet(), ["return ___o[0]"], {}, "e0")
    out = ExplainOutput.from_records(chain_graph, [CaptureRecord(chain_graph, entry, g, None, 0.0)])
    out.to_html(directory / "big.html")
    return _page("big", directory / "big.html", [out], run=False)
