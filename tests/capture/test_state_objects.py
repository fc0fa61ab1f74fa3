"""State kept between calls in objects a compiled function reads through a global (an optimizer's
types.SimpleNamespace, a module-level counter): a number that changes becomes unspecialized after one
recompile, as an argument does (automatic dynamic), instead of a capture per call to the cache limit."""

import types

import numpy as np
import pytest

import minidynamo as md
from tests.conftest import check

ADAM = types.SimpleNamespace(m=np.zeros(3), v=np.zeros(3), t=0)
STEPS = 0


def adam_step(w, g):
    ADAM.t += 1
    ADAM.m = 0.9 * ADAM.m + 0.1 * g
    ADAM.v = 0.99 * ADAM.v + 0.01 * g * g
    mhat = ADAM.m / (1 - 0.9 ** ADAM.t)
    vhat = ADAM.v / (1 - 0.99 ** ADAM.t)
    return w - 0.01 * mhat / (np.sqrt(vhat) + 1e-8)


def counted(x, scale=0.5):
    global STEPS
    STEPS += 1
    return x * (scale * STEPS)


class Sgd:
    def __init__(self):
        self.t = 0

    def step(self, w, g):
        self.t += 1
        return w - g / self.t


SGD = Sgd()


def _reset(dtype):
    global STEPS
    ADAM.m, ADAM.v, ADAM.t, STEPS, SGD.t = np.zeros(3, dtype), np.zeros(3, dtype), 0, 0, 0


def _run(fn, args, dtype, calls=8):
    _reset(dtype)
    outs = [fn(*args) for _ in range(calls)]
    return outs, (ADAM.m.copy(), ADAM.v.copy(), ADAM.t, STEPS, SGD.t)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("which", ["namespace", "global", "instance"])
def test_a_counter_kept_between_calls_recompiles_once(dtype, which):
    w, g = np.ones(3, dtype), np.full(3, 0.5, dtype)
    fn, args = {"namespace": (adam_step, (w, g)), "global": (counted, (w,)),
                "instance": (SGD.step, (w, g))}[which]
    expected, eager_state = _run(fn, args, dtype)
    compiled = md.compile(fn)
    got, state = _run(compiled, args, dtype)
    for e, c in zip(expected, got):
        assert e.dtype == c.dtype and np.array_equal(e, c)
    assert all(np.array_equal(a, b) for a, b in zip(eager_state, state))
    stats = md.stats(compiled)
    assert stats.captures == 2 and stats.recompiles == 1, str(stats)   # was 8 captures for the globals


def test_the_state_reads_and_writes_are_eagers():
    ADAM.m, ADAM.v, ADAM.t = np.zeros(3), np.zeros(3), 0
    w, g = np.ones(3), np.full(3, 0.5)
    r = check(adam_step, w, g, calls=[(w, g * i) for i in range(1, 6)], globals_to_check=["ADAM"])
    assert not r.reasons
