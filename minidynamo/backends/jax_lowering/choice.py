"""Which of a graph's exact ways of running is fastest on this machine, found by timing calls, and checked
again now and then.

Imports nothing of JAX. A graph whose calls may skip the finite checks (bounds.py) has several variants that
give the same results, warnings and exceptions (runner.py builds them): checked (the finite checks) or proved
(its inputs' magnitudes read before XLA starts or while XLA computes, two passes over each float input), and
with large inputs either passed to JAX as they are (JAX copies them) or refilled into the buffers the graph
keeps (staging.py). Which costs least depends on the graph, the sizes and the machine's load (beside XLA's
threads the magnitude reads may stall its loops, or run on an idle core), so a runner alternates the variants
for its first calls and keeps the fastest: the first call of each is dropped (it compiles), the next TRIALS
of each (more for cheap graphs: until the trials took TRIAL_SECONDS, at most MAX_TRIALS each) are timed and
their medians compared. Load changes, and a few trials under load can pick the slower
one, so every PERIOD calls (EARLY_PERIOD during the first EARLY_CALLS, when a choice made from a few trials
is likeliest wrong) one other variant (in turn) runs and is timed against the kept one's next call;
a variant whose last DUELS such ratios have a median below SWITCH is kept instead. Each duel costs at most
one slower call in PERIOD; a variant whose trials took FAR times the kept one's or more (the checked
variant of a graph whose proved one computes sin by polynomials: 28 ms against 11) is the challenger only
in every RARE-th duel, and one k * FAR times slower in one of k of its turns there, so that its duels cost
under 2 * FAR kept calls in PERIOD * RARE (XLA can be 100 times slower than NumPy on a loop-heavy graph).
Speed only: every variant keeps NumPy's semantics; ON_NUMPY, the graph's own NumPy code, is one of them
(runner.py adds it last), so a graph where XLA loses runs on NumPy: its results are then NumPy's exactly
(within the backend's tolerance on XLA).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from enum import Enum
from typing import Any, Callable

from ..engine_rng import kept_global_rng

TRIALS = 3      # timed calls per variant after its first (tests set 0: always the first variant) ...
TRIAL_SECONDS, MAX_TRIALS = 0.05, 15    # ... more, up to MAX_TRIALS, while the trials took less than this
PERIOD = 64     # once settled, one call in PERIOD is a duel's (0: never) ...
EARLY_CALLS, EARLY_PERIOD = 1024, 16    # ... one in EARLY_PERIOD for the first EARLY_CALLS calls
DUELS = 5       # ratios a challenger needs before it can replace the kept variant
SWITCH = 0.95   # challenger time / kept time (median of its last DUELS) below which the challenger is kept
FAR, RARE = 2.0, 8      # a variant FAR times slower in the trials challenges in one duel in RARE


class Magnitudes(Enum):
    """When a variant reads its float inputs' magnitudes (bounds.Proof.holds)."""

    BEFORE = "read before XLA starts"
    ALONGSIDE = "read while XLA computes"
    UNREAD = "not read: the finite checks run"


@dataclass(frozen=True)
class Variant:
    magnitudes: Magnitudes
    staged: bool        # large inputs go through the graph's buffers (staging.Stager)
    numpy: bool = False     # the graph's NumPy code instead of XLA (ON_NUMPY)


ON_NUMPY = Variant(Magnitudes.UNREAD, False, numpy=True)    # where XLA loses (dispatch, loops): NumPy itself


class Choice:
    """`choice(inputs)` runs one of `variants` (variant -> callable, the first is the default): see the module
    docstring. `kept` is the variant in use (None during the trials)."""

    def __init__(self, variants: dict[Variant, Callable[[tuple], Any]]) -> None:
        self.variants = variants
        self.order = list(variants)
        self.kept: Variant | None = self.order[0] if TRIALS == 0 or len(self.order) == 1 else None
        self.times: dict[Variant, list[float]] = {v: [] for v in self.order}
        self.ratios: dict[Variant, list[float]] = {v: [] for v in self.order}
        self.calls = 0
        self.duels = 0
        self.far: dict[Variant, int] = {}   # variants whose trials took k * FAR times the best's or more -> k
        self.passed: dict[Variant, int] = {}    # ... and how often their turn in a rare duel was passed over
        self.challenger: tuple[Variant, float] | None = None     # a duel's first half: (variant, its time)

    def settle(self, variant: Variant) -> None:
        """Keep `variant` from now on (until a duel finds a faster one)."""
        self.kept = variant
        self.challenger = None
        for r in self.ratios.values():
            r.clear()

    def __call__(self, inputs: tuple) -> Any:
        if self.kept is None:
            return self._trial(inputs)
        self.calls += 1
        if self.challenger is None and (PERIOD == 0 or self.calls % self._period() or len(self.order) == 1):
            return self.variants[self.kept](inputs)
        return self._duel(inputs)

    def _period(self) -> int:
        return EARLY_PERIOD if self.calls <= EARLY_CALLS else PERIOD

    def _trial(self, inputs: tuple) -> Any:
        use = min(self.order, key=lambda v: len(self.times[v]))     # the first with the fewest calls
        if self.times[use]:
            got, took = self._timed(use, inputs)
        else:
            with kept_global_rng():         # its first call compiles: the engine's first use (engine_rng.py)
                got, took = self._timed(use, inputs)
        self.times[use].append(took)
        done = min(len(t) for t in self.times.values()) - 1        # timed calls after each one's first
        if done >= TRIALS and (done >= MAX_TRIALS or sum(sum(t[1:]) for t in self.times.values()) >= TRIAL_SECONDS):
            medians = {v: statistics.median(self.times[v][1:]) for v in self.order}
            best = min(self.order, key=medians.__getitem__)
            self.far = {v: int(medians[v] / max(medians[best], 1e-12) // FAR) for v in self.order
                        if medians[v] >= FAR * medians[best]}
            self.settle(best)
        return got

    def _duel(self, inputs: tuple) -> Any:
        kept = self.kept
        if self.challenger is None:         # the challenger's call: the next variant after the kept one
            others = self.order[self.order.index(kept) + 1:] + self.order[:self.order.index(kept)]
            self.duels += 1
            near = [v for v in others if v not in self.far]
            if self.duels % RARE == 0:      # now and then any variant, in turn ...
                other = others[(self.duels // RARE) % len(others)]
                self.passed[other] = self.passed.get(other, 0) + 1
                if self.passed[other] < self.far.get(other, 1):     # ... one k * FAR times slower k times rarer
                    return self.variants[kept](inputs)
                self.passed[other] = 0
            elif near:
                other = near[self.duels % len(near)]
            else:                           # every other variant is far slower: no duel this time
                return self.variants[kept](inputs)
            got, took = self._timed(other, inputs)
            self.challenger = (other, took)
            return got
        got, took = self._timed(kept, inputs)        # the kept variant's call right after it
        other, other_took = self.challenger
        self.challenger = None
        if took > 0:
            ratios = self.ratios[other]
            ratios.append(other_took / took)
            del ratios[:-DUELS]
            if len(ratios) == DUELS and statistics.median(ratios) < SWITCH:
                self.settle(other)
        return got

    def _timed(self, variant: Variant, inputs: tuple) -> tuple[Any, float]:
        start = time.perf_counter()
        got = self.variants[variant](inputs)
        return got, time.perf_counter() - start
