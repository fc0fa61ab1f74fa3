"""Closures alive across a graph break: the frame splits and resumes like any other. The entry makes the
real cells, rebuilds every closure made before the break over them, and passes the cells themselves to the
resume function, so a closure called later sees writes made by either side (and by the closure itself)."""

from __future__ import annotations

import numpy as np
import pytest

import minidynamo as md

from tests.conftest import captured, check

X = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
W = np.linspace(0.5, 1.5, 9).reshape(3, 3)


def _resumed(fn, *args, calls=(), breaks=1):
    """check(), then: no fallback to eager and at least `breaks` captured breaks."""
    result = check(fn, *args, calls=calls, expect_graph=False)
    assert len(result.reasons) >= breaks and not any(r.fallback for r in result.reasons), \
        [str(r) for r in result.reasons]
    return result


def helper_then_print(x, w):
    scale = 2.0

    def act(v):
        return np.tanh(v) * scale
    h = act(x @ w)
    print("hidden", h.shape)
    scale = 0.5                          # seen by act through the shared cell
    return act(h @ w) + h


def test_the_model_pattern_helper_print_helper():
    _resumed(helper_then_print, X, W, calls=[(X * 2, W)])
    explained = md.explain(helper_then_print)(X, W)
    assert explained.graph_count == 2


def data_dependent_in_the_middle(x):
    def norm(v):
        return v / (np.abs(v).sum() + 1.0)
    y = norm(x)
    if y.sum() > 0:
        y = y * 2
    return norm(y)


def test_a_data_dependent_branch_in_the_middle():
    with md.config.patch(auto_cond=False):
        _resumed(data_dependent_in_the_middle, X, calls=[(-X,)])


def counter(x):
    calls = 0

    def bump(v):
        nonlocal calls
        calls += 1
        return v * calls
    y = bump(x)
    print("calls so far", calls)
    y = bump(y)
    return y, calls, bump


def counter_values(x):
    y, calls, bump = counter(x)
    return y, calls


def test_a_nonlocal_counter_written_on_both_sides_and_returned():
    _resumed(counter_values, X)
    compiled = md.compile(counter)
    for fn in (counter, compiled):     # the returned closure keeps counting in the same cell
        y, n, bump = fn(X)
        assert n == 2 and np.array_equal(bump(np.ones(2)), np.full(2, 3.0))
        assert bump.__closure__[0].cell_contents == 3


def written_after_the_break(x):
    offset = 1.0
    shift = lambda v: v + offset          # noqa: E731
    print("before")
    offset = x.sum()
    return shift(x), shift


def test_a_closure_returned_sees_the_value_written_after_the_break():
    compiled = md.compile(written_after_the_break)
    for x in (X, X + 1):
        (e, e_shift), (c, c_shift) = written_after_the_break(x), compiled(x)
        assert np.array_equal(e, c) and np.array_equal(e_shift(x), c_shift(x))
    captured(compiled).assert_resumed_after("CALL")         # the print; the write after it is in a graph
    assert not any(r.fallback for r in md.explain(written_after_the_break)(X).break_reasons)


def two_closures_one_cell(x, log):
    acc = x * 0

    def add(v):
        nonlocal acc
        acc = acc + v

    def get():
        return acc
    add(x)
    log.append(get())
    print("mid")
    add(x * 2)
    log.append(get())
    return get()


def test_two_closures_share_one_cell_and_a_list_gets_their_values():
    _resumed(two_closures_one_cell, X, [])


def recursive_closure(x, n):
    def power(v, k):
        return v if k <= 1 else v * power(v, k - 1)
    print("recursing")
    return power(x, n)


def test_a_closure_that_calls_itself():
    _resumed(recursive_closure, X, 3, calls=[(X, 1)])


def with_defaults(x, k):
    def f(v, a=2.0, *, b=3.0):
        return v * a + b + k
    print("defaults")
    k = k + 1
    return f(x), f(x, 1.0, b=0.0), f.__defaults__, f.__kwdefaults__, f.__name__, f.__qualname__


def test_defaults_names_and_an_argument_cell():
    _resumed(with_defaults, X, 1.5, calls=[(X, 2.5)])


def nested_closures(x):
    base = 1.0

    def outer(v):
        def inner(u):
            return u + base
        return inner(v) * 2
    print("nested")
    base = 4.0
    return outer(x)


def test_closures_inside_closures():
    _resumed(nested_closures, X)


def closure_that_prints(x):
    tag = "step"

    def log(v):
        print(tag, float(v.sum()))
        return v + 1
    y = log(x)
    tag = "again"
    return log(y)


def test_calling_a_closure_that_breaks_inside():
    _resumed(closure_that_prints, X, calls=[(X * 3,)])


def closure_in_a_driven_loop(x, steps):
    lr = 0.1

    def update(v, g):
        return v - lr * g
    for i in range(steps):
        x = update(x, np.tanh(x))
        if i % 40 == 0:
            print("step", i)
            lr = lr * 0.5
    return x


def test_a_closure_in_a_driven_loop_with_a_print():
    _resumed(closure_in_a_driven_loop, X, 100, calls=[(X, 3)])


class Box:
    pass


def stored_on_an_object(x, box):
    k = 3.0
    box.fn = lambda v: v * k
    print("stored")
    k = -1.0
    return box.fn(x)


def test_a_closure_stored_on_an_object():
    compiled = md.compile(stored_on_an_object)
    e_box, c_box = Box(), Box()
    assert np.array_equal(stored_on_an_object(X, e_box), compiled(X, c_box))
    assert np.array_equal(e_box.fn(W), c_box.fn(W)) and c_box.fn.__qualname__ == e_box.fn.__qualname__
    assert not any(r.fallback for r in md.explain(stored_on_an_object)(X, Box()).break_reasons)
    captured(compiled).assert_graph_ran()


def test_an_annotated_closure_keeps_the_frame_eager_with_a_reason():
    def annotated(x):
        k = 2.0

        def f(v: np.ndarray) -> np.ndarray:
            return v * k
        print("annotated")
        k = 3.0
        return f(x), f.__annotations__
    result = check(annotated, X, expect_fallback='restart broke at another place: cannot rebuild nested')
    assert result.reasons and any("annotations" in r.fallback for r in result.reasons), \
        [str(r) for r in result.reasons]


@pytest.mark.parametrize("fn,args", [(helper_then_print, (X, W)), (counter_values, (X,))])
def test_repeated_calls_keep_one_capture_per_piece(fn, args):
    compiled = md.compile(fn)
    for _ in range(3):
        compiled(*args)
    assert md.stats(compiled).pieces[0].captures == 1
    captured(compiled).assert_graph_ran().assert_broke("print()")
