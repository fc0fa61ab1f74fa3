"""Past cache_size_limit (cache.Mode): misses run the original function straight from the dispatcher
without the locked miss path; with too few hits per miss the dispatcher stops checking guards, and with more
a trial (dispatch/mode_trial.py) times guarded calls against plain ones and keeps the faster way. Results stay eager's
in every mode; speed is measured in benchmarks/past_limit.py, the policy on made-up timings here."""

from __future__ import annotations

import time
import warnings

import numpy as np
import pytest

import minidynamo as md
from minidynamo.dispatch import mode_trial
from minidynamo.api import HITS_PER_MISS
from minidynamo.dispatch.cache import WINDOW, Mode
from minidynamo.dispatch.mode_trial import ModeTrial
from tests.conftest import check


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
    """A call's time is the calling thread's CPU time (minidynamo/stitch/cpu_clock.py), as LoopChoice's: time the
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


@pytest.mark.measures_work
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


# ---- many entries: the dispatcher's layout (each older entry in the newer one's `else:`) -------------------

def inverse_plus(x):
    return np.linalg.inv(x) * 2.0 + x.sum()


def _eager_outcome(fn, x):
    try:
        return fn(x.copy())
    except Exception as e:      # the program's own exception: compared by type and message
        return (type(e), str(e))


def _same(a, b):
    if isinstance(a, tuple):
        return a == b
    return type(a) is type(b) and a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()


@pytest.mark.parametrize("entries", [20, 36])    # 36: past cache.NESTED_MAX, the flat layout
def test_many_entries_take_the_entry_their_guards_pass_in_any_order(entries):
    """`entries` recompiles (one per size, dynamic=False), then calls in a shuffled order: each call is eager's
    (results bit for bit; a singular matrix makes the graph raise and the call re-run eagerly, raising eager's
    LinAlgError) and counts a hit on the entry captured for its size, wherever that entry sits."""
    compiled = md.compile(inverse_plus, dynamic=False)
    sizes = list(range(1, entries + 1))
    with md.config.patch(cache_size_limit=entries + 4):
        for n in sizes:
            x = np.eye(n) * 3.0
            assert _same(_eager_outcome(compiled, x), _eager_outcome(inverse_plus, x))
        cache = compiled._minidynamo.cache
        assert len(cache.entries) == entries and cache.stats.mode is Mode.CAPTURE
        rng = np.random.default_rng(20)
        for n in rng.permutation(sizes + sizes[::3]):
            for x in (np.eye(n) + np.triu(np.ones((n, n)), 1), np.zeros((n, n))):   # invertible, singular
                before = [e.hits[0] for e in cache.entries]
                assert _same(_eager_outcome(compiled, x), _eager_outcome(inverse_plus, x)), (n, x[0, 0])
                after = [e.hits[0] for e in cache.entries]
                assert [a - b for a, b in zip(after, before)] == [int(i == n - 1) for i in range(entries)]
        assert len(cache.entries) == entries      # no call missed


def test_the_newest_entry_is_tried_first_where_several_guards_pass():
    """An input that both the first (static) entry and the later symbolic one accept takes the later one."""
    compiled = md.compile(inverse_plus)
    for n in (2, 3, 4):                 # the size change makes the second capture symbolic
        compiled(np.eye(n))
    cache = compiled._minidynamo.cache
    assert len(cache.entries) == 2
    old, new = (e.hits[0] for e in cache.entries)
    x = np.eye(2) * 5.0                 # the first entry's guards pass too
    assert _same(compiled(x), inverse_plus(x))
    assert [e.hits[0] for e in cache.entries] == [old, new + 1]


def test_an_entry_is_rendered_once_however_many_come_after_it(monkeypatch):
    """Adding an entry renders only its own guards and body into the dispatcher's text (the others' are kept),
    and the eager re-run of a raising graph is written once, after the chain, not once per entry: 20 recompiles
    rendered guards 210 times and wrote 20 re-runs before."""
    from minidynamo import guards
    rendered = []
    real = guards.GuardSet.expression
    monkeypatch.setattr(guards.GuardSet, "expression", lambda self, tag="": rendered.append(tag) or real(self, tag))
    compiled = md.compile(inverse_plus, dynamic=False)
    with md.config.patch(cache_size_limit=24):
        for n in range(1, 21):
            compiled(np.eye(n))
    source = compiled._minidynamo.cache.source()
    assert len(rendered) == 20 and len(set(rendered)) == 20
    assert source.count("return ___eager(") == 1 and source.count("___hit = True if") == 20


def test_an_add_compiles_the_new_entry_and_one_chain_function(monkeypatch):
    """While entries are added, the dispatcher holds the newest one and chains to the older ones' functions,
    each compiled once: 8 captures compiled 36 entry blocks (every entry again on each add), now 15."""
    from minidynamo.dispatch import cache as cache_module
    blocks = []
    real = cache_module.FunctionCache._compile
    monkeypatch.setattr(cache_module.FunctionCache, "_compile",
                        lambda self, source, *a: blocks.append(source.count("    if ___hit:")) or real(self, source, *a))
    compiled = md.compile(inverse_plus, dynamic=False)
    for n in range(1, 9):
        x = np.eye(n) * 3.0
        assert _same(_eager_outcome(compiled, x), _eager_outcome(inverse_plus, x))
    assert len(compiled._minidynamo.cache.entries) == 8
    assert sum(blocks) == 1 + 2 * 7, blocks


def test_a_chained_dispatcher_takes_older_entries_and_is_rebuilt_flat_once_settled():
    compiled = md.compile(inverse_plus, dynamic=False)
    sizes = [1, 2, 3, 4]
    for n in sizes:
        compiled(np.eye(n))
    cache = compiled._minidynamo.cache
    assert "___chain_" in compiled.__minidynamo_source__        # the newest entry inline, the rest chained
    for k in range(40):
        n = sizes[k % 4]
        for x in (np.eye(n) + np.triu(np.ones((n, n)), 1), np.zeros((n, n))):   # a hit; a graph that raises
            before = [e.hits[0] for e in cache.entries]
            assert _same(_eager_outcome(compiled, x), _eager_outcome(inverse_plus, x)), (k, n)
            assert [e.hits[0] - b for e, b in zip(cache.entries, before)] == [int(i == n - 1) for i in range(4)]
    assert "___chain_" not in compiled.__minidynamo_source__    # settled: every entry inline
    assert len(cache.entries) == 4 and cache.stats.captures == 4


def counts_references_then_resizes(x):
    b = x * 2
    print("step", b.size)                       # a break; the rest runs in a resume function
    try:
        b.resize(b.size + 1)                    # refused if anything but this frame holds b
    except ValueError as e:
        print("refused:", e)
    return b


def test_an_older_entry_reached_through_the_chain_hands_over_the_only_references():
    xs = [np.ones(n) for n in (2, 3, 4, 5)]
    compiled = md.compile(counts_references_then_resizes, dynamic=False, options={"suppress_errors": False})
    check(counts_references_then_resizes, xs[0], calls=[(x,) for x in xs[1:] + xs[::-1] * 5], compiled=compiled,
          expect_graph=False)
    assert len(compiled._minidynamo.cache.entries) == 4
