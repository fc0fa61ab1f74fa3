"""Decisions on small arrays computed only from capture-time constants (capture/known_values.py): answered
at capture time under the constants' guards, never from a value a write may have changed, and exactly as
eagerly when the inputs change."""

from __future__ import annotations

import numpy as np
import pytest

import minidynamo as md
from tests.conftest import check


def padding_check(x, pad):
    # numpy-ml's conv layers: paddings from shape ints, checked with any() over an array
    p = np.array([pad, pad + 1, x.shape[0] - 3])
    if any(p < 0):
        raise ValueError(f"negative padding {p}")
    return np.pad(x, (pad, pad + 1)) * int(np.prod(np.array(x.shape)))


def conversions(x, n):
    a = np.arange(4) * n
    return x + int(a[2]) + float(a.max()) + a[1].item() + len(a.tolist()), 2 * n in a, bool(a.all())


def written_then_read(x, v):
    a = np.zeros(3)
    a[0] = v                        # a write: every known value is forgotten
    if a[0] > 1:
        return x + 1
    return x - 1


def written_through_a_view(x, v):
    a = np.zeros(4)
    b = a[:2]
    b[0] = v
    if a[0] > 1:
        return x * 2
    return x


def warns_eagerly(x):
    r = np.array([1.0]) / 0.0      # the value is not computed at capture time (eager warns)
    return x + r


@pytest.mark.parametrize("auto_cond", [True, False])
def test_padding_check_is_one_graph_and_raises_as_eagerly(auto_cond):
    with md.config.patch(auto_cond=auto_cond):
        check(padding_check, np.ones(4), 1, calls=[(np.ones(5), 2), (np.ones(4), -1), (np.ones(2), 1),
                                                    (np.ones(4), 1)],
                                                    expect_fallback='cannot continue after RAISE_VARARGS in plain Python yet')
        out = md.explain(padding_check)(np.ones(4), 1)
    assert out.graph_count == 1 and out.graph_break_count == 0


def test_conversions_and_membership_fold():
    check(conversions, np.ones(3), 2, calls=[(np.ones(3), 3), (np.ones(2), 0)])
    out = md.explain(conversions)(np.ones(3), 2)
    assert out.graph_count == 1 and out.graph_break_count == 0


@pytest.mark.parametrize("fn", [written_then_read, written_through_a_view])
@pytest.mark.parametrize("auto_cond", [True, False])
def test_a_write_forgets_known_values(fn, auto_cond):
    with md.config.patch(auto_cond=auto_cond):
        check(fn, np.ones(2), 5, calls=[(np.ones(2), 0), (np.ones(2), 5), (np.ones(3), 2)])


def test_unspecialized_ints_are_pinned_when_a_decision_uses_them():
    def f(x, n):
        if np.array([n])[0] > 2:
            return x + n
        return x - n
    compiled = md.compile(f, dynamic=True)
    check(f, np.ones(2), 1, calls=[(np.ones(2), 3), (np.ones(2), 1), (np.ones(2), 7)], compiled=compiled)


def test_values_eager_warns_about_are_not_decided_at_capture():
    check(warns_eagerly, np.ones(2))
    assert md.explain(warns_eagerly)(np.ones(2)).graph_count == 1


def test_decisions_on_inputs_still_break():
    def f(x):
        if (x > 0).all():
            return x
        return -x
    with md.config.patch(auto_cond=False):
        check(f, np.ones(2), calls=[(-np.ones(2),)])
        assert md.explain(f)(np.ones(2)).graph_break_count == 1


def test_a_known_branch_whose_arm_writes_runs_that_arm():
    # Shrunk from fuzz seed 31105: folding the branch into a cond failed (the arm writes into x), and the
    # capture went on from where the failed arm stopped instead of after the jump, dropping the write.
    def f(x, n):
        k = np.array(1)
        if k.any():
            x[1] = n
        return x
    x = np.arange(9).reshape(3, 3)
    check(f, x, 2, calls=[(x, 5)])


def insert_under_known_test(x, n, lst):
    k = np.array([1, x.ndim, len(lst)])
    if k[0]:                                # known: decided at capture, no arm run speculatively
        lst.insert(0, n + 0)
    return lst


@pytest.mark.parametrize("dynamic", [None, True])
def test_a_known_branch_whose_arm_writes_a_list_is_not_folded_first(dynamic):
    # (was: the fold was tried, its arm's list write stayed behind after the fold failed, and the write-back
    # read a graph node the failed fold had cut: KeyError in codegen, fuzz seed 800021 with --dynamic true)
    cfn = md.compile(insert_under_known_test, dynamic=dynamic, options={"suppress_errors": False})
    check(insert_under_known_test, np.ones(3), 2, [1, 2],
          calls=[(np.ones(3), 5, [1]), (np.ones((2, 2)), 7, []), (np.ones(4), 2, [3, 4, 5])], compiled=cfn)


def batches(X, y, size):
    # a batch generator over np.arange bounds, as real training code writes it
    n = X.shape[0]
    for i in np.arange(0, n, size):
        begin, end = i, min(i + size, n)
        yield X[begin:end], y[begin:end]


def train(X, y, w, size):
    losses = []
    for xb, yb in batches(X, y, size):
        err = xb @ w - yb
        losses.append(np.mean(err ** 2))
        w = w - 0.1 * xb.T @ err
    return w, np.mean(losses)


def test_known_arange_items_are_slice_bounds_and_the_batch_loop_is_one_graph():
    X, y = np.arange(30.0).reshape(10, 3) / 10, np.arange(10.0)
    r = check(train, X, y, np.zeros(3), 4, calls=[(X, y, np.ones(3), 4)]).assert_no_breaks()
    assert r.graphs[0].ops().get("getitem") == 3 + 6    # the arange's 3 items, then 3 batches of X and y
    # another size: symbolic from then on, so the arange's items are unknown and min() breaks (correctly)
    check(train, X, y, np.zeros(3), 4, calls=[(X[:9].copy(), y[:9].copy(), np.ones(3), 3)], compiled=r.compiled,
          expect_fallback='cannot continue after RETURN_GENERATOR in plain Python')


def test_a_slice_bound_from_input_values_still_breaks():
    def f(x, k):
        return x[k[0]:k[1]]
    r = check(f, np.arange(5.0), np.array([1, 3]), calls=[(np.arange(5.0), np.array([0, 2]))])
    assert r.reasons and r.reasons[0].opname in ("BINARY_SLICE", "BINARY_SUBSCR")


def newton_from_constants(n):
    g = np.array([2.0, 3.0, 5.0, 7.0], dtype=np.float32)
    z = g.copy()
    k = 0
    while np.abs(z * z - g).max() > 1e-8 and k < n:
        z = 0.5 * (z + g / z)
        k += 1
    return z, k


def test_a_value_built_from_itself_keeps_what_it_came_from_once(monkeypatch):
    # Issue 28: each unrolled step of `z = 0.5 * (z + g / z)` reads z twice, and the list of Vars a known
    # value came from was the concatenation of its operands' lists: it doubled per step (2**22 entries
    # for the 22 steps of this loop, a minute of capture). Counted, not timed.
    from minidynamo.capture import known_values
    sizes = []
    value_of = known_values.KnownValues.value_of

    def counting(self, var):
        entry = self._values.get(var.node)
        sizes.append(0 if entry is None else len(entry[1]))
        return value_of(self, var)
    monkeypatch.setattr(known_values.KnownValues, "value_of", counting)
    check(newton_from_constants, 12, calls=[(3,)])
    out = md.explain(newton_from_constants)(12)
    assert sizes and max(sizes) <= 4
    assert out.graph_count == 1 and out.graph_break_count == 0
