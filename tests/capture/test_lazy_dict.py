"""Dicts from before the call (capture/lazy_dict.py): their keys are guarded only when the capture depends on
them; reading or assigning existing keys guards those keys alone. Differential throughout."""

from __future__ import annotations

import numpy as np
import pytest

import minidynamo as md
from tests.conftest import captured, check


def branch_on_truth(d, x):
    if d:
        return x + 1
    return x - 1


def test_the_truth_of_a_dict_argument_is_its_real_truth():
    # (was wrong: an unread dict argument looked empty, so `if d:` took the False branch)
    check(branch_on_truth, {"a": 1}, np.ones(2), calls=[({}, np.ones(2)), ({"b": 2}, np.ones(2))])


def step(state, x):
    state["n"] += 1
    return x * state["scale"]


def test_reading_existing_keys_does_not_guard_the_others():
    calls = [({"n": 0, "scale": 2.0, "extra": 5}, np.ones(2)), ({"scale": 2.0, "n": 0, "other": []}, np.ones(2))]
    res = check(step, {"n": 0, "scale": 2.0}, np.ones(2), calls=calls)
    assert res.stats.captures == 1
    guards = "\n".join(str(g) for r in res.records for g in r.entry.guards)
    assert "keys()" not in guards


@pytest.mark.parametrize("state", [{"n": 0}, {"scale": 2.0}, {}])
def test_a_key_that_went_missing_raises_as_eagerly(state):
    check(step, {"n": 0, "scale": 2.0}, np.ones(2), calls=[(state, np.ones(2))])


def assign_only(state, x):
    state["n"] = 5                          # never read: its presence is guarded on its own
    return x + state["scale"]


def test_an_assigned_key_keeps_its_place_or_is_added_last():
    for later in ({"scale": 1.0}, {"scale": 1.0, "n": 0}, {"n": 0, "scale": 1.0}):
        eager_state, compiled_state = dict(later), dict(later)
        cfn = md.compile(assign_only, options={"suppress_errors": False})
        cfn({"n": 0, "scale": 2.0}, np.ones(2))
        np.testing.assert_array_equal(cfn(compiled_state, np.ones(2)), assign_only(eager_state, np.ones(2)))
        assert list(compiled_state.items()) == list(eager_state.items())
        captured(cfn).assert_no_breaks().assert_graph_ran()        # the assignment is replayed after a graph


def uses_keys(d, x):
    total = x * len(d)
    if "b" in d:
        total = total + d["b"]
    for k in d:
        total = total + d[k]
    return total


def test_len_in_and_iteration_guard_the_keys():
    res = check(uses_keys, {"a": 1.0, "b": 2.0}, np.ones(2),
                calls=[({"a": 1.0, "b": 2.0, "c": 3.0}, np.ones(2)), ({"b": 2.0, "a": 1.0}, np.ones(2)),
                       ({"a": 4.0}, np.ones(2)), ({"a": 1.0, "b": 5.0}, np.ones(2))])
    assert res.stats.captures >= 3


class Layer:
    def __init__(self):
        self.w = np.linspace(-1, 1, 16).reshape(4, 4)
        self.h = np.zeros((1, 4))
        self.state = {"n_timesteps": 0, "C": [], "unused": None}

    def step(self, x):
        self.h = np.tanh(x @ self.w + self.h)
        self.state["C"].append(self.h)
        self.state["n_timesteps"] += 1
        return self.h


def test_a_layers_state_dict_costs_no_keys_guard_and_its_reads_are_bound_once():
    layer, eager = Layer(), Layer()
    cstep = md.compile(Layer.step, options={"suppress_errors": False})
    for i in range(5):
        x = np.full((1, 4), 0.1 * i)
        np.testing.assert_array_equal(cstep(layer, x), Layer.step(eager, x))
    assert layer.state["n_timesteps"] == eager.state["n_timesteps"] == 5 and list(layer.state) == list(eager.state)
    for u, v in zip(layer.state["C"], eager.state["C"], strict=True):
        np.testing.assert_array_equal(u, v)
    source = cstep._minidynamo.cache.source()
    newest = source.split("___hit = ")[1].split("\n")[0]
    assert "keys()" not in newest and newest.count("self.state") == 1 and newest.count("self.w") == 1
    layer.state["unused"] = 1.5                 # a key the capture never read: still a hit
    hits = md.stats(cstep).hits
    cstep(layer, x)
    assert md.stats(cstep).hits == hits + 1
    del layer.state["C"]                        # a key it read: a miss, and eager's KeyError
    with pytest.raises(KeyError):
        cstep(layer, x)


def update_rule(w, dw, config=None):
    # cs231n's optim.py: defaults filled in by setdefault, state kept in the config dict between calls
    if config is None:
        config = {}
    config.setdefault("learning_rate", 1e-2)
    config.setdefault("m", np.zeros_like(w))
    config.setdefault("t", 0)
    config.setdefault("note")
    config["t"] += 1
    config["m"] = config["m"] * 0.9 + dw
    velocity = config.get("velocity", np.zeros_like(w))
    return w - config["learning_rate"] * config["m"] + velocity, config


def test_setdefault_and_get_are_captured_on_new_and_existing_keys():
    w, dw = np.arange(4.0), np.ones(4)
    full = {"learning_rate": 0.5, "m": np.ones(4), "t": 3, "note": "x", "velocity": np.full(4, 2.0)}
    calls = [(w, dw, {}), (w, dw, {"t": 7}), (w, dw, dict(full)), (w, dw, {"m": np.ones(4), "learning_rate": 2.0})]
    res = check(update_rule, w, dw, None, calls=calls)
    assert not res.reasons, res.reasons


def test_setdefault_of_an_existing_key_guards_that_key_alone():
    w, dw = np.arange(4.0), np.ones(4)
    full = {"learning_rate": 0.5, "m": np.ones(4), "t": 3, "note": "x", "velocity": np.full(4, 2.0)}
    res = check(update_rule, w, dw, full, calls=[(w, dw, dict(full, extra=1)), (w, dw, {"t": 1})])
    assert res.stats.captures == 2      # the dict without the keys is a new capture, not a wrong reuse
    first = "\n".join(str(g) for g in res.records[0].entry.guards)
    assert "keys()" not in first


def pool_masks(cache, x):
    # ILearnDeepLearning's MaxPoolLayer: a mask per window kept in a dict keyed by (i, j)
    for i in range(2):
        for j in range(2):
            cache[(i, j)] = x[i, j] * 2
    return x.sum() + cache[(0, 1)].sum() + cache.get((5, 5), 0) + len(cache)


def test_a_dict_keyed_by_tuples_of_ints_is_captured():
    x = np.arange(12.0).reshape(2, 2, 3)
    calls = [({(0, 1): np.ones(3)}, x), ({(0, 0): 1.0, "a": 2, (5, 5): 3.0}, x), ({((1, "b"), 2): 0}, x)]
    res = check(pool_masks, {}, x, calls=calls)
    assert not res.reasons, res.reasons
    res = check(pool_masks, {(0, 1.5): 1}, x,
                expect_fallback='the break happened before the function body started')          # a float inside a key: not captured, a break
    assert res.reasons
