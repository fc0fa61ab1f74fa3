"""Sizes: how many captures (and how much capture time) a program costs when its sizes change, per policy.

Sweeps, each run once per `dynamic=` policy in one process: an MLP over batch sizes 1..64, attention over
sequence lengths 5..100, a triangular loop kernel at n=200, and a stateful recurrent layer stepped 50 times
(caches kept in lists, a step counter in a dict). Captures count every cache entry of the function, its
resume functions and loop bodies; capture time is the sum of their capture records. For the recurrent layer
it also reports the warm per-call time against eager after the last capture (medians of interleaved rounds).
Run: `python -m benchmarks.sizes [--quick]`; writes benchmarks/results/sizes.md.
"""

from __future__ import annotations

import statistics
import sys
import warnings

import numpy as np

import minidynamo as md

from . import sizes_torch
from .report import table, write
from .timing import interleaved

RECURRENT_SIZES = ((1, 16), (32, 64))
POLICIES = (("dynamic=False", False), ("default", None), ("dynamic=True", True))


def mlp(x, w1, b1, w2, b2):
    h = np.maximum(x @ w1 + b1, 0.0)
    return h @ w2 + b2


def attention(q, k, v):
    s = q @ k.T / np.sqrt(q.shape[-1])
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    return (p / p.sum(axis=-1, keepdims=True)) @ v


def triangular(C, beta):
    n = C.shape[0]
    for i in range(n):
        C[i, :i + 1] *= beta
    return C


def decode(wte, wpe, tokens):
    """picoGPT's first lines (embedding and positions over the token list), a causal mask and one attention:
    called once per generated token, the list one longer each time."""
    x = wte[tokens] + wpe[range(len(tokens))]
    mask = (1 - np.tri(x.shape[0], dtype=x.dtype)) * -1e10
    s = x @ x.T / np.sqrt(x.shape[-1]) + mask
    e = np.exp(s - s.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ x


def decode_calls(rng: np.random.Generator, steps: int, vocab: int = 50, d: int = 16) -> list[tuple]:
    wte, wpe = rng.standard_normal((vocab, d)), rng.standard_normal((steps + 3, d))
    tokens = [int(t) for t in rng.integers(0, vocab, steps + 3)]
    return [(wte, wpe, tokens[:n]) for n in range(3, steps + 3)]


class Recurrent:
    """A layer in the style of public NumPy model code: per-step caches in lists, a counter in a dict."""

    def __init__(self, batch: int, d: int) -> None:
        rng = np.random.default_rng(0)
        self.W, self.U = rng.random((d, d)) * 0.1, rng.random((d, d)) * 0.1
        self.derived_variables = {"n_timesteps": 0, "C": []}
        self.h = np.zeros((batch, d))

    def step(self, x):
        self.h = np.tanh(x @ self.W + self.h @ self.U)
        self.derived_variables["C"].append(self.h)
        self.derived_variables["n_timesteps"] += 1
        return self.h


def _all_records(fn) -> list:
    state = fn._minidynamo if hasattr(fn, "_minidynamo") else fn.__func__._minidynamo
    records = list(state.records)
    for child in state.children.values():
        inner = getattr(child, "_minidynamo", None)
        if inner is not None:
            records += inner.records
    return records


def _sweep(fn, calls, dynamic) -> tuple[int, float]:
    cfn = md.compile(fn, dynamic=dynamic)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)     # cache limits are part of what we measure
        for args in calls:
            cfn(*args)
    records = _all_records(cfn)
    return len(records), sum(r.seconds for r in records)


def settled_recurrent(dynamic, steps: int, batch: int, d: int) -> tuple:
    """(layer, eager layer, compiled step, an input): the compiled step called `steps` times on fresh inputs."""
    layer, eager_layer = Recurrent(batch, d), Recurrent(batch, d)
    cstep = md.compile(Recurrent.step, dynamic=dynamic)
    xs = [np.random.default_rng(i).random((batch, d)) for i in range(steps)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for x in xs:
            cstep(layer, x)
    return layer, eager_layer, cstep, xs[0]


def _recurrent(dynamic, steps: int, batch: int, d: int) -> tuple[int, float, float]:
    layer, eager_layer, cstep, x = settled_recurrent(dynamic, steps, batch, d)
    records = _all_records(cstep)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        t = interleaved({"eager": lambda: Recurrent.step(eager_layer, x), "compiled": lambda: cstep(layer, x)},
                        rounds=21, batch_ns=2e6)
    ratio = statistics.median(c / e for c, e in zip(t["compiled"], t["eager"]))
    return len(records), sum(r.seconds for r in records), ratio


def block(x, w):
    return np.tanh(x @ w) + x


def overhead(rounds: int) -> str:
    """Warm calls of `np.tanh(x @ w) + x` on f32[4,8]: eager, a static entry, a dynamic entry; medians of
    interleaved rounds, and per-round differences."""
    rng = np.random.default_rng(0)
    x, w = rng.random((4, 8), dtype=np.float32), rng.random((8, 8), dtype=np.float32)
    static, dynamic = md.compile(block, dynamic=False), md.compile(block, dynamic=True)
    static(x, w), dynamic(x, w)
    t = interleaved({"eager": lambda: block(x, w), "static": lambda: static(x, w),
                     "dynamic": lambda: dynamic(x, w)}, rounds=rounds, batch_ns=2e6)
    med = {k: statistics.median(v) for k, v in t.items()}
    diff = statistics.median(d - s for d, s in zip(t["dynamic"], t["static"]))
    ratio = statistics.median(d / e for d, e in zip(t["dynamic"], t["eager"]))
    rows = [["eager", f"{med['eager']:.0f}", "1.00x"],
            ["static entry", f"{med['static']:.0f}", f"{med['static'] / med['eager']:.2f}x"],
            ["dynamic entry (s0, s1, s2, s3)", f"{med['dynamic']:.0f}", f"{ratio:.2f}x"]]
    return (f"Warm overhead, `np.tanh(x @ w) + x` on f32[4,8] ({rounds} interleaved rounds, medians): a dynamic "
            f"entry costs {diff:+.0f} ns per call over a static one (targets: <= +300 ns, <= 1.5x eager).\n\n"
            + table(["variant", "ns per call", "vs eager"], rows) + "\n")


def run(quick: bool = False) -> str:
    rng = np.random.default_rng(0)
    d, hdim = 32, 64
    w1, b1, w2, b2 = rng.random((d, hdim)), rng.random(hdim), rng.random((hdim, 8)), rng.random(8)
    batches = range(1, 65, 7 if quick else 1)
    mlp_calls = [(rng.random((b, d)), w1, b1, w2, b2) for b in batches]
    seqs = range(5, 101, 19 if quick else 1)
    att_calls = [(rng.random((t, 16)), rng.random((t, 16)), rng.random((t, 16))) for t in seqs]
    n = 60 if quick else 200
    tri_calls = [(rng.random((n, n)), 0.5)]
    steps = 12 if quick else 60
    dec_calls = decode_calls(rng, steps)
    rows = []
    for label, policy in POLICIES:
        row = [label]
        for fn, calls in ((mlp, mlp_calls), (attention, att_calls), (triangular, tri_calls), (decode, dec_calls)):
            captures, seconds = _sweep(fn, calls, policy)
            row.append(f"{captures} ({seconds * 1e3:.0f} ms)")
        for batch, d in RECURRENT_SIZES:
            captures, seconds, ratio = _recurrent(policy, 20 if quick else 50, batch, d)
            row.append(f"{captures} ({seconds * 1e3:.0f} ms), warm {ratio:.2f}x eager")
        rows.append(row)
    torch = sizes_torch.available()
    if torch is not None:
        rows.append([f"TorchDynamo {torch.__version__.split('+')[0]}, default"] + sizes_torch.sweeps(
            torch, batches, seqs, triangular, n, RECURRENT_SIZES, 20 if quick else 50, decode=dec_calls))
    note = ("TorchDynamo row: the same programs in torch, `torch.compile(fn, backend=\"eager\", dynamic=None)`; its "
            "captures are the graphs it compiled, its time that of the calls that compiled (sizes_torch.py). "
            + ("" if torch is not None else "_Skipped here: torch is not installed._ ") +
            "To include it (CPU build, Python 3.11): `python3.11 -m venv .venvs/torch311 && .venvs/torch311/bin/pip "
            "install -e . torch==2.13.0`, then `.venvs/torch311/bin/python -m benchmarks.sizes`.")
    header = ["policy", f"MLP, batch 1..64 ({len(mlp_calls)} sizes)", f"attention, length 5..100 "
              f"({len(att_calls)} sizes)", f"triangular loop, n={n}", f"decode, token list 3..{steps + 2}"]
    header += [f"recurrent layer, {20 if quick else 50} steps, batch {b}, d {d}" for b, d in RECURRENT_SIZES]
    body = ("Captures (total capture time) per sweep; every resume function and loop body counts. Targets "
            "(issue 10): <= 3 captures per sweep with the default policy; the triangular body captured once; "
            "the recurrent layer settled within 3 captures, then <= 1.2x eager per call. The decode column "
            "(picoGPT's embedding, positions and causal mask over a Python list of token ids one longer per "
            "call) has no target of its own.\n\n")
    return body + table(header, rows) + "\n\n" + note + "\n\n" + overhead(11 if quick else 41)


if __name__ == "__main__":
    quick = "--quick" in sys.argv
    text = run(quick)
    print(text)
    print(write("sizes", "Sizes: captures per policy when sizes change", text, quick))
