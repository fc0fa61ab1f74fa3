"""`python -m benchmarks.jax_steps [--rows TEXT ...] [--rounds N]`: where a backend="jax" call's time goes,
beside hand-written jax.jit, for the large-array rows of benchmarks.jax_backend (default: the corpus rows).

Prints, per row, interleaved in one process (medians of per-round ratios against hand-written jit): the
backend's call (guards and all), each exact variant the graph's runner chooses among (jax_lowering/choice.py:
checked or proved, magnitudes read before XLA or while it computes, large inputs staged or passed as they
are), and the steps those variants add: reading the float inputs' magnitudes (bounds.py, two NumPy passes),
refilling the staged buffers (staging.py, np.copyto), checking the results (runner.all_finite, one pass).
Which variant the runner keeps is printed last. Writes nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
from typing import Any, Callable

import numpy as np

import minidynamo as md
from minidynamo.backends.jax_lowering import jax_backend

from .corpus import MODELS
from .jax_backend import CORPUS_ROWS, cases, hand_written
from .timing import interleaved, ratios


def _recorded(fn: Callable) -> tuple[Callable, dict]:
    """compile(fn, backend="jax") and a dict that gets the last graph's runner and its inputs."""
    seen: dict[str, Any] = {}

    def backend(graph: Any, example_inputs: Any) -> Callable[..., tuple]:
        run = jax_backend(graph, example_inputs)

        def recording(*inputs: Any) -> tuple:
            seen["inputs"] = inputs
            return run(*inputs)
        seen["run"] = run
        return recording
    return md.compile(fn, backend=backend), seen


def _name(variant: Any) -> str:
    return f"variant {variant.magnitudes.name.lower()}{' staged' if variant.staged else ''}"


def step_candidates(compiled: Callable, args: tuple, run: Any, inputs: tuple) -> dict[str, Callable[[], Any]]:
    """The backend's call, each variant of its runner, and the steps they add (see the module docstring)."""
    from minidynamo.backends.jax_lowering.bounds import magnitude_exponent
    from minidynamo.backends.jax_lowering.runner import all_finite
    from minidynamo.backends.jax_lowering.staging import aligned_empty
    out: dict[str, Callable[[], Any]] = {"backend": lambda: compiled(*args)}
    choice = getattr(run, "choice", None)
    for variant, call in (choice.variants.items() if choice is not None else ()):
        out[_name(variant)] = lambda call=call: call(inputs)
    floats = [x for x in inputs if isinstance(x, np.ndarray) and x.dtype.kind == "f"]
    out["step: magnitudes"] = lambda: [magnitude_exponent(x) for x in floats]
    large = [inputs[i] for i in run.stager.large]
    if large:
        buffers = [aligned_empty(x) for x in large]
        out["step: staging copy"] = lambda: [np.copyto(b, x) for b, x in zip(buffers, large)]
    results = [r for r in _arrays(compiled(*args)) if r.dtype.kind == "f"]
    out["step: result check"] = lambda: all_finite(results)
    return out


def _arrays(value: Any) -> list[np.ndarray]:
    if isinstance(value, np.ndarray):
        return [value]
    if isinstance(value, (tuple, list)):
        return [a for v in value for a in _arrays(v)]
    return []


def row(name: str, fn: Callable, args: tuple, rounds: int, batch_ns: float) -> str:
    compiled, seen = _recorded(fn)
    compiled(*args)
    candidates = {"hand jit": hand_written(fn, args),
                  **step_candidates(compiled, args, seen["run"], seen["inputs"])}
    for call in candidates.values():    # each variant's first call with staged or plain inputs compiles
        for _ in range(2):
            call()
    samples = interleaved(candidates, rounds, batch_ns)
    lines = [f"{name}  (load {os.getloadavg()[0]:.1f})", f"  {'':24} {'ms':>9} {'hand jit / this':>16}"]
    for label, s in samples.items():
        lines.append(f"  {label:24} {statistics.median(s) / 1e6:9.3f} "
                     f"{statistics.median(ratios(samples['hand jit'], s)):15.2f}x")
    choice = getattr(seen["run"], "choice", None)
    kept = choice.kept if choice is not None else None
    lines.append(f"  kept by the runner: {_name(kept) if kept else 'its one way (no choice)'}")
    return "\n".join(lines)


def main(only: list[str] | None, rounds: int) -> None:
    todo = [(n, f, a) for n, f, a in cases(False)]
    todo += [(f"corpus {m.name} (large)", m.function("large"), m.build("large", 0)) for m in MODELS
             if m.name in CORPUS_ROWS]
    for name, fn, args in todo:
        if any(text in name for text in (only or ["corpus"])):
            print(row(name, fn, args, rounds, 3e7), flush=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m benchmarks.jax_steps", description=__doc__)
    parser.add_argument("--rows", nargs="+", metavar="TEXT", help="rows whose name contains one of these "
                        "texts (default: corpus)")
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds (default 15)")
    args = parser.parse_args()
    main(args.rows, args.rounds)
