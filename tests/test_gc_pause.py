"""dispatch/gc_pause.py: no automatic collection during a capture's own work, the caller's collector state after it
(also when the capture raises, nested, from several threads), and the user's code (a backend the program
passes) run with the collector as the program had it."""

from __future__ import annotations

import gc
import threading

import numpy as np
import pytest

import minidynamo as md
from minidynamo.dispatch import gc_pause
from minidynamo.backends import get_backend
from minidynamo.graph.ir import ArraySpec


@pytest.fixture(autouse=True)
def _collector_back_on():
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()
    md.reset()


def _seen_by_a_meta_rule() -> tuple[list[bool], object]:
    """A registered op whose meta rule (run by the capture, never by the graph) notes gc.isenabled()."""
    seen: list[bool] = []

    def halve(a):
        return a * 0.5

    def rule(a):
        seen.append(gc.isenabled())
        return ArraySpec(a.shape, a.dtype)
    md.register_op(halve, meta=rule)
    return seen, halve


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_off_while_capturing_and_as_the_caller_had_it_after(enabled):
    seen, halve = _seen_by_a_meta_rule()
    f = md.compile(lambda x: halve(x) + 1.0)
    (gc.enable if enabled else gc.disable)()
    np.testing.assert_array_equal(f(np.ones(3)), np.full(3, 1.5))
    assert seen == [False]                  # before gc_pause: [True] (the capture ran with it on)
    assert gc.isenabled() is enabled
    assert not gc_pause.is_paused()


def test_a_capture_that_raises_leaves_the_collector_on():
    seen, halve = _seen_by_a_meta_rule()

    def f(x):
        y = halve(x)
        print("between")            # a break, which fullgraph=True turns into an error
        return y

    with pytest.raises(md.GraphBreakError):
        md.compile(f, fullgraph=True)(np.ones(3))
    assert seen and not any(seen) and gc.isenabled() and not gc_pause.is_paused()   # (a pass per break)


def test_a_backend_the_program_passes_runs_with_the_callers_collector():
    seen = []

    def backend(graph, example_inputs):
        seen.append(gc.isenabled())
        return get_backend("numpy")(graph, example_inputs)

    f = md.compile(lambda x: np.sin(x) + 1.0, backend=backend)
    np.testing.assert_array_equal(f(np.zeros(2)), np.ones(2))
    assert seen == [True] and gc.isenabled()


def test_a_backend_that_turns_the_collector_off_leaves_it_off():
    def backend(graph, example_inputs):
        gc.disable()                # the program's own choice stands after the capture
        return get_backend("numpy")(graph, example_inputs)

    md.compile(lambda x: x * 2.0, backend=backend)(np.ones(2))
    assert not gc.isenabled()


def test_a_capture_inside_a_backend_inside_a_capture():
    inner_seen, halve = _seen_by_a_meta_rule()
    inner = md.compile(lambda x: halve(x) - 1.0)
    outer_seen = []

    def backend(graph, example_inputs):
        outer_seen.append(gc.isenabled())
        inner(np.ones(2))           # another compiled function's first call: its own capture, paused
        outer_seen.append(gc.isenabled())
        return get_backend("numpy")(graph, example_inputs)

    md.compile(lambda x: x + 3.0, backend=backend)(np.ones(2))
    assert outer_seen == [True, True] and inner_seen == [False] and gc.isenabled()


def test_nested_pauses_and_a_hole_restore_the_state_once():
    gc.enable()
    with gc_pause.paused():
        assert not gc.isenabled()
        with gc_pause.paused():
            assert not gc.isenabled()
            with gc_pause.unpaused():
                assert gc.isenabled() and not gc_pause.is_paused()
            assert not gc.isenabled() and gc_pause.is_paused()
        assert not gc.isenabled()
    assert gc.isenabled() and not gc_pause.is_paused()
    with pytest.raises(ZeroDivisionError):
        with gc_pause.paused():
            1 / 0
    assert gc.isenabled()
    with gc_pause.unpaused():           # outside any pause: nothing changes
        assert gc.isenabled()


def test_pauses_in_two_threads_end_with_the_last_one():
    gc.enable()
    entered, release, done = threading.Event(), threading.Event(), []

    def other():
        with gc_pause.paused():
            entered.set()
            release.wait(10)
        done.append(gc.isenabled())

    t = threading.Thread(target=other)
    with gc_pause.paused():
        t.start()
        entered.wait(10)
    assert not gc.isenabled()           # the other thread still captures
    release.set()
    t.join(10)
    assert done == [True] and gc.isenabled()
