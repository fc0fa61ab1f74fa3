"""jax_lowering/choice.py: a runner with several exact variants alternates them for its first calls, keeps the
fastest, and now and then times another against it (a duel), switching when that one is faster for a few
duels in a row. The clock is faked, so the tests are about the bookkeeping, not about timing."""

from __future__ import annotations

import pytest

from minidynamo.backends.jax_lowering import choice
from minidynamo.backends.jax_lowering.choice import Magnitudes, Variant

PROVED, CHECKED = Variant(Magnitudes.ALONGSIDE, False), Variant(Magnitudes.UNREAD, False)
STAGED = Variant(Magnitudes.BEFORE, True)


@pytest.fixture
def clock(monkeypatch):
    now = [0.0]
    monkeypatch.setattr(choice.time, "perf_counter", lambda: now[0])
    monkeypatch.setattr(choice, "TRIALS", 2)
    monkeypatch.setattr(choice, "EARLY_CALLS", 0)       # duels every PERIOD calls from the start
    return now


def variants(clock, costs, ran, first_cost=100.0):
    """variant -> a callable that advances the fake clock by costs[variant] (first_cost on its first call)."""
    seen = set()

    def make(v):
        def run(inputs):
            clock[0] += first_cost if v not in seen else costs[v]
            seen.add(v)
            ran.append(v)
            return (v, inputs)
        return run
    return {v: make(v) for v in costs}


def test_alternates_drops_each_first_call_then_keeps_the_fastest(clock):
    ran = []
    pick = choice.Choice(variants(clock, {PROVED: 5.0, CHECKED: 3.0, STAGED: 4.0}, ran))
    results = [pick(i) for i in range(11)]
    assert ran[:9] == [PROVED, CHECKED, STAGED] * 3 and pick.kept == CHECKED     # 3 < 4 < 5 once compiled
    assert ran[9:] == [CHECKED, CHECKED] and results[10] == (CHECKED, 10)


def test_the_median_of_the_trials_decides_not_one_lucky_call(clock, monkeypatch):
    monkeypatch.setattr(choice, "TRIALS", 3)
    ran, costs = [], {PROVED: 5.0, CHECKED: 3.0}
    calls = variants(clock, costs, ran)

    def lucky(inputs, run=calls[PROVED]):      # the proved variant's second call is undisturbed once
        got = run(inputs)
        if ran.count(PROVED) == 2:
            clock[0] -= 4.5                     # 0.5 once, then 5 twice: the fastest is 0.5, the median 5
        return got
    calls[PROVED] = lucky
    pick = choice.Choice(calls)
    for i in range(8):
        pick(i)
    assert pick.kept == CHECKED


def test_a_duel_switches_only_after_enough_faster_ratios(clock, monkeypatch):
    monkeypatch.setattr(choice, "PERIOD", 4)
    ran, costs = [], {PROVED: 5.0, CHECKED: 3.0}
    pick = choice.Choice(variants(clock, costs, ran))
    for i in range(6):
        pick(i)
    assert pick.kept == CHECKED
    costs[PROVED] = 1.0                         # the load changed: the proved variant is faster now
    del ran[:]
    for i in range(4 * choice.DUELS - 1):
        pick(i)
    assert pick.kept == CHECKED                 # one ratio short
    assert ran.count(PROVED) == choice.DUELS - 1 and ran[3:5] == [PROVED, CHECKED]     # a duel: challenger, kept
    for i in range(8):
        pick(i)
    assert pick.kept == PROVED and ran[-1] == PROVED


def test_a_duel_that_finds_the_kept_variant_faster_keeps_it(clock, monkeypatch):
    monkeypatch.setattr(choice, "PERIOD", 4)
    ran = []
    pick = choice.Choice(variants(clock, {PROVED: 5.0, CHECKED: 3.0}, ran))
    for i in range(6 + 40):
        pick(i)
    assert pick.kept == CHECKED and ran.count(PROVED) == 3 + 40 // 4     # trials, then one call in PERIOD


def test_challengers_take_turns(clock, monkeypatch):
    monkeypatch.setattr(choice, "PERIOD", 2)
    ran = []
    pick = choice.Choice(variants(clock, {PROVED: 5.0, CHECKED: 3.0, STAGED: 4.0}, ran))
    for i in range(9 + 16):
        pick(i)
    challengers = [v for v in ran[9:] if v != CHECKED]
    assert set(challengers) == {PROVED, STAGED} and challengers[0] != challengers[1]


def test_no_trials_means_always_the_first_variant(monkeypatch):
    monkeypatch.setattr(choice, "TRIALS", 0)
    monkeypatch.setattr(choice, "PERIOD", 2)
    pick = choice.Choice({PROVED: lambda inputs: "proved", CHECKED: lambda inputs: "checked"})
    assert pick.kept == PROVED
    pick.settle(CHECKED)
    assert [pick(()) for _ in range(3)][0] == "checked" and pick.kept == CHECKED


def test_a_single_variant_never_duels(monkeypatch):
    monkeypatch.setattr(choice, "PERIOD", 1)
    pick = choice.Choice({PROVED: lambda inputs: inputs})
    assert [pick(i) for i in range(5)] == list(range(5)) and pick.kept == PROVED


def test_duels_are_more_frequent_for_the_first_calls(clock, monkeypatch):
    monkeypatch.setattr(choice, "EARLY_CALLS", 40)
    monkeypatch.setattr(choice, "EARLY_PERIOD", 4)
    monkeypatch.setattr(choice, "PERIOD", 20)
    ran = []
    pick = choice.Choice(variants(clock, {PROVED: 5.0, CHECKED: 3.0}, ran))
    for i in range(6 + 80):
        pick(i)
    duels = ran[6:]
    assert duels[:40].count(PROVED) == 40 // 4 and duels[40:].count(PROVED) == 40 // 20


def test_cheap_variants_get_more_trials_until_the_time_budget(clock, monkeypatch):
    monkeypatch.setattr(choice, "TRIAL_SECONDS", 0.1)
    monkeypatch.setattr(choice, "MAX_TRIALS", 50)
    ran = []
    pick = choice.Choice(variants(clock, {PROVED: 0.004, CHECKED: 0.006}, ran, first_cost=10.0))
    while pick.kept is None:
        pick(0)
    assert ran.count(PROVED) == ran.count(CHECKED) == 1 + 10 and pick.kept == PROVED   # 10 * 0.01 >= 0.1
    monkeypatch.setattr(choice, "MAX_TRIALS", 4)
    ran = []
    pick = choice.Choice(variants(clock, {PROVED: 0.004, CHECKED: 0.006}, ran, first_cost=10.0))
    while pick.kept is None:
        pick(0)
    assert ran.count(PROVED) == 1 + 4                   # never more than MAX_TRIALS each


def test_a_variant_far_slower_in_the_trials_challenges_only_in_every_rare_duel(clock, monkeypatch):
    monkeypatch.setattr(choice, "PERIOD", 2)
    ran = []
    pick = choice.Choice(variants(clock, {PROVED: 1.0, STAGED: 1.5, CHECKED: 2.5}, ran))
    for i in range(9):
        pick(i)
    assert pick.kept == PROVED and pick.far == {CHECKED: 1}     # 2.5 >= FAR * 1.0; 1.5 is not
    del ran[:]
    for i in range(2 * 2 * choice.RARE):                         # 2 * RARE duels, one call in PERIOD each
        pick(i)
    assert ran.count(CHECKED) == 1 and ran.count(STAGED) == 2 * choice.RARE - 1


def test_when_every_other_variant_is_far_slower_most_duels_are_skipped(clock, monkeypatch):
    monkeypatch.setattr(choice, "PERIOD", 2)
    ran = []
    pick = choice.Choice(variants(clock, {PROVED: 1.0, CHECKED: 3.0}, ran))
    for i in range(6):
        pick(i)
    del ran[:]
    for i in range(2 * 2 * choice.RARE):
        pick(i)
    assert pick.kept == PROVED and ran.count(CHECKED) == 2       # the RARE-th duels only
    assert pick(0) == (PROVED, 0)


def test_a_variant_many_times_slower_challenges_in_fewer_of_its_rare_turns(clock, monkeypatch):
    monkeypatch.setattr(choice, "PERIOD", 2)
    ran = []
    pick = choice.Choice(variants(clock, {PROVED: 1.0, CHECKED: 40.0}, ran))    # XLA against NumPy on a loop
    for i in range(6):
        pick(i)
    assert pick.kept == PROVED and pick.far == {CHECKED: 20}
    del ran[:]
    for i in range(2 * 2 * choice.RARE * 20):       # 40 rare duels: its turn in each, taken in one of 20
        pick(i)
    assert ran.count(CHECKED) == 2 and pick.kept == PROVED
