"""The timed choice between a graph's code with its fast-path regions and without them (fast_path/trial.py):
a graph whose regions do not pay (two cheap steps over data still in cache, a pool thread competing with
BLAS's) runs exactly the code fast_path=False compiles; one whose regions pay keeps them. The clock is
replaced by one that charges each way a set cost, so the choice is the test's; every call stays
differential (results, warnings and exceptions eager's, whichever way ran)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import minidynamo as md
from minidynamo.backends import numpy_codegen
from minidynamo.backends.fast_path import trial

from .fast_path_support import compile_fast, run, tricky


class Clock:
    """trial.clock: a timed call of a way (Choice.timing reads the clock before and after
    it) takes that way's cost in ns, whatever it really took."""

    def __init__(self) -> None:
        self.now = 0
        self.cost = {"fast": 10, "plain": 10}
        self.started: set = set()

    def __call__(self) -> int:
        frame = sys._getframe(1)            # Choice.timing's frame; its `name` is the way being timed
        if frame in self.started:
            self.started.discard(frame)
            self.now += self.cost[frame.f_locals["name"]]
        else:
            self.started.add(frame)
        return self.now


@pytest.fixture
def clock(monkeypatch) -> Clock:
    c = Clock()
    monkeypatch.setattr(trial, "clock", c)
    return c


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def compiled(fn):
    return compile_fast(fn, fast_path_timed=True, fast_path_min_bytes=1)     # (blocks of 64 rows)


def calls(fn, cfn, args, n, errstate=None):
    for _ in range(n):
        (e_val, _), e_exc, e_warn = run(fn, args, errstate, where=True)
        (c_val, _), c_exc, c_warn = run(cfn, args, errstate, where=True)
        assert type(c_exc) is type(e_exc) and str(c_exc) == str(e_exc) and c_warn == e_warn
        if e_exc is None:
            assert e_val.tobytes() == c_val.tobytes()


def first_choice(clock: Clock, cost: dict, x: np.ndarray) -> tuple:
    """softmax compiled with its choice timed, after the calls of its first trial at these costs."""
    clock.cost = cost
    cfn, rec = compiled(softmax)
    calls(softmax, cfn, (x,), 2 * trial.TRIAL)
    (fn,) = rec.fns
    return cfn, rec, fn.__minidynamo_choice__


def test_a_graph_whose_regions_lose_runs_the_code_fast_path_false_compiles(clock):
    x = tricky("float64", (256, 64), 3)
    cfn, rec, choice = first_choice(clock, {"fast": 12, "plain": 10}, x)
    assert choice.wins == {"fast": 0, "plain": 1} and choice.chosen is choice.plain
    off = []
    md.compile(softmax, backend=lambda g, ex: off.append(numpy_codegen(g, ex)) or off[-1],
               options={"fast_path": False})(x)
    assert choice.plain.__minidynamo_source__ == off[0].__minidynamo_source__
    assert "___fast_region" not in choice.plain.__minidynamo_source__
    (region,) = rec.regions
    before = dict(region.stats)
    calls(softmax, cfn, (x,), trial.RETRY_AFTER - 1)
    assert region.stats == before                       # not called at all while plain runs
    assert region.kept == [None]                        # (and it holds no output meanwhile)


def test_a_graph_whose_regions_pay_keeps_them_and_each_repeated_win_waits_twice_as_long(clock):
    x = tricky("float32", (256, 128), 4)
    cfn, rec, choice = first_choice(clock, {"fast": 5, "plain": 10}, x)
    assert choice.wins == {"fast": 1, "plain": 0} and choice.chosen is choice.fast
    assert rec.stats()["fast"] == trial.TRIAL
    calls(softmax, cfn, (x,), trial.RETRY_AFTER + 2 * trial.TRIAL)
    assert choice.wins == {"fast": 2, "plain": 0} and choice.left == 2 * trial.RETRY_AFTER
    clock.cost = {"fast": 10, "plain": 10}             # a tie: the code without the regions
    calls(softmax, cfn, (x,), 2 * trial.RETRY_AFTER + 2 * trial.TRIAL)
    assert choice.wins == {"fast": 2, "plain": 1} and choice.left == trial.RETRY_AFTER


@pytest.mark.parametrize("mode", ["warn", "raise"])
def test_warnings_and_errors_are_eagers_whichever_way_runs(clock, mode):
    def f(x, rows):
        return (np.log(x) * 2 + 1)[rows]

    x = np.linspace(1, 2, 300 * 64).reshape(300, 64)
    x[100, 3] = -1.0
    for cost in ({"fast": 5, "plain": 10}, {"fast": 10, "plain": 5}):
        clock.cost = cost
        cfn, rec = compiled(f)
        calls(f, cfn, (x, np.arange(0, 300, 7)), 3 * trial.TRIAL, {"invalid": mode})


def test_an_untimed_graph_and_a_graph_without_regions_are_the_code_itself():
    x = tricky("float64", (256, 64), 5)
    cfn, rec = compile_fast(softmax, fast_path_min_bytes=1)            # the tests' default: not timed
    cfn(x)
    assert not hasattr(rec.fns[0], "__minidynamo_choice__") and rec.regions
    cfn, rec = compile_fast(softmax, fast_path_timed=True, fast_path_min_bytes=1 << 30)   # no region
    cfn(x)
    assert not hasattr(rec.fns[0], "__minidynamo_choice__") and not rec.regions
