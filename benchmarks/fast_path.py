"""`python -m benchmarks.fast_path [--quick] [--rounds N]`: the default backend's exact fast path (issue 26).

Writes benchmarks/results/fast_path.md. Each row times, interleaved in one run (the order flips every
round), NumPy eager, the compiled function without the fast path (`fast_path=False`: today's code) and
with it at 1 and 2 threads (`threads=N`, more where the machine has more cores); ratios are per round,
medians over the rounds. Every compiled result is checked bit for bit against eager's first. Two tables:
(1) the issue's targets (GELU and a 10-op chain over 4M float32, row softmax and layernorm over
2048x2048 float32: at least 1.8x over eager on 2 cores); (2) graphs the fast path declines or splits
(tiny arrays, BLAS around a region, a transposed input, a reduction over axis 0, a region that warns on
every call), where its cost is the ratio to `fast_path=False` (target: at most 1.02x).
"""

from __future__ import annotations

import argparse
import os
import warnings
from typing import Any, Callable

import numpy as np

import minidynamo as md
from minidynamo.config import Config

from .jax_backend import chain10, gelu, layernorm_rows, softmax_rows   # the kernels of jax.md's rows
from .report import table, write
from .timing import Spread, interleaved, ratios


def tiny(x, w):
    return np.tanh(x @ w) + x


def mlp_relu(x, w1, b1, w2):
    return np.maximum(x @ w1 + b1, 0.0) @ w2


def column_sums(x):
    return (x * 2.0 + 1.0).sum(axis=0)


def warns_every_call(x):
    return np.log(x) * 2.0 + 1.0


def _f32(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape).astype(np.float32)


def target_cases(quick: bool) -> list[tuple[str, Callable, tuple]]:
    rng = np.random.default_rng(0)
    n, rows = (1 << 18, 512) if quick else (1 << 22, 2048)
    return [(f"GELU f32[{n}]", gelu, (_f32(rng, n),)),
            (f"10-op chain f32[{n}]", chain10, (_f32(rng, n),)),
            (f"row softmax f32[{rows},{rows}]", softmax_rows, (_f32(rng, rows, rows),)),
            (f"row layernorm f32[{rows},{rows}]", layernorm_rows,
             (_f32(rng, rows, rows), _f32(rng, rows), _f32(rng, rows)))]


def other_cases(quick: bool) -> list[tuple[str, Callable, tuple]]:
    rng = np.random.default_rng(1)
    rows = 512 if quick else 2048
    bad = np.abs(_f32(rng, rows, rows)) + 1
    bad[rows // 2, 7] = -1.0                    # log(-1): a RuntimeWarning on every call
    return [("tiny np.tanh(x @ w) + x f32[4,8]", tiny, (_f32(rng, 4, 8), _f32(rng, 8, 8))),
            (f"MLP relu f32[{rows},512] (BLAS around a region)", mlp_relu,
             (_f32(rng, rows, 512), _f32(rng, 512, 1024) / 20, _f32(rng, 1024), _f32(rng, 1024, 256) / 30)),
            (f"softmax of a transposed f32[{rows},{rows}] (runs whole)", softmax_rows, (_f32(rng, rows, rows).T,)),
            (f"sum over axis 0 f32[{rows},{rows}]", column_sums, (_f32(rng, rows, rows),)),
            (f"log with a warning every call f32[{rows},{rows}]", warns_every_call, (bad,))]


def _quiet(fn: Callable, args: tuple) -> Callable[[], Any]:
    def call():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args)
    return call


def measure(fn: Callable, args: tuple, threads: list[int], rounds: int, batch_ns: float) -> dict:
    """Interleaved ns per call of eager, fast_path=False and each thread count; bit-identity checked."""
    variants = {"eager": fn, "off": md.compile(fn, options={"fast_path": False})}
    for t in threads:
        variants[f"t{t}"] = md.compile(fn, options={"threads": t})
    want = _quiet(fn, args)()
    for name, v in variants.items():
        got = _quiet(v, args)()
        if got.dtype != want.dtype or got.shape != want.shape or got.tobytes() != want.tobytes():
            raise AssertionError(f"{fn.__name__} ({name}): result differs from eager's bits")
    samples = interleaved({k: _quiet(v, args) for k, v in variants.items()}, rounds, batch_ns)
    return {k: {"ns": Spread.of(s), "speedup": Spread.of(ratios(samples["eager"], s)),
                "vs_off": Spread.of(ratios(s, samples["off"]))} for k, s in samples.items()}


def _cores() -> int:
    return Config().threads


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=None)
    args = ap.parse_args(argv)
    rounds = args.rounds or (5 if args.quick else 21)
    batch_ns = 5e7 if args.quick else 2e8
    threads = sorted({1, 2, _cores()})
    rows, worst = [], []
    for label, fn, inputs in target_cases(args.quick):
        r = measure(fn, inputs, threads, rounds, batch_ns)
        best = r["t2"]["speedup"].median
        rows.append([label, f"{r['eager']['ns'].median / 1e6:.2f}", f"{r['off']['speedup'].median:.2f}×"]
                    + [f"{r[f't{t}']['speedup'].fmt(digits=2, unit='×')}" for t in threads]
                    + ["pass" if best >= 1.8 else "FAIL"])
        print(label, {k: round(v["speedup"].median, 2) for k, v in r.items()}, flush=True)
    others = []
    for label, fn, inputs in other_cases(args.quick):
        r = measure(fn, inputs, threads, rounds, batch_ns)
        cost = max(r[f"t{t}"]["vs_off"].median for t in threads)
        worst.append(cost)
        others.append([label, f"{r['eager']['ns'].median / 1e6:.3f}", f"{r['off']['speedup'].median:.2f}×"]
                      + [f"{r[f't{t}']['vs_off'].fmt(digits=3, unit='×')}" for t in threads]
                      + ["pass" if cost <= 1.02 else "FAIL"])
        print(label, {k: round(v["vs_off"].median, 3) for k, v in r.items()}, flush=True)
    heads = [f"{t} thread{'s' * (t > 1)}" for t in threads]
    body = (f"Interleaved rounds: {rounds} (order flipped each round), medians of per-round ratios with IQR; "
            f"load average at the end {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores shared with other "
            "engineers' jobs, so the thread-scaling figures are noisy. Every variant's result was checked "
            "bit for bit against eager's first.\n\n"
            "## The issue's targets: speed-up over NumPy eager (eager time / compiled time; > 1 is faster)\n\n"
            + table(["graph", "eager ms", "fast_path=False"] + heads + ["≥ 1.8× on 2 threads"], rows)
            + "\n\n## Graphs the fast path declines or splits: compiled time / fast_path=False time "
              "(its own cost; ≤ 1.02×)\n\n"
            + table(["graph", "eager ms", "fast_path=False vs eager"] + heads + ["≤ 1.02×"], others) + "\n")
    print(write("fast_path", "Exact fast path of the default backend (issue 26)", body, args.quick))


if __name__ == "__main__":
    main()
