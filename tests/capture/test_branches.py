"""capture/fold/branches.py (auto_cond): a data-dependent `if` with pure arms is one cond node, no break; anything
else keeps today's break. Differential against eager throughout, with inputs that take both arms."""

from __future__ import annotations

import numpy as np
import pytest

import minidynamo as md
from minidynamo import config
from tests.conftest import CompileCounter, check

POS = np.linspace(0.5, 2.0, 12).reshape(3, 4)
NEG = -POS
MIXED = POS * np.array([1.0, -3.0, 1.0, 1.0])


def conditional_op(x, threshold):
    if x.sum() > threshold:
        return x * 2
    else:
        return x + 1


def assign_in_both(x, w):
    h = np.tanh(x @ w)
    if h.sum() > 0:
        y = h * 2
        scale = 2
    else:
        y = h - 1
        scale = 2
    return y.mean(axis=0) * scale, y


def no_else(x):
    s = x.sum()
    if s:
        x = x + 1
    return x


def nested(x):
    s = x.sum()
    if s > 0:
        if x[0, 0] > 1.0:
            y = x * 3
        else:
            y = x * 4
    else:
        y = -x
    return y + 1


def cond_ops(fn, *args):
    """(folded branches, graph breaks) of one explain() run."""
    out = md.explain(fn)(*args)
    return out.folded_branches, out.break_reasons


def count_conds(graph):
    return sum(1 + sum(count_conds(g) for _, g in n.target.subgraphs) for n in graph.nodes if n.op == "cond")


@pytest.mark.parametrize("fn, calls", [
    (conditional_op, [(POS, 0.0), (NEG, 0.0), (MIXED, 0.0)]),
    (assign_in_both, [(POS, POS.T), (NEG, POS.T), (MIXED, POS.T)]),
    (no_else, [(POS,), (POS - POS,), (NEG,)]),
    (nested, [(POS,), (POS * 0.1,), (NEG,), (MIXED,)]),
])
def test_pure_arms_fold_into_one_graph_and_both_arms_match_eager(fn, calls):
    res = check(fn, *calls[0], calls=calls[1:])
    assert res.reasons == [] and res.counter.frame_count == 1      # one capture serves every path
    folded, breaks = cond_ops(fn, *calls[0])
    assert breaks == [] and folded and folded[0].kind == "if"


def test_explain_names_each_folded_branch_with_its_source():
    folded, _ = cond_ops(nested, POS)
    first = conditional_op.__code__.co_firstlineno
    assert [(b.source_line, b.function) for b in folded] == [("if s > 0:", "nested"),
                                                               ("if x[0, 0] > 1.0:", "nested")]
    assert folded[0].lineno == nested.__code__.co_firstlineno + 2 and first > 0
    text = str(md.explain(nested)(POS))
    assert "branches and loops captured without a break:" in text and "`if x[0, 0] > 1.0:`" in text


def test_nested_conds_nest_in_the_graph():
    out = md.explain(nested)(POS)
    assert out.graph_count == 1 and count_conds(out.graphs[0]) == 2
    assert sum(n.op == "cond" for n in out.graphs[0].nodes) == 1


def test_auto_cond_off_keeps_the_break():
    with config.patch(auto_cond=False):
        res = check(conditional_op, POS, 0.0, calls=[(NEG, 0.0)])
        folded, breaks = cond_ops(conditional_op, POS, 0.0)
    assert folded == [] and [b.category for b in breaks] == ["data_dependent"]
    assert res.reasons


def index_on_one_side(x):
    if x.sum() > 0:
        y = x[7]          # x has 3 rows: IndexError, only on this side
    else:
        y = x[0]
    return y * 2


def writes_differently(x):
    if x.sum() > 0:
        x[0] = 1.0
    else:
        x[1] = 2.0
    return x


def prints_in_arm(x):
    if x.sum() > 0:
        print("positive")
        y = x * 2
    else:
        y = x
    return y


def appends_in_arm(x, log):
    if x.sum() > 0:
        log.append(1)
    return x + 1


def spec_differs(x):
    if x.sum() > 0:
        y = x.astype(np.float32)
    else:
        y = x
    return y


def python_value_differs(x):
    if x.sum() > 0:
        flag = True
    else:
        flag = False
    return x + 1, flag


def set_in_one_arm_read_later(x):
    if x.sum() > 0:
        t = x * 2
    y = x + 1
    return y, t


def many_valued_predicate(x):
    if x > 0:
        return x
    return -x


@pytest.mark.parametrize("fn, calls", [
    (index_on_one_side, [(POS,), (NEG,)]),
    (writes_differently, [(POS,), (NEG,), (MIXED,)]),
    (prints_in_arm, [(POS,), (NEG,)]),
    (appends_in_arm, [(POS, []), (NEG, [0])]),
    (spec_differs, [(POS,), (NEG,)]),
    (python_value_differs, [(POS,), (NEG,)]),
    (set_in_one_arm_read_later, [(POS,), (NEG,)]),
    (many_valued_predicate, [(POS,), (NEG,)]),
])
def test_impure_or_mismatched_arms_keep_the_break_and_eager_behaviour(fn, calls):
    res = check(fn, *calls[0], calls=calls[1:], expect_graph=False)
    assert res.reasons, "expected a graph break"
    assert not any(r.fallback for r in res.reasons), "a break, stitched around: not a frame run eagerly"
    for args in calls:
        try:
            folded, breaks = cond_ops(fn, *args)
        except (IndexError, ValueError, UnboundLocalError):      # eager raises on these inputs
            continue
        assert folded == [] and breaks


def raises_at_run_time(m, d):
    if d.sum() > 0:
        y = np.linalg.inv(m)       # singular m: LinAlgError, only when this arm runs
    else:
        y = m / d                  # d == 0: a RuntimeWarning, only when this arm runs
    return y


def test_arm_exceptions_and_warnings_happen_only_when_that_arm_runs():
    singular, ones = np.ones((2, 2)), np.ones((2, 2))
    res = check(raises_at_run_time, np.eye(2), ones,
                calls=[(singular, ones), (singular, -ones), (np.eye(2), ones)])
    assert res.reasons == [] and res.counter.frame_count == 1
    f = md.compile(raises_at_run_time)
    with pytest.raises(np.linalg.LinAlgError):
        f(singular, ones)
    with pytest.warns(RuntimeWarning):
        f(singular, np.zeros((2, 2)) - 1e-300 * 0)


def loop_with_cond(x, n):
    acc = x * 0
    for i in range(n):
        if acc.sum() > 5:
            acc = acc - x
        else:
            acc = acc + x * 2
    return acc


def test_cond_inside_a_driven_loop():
    with config.patch(unroll_limit=3, fori_loops=False):
        res = check(loop_with_cond, POS, 10, calls=[(NEG, 10), (POS, 7), (MIXED, 2)])
    assert any(r.category == "loop" for r in res.reasons)         # the loop itself is driven
    assert all(r.category != "data_dependent" for r in res.reasons)


def truthiness(x):
    s = x.sum()
    if not s:
        return x
    if s and x[0, 0] > 0:
        return x * 2
    return x - 1


def test_truthiness_not_and_short_circuit():
    res = check(truthiness, POS, calls=[(NEG,), (POS * 0,), (MIXED,)])
    assert res.reasons == []


def returns_tuple_and_constant(x):
    if x.mean() > 0:
        return x.max(), 1
    return x.min(), 1


def test_arms_returning_tuples_with_equal_constants():
    res = check(returns_tuple_and_constant, POS, calls=[(NEG,)])
    assert res.reasons == []


def reads_global_in_arm(x):
    if x.sum() > 0:
        return x @ WEIGHTS
    return x @ (WEIGHTS * 2)


WEIGHTS = np.arange(8.0).reshape(4, 2)


def test_global_array_first_read_inside_an_arm_is_a_graph_input():
    res = check(reads_global_in_arm, POS, calls=[(NEG,)])
    assert res.reasons == [] and res.counter.frame_count == 1


def helper(h):
    if h.max() > 1.5:
        return h / h.max()
    return h


def calls_helper_with_branch(x):
    return helper(x) + 1


def test_branch_inside_an_inlined_function_folds():
    res = check(calls_helper_with_branch, POS, calls=[(POS * 0.1,)])
    assert res.reasons == [] and res.counter.frame_count == 1


def test_compile_counter_sees_one_graph_for_both_paths():
    counter = CompileCounter()
    f = md.compile(conditional_op, backend=counter)
    assert np.array_equal(f(POS, 0.0), conditional_op(POS, 0.0))
    assert np.array_equal(f(NEG, 0.0), conditional_op(NEG, 0.0))
    assert counter.frame_count == 1 and counter.graphs[0].count("cond") == 1


def test_join_point_is_the_immediate_post_dominator():
    from minidynamo.capture.instructions import decode
    from minidynamo.capture.fold.postdom import EXIT, join_point

    def both_return(x):
        if x:
            return 1
        return 2

    def while_true(x):
        while True:
            x = x + 1

    code = both_return.__code__
    jump = next(i for i, ins in enumerate(decode(code).instrs) if "POP_JUMP" in ins.name)
    assert join_point(code, jump) == EXIT
    code = assign_in_both.__code__
    instrs = decode(code).instrs
    jump = next(i for i, ins in enumerate(instrs) if "POP_JUMP" in ins.name)
    join = join_point(code, jump)
    # 3.11 joins at `return ...`; 3.12+ duplicates that small exit block into both arms (the join is EXIT)
    assert join == EXIT or instrs[join].location.lineno == assign_in_both.__code__.co_firstlineno + 8
    loop = while_true.__code__
    body = next(i for i, ins in enumerate(decode(loop).instrs) if ins.name == "BINARY_OP")
    assert join_point(loop, body) is None          # never reaches the exit


def test_auto_cond_option_must_be_a_bool():
    with pytest.raises(TypeError, match="auto_cond must be True or False"):
        with config.patch(auto_cond=1):
            pass


@pytest.mark.parametrize("name", ["sign_dependent", "clip_grad_norm", "spring_chain"])
def test_corpus_models_with_pure_arms_are_one_graph(name):
    from benchmarks.corpus import MODELS
    model = next(m for m in MODELS if m.name == name)
    fn = model.function("small")
    out = md.explain(fn)(*model.build("small", 0))
    assert out.graph_count == 1 and out.break_reasons == [] and out.folded_branches
    calls = [model.build("small", 1)] + ([model.other("small", 0)] if model.other else [])
    check(fn, *model.build("small", 0), calls=calls)


# ---- an `if` inside a captured `with np.errstate(...)` block folds like any other -----------------------------

def branch_in_errstate(x, mode):
    with np.errstate(divide=mode, invalid=mode):
        y = np.log(x)                  # log(0) divides by zero, log(-1) is invalid
        if y.sum() > 0:
            z = np.log(y) * 2          # invalid for the negative entries of y
        else:
            z = y / (x - x)            # 0 / 0 and c / 0
    return z + 1


def branch_in_try_in_errstate(x):
    with np.errstate(divide="ignore"):
        try:                           # a user try inside the block: its own region, keeps the break
            if x.sum() > 0:
                y = x * 2
            else:
                y = x - 1
        except ValueError:
            y = x
    return y


def _warnings_of(fn, *args):
    import warnings
    with warnings.catch_warnings(record=True) as log:
        warnings.simplefilter("always")
        try:
            fn(*args)
        except FloatingPointError as e:
            return [f"raised {e}"]
    return [(w.category, str(w.message)) for w in log]


@pytest.mark.parametrize("mode", ["ignore", "warn", "raise"])
def test_branch_inside_errstate_folds_with_the_blocks_error_state(mode):
    calls = [(np.array([0.5, 3.0, 9.0]), mode), (np.array([0.0, 1.0, -1.0]), mode),
             (np.array([0.2, 0.3, 0.4]), mode), (np.array([4.0, 0.5, 0.1]), mode)]
    res = check(branch_in_errstate, *calls[0], calls=calls[1:])
    folded, breaks = cond_ops(branch_in_errstate, np.array([2.0, 3.0, 9.0]), mode)
    assert breaks == [] and [b.kind for b in folded] == ["if"] and res.counter.frame_count == 1
    compiled = md.compile(branch_in_errstate)
    for args in calls:
        assert _warnings_of(compiled, *args) == _warnings_of(branch_in_errstate, *args)


def test_branch_in_a_try_inside_errstate_keeps_the_break():
    res = check(branch_in_try_in_errstate, np.ones(3), calls=[(-np.ones(3),)])
    assert any(r.category == "data_dependent" for r in res.reasons)
