"""LoopChoice: at an entry that starts loop drivers, whether the rest of the function runs driven (a compiled
body per iteration) or as plain Python, chosen by timing both, as an autotuner does.

Imports cpu_clock only. Why: a loop whose body breaks on every iteration (a data-dependent branch, a
`random.randint`, a slice bounded by array values) pays a driver step, a dispatcher's guards and a graph call
per iteration; when the body's own work is a few µs that costs 2-20x eager's loop, and no graph of such a
body can win it back on the default backend (it calls the same NumPy functions). Both ways compute the same
thing: the plain way calls the uncompiled resume function, which runs the rest of the function exactly as a
compiled one does past the cache limit (drivers.py), so the choice never changes behaviour, only time.

Protocol, per entry call: `t = choice.begin()`, then `choice.end(t, plain(...))` when `t & 1`, else
`choice.end(t, driven(...))`. A token above 1 carries the start time (times are of whole continuations:
this loop, the loops in it, and the rest of the function, the same work either way). The first call is
never timed (it captures the bodies); then both ways are timed twice, alternately, in the thread's CPU time
(see _NS), and the faster by their best times is kept; the other way is re-timed after an interval that
doubles while the choice holds, and that is at least 100 calls per unit of the other way's extra cost, so
each re-check costs about 1% of the calls since the last.
"""

from __future__ import annotations

from . import cpu_clock

_NS = cpu_clock.NS      # the calling thread's CPU time (cpu_clock.py says why)


class LoopChoice:
    """One continuation site's choice: `eager` says which way untimed calls take."""

    __slots__ = ("calls", "eager", "best", "plan", "next_check", "interval", "decisions")
    WARM = 1                  # calls before the first timing (the first call captures)
    KEEP = 3                  # timings kept per way
    FIRST_INTERVAL, MAX_INTERVAL = 16, 4096
    MARGIN = 1.02             # driven must be this much slower for the plain way to win

    def __init__(self) -> None:
        self.calls = 0
        self.eager = False
        self.best: tuple[list[int], list[int]] = ([], [])     # recent times: (driven, plain)
        self.plan: list[int] = []                              # ways still to time, in order
        self.next_check = self.WARM + 1
        self.interval = self.FIRST_INTERVAL
        self.decisions = 0

    def begin(self) -> int:
        """0 or 1 (driven / plain, untimed), or (start time << 1 | way) for a timed call."""
        self.calls += 1
        if self.calls < self.next_check:
            return int(self.eager)
        if not self.plan:
            other, current = int(not self.eager), int(self.eager)
            self.plan = [0, 1, 0, 1] if not self.decisions else [other, current]
        try:
            way = self.plan.pop(0)
        except IndexError:          # another thread took the last planned way meanwhile: untimed
            return int(self.eager)
        return (_NS() << 1) | way

    def end(self, token: int, result: object) -> object:
        if token > 1:
            elapsed = _NS() - (token >> 1)
            times = self.best[token & 1]
            times.append(elapsed)
            del times[:-self.KEEP]
            if not self.plan:
                self._decide()
        return result

    def _decide(self) -> None:
        if not (self.best[0] and self.best[1]):    # a timed call raised before end(): time its way again
            self.plan = [0 if not self.best[0] else 1]
            return
        driven, plain = min(self.best[0]), min(self.best[1])
        eager = plain * self.MARGIN < driven
        if self.decisions and eager == self.eager:
            self.interval = min(self.MAX_INTERVAL, self.interval * 2)
        else:
            self.interval = self.FIRST_INTERVAL
        self.eager = eager
        self.decisions += 1
        loser, winner = max(driven, plain), max(1, min(driven, plain))
        wait = max(self.interval, int(100 * (loser / winner - 1)))
        self.next_check = self.calls + 1 + min(self.MAX_INTERVAL, wait)

    def __repr__(self) -> str:
        way = "plain Python" if self.eager else "driven"
        return f"<LoopChoice {way} after {self.decisions} decision(s), {self.calls} call(s)>"
