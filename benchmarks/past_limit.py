"""Past the cache limit: what a call costs once a function has more variants than `cache_size_limit`
(issue 9, item 9: at most 1.2x the eager call). Measured side by side with eager (timing.interleaved).

Workloads on `np.tanh(x @ w) + x` with [4,8] inputs whose dtype cycles over more dtypes than the cache holds
(a new dtype is always a new variant, whatever the dynamic-shape policy):
- `all misses`: only dtypes beyond the first 8 are passed; the dispatcher first runs the original
  function straight after its guards, then, after a whole window without a hit, stops checking guards;
- `1 hit in 4`: a cached dtype every 4th call: too few hits to pay for checking guards (mode EAGER);
- `3 hits in 4`: cached dtypes 3 calls in 4: enough hits to try, so a trial (minidynamo/dispatch/mode_trial.py) times
  guarded calls against plain ones; a hit's graph calls the same NumPy functions as eager, and the guards
  of the entries that fail cost more than that saves, so the plain way wins (mode EAGER; before the trial
  the guards stayed: 2.0x eager in CPU time on 2026-12-02);
- `3 hits in 4, hits save work`: the same with Python work the capture folds into a constant (a sort with
  a key function): the guarded way wins its trials and the guards stay (mode PAST_LIMIT).
Times are this process's CPU time (the machine is shared).
"""

from __future__ import annotations

import itertools
import time

import numpy as np

import minidynamo as md

from .report import table, write
from .timing import Spread, interleaved, ratios


def target_fn(x, w):
    return np.tanh(x @ w) + x


def saving_fn(x, w):
    k = sorted(range(200), key=lambda i: i * i % 11)[-1]      # folded into a constant by the capture
    return np.tanh(x @ w) + x * (k % 7)


DTYPES = ("float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8",        # cached
          "uint16", "uint32", "uint64", "complex64", "complex128")                               # misses


def _inputs(kinds: list[int]) -> list[tuple]:
    return [(np.ones((4, 8), DTYPES[k]), np.full((8, 8), 0.1, DTYPES[k])) for k in kinds]


def measure(kinds: list[int], rounds: int, batch_ns: float, fn=target_fn) -> dict:
    compiled = md.compile(fn, options={"cache_size_limit": 8})
    calls = _inputs(kinds)
    for args in _inputs(list(range(8))):       # fill the cache
        compiled(*args)
    for args in calls * 80:                    # past the limit, into the steady state
        compiled(*args)
    eager_cycle, compiled_cycle = itertools.cycle(calls), itertools.cycle(calls)
    samples = interleaved({"eager": lambda: fn(*next(eager_cycle)),
                           "compiled": lambda: compiled(*next(compiled_cycle))}, rounds, batch_ns, time.process_time_ns)
    return {"eager": Spread.of(samples["eager"]), "compiled": Spread.of(samples["compiled"]),
            "ratio": Spread.of(ratios(samples["compiled"], samples["eager"])),
            "mode": md.stats(compiled).mode.value}


def main(quick: bool) -> dict:
    rounds, batch = (15, 2e6) if quick else (41, 2e7)
    results = {"all misses": measure([8, 9, 10, 11, 12], rounds, batch),
               "1 hit in 4": measure([0, 8, 9, 10, 1, 11, 12, 8], rounds, batch),
               "3 hits in 4": measure([0, 1, 2, 8, 3, 4, 5, 9], rounds, batch),
               "3 hits in 4, hits save work": measure([0, 1, 2, 8, 3, 4, 5, 9], rounds, batch, saving_fn)}
    rows = [[name, f"{r['eager'].median / 1e3:.2f} µs", f"{r['compiled'].median / 1e3:.2f} µs",
             f"{r['ratio'].median:.3f}× (IQR {r['ratio'].q1:.3f}–{r['ratio'].q3:.3f})", r["mode"]]
            for name, r in results.items()]
    body = table(["workload", "eager", "compiled", "compiled / eager (median of rounds)", "dispatcher mode"], rows)
    write("past_limit", "Past the cache limit: cost of a call", __doc__.split("\n\n", 1)[1] + "\n" + body, quick)
    return results


if __name__ == "__main__":
    print(main(quick=True))
