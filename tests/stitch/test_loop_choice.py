"""stitch/loop_choice.py: an entry that starts loop drivers runs the rest of the function driven or as plain
Python, whichever its timings say is faster. Both ways must be eager's behaviour exactly: results, printed
output, exceptions raised in some iteration, writes into arguments, random streams; each way is forced here
for many calls, and the policy itself is checked on made-up timings."""

from __future__ import annotations

import random

import numpy as np
import pytest

import minidynamo as md
from minidynamo.stitch import loop_choice
from minidynamo.stitch.loop_choice import LoopChoice
from tests.conftest import captured, check


@pytest.fixture(params=["driven", "plain", "timed"])
def way(request, monkeypatch):
    """Force one way for every call (or keep the real policy, with its alternating first calls)."""
    if request.param != "timed":
        monkeypatch.setattr(LoopChoice, "begin", lambda self: int(request.param == "plain"))
    return request.param


def choices(cfn) -> list[LoopChoice]:
    states = [cfn._minidynamo] + [c._minidynamo for c in cfn._minidynamo.children.values()
                                  if hasattr(c, "_minidynamo")]
    return [v for s in states for e in s.cache.entries for v in e.namespace.values() if isinstance(v, LoopChoice)]


def escape_counts(z, limit):
    counts = np.zeros(z.shape[0], dtype=np.int64)
    for i in range(z.shape[0]):          # a data-dependent branch in every iteration
        w = z[i]
        for k in range(limit):
            if abs(w) > 2.0:
                break
            w = w * w + z[i]
            counts[i] += 1
    return counts


def running_checksum(data, poly=0x8408):
    crc = 0xFFFF
    for b in data:
        byte = 0xFF & b
        for _ in range(8):
            if (crc & 1) ^ (byte & 1):
                crc = (crc >> 1) ^ poly
            else:
                crc >>= 1
            byte >>= 1
    return crc


def walk_and_log(x, n):
    pos, out = 0, []
    for i in range(n):
        pos += 2 * random.randint(0, 1) - 1
        x[i % x.shape[0]] += pos
        if i % 7 == 0:
            print(f"step {i}: {pos}")
        out.append(pos)
    return out, x.sum()


def fails_midway(x, stop):
    total = 0.0
    for i in range(x.shape[0]):
        if x[i] > stop:                  # a break per iteration; the index raises past the end
            total += x[i + 5]
        x[i] = total
    return total


def caught_in_loop(x):
    hits = []
    for i in range(6):
        try:
            if x[i] > 0.5:
                hits.append(float(np.log(x[i])))
            hits.append(1 / int(x[i] * 2))   # ZeroDivisionError below 0.5
        except ZeroDivisionError as e:
            hits.append(str(e))
    return hits


def test_data_dependent_branches_in_nested_loops(way):
    z = (np.linspace(-1.5, 0.5, 9) + 0.3j).astype(np.complex128)
    res = check(escape_counts, z, 12, calls=[(z * 0.9, 12), (z, 3)] * 4)
    assert res.compiled(z, 12).tolist() == escape_counts(z, 12).tolist()


def test_running_int_checksum(way):
    data = np.random.default_rng(4).integers(0, 256, 40, dtype=np.uint8)
    check(running_checksum, data, calls=[(data[::-1].copy(),), (data[:7].copy(),)] * 4)


def test_library_call_print_and_writes_every_step(way):
    def seeded(x, n):
        random.seed(5)
        return walk_and_log(x, n)
    check(seeded, np.zeros(5), 30, calls=[(np.ones(5), 30), (np.zeros(3), 9)] * 4,
          expect_graph=False).assert_broke("random.Random.randint() runs as plain Python")


def test_exception_in_some_iteration_leaves_eagers_state(way):
    x = np.linspace(0.0, 1.0, 12)
    check(fails_midway, x, 2.0, calls=[(x.copy(), 0.9), (x.copy(), 2.0), (x.copy(), 0.2)] * 3)


def test_exception_caught_inside_the_loop(way):
    x = np.array([0.9, 0.1, 0.7, 0.2, 0.8, 0.6])
    check(caught_in_loop, x, calls=[(x[::-1].copy(),)] * 6)


def test_the_plain_way_is_taken_when_it_is_faster(monkeypatch):
    """Made-up clock: every driven call takes 10 units, every plain one 1; the choice settles on plain
    Python after one call in each way (timed twice), and stays there."""
    clock = iter(range(0, 10**9, 1))
    monkeypatch.setattr(loop_choice, "_NS", lambda: next(clock))
    c = LoopChoice()
    ways = []
    for _ in range(40):
        t = c.begin()
        ways.append(t & 1)
        for _ in range(1 if t & 1 else 10):
            next(clock)
        c.end(t, None)
    assert ways[:5] == [0, 0, 1, 0, 1] and c.eager
    assert c.next_check > 300                      # driven is several times slower: re-timed 100s of calls later
    assert sum(ways[5:]) == len(ways[5:])


def test_timed_calls_that_raise_leave_the_policy_working():
    """A continuation that raises never reaches end(): the choice times that way again instead of deciding
    on no timing (it raised `min() iterable argument is empty` in the user's call)."""
    c = LoopChoice()
    for _ in range(40):
        t = c.begin()
        if t > 1 and not t & 1:
            continue                    # every timed driven call raised
        c.end(t, None)
    assert c.plan == [0] and c.decisions == 0


def test_the_driven_way_stays_when_it_is_faster(monkeypatch):
    clock = iter(range(0, 10**9, 1))
    monkeypatch.setattr(loop_choice, "_NS", lambda: next(clock))
    c = LoopChoice()
    for _ in range(30):
        t = c.begin()
        for _ in range(10 if t & 1 else 3):
            next(clock)
        c.end(t, None)
    assert not c.eager and c.decisions >= 1


def test_a_slow_driven_loop_settles_on_plain_python_and_explain_says_so():
    data = np.random.default_rng(1).integers(0, 256, 300, dtype=np.uint8)
    cfn = md.compile(running_checksum)
    for _ in range(8):
        assert cfn(data) == running_checksum(data)
    found = choices(cfn)
    assert found and all(c.eager for c in found), found      # 8 bits per byte, a graph call for each
    text = str(md.explain(running_checksum)(data))
    assert "plain Python" in text and "LoopChoice" not in text


def test_overlapping_timed_calls_decide_only_on_both_ways():
    """Calls of one entry that overlap (threads, or a recursive call) can end in any order: a plain call
    ending first, while the driven ones still run, has no driven time to compare with yet."""
    c = LoopChoice()
    c.begin()                                      # the untimed first call
    tokens = [c.begin() for _ in range(4)]         # the four timed calls in flight at once
    assert [t & 1 for t in tokens] == [0, 1, 0, 1]
    for t in (tokens[1], tokens[3], tokens[0], tokens[2]):
        c.end(t, None)                             # (was: ValueError, min() of no driven times)
    t = c.begin()                                  # the driven way is timed again, then decided
    c.end(t, None)
    assert t & 1 == 0 and c.decisions == 1 and c.next_check > c.calls


def test_threads_sharing_a_choice_never_see_its_bookkeeping():
    import threading
    data = np.random.default_rng(3).integers(0, 256, 60, dtype=np.uint8)
    cfn = md.compile(running_checksum)
    expected = running_checksum(data)
    errors = []

    def work():
        try:
            for _ in range(30):
                assert cfn(data) == expected
        except BaseException as e:      # reported below, in the test's thread
            errors.append(e)
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    captured(cfn).assert_graph_ran()
    assert len(choices(cfn)) == 1                   # the one entry's choice, shared by the four threads


def test_timings_count_the_threads_cpu_time_not_time_off_the_core():
    """A shared machine takes the core away for whole milliseconds; a timing that counted that (wall time)
    decided on noise. Time spent off the CPU (here a sleep) is not counted."""
    import time
    c = LoopChoice()
    c.begin()
    t = c.begin()
    assert t > 1
    time.sleep(0.05)
    c.end(t, None)
    assert max(c.best[0] + c.best[1]) < 20_000_000
