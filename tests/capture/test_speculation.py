"""Branches whose other way only raises (capture/fold/speculation.py), np.allclose & co answering one Python
bool, and np.testing's assertions as ops: one graph, and the program's own exception when they fail."""

import warnings

import numpy as np
import pytest

import minidynamo as md
from tests.conftest import captured, check
from tests.programs.checks import ambiguous, doubled, guarded, logged_then_checked, validated_step, warns

DTYPES = [np.int8, np.float32, np.float64, np.bool_, np.complex128]
SHAPES = [(), (0,), (3,), (2, 3)]


@pytest.mark.parametrize("case", ["pass", "allclose", "binary", "raise", "assert_allclose"])
def test_checks_capture_one_graph_and_fail_as_eagerly(case):
    W = np.full((3, 4), 0.25)
    grad = {"pass": np.eye(3, 4), "allclose": np.eye(3, 4) * 0, "binary": np.eye(3, 4),
            "raise": np.eye(3, 4), "assert_allclose": np.eye(3, 4)}[case]
    lr = {"pass": 0.01, "allclose": 0.01, "binary": 0.01, "raise": 1.5, "assert_allclose": 0.3}[case]
    if case == "allclose":
        W = np.full((3, 4), 2.0)
    if case == "binary":
        grad = grad * 0.5
    r = check(validated_step, W, grad, lr, calls=[(np.full((3, 4), 0.25), np.eye(3, 4), lr)])
    assert not r.reasons and len(r.graphs) == 1
    ops = r.graphs[0].ops()
    assert ops.get("check") == 3 and ops.get("testing.assert_allclose") == 1


def test_a_failing_check_reruns_with_the_writes_undone_inside_a_try():
    for x in (np.arange(3.0), np.arange(-3.0, 0.0)):
        r = check(guarded, x.copy(), [], calls=[(x + 1, [])])
        assert not r.reasons


def test_ambiguous_truth_and_warnings_are_eagers():
    check(ambiguous, np.arange(1.0, 4.0))

    for x in (np.arange(1.0, 3.0), np.arange(0.0, 2.0)):
        with warnings.catch_warnings(record=True) as eager:
            warnings.simplefilter("always")
            try:
                warns(x)
            except AssertionError:
                pass
        with warnings.catch_warnings(record=True) as compiled:
            warnings.simplefilter("always")
            check(warns, x, expect_graph=False)
        assert [str(w.message) for w in compiled] == [str(w.message) for w in eager] * 2


def test_branches_without_a_raising_way_still_break():
    def both(x):
        if x.sum() > 0:
            raise ValueError("big")
        raise ValueError("small")
    assert check(both, np.ones(2), expect_fallback='cannot continue after RAISE_VARARGS in plain Python yet').reasons

    def neither(x):
        if x.sum() > 0:
            x = x * 2
        return x
    r = check(neither, np.ones(2), calls=[(-np.ones(2),)])
    assert r.reasons or r.graphs[0].ops().get("cond")      # folded into a cond node or a break, never a check
    assert not any(g.ops().get("check") for g in r.graphs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_comparisons_answer_as_numpy(dtype, shape):
    def compare(a, b):
        return np.isclose(a, b), np.allclose(a, b), np.array_equal(a, b), np.array_equiv(a, b), \
            np.isclose(a, 1, atol=0.5), np.array_equal(a, b, equal_nan=True) if a.dtype.kind in "fc" else 0
    a = np.ones(shape, dtype)
    b = a.copy()
    if a.size:
        b.flat[0] = 0
    r = check(compare, a, b, calls=[(a, a.copy())])
    assert not r.reasons


def test_testing_assertions_raise_numpys_message():
    def asserts(a, b):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_almost_equal(a, b, decimal=3)
        np.testing.assert_array_less(a, b + 1)
        return a + b
    a = np.arange(4.0)
    r = check(asserts, a, a.copy(), calls=[(a, a + 1e-2), (a, a[:3])])
    assert r.records[0].reason is None              # (the last call's a + b cannot broadcast: NumPy's error)


def test_speculated_checks_report_their_branch():
    out = md.explain(doubled)(np.ones(2))
    assert out.graph_break_count == 0 and "check(" in str(out.graphs[0])


def _warned(fn, *args):
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        try:
            value, exc = fn(*args), None
        except AssertionError as e:
            value, exc = None, str(e)
    return [(w.category, str(w.message)) for w in shown], exc, value


@pytest.mark.parametrize("x", [np.arange(1.0, 3.0), np.arange(0.0, 2.0), np.zeros(0)])
def test_a_failing_check_shows_the_warnings_before_it_once(x):
    # the graph warns in np.log, then its check fails and the function runs again eagerly, warning again:
    # the graph's warnings are held until it returns, and dropped when it raises
    compiled = md.compile(logged_then_checked)
    assert _warned(compiled, x)[:2] == _warned(logged_then_checked, x)[:2]
    assert _warned(compiled, x)[:2] == _warned(logged_then_checked, x)[:2]      # (warm)
    captured(compiled).assert_no_breaks().assert_graph_ran()       # the check is in the graph, which ran
    assert md.stats(compiled).hits == 1
    assert md.explain(logged_then_checked)(np.ones(2)).graph_break_count == 0
