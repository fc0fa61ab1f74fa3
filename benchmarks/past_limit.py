"""Past the cache limit: what a call costs once a function has more variants than `cache_size_limit`
(issue 9, item 9: at most 1.2x the eager call). Measured side by side with eager (timing.interleaved).

Two workloads on `np.tanh(x @ w) + x` with f32[n,8] inputs, n cycling over more shapes than the cache holds:
- `all misses`: every shape beyond the first 8 is new each call; the dispatcher first runs the original
  function straight after its guards, then, after a whole window without a hit, stops checking guards;
- `1 hit in 4`: a cached shape every 4th call: too few hits to pay for checking guards (mode EAGER);
- `3 hits in 4`: cached shapes 3 calls in 4, so guards stay checked (mode PAST_LIMIT).
"""

from __future__ import annotations

import itertools

import numpy as np

import minidynamo as md

from .report import table, write
from .timing import Spread, interleaved, ratios


def target_fn(x, w):
    return np.tanh(x @ w) + x


def _inputs(rows: list[int]) -> list[tuple]:
    w = np.ones((8, 8), np.float32) * 0.1
    return [(np.ones((n, 8), np.float32), w) for n in rows]


def measure(rows: list[int], rounds: int, batch_ns: float) -> dict:
    compiled = md.compile(target_fn, options={"cache_size_limit": 8})
    calls = _inputs(rows)
    for n in range(1, 9):                      # fill the cache
        compiled(*_inputs([n])[0])
    for args in calls * 80:                    # past the limit, into the steady state
        compiled(*args)
    eager_cycle, compiled_cycle = itertools.cycle(calls), itertools.cycle(calls)
    samples = interleaved({"eager": lambda: target_fn(*next(eager_cycle)),
                           "compiled": lambda: compiled(*next(compiled_cycle))}, rounds, batch_ns)
    return {"eager": Spread.of(samples["eager"]), "compiled": Spread.of(samples["compiled"]),
            "ratio": Spread.of(ratios(samples["compiled"], samples["eager"])),
            "mode": md.stats(compiled).mode.value}


def main(quick: bool) -> dict:
    rounds, batch = (15, 2e6) if quick else (41, 2e7)
    results = {"all misses": measure(list(range(9, 17)), rounds, batch),
               "1 hit in 4": measure([1, 9, 10, 11, 2, 12, 13, 14], rounds, batch),
               "3 hits in 4": measure([1, 2, 3, 9, 4, 5, 6, 10], rounds, batch)}
    rows = [[name, f"{r['eager'].median / 1e3:.2f} µs", f"{r['compiled'].median / 1e3:.2f} µs",
             f"{r['ratio'].median:.3f}× (IQR {r['ratio'].q1:.3f}–{r['ratio'].q3:.3f})", r["mode"]]
            for name, r in results.items()]
    body = table(["workload", "eager", "compiled", "compiled / eager (median of rounds)", "dispatcher mode"], rows)
    write("past_limit", "Past the cache limit: cost of a call", __doc__.split("\n\n", 1)[1] + "\n" + body, quick)
    return results


if __name__ == "__main__":
    print(main(quick=True))
