"""Past the cache limit (PastLimit): what the dispatcher does with misses, and (ModeTrial) whether checking
the cached entries' guards pays for itself, decided by timing calls that check them against calls that run
the original function straight away.

Imports cache and stitch.cpu_clock (calls are timed in the calling thread's CPU time). Why a trial: past
the limit a call that misses runs the original function after
the guards of every entry failed, and a hit runs its graph, which on the default backend calls the same
NumPy functions as eager. So hits win back the guards only where the capture removed Python work (a folded
loop, constants); with eight entries the guards of the ones that fail cost more than the call itself (a
tiny function 2x eager with 3 hits in 4). How often entries hit says little about that, timing does.

Protocol (the dispatcher in cache.Mode.TIMING): `t = trial.begin()`, then the plain call when `t[1]`, else
the guarded one, and `trial.end(t)` in a `finally`. The ways alternate by blocks of BLOCK calls, so inputs
that cycle with a period dividing BLOCK reach both ways alike; after ROUNDS blocks of each way, the way
whose best block was faster is kept (`on_done(trial)`, then `trial.plain_won()`). Both ways compute the same thing (a miss runs
the original function either way), so the choice never changes behaviour, only time.
"""

from __future__ import annotations

from typing import Any, Callable

from ..stitch import cpu_clock
from .cache import FunctionCache, Mode

_NS = cpu_clock.NS      # the calling thread's CPU time, as LoopChoice's (minidynamo/stitch/cpu_clock.py)
HITS_PER_MISS = 3     # past the cache limit, fewer hits per miss than this: stop checking guards


class ModeTrial:
    """One trial: BLOCK calls per block, the ways alternating, ROUNDS blocks of each."""

    __slots__ = ("calls", "ended", "times", "on_done", "fired")
    BLOCK, ROUNDS = 16, 3

    def __init__(self, on_done: Callable[["ModeTrial"], None]) -> None:
        self.calls = 0
        self.ended = 0
        self.times = ([0] * self.ROUNDS, [0] * self.ROUNDS)     # (guarded, plain): ns per block
        self.on_done = on_done
        self.fired = False

    @property
    def total(self) -> int:
        return 2 * self.BLOCK * self.ROUNDS

    def begin(self) -> tuple[int, int, int]:
        """(call number, way: 0 guarded / 1 plain, start time)."""
        k = self.calls
        self.calls = k + 1
        return k, (k // self.BLOCK) & 1, _NS()

    def end(self, token: tuple[int, int, int]) -> None:
        k, way, start = token
        elapsed = _NS() - start
        block = k // (2 * self.BLOCK)
        if block < self.ROUNDS:
            self.times[way][block] += elapsed
        self.ended += 1
        if self.ended >= self.total and not self.fired:   # (>=: calls of other threads may have raced)
            self.fired = True
            self.on_done(self)

    def plain_won(self) -> bool:
        guarded, plain = self.times
        return min(plain) <= min(guarded)


class Schedule:
    """When the next trial is due, counted in past-limit windows: at the first window with enough hits, then
    after an interval that doubles (up to MAX_WAIT) while checking guards keeps winning, since each trial
    costs two dispatcher compilations and its plain blocks."""

    __slots__ = ("wait", "interval")
    MAX_WAIT = 64

    def __init__(self) -> None:
        self.wait, self.interval = 0, 1

    def due(self) -> bool:
        self.wait -= 1
        return self.wait < 0

    def guarded_won(self) -> None:
        self.interval = min(self.MAX_WAIT, self.interval * 2)
        self.wait = self.interval


class PastLimit:
    """One compiled function's state past its cache limit (CompiledState.past_limit; reset() makes a new one)."""

    __slots__ = ("window_start", "schedule", "trial")

    def __init__(self) -> None:
        self.window_start = (0, 0)           # (entry hits, misses) when the last window began
        self.schedule = Schedule()
        self.trial: ModeTrial | None = None

    def window(self, cache: FunctionCache, lock: Any) -> None:
        """A miss past the limit reached the miss path (the first, then every cache.WINDOW-th): misses run
        the original function straight from the dispatcher, and once a window of misses saw fewer than
        HITS_PER_MISS hits per miss the dispatcher stops checking guards (until reset()). With more hits a
        trial times both ways now and then, and the guards stay only while they win."""
        hits, misses = sum(e.hits[0] for e in cache.entries), cache.stats.misses
        if cache.stats.mode is Mode.CAPTURE:
            cache.set_mode(Mode.PAST_LIMIT)
        elif cache.stats.mode is Mode.PAST_LIMIT:
            if hits - self.window_start[0] < HITS_PER_MISS * (misses - self.window_start[1]):
                cache.set_mode(Mode.EAGER)
            elif self.schedule.due():
                self.trial = ModeTrial(lambda trial: self._done(trial, cache, lock))
                cache.start_trial(self.trial)
        self.window_start = (hits, misses)

    def _done(self, trial: ModeTrial, cache: FunctionCache, lock: Any) -> None:
        """The trial's last call ended (inside the dispatcher: nothing may escape into the user's call)."""
        with lock:
            if trial is not self.trial or cache.stats.mode is not Mode.TIMING:   # reset() meanwhile
                return
            self.trial, plain_won = None, trial.plain_won()
            try:
                cache.set_mode(Mode.EAGER if plain_won else Mode.PAST_LIMIT)
            except Exception:      # (a dispatcher that fails to compile: the original function is always right)
                cache.set_mode(Mode.EAGER)
            if not plain_won:
                self.schedule.guarded_won()
