"""A for loop whose fold into a fori_loop node was refused (capture/fold/fori.py) is not tried again: not at the
next iteration of an enclosing loop, not in the restart, not in a recompile or a resume function's next
variant (issue 28: one seed's resume function re-ran 66 refused bodies per capture). Differential: the
loops run unrolled and driven exactly as eager, cold and warm, and over the shapes that recapture."""

from __future__ import annotations

import numpy as np

import minidynamo as md
from minidynamo import api
from minidynamo.capture.fold import fori
from tests.conftest import check


def refused(x):
    acc = x * 1.0
    for i in range(80):                  # past the unroll limit; `i == 75` differs across the range
        acc = acc * 0.5 + x[1]
        if i == 75:
            break
    return acc


def nested_refused(x, n):
    acc = x * 1.0
    for k in range(3):                   # an inner loop: worth folding; its body's inner loop is refused
        for i in range(70):
            acc = acc * 0.5 + x[1] * k
            if i == 68:
                break
        acc = acc / (k + n)
    return acc


def with_refusal_in_middle(x, lst):
    t = x + 1
    print("before", t.shape)
    for i in range(70):
        t = t * 0.5 + x[2]
        if i == 68:
            break
    lst.append(float(t.sum()))
    return t


def _inputs(n):
    return (np.arange(3.0 + n) - 1.5,)


def _works(fn, calls):
    md.reset()
    compiled = md.compile(fn)
    with api.record_run() as records:
        for args in calls:
            compiled(*args)
    return records


def test_a_refused_fold_is_tried_once_over_recompiles():
    calls = [_inputs(n) for n in range(4)] + [(np.arange(5, dtype=np.float32),)]
    check(refused, *calls[0], calls=calls[1:])
    records = _works(refused, calls)
    assert len(records) >= 3      # (the shape and the dtype change capture again)
    attempts = [r.work.get("fold attempts", 0) for r in records]
    assert attempts[0] == 1 and sum(attempts) == 1, attempts
    (why,) = fori._REFUSED[refused.__code__].values()
    assert "does not hold for every index" in why


def test_an_inner_refusal_is_not_retried_per_outer_iteration():
    calls = [(np.arange(4.0), 1), (np.arange(6.0), 2), (np.arange(4, dtype=np.float32), 1)]
    check(nested_refused, *calls[0], calls=calls[1:])
    records = _works(nested_refused, calls)
    first = records[0].work
    # the outer fold (refused as soon as its body meets the inner loop, not after unrolling it), the inner
    # loop inside that attempt, and the inner loop once unrolled: then never again
    assert first["fold attempts"] == 3, first
    assert first["steps"] < 64 * 20, first             # the inner loop unrolled once, not twice
    seen = set()
    for r in records:              # recaptures of a piece (the function, a resume function) try no fold
        if r.fn.__code__ in seen:
            assert r.work.get("fold attempts", 0) == 0, (r.fn.__qualname__, r.work)
        seen.add(r.fn.__code__)
    assert len(seen) < len(records)


def test_reset_forgets_refusals():
    check(refused, *_inputs(0))
    assert refused.__code__ in fori._REFUSED
    md.reset()
    assert refused.__code__ not in fori._REFUSED
    assert _works(refused, [_inputs(0)])[0].work["fold attempts"] == 1


def test_results_and_effects_stay_eager_with_remembered_refusals():
    lst = []
    calls = [(np.arange(3.0) + k, lst) for k in range(3)] + [(np.arange(5.0), lst), (np.ones(3, np.float32), lst)]
    check(with_refusal_in_middle, *calls[0], calls=calls[1:])
    # a second compiled function of the same code starts with the refusals the first one recorded
    check(with_refusal_in_middle, np.arange(4.0), [], calls=[(np.arange(4.0) * 2, [])])
