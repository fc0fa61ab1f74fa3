"""What a capture did (CaptureRecord.work: passes over the code, symbolic steps, fold attempts), counted so an
exponential or repeated exploration fails a test without timing anything (issue 28), and the first pass
serving as the restart at a loop past the unroll limit (stitch/partial.capture_around_break's `stopped`)."""

from __future__ import annotations

import numpy as np

import minidynamo as md
from benchmarks.corpus.capture_cases import newton_sqrt as newton     # the loop of issue 28
from minidynamo import api
from tests.conftest import check


def long_loop(x):
    for i in range(100):
        x = x * 1.01 + i
    return x


def long_loop_then_print(x, n):
    t = x
    for i in range(n):
        t = t * 0.5 + np.tanh(t)
    print("done", n)
    return t + 1


def works(fn, *args, **options):
    with api.record_run() as records:
        md.compile(fn, options=options)(*args)
    return [r.work for r in records]


DRIVEN = {"fori_loops": False}      # the loops past the unroll limit below are driven, not fori_loop nodes


def test_the_newton_loop_is_one_pass_and_one_fold():
    # one while_loop node from one look at the body: no unrolling, no re-capture
    check(newton, np.float32([2, 3, 5, 7]), calls=[(np.float32([1, 4, 9, 16]),)])
    (work,) = works(newton, np.float32([2, 3, 5, 7]))
    assert work["passes"] == 1 and work["fold attempts"] == 1 and work["steps"] < 100


def test_a_loop_past_the_unroll_limit_is_not_captured_twice():
    with md.config.patch(**DRIVEN):
        check(long_loop, np.ones(3), calls=[(np.arange(3.0),)])
    first, body, *_ = works(long_loop, np.ones(3), **DRIVEN)     # (then the code after the loop)
    assert first["passes"] == 1 and body["passes"] == 1
    assert first["steps"] < 10 * 64       # 64 unrolled iterations of a 9-instruction loop, once


def test_a_folded_loop_is_one_pass_and_one_look_at_its_body():
    check(long_loop, np.ones(3), calls=[(np.arange(3.0),)])
    (work,) = works(long_loop, np.ones(3))      # one fori_loop node: no driver, no resume function
    assert work["passes"] == 1 and work["fold attempts"] == 1 and work["steps"] < 40


def test_a_break_inside_an_instruction_still_restarts():
    check(long_loop_then_print, np.ones(2), 3, calls=[(np.ones(2), 70)])
    assert works(long_loop_then_print, np.ones(2), 3)[0]["passes"] == 2


def _explained(fn, *args) -> str:
    text = str(md.explain(fn)(*args))
    return "\n".join(line for line in text.splitlines() if "captured in" not in line)


def test_skipping_the_restart_gives_what_the_restart_gives(monkeypatch):
    args = (np.ones(2), 70)
    with md.config.patch(**DRIVEN):
        skipped = _explained(long_loop_then_print, *args)
        inner = api.capture_around_break
        monkeypatch.setattr(api, "capture_around_break", lambda *a, stopped=None, **kw: inner(*a, **kw))
        restarted = _explained(long_loop_then_print, *args)
    assert skipped == restarted and "loop ran 64 iterations" in skipped


def test_a_loops_control_flow_is_analysed_once_per_code_object():
    # every test of a loop asked for its instructions' successors again (72 times in fuzz seed 14)
    from minidynamo.capture.fold.postdom import successors
    code = long_loop_then_print.__code__
    assert successors(code) is successors(code)
    check(long_loop_then_print, np.ones(2), 3, calls=[(np.ones(2), 70)])
