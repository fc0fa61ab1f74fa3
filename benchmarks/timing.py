"""Timing helpers shared by the tables: side-by-side (interleaved) timing, medians with IQR, time limits.

The machines are shared and noisy, so a ratio is never formed from two separate runs: `interleaved` times
each candidate for one short batch in turn, round after round, and the ratio is taken per round.
"""

from __future__ import annotations

import contextlib
import io
import signal
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Callable, Iterator

perf_ns = time.perf_counter_ns


@dataclass
class Spread:
    """Median and interquartile range of a list of samples."""

    median: float
    q1: float
    q3: float
    n: int

    @staticmethod
    def of(samples: list[float]) -> "Spread":
        s = sorted(samples)
        if len(s) == 1:
            return Spread(s[0], s[0], s[0], 1)
        q = statistics.quantiles(s, n=4, method="inclusive")
        return Spread(statistics.median(s), q[0], q[2], len(s))

    @property
    def iqr(self) -> float:
        return self.q3 - self.q1

    def fmt(self, scale: float = 1.0, digits: int = 2, unit: str = "") -> str:
        return f"{self.median * scale:.{digits}f}{unit} (IQR {self.q1 * scale:.{digits}f}–{self.q3 * scale:.{digits}f})"


def calibrate(fn: Callable[[], object], target_ns: float) -> int:
    """timeit's autorange: the number of calls per batch that takes at least target_ns."""
    number = 1
    while True:
        start = perf_ns()
        for _ in range(number):
            fn()
        if perf_ns() - start >= target_ns or number >= 1 << 20:
            return number
        number *= 2 if perf_ns() - start > target_ns / 10 else 10


def interleaved(candidates: dict[str, Callable[[], object]], rounds: int, batch_ns: float,
                clock: Callable[[], int] = perf_ns) -> dict[str, list[float]]:
    """ns per call of each candidate, one sample per round; candidates alternate within every round (and the
    order flips each round) so drifting machine load hits them alike. `clock`: time.process_time_ns counts
    this process's CPU time only (on a shared machine wall time also counts other programs' turns)."""
    number = max(1, min(calibrate(fn, batch_ns) for fn in candidates.values()))
    names = list(candidates)
    samples: dict[str, list[float]] = {n: [] for n in names}
    for r in range(rounds):
        for name in (names if r % 2 == 0 else names[::-1]):
            fn = candidates[name]
            start = clock()
            for _ in range(number):
                fn()
            samples[name].append((clock() - start) / number)
    return samples


def ratios(a: list[float], b: list[float]) -> list[float]:
    """Per-round ratios a/b of two interleaved sample lists."""
    return [x / y for x, y in zip(a, b) if y > 0]


class TimeLimit(Exception):
    """A model took longer than its budget under one front end."""


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise TimeLimit after `seconds` (SIGALRM; main thread only, else no limit)."""
    if not hasattr(signal, "setitimer") or seconds <= 0:
        yield
        return

    def on_alarm(signum, frame):
        raise TimeLimit(f"over {seconds:g} s")

    try:
        old = signal.signal(signal.SIGALRM, on_alarm)
    except ValueError:   # not the main thread
        yield
        return
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """Swallow the models' own prints (progress goes to stderr, which stays open)."""
    with contextlib.redirect_stdout(io.StringIO()):
        yield


def one_blas_thread() -> bool:
    """Make NumPy's BLAS run on the calling thread only, for tables timed in process CPU time: OpenBLAS's
    worker threads spin after a call and that spin (not work) was counted, at random, in one call or
    another (gesummv M: 100 or 410 ms per call, the same code). Eager and compiled call the same BLAS,
    so their ratio is the same with one thread. Returns whether a BLAS library was found and set."""
    import ctypes
    import glob
    import os

    import numpy
    folder = os.path.dirname(numpy.__file__)
    found = False
    for path in glob.glob(folder + ".libs/*openblas*") + glob.glob(os.path.join(folder, ".dylibs", "*openblas*")):
        lib = ctypes.CDLL(path)
        for name in ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads",
                     "openblas_set_num_threads64_", "openblas_set_num_threads"):
            setter = getattr(lib, name, None)
            if setter is not None:
                setter(1)
                found = True
                break
    return found


class Progress:
    """One line per step on stderr: `[table1   12/55] attention ...`."""

    def __init__(self, label: str, total: int) -> None:
        self.label, self.total, self.done, self.start = label, total, 0, time.perf_counter()

    def step(self, what: str) -> None:
        self.done += 1
        elapsed = time.perf_counter() - self.start
        print(f"[{self.label:<9} {self.done:>3}/{self.total}] {elapsed:6.1f}s  {what}", file=sys.stderr, flush=True)
