"""`with np.errstate(...)` blocks: captured whole, their ops run under the block's error state in the
generated code; warnings, FloatingPointError and the caller's error state after the call are eager's.
A break inside a block makes the whole block plain Python."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minidynamo as md
from minidynamo.graph import codegen

from tests.backends.dask_helpers import lowering_plans
from tests.conftest import captured, check
from tests.extras import require
from tests.stitch.test_nested_loops import child_captures

X = np.array([0.0, 1.0, 2.0, -1.0])


def _observed(fn, args):
    """(result or exception, warnings as (category, message), error state after) of one call."""
    before = np.geterr()
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            out = ("value", fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args]))
        except Exception as e:      # compared by type and message
            out = ("raised", type(e), str(e))
    after = np.geterr()
    assert after == before, f"{fn.__name__} left the error state {after}, was {before}"
    return out, [(w.category, str(w.message)) for w in seen]


def check_errstate(fn, *calls, breaks: int | None = 0):
    """check() on every call, and the same warnings (category and message, in order) and exceptions."""
    result = check(fn, *calls[0], calls=calls[1:], expect_graph=False)
    compiled = md.compile(fn, options={"suppress_errors": False})
    for args in calls:
        (e_out, e_warn), (c_out, c_warn) = _observed(fn, args), _observed(compiled, args)
        assert c_warn == e_warn, f"warnings {c_warn}, eager {e_warn}"
        assert e_out[0] == c_out[0] and (e_out[0] == "value" or e_out[1:] == c_out[1:]), (c_out, e_out)
    if breaks is not None:
        assert len(result.reasons) == breaks, result.reasons
    return result


def ignore_divide(x):
    a = np.log(x)                                   # warns: outside the block
    with np.errstate(divide="ignore", invalid="ignore"):
        b = np.log(x)                               # silent
        c = np.sqrt(x)
    return a + b + c + np.sqrt(x)                   # warns again


def test_ops_inside_the_block_run_under_its_state():
    result = check_errstate(ignore_divide, (X,), (np.ones(4),))
    graph = result.graphs[0]
    tagged = [n.op for n in graph.nodes if n.meta.get("errstate")]
    assert tagged == ["log", "sqrt"]
    assert "errstate(divide='ignore', invalid='ignore')" in str(graph)
    source = str(codegen.generate(graph))
    assert source.count("errstate(") == 1           # consecutive ops share one `with`


def raising(x, log):
    log.append("before")
    with np.errstate(all="raise"):
        y = np.log(x) * 2
    log.append("after")
    return y


def test_raise_gives_floating_point_error_and_side_effects_as_eager():
    check_errstate(raising, (np.ones(3), []), (X, []), (np.ones(3) * 2, ["x"]))


def nested(x):
    with np.errstate(divide="ignore"):
        a = np.log(x)
        with np.errstate(over="raise", divide="warn"):
            b = np.exp(x * 400.0) + np.log(x)
        c = 1.0 / x
    return a, b, c


def test_nested_blocks():
    check_errstate(nested, (np.ones(2),), (np.zeros(2),), (np.full(2, 3.0),))


def returns_inside(x):
    with np.errstate(under="raise"):
        return np.exp(-x)


def test_return_inside_and_underflow():
    check_errstate(returns_inside, (np.ones(3),), (np.full(3, 1000.0),))


def held_in_a_variable(x):
    quiet = np.errstate(all="ignore")
    with quiet as entered:
        y = np.log(x) / x
    return y, entered


def test_a_manager_held_in_a_variable():
    check_errstate(held_in_a_variable, (X,))


def test_entering_one_manager_twice_raises_as_eager():
    def twice(x):
        es = np.errstate(divide="ignore")
        with es:
            y = np.log(x)
        with es:
            y = y + np.log(x)
        return y
    check_errstate(twice, (X,), breaks=None).assert_fallback("after its block was entered")


def test_a_bad_mode_raises_as_eager():
    def bad(x):
        with np.errstate(divide="loud"):
            return np.log(x)
    check_errstate(bad, (X,), breaks=None).assert_broke("invalid error mode 'loud'")


def helper(x):
    with np.errstate(invalid="ignore"):
        return np.sqrt(x)


def calls_a_helper(x):
    return helper(x) + np.sqrt(x)


def test_a_block_in_an_inlined_helper():
    check_errstate(calls_a_helper, (X,), (np.ones(4),))


def in_a_long_loop(x, n):
    acc = np.zeros_like(x)
    for i in range(n):
        with np.errstate(divide="ignore"):
            acc = acc + np.log(x * (i % 3))
    return acc


def test_a_block_in_a_driven_loop_body():
    check_errstate(in_a_long_loop, (np.ones(3), 5), (np.ones(3), 100), breaks=None).assert_graph_ran() \
        .assert_broke("the rest is run by a loop driver calling a captured body")


def breaks_inside(x):
    a = x * 2
    with np.errstate(all="raise"):
        y = np.log(x)
        print("inside")
        z = np.sqrt(y)
    return z + a


def test_a_break_inside_the_block_runs_the_block_in_plain_python():
    result = check_errstate(breaks_inside, (np.full(3, 2.0),), (np.full(3, 0.5),), (np.zeros(3),), breaks=None)
    assert any("np.errstate" in r.message for r in result.reasons)


def print_inside_block(x, mode):
    with np.errstate(divide=mode):
        y = np.log(x)
        print("step", y.shape)
        z = y / x
    return z


def test_a_break_inside_the_block_is_captured_once():
    """The block's errstate object is made per call and reaches the resume functions on the stack: guarded
    by its type (capture only hands it to plain Python), not by identity, which recaptured every call."""
    calls = [(np.full(3, 2.0), "ignore"), (np.zeros(3), "ignore"), (np.zeros(3), "warn"), (np.zeros(3), "raise"),
             (np.full(3, 0.5), "ignore"), (np.zeros(3), "ignore")]
    check_errstate(print_inside_block, *calls, breaks=None)
    compiled = md.compile(print_inside_block)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for args in calls[:2] * 3:
            compiled(*(a.copy() if isinstance(a, np.ndarray) else a for a in args))
    captures = child_captures(compiled)
    assert len(captures) > 2 and set(captures.values()) == {1}, captures


def folded_branch(x):
    with np.errstate(divide="ignore"):
        if x.sum() > 0:
            y = np.log(x)
        else:
            y = np.log(-x)
    return y


def test_a_folded_branch_inside_the_block():
    check_errstate(folded_branch, (np.array([0.0, 1.0]),), (np.array([0.0, -1.0]),),
                   breaks=None).assert_no_breaks().assert_graph_ran()


def test_the_callers_error_state_still_applies_outside_the_block():
    compiled = md.compile(ignore_divide, options={"suppress_errors": False})
    for fn in (ignore_divide, compiled):
        with np.errstate(all="raise"), pytest.raises(FloatingPointError, match="divide by zero"):
            fn(X)
    captured(compiled).assert_no_breaks().assert_graph_ran()       # raised by the graph's first log


@pytest.mark.parametrize("backend", ["jax", "dask"])
def test_engines_leave_ops_in_a_block_to_numpy(backend):
    require(backend)

    def f(x):
        y = np.tanh(x) + 1.0
        with np.errstate(all="raise"):
            z = np.log(y - 1.0)
        return z * 2
    compiled = md.compile(f, backend=backend, options={"suppress_errors": False})
    np.testing.assert_allclose(compiled(np.ones(3)), f(np.ones(3)), rtol=1e-12)
    with pytest.raises(FloatingPointError):
        compiled(np.zeros(3))
    assert np.geterr()["divide"] == "warn"
    plan, = lowering_plans(compiled)
    assert [d.node.op for d in plan.not_lowered] == ["subtract", "log"], plan.summary()
    assert all("runs inside `with np.errstate(...)`" in d.reason for d in plan.not_lowered)
