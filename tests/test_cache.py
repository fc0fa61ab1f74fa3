"""Past cache_size_limit (cache.Mode): misses run the original function straight from the dispatcher
without the locked miss path; with too few hits per miss the dispatcher stops checking guards, and with more
a trial (mode_trial.py) times guarded calls against plain ones and keeps the faster way. Results stay eager's
in every mode; speed is measured in benchmarks/past_limit.py, the policy on made-up timings here."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pytest

import minidynamo as md
from minidynamo import mode_trial
from minidynamo.api import HITS_PER_MISS
from minidynamo.cache import WINDOW, Mode
from minidynamo.mode_trial import ModeTrial


def scale_rows(x):
    return x * 2.0 + x.sum()


def _fill(compiled, limit):
    for n in range(1, limit + 1):
        compiled(np.ones((n, 2)))


def _calls_with(compiled, rows):
    for n in rows:
        x = np.full((n, 2), float(n))
        np.testing.assert_array_equal(compiled(x), scale_rows(x))


def test_misses_past_the_limit_skip_the_miss_path_then_the_guards():
    compiled = md.compile(scale_rows, dynamic=False, options={"cache_size_limit": 2})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _fill(compiled, 2)
        assert md.stats(compiled).mode is Mode.CAPTURE
        _calls_with(compiled, [3])
        assert md.stats(compiled).mode is Mode.PAST_LIMIT
        assert "___miss" in compiled.__minidynamo_source__ and "% 64" in compiled.__minidynamo_source__
        _calls_with(compiled, [3, 4, 5] * WINDOW)
    s = md.stats(compiled)
    assert s.mode is Mode.EAGER and s.captures == 2
    assert "guard" not in compiled.__minidynamo_source__ and "if " not in compiled.__minidynamo_source__
    _calls_with(compiled, [1, 2, 7])                   # every shape, old or new, now runs eagerly
    md.reset()
    assert md.stats(compiled).mode is Mode.CAPTURE
    _calls_with(compiled, [1])
    assert len(compiled._minidynamo.cache.entries) == 1 and md.stats(compiled).mode is Mode.CAPTURE


def test_frequent_hits_keep_the_guards_and_the_compiled_entries_while_they_win(monkeypatch):
    monkeypatch.setattr(ModeTrial, "plain_won", lambda self: False)
    plain = []
    begin = ModeTrial.begin
    monkeypatch.setattr(ModeTrial, "begin", lambda self: (t := begin(self), plain.append(t[1]))[0])
    compiled = md.compile(scale_rows, dynamic=False, options={"cache_size_limit": 2})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _fill(compiled, 2)
        rows = [1] * HITS_PER_MISS + [2] + [9]        # more than HITS_PER_MISS hits per miss
        _calls_with(compiled, rows * 3 * WINDOW)
    s = md.stats(compiled)
    assert s.mode is Mode.PAST_LIMIT
    # counted exactly, but for the calls a trial ran plainly (they do not check guards)
    assert s.hits + s.misses == len(rows) * 3 * WINDOW + 2 - sum(plain) and s.hits > HITS_PER_MISS * s.misses
    assert 0 < sum(plain) < len(plain)
    assert "___trial" in compiled._minidynamo.cache.namespace      # (a trial ran, and the guards won it)


def test_frequent_hits_whose_guards_cost_more_than_they_save_run_eagerly(monkeypatch):
    monkeypatch.setattr(ModeTrial, "plain_won", lambda self: True)
    compiled = md.compile(scale_rows, dynamic=False, options={"cache_size_limit": 2})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _fill(compiled, 2)
        rows = [1] * HITS_PER_MISS + [2] + [9]
        _calls_with(compiled, rows * 2 * WINDOW)
        assert md.stats(compiled).mode is Mode.EAGER      # was PAST_LIMIT: 3 hits in 4 kept the guards
        assert "___guarded" not in compiled.__minidynamo_source__
        _calls_with(compiled, [1, 2, 9])
    md.reset()
    assert md.stats(compiled).mode is Mode.CAPTURE and compiled(np.ones((1, 2))).shape == (1, 2)


def test_a_trial_alternates_blocks_and_keeps_the_way_whose_best_block_was_faster(monkeypatch):
    clock = iter(range(0, 10**9, 10))
    monkeypatch.setattr(mode_trial, "_NS", lambda: next(clock))
    done = []
    trial = ModeTrial(done.append)
    ways = []
    for _ in range(trial.total):
        token = trial.begin()
        ways.append(token[1])
        trial.end(token)
    block = ModeTrial.BLOCK
    assert ways == ([0] * block + [1] * block) * ModeTrial.ROUNDS and done == [trial]
    assert trial.times == ([10 * block] * 3, [10 * block] * 3) and trial.plain_won()   # a tie: no guards
    trial.times[1][2] += 10**6
    assert trial.plain_won()                 # one slow plain block (another program ran) does not decide
    trial.times[1][:] = [10 * block + 1] * 3
    assert not trial.plain_won()


@pytest.mark.skipif(time.get_clock_info("thread_time").resolution > 1e-6, reason="no fine-grained thread clock")
def test_a_trial_times_the_calling_threads_cpu_as_loop_choice_does():
    """A call's time is the calling thread's CPU time (minidynamo/cpu_clock.py), as LoopChoice's: time the
    thread does not run (another program holds the core; here a sleep) is not counted (perf_counter, before,
    counted the 20 ms)."""
    from minidynamo.stitch import loop_choice
    assert mode_trial._NS is loop_choice._NS
    trial = ModeTrial(lambda t: None)
    token = trial.begin()
    time.sleep(0.02)
    trial.end(token)
    assert trial.times[0][0] < 5_000_000, trial.times


def folded_loop(x):
    t = sorted(range(300), key=lambda i: i * i % 7)[-1]     # Python work the capture folds into a constant
    return x * t


def test_a_trial_keeps_guards_whose_hits_save_real_work_and_results_stay_eager():
    compiled = md.compile(folded_loop, dynamic=False, options={"cache_size_limit": 2})
    calls = [np.ones((n, 2)) for n in (1, 2, 1, 2, 1, 2, 9)]          # 6 hits per miss
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for x in calls * 3 * WINDOW:
            np.testing.assert_array_equal(compiled(x), folded_loop(x))
    state = compiled._minidynamo
    assert "___trial" in state.cache.namespace and md.stats(compiled).mode is Mode.PAST_LIMIT
    assert state.past_limit.schedule.interval > 1     # won at least once, so the next trial waits longer


def test_calls_that_raise_during_a_trial_are_timed_and_stay_eager(monkeypatch):
    log = []

    def f(x, n):
        log.append(n)
        return x[n]
    compiled = md.compile(f, dynamic=False, options={"cache_size_limit": 2})
    calls = [0, 1, 0, 1, 0, 1, 0, 1, 7, 2]       # an IndexError each 10th call, n=2 always a miss
    outcomes = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for n in calls * 2 * WINDOW:
            try:
                outcomes.append(compiled(np.arange(3.0), n))
            except IndexError as e:
                outcomes.append(str(e))
    expected = [n if n < 3 else "index 7 is out of bounds for axis 0 with size 3" for n in calls] * 2 * WINDOW
    assert outcomes == expected and log == calls * 2 * WINDOW
    assert "___trial" in compiled._minidynamo.cache.namespace
    assert md.stats(compiled).mode in (Mode.PAST_LIMIT, Mode.EAGER)   # the trial ended despite the raises


def test_misses_are_counted_exactly_past_the_limit():
    compiled = md.compile(scale_rows, dynamic=False, options={"cache_size_limit": 1})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _fill(compiled, 1)
        _calls_with(compiled, [5] * 10)
    assert md.stats(compiled).misses == 11


def test_past_the_limit_keeps_exceptions_and_side_effects_eager():
    log = []

    def f(x, n):
        log.append(n)
        return x[n]
    compiled = md.compile(f, dynamic=False, options={"cache_size_limit": 1})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for n in list(range(3)) * WINDOW:
            assert compiled(np.arange(3.0), n) == n
    assert log == list(range(3)) * WINDOW
    try:
        compiled(np.arange(3.0), 5)
    except IndexError as e:
        assert "out of bounds" in str(e)
    else:
        raise AssertionError("IndexError expected")
