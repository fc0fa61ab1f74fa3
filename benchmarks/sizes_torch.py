"""The sizes sweeps (benchmarks/sizes.py) under TorchDynamo, where torch is installed (optional).

The same five programs written with torch tensors, run through `torch.compile(fn, backend="eager",
dynamic=None)` (the default: automatic dynamic), on the same sizes. Captures are the graphs TorchDynamo
compiled (`torch._dynamo.utils.counters["stats"]["unique_graphs"]`); capture time is the wall time of the
calls that compiled something (their run time included, which is small next to compiling). Torch is
imported only here and only when `available()` finds it: nothing else in the project needs it.
Setup (CPU build, Python 3.11): `python -m venv .venvs/torch311 && .venvs/torch311/bin/pip install -e .
torch==2.13.0`.
"""

from __future__ import annotations

import logging
import math
import statistics
import time
import warnings
from typing import Any, Callable

from .timing import interleaved


def available() -> Any:
    try:
        import torch
    except ImportError:
        return None
    return torch


def _mlp(torch):
    def mlp(x, w1, b1, w2, b2):
        h = torch.clamp(x @ w1 + b1, min=0.0)
        return h @ w2 + b2
    return mlp


def _attention(torch):
    def attention(q, k, v):
        s = q @ k.T / math.sqrt(q.shape[-1])
        p = torch.exp(s - s.amax(dim=-1, keepdim=True))
        return (p / p.sum(dim=-1, keepdim=True)) @ v
    return attention


def _decode(torch):
    def decode(wte, wpe, tokens):
        x = wte[tokens] + wpe[list(range(len(tokens)))]
        n = x.shape[0]
        mask = (1 - torch.tril(torch.ones((n, n), dtype=x.dtype))) * -1e10
        s = x @ x.T / math.sqrt(x.shape[-1]) + mask
        e = torch.exp(s - s.amax(dim=-1, keepdim=True))
        return (e / e.sum(dim=-1, keepdim=True)) @ x
    return decode


class Recurrent:
    """benchmarks.sizes.Recurrent with torch tensors: per-step caches in a list, a step counter in a dict."""

    def __init__(self, torch, batch: int, d: int) -> None:
        g = torch.Generator().manual_seed(0)
        self.W = torch.rand((d, d), generator=g, dtype=torch.float64) * 0.1
        self.U = torch.rand((d, d), generator=g, dtype=torch.float64) * 0.1
        self.derived_variables = {"n_timesteps": 0, "C": []}
        self.h = torch.zeros((batch, d), dtype=torch.float64)
        self._tanh = torch.tanh

    def step(self, x):
        self.h = self._tanh(x @ self.W + self.h @ self.U)
        self.derived_variables["C"].append(self.h)
        self.derived_variables["n_timesteps"] += 1
        return self.h


def _graphs(torch) -> int:
    return int(torch._dynamo.utils.counters["stats"]["unique_graphs"])


def _timed_sweep(torch, fn: Callable, calls: list) -> tuple[int, float]:
    """(graphs compiled, seconds spent in the calls that compiled) for one fresh torch.compile of fn."""
    torch._dynamo.reset()
    cfn = torch.compile(fn, backend="eager", dynamic=None)
    before, seconds = _graphs(torch), 0.0
    for args in calls:
        seen, start = _graphs(torch), time.perf_counter()
        cfn(*args)
        if _graphs(torch) != seen:
            seconds += time.perf_counter() - start
    return _graphs(torch) - before, seconds


def sweeps(torch, mlp_sizes, att_sizes, triangular: Callable, n: int, recurrent_sizes, steps: int, d: int = 32,
           hdim: int = 64, decode: list | None = None) -> list[str]:
    """One table row: the cells of the sizes table for TorchDynamo's default policy (`triangular` is
    benchmarks.sizes.triangular itself: plain indexing, the same code on tensors)."""
    torch.set_num_threads(1)
    logging.getLogger("torch._dynamo").setLevel(logging.ERROR)     # its recompile-limit warnings are data here
    g = torch.Generator().manual_seed(0)
    rand = lambda *shape: torch.rand(shape, generator=g, dtype=torch.float64)   # noqa: E731
    w1, b1, w2, b2 = rand(d, hdim), rand(hdim), rand(hdim, 8), rand(8)
    cells = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for fn, calls in ((_mlp(torch), [(rand(b, d), w1, b1, w2, b2) for b in mlp_sizes]),
                          (_attention(torch), [(rand(t, 16), rand(t, 16), rand(t, 16)) for t in att_sizes]),
                          (triangular, [(rand(n, n), 0.5)]),
                          (_decode(torch), [(torch.from_numpy(a), torch.from_numpy(b), t) for a, b, t in decode or []])):
            graphs, seconds = _timed_sweep(torch, fn, calls)
            cells.append(f"{graphs} ({seconds * 1e3:.0f} ms)")
        for batch, dim in recurrent_sizes:
            cells.append(_recurrent(torch, steps, batch, dim))
    torch._dynamo.reset()
    return cells


def _recurrent(torch, steps: int, batch: int, d: int) -> str:
    layer, eager_layer = Recurrent(torch, batch, d), Recurrent(torch, batch, d)
    g = torch.Generator().manual_seed(1)
    xs = [torch.rand((batch, d), generator=g, dtype=torch.float64) for _ in range(steps)]
    torch._dynamo.reset()
    cstep = torch.compile(Recurrent.step, backend="eager", dynamic=None)
    before, seconds = _graphs(torch), 0.0
    for x in xs:
        seen, start = _graphs(torch), time.perf_counter()
        cstep(layer, x)
        if _graphs(torch) != seen:
            seconds += time.perf_counter() - start
    graphs, x = _graphs(torch) - before, xs[0]
    t = interleaved({"eager": lambda: Recurrent.step(eager_layer, x), "compiled": lambda: cstep(layer, x)},
                    rounds=21, batch_ns=2e6)
    ratio = statistics.median(c / e for c, e in zip(t["compiled"], t["eager"]))
    return f"{graphs} ({seconds * 1e3:.0f} ms), warm {ratio:.2f}x eager"
