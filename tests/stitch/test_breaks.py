"""Graph breaks that keep capturing: the code before a break is a graph, the breaking instruction runs in
plain Python, and the rest continues in a compiled resume function. Differential against eager throughout."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from minidynamo.capture.breaks import BreakCategory
import minidynamo as md
from minidynamo.api import _state_of
from minidynamo.errors import GraphBreakError
from minidynamo.examples.tour_programs import fit_logistic
from tests.conftest import CompileCounter, check

RNG = np.random.default_rng(7)


@pytest.fixture
def no_auto_cond():
    """These tests are about the break machinery itself: pure-arm branches stay breaks (auto_cond off)."""
    with md.config.patch(auto_cond=False):
        yield
POS = np.abs(RNG.standard_normal((3, 4))) + 0.1
NEG = -POS


def lecture_branch(x):
    s = x.sum(axis=-1).sum(axis=-1)
    if s > 0:
        return x * 2.0
    return x * -1.0


@pytest.mark.usefixtures("no_auto_cond")
def test_lecture_branch_has_one_break_and_two_graphs_on_each_path():
    for first, second in ((POS, NEG), (NEG, POS)):
        md.reset()
        res = check(lecture_branch, first, calls=[(second,), (first,), (second,)])
        out = md.explain(lecture_branch)(first)
        assert out.graph_count == 2 and out.graph_break_count == 1
        reason = out.break_reasons[0]
        assert reason.category == BreakCategory.DATA_DEPENDENT and reason.source_line == "if s > 0:"
        assert reason.lineno == lecture_branch.__code__.co_firstlineno + 2
        assert res.counter.frame_count >= 3          # the prefix graph plus one resume graph per path


@pytest.mark.usefixtures("no_auto_cond")
def test_the_branch_not_taken_is_captured_when_first_taken():
    counter = CompileCounter()
    f = md.compile(lecture_branch, backend=counter)
    f(POS)
    after_first = counter.frame_count
    f(POS)
    assert counter.frame_count == after_first         # warm: nothing captured again
    assert np.array_equal(f(NEG), lecture_branch(NEG))
    assert counter.frame_count == after_first + 1     # only the other path's resume graph is new


def two_blocks_with_print(x, w):
    h = np.tanh(x @ w)
    print("between blocks", h.shape)
    return h * 3.0 + x


def test_print_between_array_blocks_prints_once_in_order_with_two_graphs(capsys):
    x, w = RNG.standard_normal((4, 4)), RNG.standard_normal((4, 4))
    check(two_blocks_with_print, x, w, calls=[(x + 1, w)])
    out = md.explain(two_blocks_with_print)(x, w)
    assert out.graph_count == 2 and out.graph_break_count == 1
    assert out.break_reasons[0].category == BreakCategory.CALL
    capsys.readouterr()
    f = md.compile(two_blocks_with_print)
    for _ in range(3):
        f(x, w)
    assert capsys.readouterr().out == "between blocks (4, 4)\n" * 3


def helper_that_prints(h):
    h = h + 1.0
    print("inside helper")
    return np.exp(h) * 0.5


def caller_of_helper(x):
    y = np.tanh(x)
    z = helper_that_prints(y)
    return z - y


def test_helper_breaking_inside_still_has_its_array_code_captured():
    x = RNG.standard_normal((3, 3))
    check(caller_of_helper, x, calls=[(x * 2,)])
    out = md.explain(caller_of_helper)(x)
    ops = [op for g in out.graphs for op in g.ops()]
    assert "exp" in ops and "tanh" in ops and "add" in ops      # the helper's own array code is in graphs
    assert out.graph_break_count == 1
    assert out.break_reasons[0].stack, "the caller's view of the break names the inlined call"


def side_effects_around_break(x, log):
    log.append("before")
    x += 1.0
    print("break", len(log))
    log.append("after")
    x *= 2.0
    return x.sum()


def test_side_effects_and_in_place_writes_keep_their_order_across_a_break(capsys):
    check(side_effects_around_break, np.ones((2, 2)), [], calls=[(np.zeros((2, 2)), ["old"])])


def data_dependent_value(x):
    v = float(x.max())
    y = x / v
    return y + x.item(0)


def test_item_of_an_array_breaks_and_resumes_and_float_is_a_number_the_graph_computes():
    check(data_dependent_value, POS, calls=[(POS * 3,)])
    out = md.explain(data_dependent_value)(POS)
    assert out.graph_break_count == 1
    assert [(r.category, r.source_line.strip()) for r in out.break_reasons] == \
        [(BreakCategory.DATA_DEPENDENT, "return y + x.item(0)")]


def boolean_mask(x):
    y = x * 2.0
    picked = y[y > 1.0]
    return picked.sum() + y.mean()


def test_boolean_mask_indexing_breaks_and_stays_correct():
    check(boolean_mask, POS, calls=[(NEG,), (POS * 5,)])


def break_in_loop(x, n):
    for i in range(n):
        x = x + i
        if x.sum() > 10:
            x = x * 0.5
    return x


@pytest.mark.usefixtures("no_auto_cond")
def test_break_inside_a_for_loop_is_driven_and_correct():
    res = check(break_in_loop, POS, 4, calls=[(NEG, 3), (POS * 10, 5), (POS, 40)])
    assert res.counter.frame_count > 1, "the loop body is captured, not run eagerly"
    out = md.explain(break_in_loop)(POS, 4)
    assert not out.break_reasons[0].fallback


def stencil(u, steps):
    for t in range(steps):
        u = u.copy()
        u[1:-1] = 0.25 * (u[:-2] + 2.0 * u[1:-1] + u[2:])
    return u


def test_a_2000_step_loop_captures_its_body_once_not_per_iteration():
    u = np.random.default_rng(1).standard_normal(64)
    res = check(stencil, u, 2000, calls=[(u * 2, 2000), (u, 1999)])
    # capture work is independent of the trip count: per distinct `steps` (range() specializes on it) the
    # unrolled prefix, one driven body and the loop exit; the driven body is shared by both
    assert res.stats.pieces[0].captures == 2
    assert res.counter.frame_count <= 6


def triangular(A, n):
    A = A.copy()
    for i in range(n):
        for j in range(i):
            A[i, j] -= A[i, :j] @ A[:j, j]
    return A


def test_triangular_loop_nest_matches_eager():
    A = np.random.default_rng(2).standard_normal((60, 60)) / 60
    check(triangular, A, 60, calls=[(A * 0.5, 60)])


# the tour's training loop: `while loss > tol:` on a float() read out of an array each iteration
train_until = fit_logistic


def test_training_loop_on_item_stays_correct():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((50, 3))
    y = (X[:, 0] > 0).astype(float)
    res = check(train_until, np.zeros(3), X, y, 0.05, calls=[(np.ones(3), X, y, 0.08)])
    # dozens of iterations, a handful of graphs: the loop body is captured once (split by the float()
    # break), the loss and step counter stay unspecialized, the `while` test is guarded as a condition
    assert res.counter.frame_count <= 8


def test_loop_counters_do_not_recapture_per_iteration(caplog):
    with caplog.at_level(logging.WARNING, "minidynamo"):
        res = check(break_in_loop, POS, 30, calls=[(POS, 31)])
    assert res.counter.frame_count <= 10
    assert "cache size limit" not in caplog.text


def loop_with_exits(xs, limit):
    total = np.zeros(3)
    for k, x in enumerate(xs):
        if x.sum() > limit:
            break
        if x.max() < -5:
            return total, "early"
        total = total + x
        print("step", k)
    return total, "done"


def test_break_and_return_statements_inside_a_driven_loop(capsys):
    rng = np.random.default_rng(4)
    xs = [rng.standard_normal(3) for _ in range(80)]
    check(loop_with_exits, xs, 10.0, calls=[(xs, 1.0), (xs[:5] + [np.full(3, -9.0)] + xs, 10.0)])


def break_in_try(x):
    try:
        y = x * 2.0
        if y.sum() > 0:
            return y
        return -y
    except ValueError:
        return None


def test_break_inside_try_except_is_correct():
    check(break_in_try, POS, calls=[(NEG,), (np.ones((2, 2, 2)),)])


def test_truth_value_of_a_larger_array_raises_the_same_error():
    def ambiguous(x):
        if x > 0:          # ValueError: truth value of an array with more than one element
            return x
        return -x
    check(ambiguous, POS, expect_graph=False).assert_broke(    # (3.13+ captures no op before this break)
        "branch on the value of a bool array of shape (3, 4)")


def test_fullgraph_raises_before_anything_runs(capsys):
    f = md.compile(two_blocks_with_print, fullgraph=True)
    with pytest.raises(GraphBreakError, match="print") as info:
        f(np.ones((2, 2)), np.ones((2, 2)))
    assert info.value.reason.lineno == two_blocks_with_print.__code__.co_firstlineno + 2
    assert capsys.readouterr().out == ""


def chain_of_three_breaks(x):
    a = x + 1.0
    print("one")
    b = a * 2.0
    print("two")
    c = b - 3.0
    print("three")
    return c / 4.0


def test_several_breaks_chain_resume_functions(capsys):
    check(chain_of_three_breaks, POS, calls=[(NEG,)])
    out = md.explain(chain_of_three_breaks)(POS)
    assert out.graph_count == 4 and out.graph_break_count == 3


def test_resume_functions_are_reused_on_warm_calls():
    counter = CompileCounter()
    f = md.compile(chain_of_three_breaks, backend=counter)
    f(POS)
    n = counter.frame_count
    for _ in range(3):
        f(POS)
    assert counter.frame_count == n == 4          # a graph before each of the three breaks and one after


class Recorder:
    """A context manager that logs enter/exit (with the exception type) into a list."""

    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("enter")
        return 3

    def __exit__(self, kind, value, tb):
        self.log.append(("exit", kind))
        return False


def with_blocks(x, log):
    y = np.tanh(x)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = y / (x - x)
    with Recorder(log) as k:
        w = z * k + y
    return w


def with_raising_body(x, log):
    y = x * 2.0
    with Recorder(log):
        q = y[10]          # IndexError inside the block: __exit__ sees it, as in eager
    return q


def test_with_blocks_are_captured_around_and_inside():
    res = check(with_blocks, np.ones((3, 3)), [], calls=[(np.zeros((2, 2)), ["old"])])
    assert res.counter.frame_count >= 2
    out = md.explain(with_blocks)(np.ones((3, 3)), [])
    assert any("divide" in g.ops() for g in out.graphs)      # the body of the errstate block is a graph


def test_exception_inside_a_with_block_reaches_exit_exactly_as_eager():
    check(with_raising_body, np.ones(3), [], calls=[(np.ones(20), [])])


def append_of_a_breaking_value(xs, log, d):
    out = []
    for x in xs:
        out.append(np.tanh(x) + float(x.sum()))       # `out.append` is on the stack when float() breaks
        log.append(len(out))
        d.setdefault("k", []).append(float(x[0]))
    return out, log, d


def test_a_list_method_handed_to_the_resume_function_is_the_lists_own():
    res = check(append_of_a_breaking_value, [np.ones(2), np.zeros(2), np.ones(2)], [], {},
                calls=[([np.ones(2)] * 4, [1], {"k": [0.5]})])
    children = _state_of(res.compiled).children.values()
    reasons = [r.reason for c in children if _state_of(c) for r in _state_of(c).records if r.reason is not None]
    assert not any("builtin_function_or_method" in r.message for r in res.reasons + reasons)
