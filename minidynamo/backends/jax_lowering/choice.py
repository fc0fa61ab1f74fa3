"""Which of two exact ways of running a graph is faster on this machine, found by timing the first calls.

Imports nothing of JAX. A graph whose calls may skip the finite checks (bounds.py) has two variants that give
the same results, warnings and exceptions: checked (the finite checks, a pass over each checked result) and
proved (the inputs' magnitudes read before XLA starts, two passes over each float input). Which costs less
depends on the graph (what its checks do to XLA's fusions, inputs' and results' sizes) and on the machine's
load, so a runner alternates them for its first calls and keeps the faster: the first call of each is
dropped (it compiles), the next TRIALS of each are timed and their fastest compared (the least disturbed by other processes). A graph whose checked variant checks intermediate values
(extra XLA outputs that cost fusions) takes the proved variant without trials (`prefer_proved`).
Speed only: both variants keep NumPy's semantics.
"""

from __future__ import annotations

import time
from typing import Any, Callable

TRIALS = 7      # timed calls per variant (tests set 0: always the proved variant)


class Choice:
    """Alternates `proved(inputs)` and `checked(inputs)` until TRIALS timed calls of each, then keeps the
    faster (`settled`: True for proved, False for checked)."""

    def __init__(self, proved: Callable[[tuple], Any], checked: Callable[[tuple], Any],
                 prefer_proved: bool = False) -> None:
        self.variants = (checked, proved)
        self.times: tuple[list[float], list[float]] = ([], [])
        self.settled: bool | None = True if TRIALS == 0 or prefer_proved else None

    def __call__(self, inputs: tuple) -> Any:
        if self.settled is not None:
            return self.variants[self.settled](inputs)
        use = len(self.times[True]) <= len(self.times[False])
        start = time.perf_counter()
        got = self.variants[use](inputs)
        self.times[use].append(time.perf_counter() - start)
        if min(len(t) for t in self.times) > TRIALS:        # warm-up + TRIALS each
            checked, proved = (min(t[1:]) for t in self.times)
            self.settled = proved <= checked
        return got
