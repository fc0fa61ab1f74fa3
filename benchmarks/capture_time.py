"""Capture time of whole programs (issue 28): every model of the corpus (benchmarks/corpus), the reported
slow cases (corpus/capture_cases.py: the Newton loop, a LeNet-5 training step), NPBench's NumPy kernels at
their small preset, and a fixed seed range of the fuzzer's programs (tests/fuzz), each compiled fresh and
called as its suite calls it. A case's capture time is the CPU time of every capture its calls made
(the miss path's CompiledState._capture: resume functions and loop bodies included, the runs of the program
itself not), the
median of its repeats. The slowest captures are listed with what they did (symbolic steps, passes,
folds: `CaptureRecord.work`) and the package functions their re-run under cProfile spent most time in.

    python -m benchmarks.capture_time [--quick] [--npbench DIR] [--save FILE] [--baseline FILE]

NPBench is not part of this repository: export it to DIR (default $NPBENCH or /tmp/npbench, e.g. `git
--git-dir=<mirror> archive HEAD | tar -x -C /tmp/npbench`); without it the NPBench rows say so. Each kernel
module `<name>_numpy.py` is imported from the tree and called with the inputs of its `initialize` function at
the preset "S". `--save` writes the per-case figures as JSON; `--baseline` puts such a file's figures (an
earlier commit's, measured the same way) beside this run's.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import copy
import importlib.util
import io
import json
import os
import pathlib
import pstats
import statistics
import sys
import time
import types
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np

import minidynamo as md
from minidynamo import api

from .corpus import MODELS, capture_cases
from .report import RESULTS, table, write
from .timing import Progress, TimeLimit, quiet, time_limit

PACKAGE = str(pathlib.Path(md.__file__).parent)
FUZZ_SEEDS = {True: range(0, 40), False: range(0, 300)}
REPEATS = {True: 1, False: 3}
CASE_LIMIT_S = 240.0        # a case whose calls take longer is reported as over the limit
TARGETS_MS = {"newton": 50.0, "fuzz": 1000.0, "corpus": 10.0, "npbench": 50.0}


@dataclass
class Case:
    suite: str
    name: str
    make: Callable[[], Callable]               # a fresh function object (so each repeat captures anew)
    calls: Callable[[], list[tuple]]           # fresh argument tuples


@dataclass
class Measured:
    suite: str
    name: str
    seconds: float                             # median over repeats of the summed capture seconds
    captures: int
    slowest: tuple = ()                        # (seconds, function, reason, work) of its slowest capture
    equal: bool | None = None                  # compiled results and arguments equal to eager's
    error: str = ""
    hot: str = ""                              # where a profiled re-run spent its time
    samples: list[float] = field(default_factory=list)


# ---- the cases ----------------------------------------------------------------------------------------------

def corpus_cases() -> list[Case]:
    cases = []
    for m in MODELS:
        def calls(m=m):
            return [m.build("small", 0)] + ([m.other("small", 1)] if m.other is not None else [])
        cases.append(Case("corpus", m.name, lambda m=m: _fresh(m.function("small")), calls))
    for name, fn, inputs in capture_cases.CASES:
        cases.append(Case("issue", name, lambda fn=fn: _fresh(fn), lambda inputs=inputs: [inputs(0)]))
    return cases


def _fresh(fn: Callable) -> Callable:
    """A new function object with fn's code, globals, defaults and closure (its own capture cache)."""
    if not isinstance(fn, types.FunctionType):
        return fn
    new = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    new.__kwdefaults__, new.__qualname__ = fn.__kwdefaults__, fn.__qualname__
    return new


def npbench_root(given: str | None) -> pathlib.Path | None:
    root = pathlib.Path(given or os.environ.get("NPBENCH", "/tmp/npbench"))
    return root if (root / "bench_info").is_dir() else None


def _load(path: pathlib.Path, tag: str) -> Any:
    spec = importlib.util.spec_from_file_location(f"___npbench_{tag}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def npbench_cases(root: pathlib.Path) -> list[Case]:
    cases = []
    for info_path in sorted((root / "bench_info").glob("*.json")):
        info = json.loads(info_path.read_text())["benchmark"]
        folder = root / "npbench" / "benchmarks" / info["relative_path"]
        kernel_path = folder / f"{info['module_name']}_numpy.py"
        if not kernel_path.exists():
            continue
        params = dict(info["parameters"]["S"])
        init = info.get("init") or None

        def calls(folder=folder, info=info, params=params, init=init):
            data = dict(params)
            if init:
                module = _load(folder / f"{info['module_name']}.py", info["short_name"] + "_init")
                values = getattr(module, init["func_name"])(*(data[a] for a in init["input_args"]))
                outs = init["output_args"]
                data.update(zip(outs, values if len(outs) > 1 else (values,)))
            return [tuple(data[a] for a in info["input_args"])]

        def make(kernel_path=kernel_path, info=info):
            return getattr(_load(kernel_path, info["short_name"]), info["func_name"])
        cases.append(Case("npbench", info["short_name"], make, calls))
    return cases


def fuzz_cases(seeds: range) -> list[Case]:
    from tests.fuzz import generator as gen, runner
    cases = []
    for seed in seeds:
        program = gen.generate(seed, gen.FEATURES)
        cases.append(Case("fuzz", f"seed {seed}", lambda p=program: runner.load_module(p.source)["f"],
                          runner.program_calls(program)))
    return cases


# ---- measuring ----------------------------------------------------------------------------------------------

def _call_all(fn: Callable, calls: list[tuple]) -> list[tuple]:
    """(result or exception type, arguments after the call) per call, output and warnings swallowed; the
    global RNG is seeded first, so programs that draw from it can be compared with eager."""
    outcomes = []
    np.random.seed(28)
    with quiet(), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for args in calls:
            try:
                outcomes.append((fn(*args), args))
            except Exception as e:     # the program's own exceptions are part of its behaviour
                outcomes.append((type(e).__name__, args))
    return outcomes


def _state(value: Any, depth: int = 4) -> Any:
    """Containers item by item and plain objects by their attributes (each run has its own objects)."""
    if depth == 0:
        return value
    if type(value) in (list, tuple):
        return type(value)(_state(v, depth - 1) for v in value)
    if type(value) is dict:
        return {k: _state(v, depth - 1) for k, v in value.items()}
    if hasattr(value, "__dict__") and not isinstance(value, (type, types.ModuleType, types.FunctionType)) \
            and not callable(value):
        return (type(value).__qualname__, _state(vars(value), depth - 1))
    return value


def _same(a: Any, b: Any) -> bool:
    from tests.fuzz.runner import same
    try:
        return same(_state(a), _state(b), "") is None
    except Exception:      # a value the comparison does not know (compared by identity of type only)
        return type(a) is type(b)


@contextlib.contextmanager
def timed_captures() -> Iterator[list[tuple[Any, float]]]:
    """(CaptureRecord, CPU seconds of its capture) for every capture made in the block: the miss path's
    capture and cache update (CompiledState._capture, wrapped, so the same measurement runs on an earlier
    commit's code). CPU time of the capturing thread, not wall time: the machines are shared."""
    inner, timed = api.CompiledState._capture, []

    def _capture(self: Any, *args: Any, **kwargs: Any) -> Any:
        start, n = time.thread_time(), len(self.records)
        try:
            return inner(self, *args, **kwargs)
        finally:
            if len(self.records) > n:
                timed.append((self.records[-1], time.thread_time() - start))
    api.CompiledState._capture = _capture
    try:
        yield timed
    finally:
        api.CompiledState._capture = inner


def run_case(case: Case, check: bool) -> tuple[float, list, bool | None]:
    """One fresh capture of the case: (capture CPU seconds, its (CaptureRecord, seconds), equal to eager or
    None)."""
    calls = case.calls()
    expected = _call_all(case.make(), copy.deepcopy(calls)) if check else None
    fn = md.compile(case.make())
    with timed_captures() as timed, time_limit(CASE_LIMIT_S):
        got = _call_all(fn, calls)
    md.reset()
    equal = None if expected is None else _same([o[0] for o in expected], [o[0] for o in got]) and \
        _same([o[1] for o in expected], [o[1] for o in got])
    return sum(t for _, t in timed), timed, equal


def measure_case(case: Case, repeats: int) -> Measured:
    samples, records, equal = [], [], None
    try:
        for i in range(repeats):
            seconds, recs, eq = run_case(case, check=(i == 0))
            samples.append(seconds)
            if i == 0:
                records, equal = recs, eq
    except TimeLimit as e:
        return Measured(case.suite, case.name, CASE_LIMIT_S, 0, error=f"calls took {e}", samples=[CASE_LIMIT_S])
    except Exception as e:     # a kernel that cannot run here at all (its own error, not minidynamo's)
        return Measured(case.suite, case.name, float("nan"), 0, error=f"{type(e).__name__}: {e}"[:120])
    top, secs = max(records, key=lambda rt: rt[1], default=(None, 0.0))
    slowest = () if top is None else (secs, top.fn.__qualname__, _reason(top), getattr(top, "work", None))
    return Measured(case.suite, case.name, statistics.median(samples), len(records), slowest, equal,
                    samples=samples)


def _reason(record: Any) -> str:
    reason = record.reason
    if reason is None:
        return "whole frame"
    text = getattr(reason, "message", str(reason))
    return f"break: {text}"[:90]


def hot_spots(case: Case, top: int = 3) -> str:
    """The package functions a profiled re-run of the case spent the most own time in, with their share."""
    profile = cProfile.Profile()
    fn, calls = md.compile(case.make()), case.calls()
    profile.enable()
    try:
        with time_limit(CASE_LIMIT_S):
            _call_all(fn, calls)
    except TimeLimit:
        pass
    finally:
        profile.disable()
        md.reset()
    stats = pstats.Stats(profile, stream=io.StringIO()).stats
    total = sum(s[2] for s in stats.values()) or 1.0
    mine = sorted(((s[2], f"{pathlib.Path(file).name}:{name}") for (file, _, name), s in stats.items()
                   if file.startswith(PACKAGE)), reverse=True)[:top]
    return ", ".join(f"{where} {100 * t / total:.0f}%" for t, where in mine)


SUITES = ("corpus", "issue", "npbench", "fuzz")


def measure(quick: bool, npbench: str | None = None, suites: tuple[str, ...] = SUITES) -> dict:
    root = npbench_root(npbench)
    cases = corpus_cases() + (npbench_cases(root) if root else []) + fuzz_cases(FUZZ_SEEDS[quick])
    cases = [c for c in cases if c.suite in suites]
    progress = Progress("captime", len(cases))
    results = []
    for case in cases:
        repeats = 1 if case.suite == "fuzz" else REPEATS[quick]
        m = measure_case(case, repeats)
        if case.suite == "fuzz" and not quick and m.seconds > 0.25 and not m.error:   # confirm slow ones
            again = [run_case(case, check=False)[0] for _ in range(2)]
            m.samples += again
            m.seconds = statistics.median(m.samples)
        results.append(m)
        progress.step(f"{case.suite} {case.name}: {m.seconds * 1e3:.1f} ms, {m.captures} captures"
                      + (f" ({m.error})" if m.error else ""))
    by_name = {(c.suite, c.name): c for c in cases}
    slow = sorted((m for m in results if not m.error and m.captures), key=lambda m: -m.seconds)[:12 if quick else 20]
    for m in slow:
        m.hot = hot_spots(by_name[(m.suite, m.name)])
    return {"results": results, "npbench": str(root) if root else None}


# ---- reporting ----------------------------------------------------------------------------------------------

def _ms(seconds: float | None) -> str:
    return "—" if seconds is None or seconds != seconds else f"{seconds * 1e3:.1f}"


def _median(values: list[float]) -> float | None:
    values = [v for v in values if v == v]
    return statistics.median(values) if values else None


def targets(results: list[Measured], npbench: str | None) -> list[list[str]]:
    by = lambda suite: [m for m in results if m.suite == suite]  # noqa: E731
    rows = []
    newton = [m for m in by("issue") if m.name.startswith("newton")]
    if newton:
        rows.append(["Newton loop (float32[4], `while err > 1e-8 and k < 22`) under 50 ms",
                     ", ".join(f"{_ms(m.seconds)} ms ({m.name})" for m in newton),
                     "pass" if max(m.seconds for m in newton) * 1e3 < TARGETS_MS["newton"] else "FAIL"])
    if by("fuzz"):
        fuzz = by("fuzz")
        worst = max(fuzz, key=lambda m: m.seconds)
        rows.append([f"no fuzz program over 1 s ({len(fuzz)} programs, seeds {fuzz[0].name[5:]}..{fuzz[-1].name[5:]})",
                     f"slowest {worst.name}: {_ms(worst.seconds)} ms; {sum(m.seconds > 1 for m in fuzz)} over 1 s",
                     "pass" if worst.seconds * 1e3 < TARGETS_MS["fuzz"] else "FAIL"])
    if by("corpus"):
        corpus = _median([m.seconds for m in by("corpus")])
        rows.append([f"corpus median under 10 ms ({len(by('corpus'))} models)", f"{_ms(corpus)} ms",
                     "pass" if corpus is not None and corpus * 1e3 < TARGETS_MS["corpus"] else "FAIL"])
    if by("npbench"):
        npb = _median([m.seconds for m in by("npbench")])
        rows.append([f"NPBench median under 50 ms ({len(by('npbench'))} kernels, preset S)", f"{_ms(npb)} ms",
                     "pass" if npb is not None and npb * 1e3 < TARGETS_MS["npbench"] else "FAIL"])
    elif not npbench:
        rows.append(["NPBench median under 50 ms", "NPBench not found (--npbench DIR)", "not measured"])
    return rows


def render(data: dict, quick: bool, baseline: dict | None) -> str:
    results: list[Measured] = data["results"]
    before = {(b["suite"], b["name"]): b["seconds"] for b in (baseline or {}).get("results", [])}
    old = lambda m: before.get((m.suite, m.name))  # noqa: E731
    text = [table(["target (issue 28)", "measured", "result"], targets(results, data["npbench"])), ""]
    head = ["suite", "cases", "median ms", "90th pct ms", "max ms", "captures", "not equal to eager", "errors"]
    if baseline:
        head[3:3] = [f"median ms before ({baseline.get('commit', '?')})"]
    rows = []
    for suite in ("corpus", "issue", "npbench", "fuzz"):
        ms = [m for m in results if m.suite == suite]
        if not ms:
            continue
        secs = sorted(m.seconds for m in ms if m.seconds == m.seconds)
        p90 = secs[min(len(secs) - 1, int(0.9 * len(secs)))] if secs else None
        row = [suite, len(ms), _ms(_median(secs)), _ms(p90), _ms(max(secs, default=None)),
               sum(m.captures for m in ms), sum(m.equal is False for m in ms), sum(bool(m.error) for m in ms)]
        if baseline:
            row[3:3] = [_ms(_median([old(m) for m in ms if old(m) is not None]))]
        rows.append(row)
    text += [table(head, rows), "",
             "Capture time: the CPU seconds of every capture a case's calls made (symbolic execution, restarts, "
             "folds, guards, the backend's code generation, the dispatcher's update), median of "
             f"{REPEATS[quick]} fresh compiles (fuzz programs: 1, the slow ones 3). Corpus models are called "
             "at size small (and on their other-branch inputs), NPBench kernels once at preset S, fuzz "
             "programs with their 5 calls and size sweep. \"Not equal\": results or arguments after the "
             "calls differ from an eager run (bit for bit).", "", "## Slowest captures", ""]
    slow = sorted((m for m in results if m.hot), key=lambda m: -m.seconds)
    head = ["case", "capture ms", "captures", "slowest capture", "its work", "hot spots (profiled re-run)"]
    if baseline:
        head.insert(2, "before ms")
    rows = []
    for m in slow:
        secs, where, why, work = m.slowest
        row = [f"{m.suite} {m.name}", _ms(m.seconds), m.captures, f"{where}, {_ms(secs)} ms ({why})",
               _work(work), m.hot]
        if baseline:
            row.insert(2, _ms(old(m)))
        rows.append(row)
    text.append(table(head, [[str(c).replace("|", "\\|") for c in r] for r in rows]))
    text += ["", "## Per case (corpus, reported cases, NPBench)", ""]
    head = ["case", "capture ms", "captures", "equal"] + (["before ms"] if baseline else [])
    rows = [[f"{m.suite} {m.name}", _ms(m.seconds) + (f" ({m.error})" if m.error else ""), m.captures,
             {True: "yes", False: "NO", None: "—"}[m.equal]] + ([_ms(old(m))] if baseline else [])
            for m in results if m.suite != "fuzz"]
    text.append(table(head, [[str(c).replace("|", "\\|") for c in r] for r in rows]))
    body = "\n".join(text)
    if not quick:
        write("capture_time", "Capture time: corpus, NPBench, fuzz programs", body, quick)
    return body


def _work(work: Any) -> str:
    if not work:
        return "—"
    return ", ".join(f"{k} {v}" for k, v in work.items() if v)


def save(data: dict, path: str) -> None:
    import subprocess
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=pathlib.Path(__file__).parent).stdout.strip()
    rows = [{"suite": m.suite, "name": m.name, "seconds": m.seconds, "captures": m.captures} for m in data["results"]]
    pathlib.Path(path).write_text(json.dumps({"commit": commit, "results": rows}, indent=1))


def main(quick: bool = False, npbench: str | None = None, save_to: str | None = None,
         baseline: str | None = None, suites: tuple[str, ...] = SUITES) -> dict:
    data = measure(quick, npbench, suites)
    if save_to:
        save(data, save_to)
    if baseline is None and (RESULTS / "capture_time_before.json").exists():
        baseline = str(RESULTS / "capture_time_before.json")
    print(render(data, quick, json.loads(pathlib.Path(baseline).read_text()) if baseline else None))
    return data


if __name__ == "__main__":
    p = argparse.ArgumentParser(prog="python -m benchmarks.capture_time", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--npbench", default=None, help="an exported NPBench tree (default $NPBENCH or /tmp/npbench)")
    p.add_argument("--save", default=None, help="write the per-case figures as JSON")
    p.add_argument("--baseline", default=None, help="a --save file to show beside this run")
    p.add_argument("--suites", default=",".join(SUITES), help="comma-separated subset of " + ", ".join(SUITES))
    a = p.parse_args()
    main(a.quick, a.npbench, a.save, a.baseline, tuple(a.suites.split(",")))
    sys.exit(0)
