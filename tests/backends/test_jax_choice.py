"""jax_lowering/choice.py: a runner with two exact variants alternates them for its first calls and keeps the
faster. The clock is faked, so the test is about the bookkeeping, not about timing."""

from __future__ import annotations

from minidynamo.backends.jax_lowering import choice


def test_alternates_drops_each_first_call_then_keeps_the_faster(monkeypatch):
    now = [0.0]
    monkeypatch.setattr(choice.time, "perf_counter", lambda: now[0])
    monkeypatch.setattr(choice, "TRIALS", 2)
    ran = []

    def variant(name, cost, first_cost):
        def run(inputs):
            now[0] += first_cost if name not in ran else cost
            ran.append(name)
            return (name, inputs)
        return run
    pick = choice.Choice(variant("proved", 5.0, 0.0), variant("checked", 3.0, 100.0))
    results = [pick(i) for i in range(8)]
    assert ran[:6] == ["proved", "checked"] * 3 and pick.settled is False     # checked: 3 < 5 once compiled
    assert ran[6:] == ["checked", "checked"] and results[7] == ("checked", 7)


def test_no_trials_means_always_the_proved_variant(monkeypatch):
    monkeypatch.setattr(choice, "TRIALS", 0)
    pick = choice.Choice(lambda inputs: "proved", lambda inputs: "checked")
    assert [pick(()) for _ in range(3)] == ["proved"] * 3 and pick.settled is True
