"""scripting: script(fn) compiles the source into one graph with cond / while_loop nodes, runs it through a
backend with eager's results on both paths, and rejects everything outside the subset with a ScriptError
naming the line."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import minidynamo as md
from benchmarks.scripting_table import simple_op     # the seed's first example
from minidynamo.errors import ScriptError
from tests.capture.test_loops import halve_counted     # a counter and `and` in the loop test
from tests.graph.test_codegen import same

X = np.arange(4.0) - 1.0


def conditional_op(x, threshold):
    if x.sum() > threshold:
        result = x * 2
    else:
        result = x + 1
    return result


def conditional_return(x, threshold):
    if x.sum() > threshold:
        return x * 2
    return x + 1


def accumulate(x, n: int):
    acc = x * 0
    for i in range(n):
        acc = acc + x * i
    return acc


def newton(x):
    y = x
    while np.abs(y * y - x).max() > 1e-12:
        y = 0.5 * (y + x / y)
    return y


def helper(h):
    if h.max() > 2.0:
        return h / h.max()
    return h


def calls_helper(x, scale: float):
    h = helper(x * scale)
    return np.tanh(h), h.sum()


def short_circuit(x):
    if x.sum() > 0 and x.max() < 5 or not x.min() > -1:
        return x
    return -x


@pytest.mark.parametrize("fn, calls", [
    (short_circuit, [(X,), (X * 10,), (-X,), (X - 1.5,)]),
    (halve_counted, [(X, 0.1, 100), (X, 0.1, 2), (X, 10.0, 100), (X, 0.1, 0)]),
    (simple_op, [(X, X), (X * 3, -X)]),
    (conditional_op, [(X, 0.5), (X, 100.0), (-X, -0.5)]),
    (conditional_return, [(X, 0.5), (X, 100.0)]),
    (accumulate, [(X, 3), (X, 0), (X, 1)]),
    (newton, [(X + 2.0,), (np.ones(4),), (np.array([1e-3, 1.0, 9.0, 1e3]),)]),
    (calls_helper, [(X, 1.0), (X, 10.0)]),
])
@pytest.mark.parametrize("backend", ["numpy", "eager"])
def test_results_match_eager_on_every_path(fn, calls, backend):
    scripted = md.script(fn, backend=backend)
    for args in calls:
        assert same(scripted(*args), fn(*args))


def test_seed_conditional_op_is_one_graph_with_both_arms():
    s = md.script(conditional_op, example_inputs=(X, 0.5))
    text = str(s.graph)
    assert "cond(" in text and "true(" in text and "false(" in text
    assert "multiply" in text and "add" in text
    s(X, 100.0)
    s(X, -7.5)
    assert len(s.graphs) == 1          # a float threshold is a graph input: no guard, no second graph


def test_loops_are_while_loop_nodes():
    assert md.script(newton, example_inputs=(X + 2,)).graph.count("while_loop") == 1
    s = md.script(accumulate, example_inputs=(X, 3))
    assert s.graph.count("while_loop") == 1
    s(X, 5)
    assert len(s.graphs) == 2          # ints are keyed by value (they may be shapes)


def test_graph_before_any_call_needs_example_inputs():
    with pytest.raises(RuntimeError, match="example_inputs"):
        md.script(simple_op).graph


def line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def uses_print(x):
    y = x * 2
    print(y)
    return y


def inplace(x):
    y = x * 2
    y += 1
    return y


def value_of_and(x):
    y = x.sum() > 0 and x.max()
    return y


def breaks(x):
    while x.sum() > 1:
        x = x / 2
        if x.max() < 0.1:
            break
    return x


def comprehension(x):
    return np.stack([x * i for i in range(3)])


def raises(x):
    if x.sum() > 0:
        raise ValueError("positive")
    return x


def item_write(x):
    y = x * 1
    y[0] = 3.0
    return y


WEIGHTS = np.ones((4, 4))


def reads_global_array(x):
    return x @ WEIGHTS


def arms_disagree(x):
    if x.sum() > 0:
        y = x.sum()
    else:
        y = x
    return y


def one_arm_only(x):
    if x.sum() > 0:
        t = x * 2
    return t


def mask(x):
    return x[x > 0].sum()


@pytest.mark.parametrize("fn, marker, construct", [
    (uses_print, "print(y)", "call of print"),
    (inplace, "y += 1", "augmented assignment to an array"),
    (value_of_and, " and ", "`and`/`or` on graph values outside an if/while test"),
    (breaks, "            break", "break"),
    (comprehension, "np.stack", "list comprehension"),
    (raises, "raise ValueError", "raise"),
    (item_write, "y[0] = 3.0", "assignment to an item"),
    (reads_global_array, "WEIGHTS", "global or closure variable 'WEIGHTS' (ndarray)"),
    (arms_disagree, "if x.sum() > 0", "values of different types on the two paths"),
    (one_arm_only, "return t", "variable 't'"),
    (mask, "x[x > 0]", "boolean mask index"),
])
def test_unsupported_constructs_name_their_line(fn, marker, construct):
    with pytest.raises(ScriptError) as info:
        md.script(fn, example_inputs=(X,))
    err = info.value
    assert err.lineno == line_of(fn, marker), str(err)
    assert err.construct == construct and err.hint
    assert err.filename.endswith("test_script.py") and err.function == fn.__qualname__
    assert f"test_script.py:{err.lineno}" in str(err)


SCALE = 2.0


def reads_global_number(x):
    return x * SCALE


def test_a_rebound_global_is_read_again():
    global SCALE
    s = md.script(reads_global_number)
    assert same(s(X), X * 2.0)
    SCALE = 3.0
    try:
        assert same(s(X), X * 3.0)
    finally:
        SCALE = 2.0


def test_bad_arguments_raise_clear_errors():
    with pytest.raises(TypeError, match="expects a Python function"):
        md.script(len)
    with pytest.raises(TypeError, match="example_inputs must be a tuple"):
        md.script(simple_op, example_inputs=X)
    with pytest.raises(TypeError, match="argument 'n' is annotated int, got float"):
        md.script(accumulate)(X, 2.0)
    with pytest.raises(ScriptError, match="parameter 'b'"):
        md.script(simple_op)(X, object())
    with pytest.raises(TypeError, match="missing"):
        md.script(simple_op)(X)


def test_the_corpus_scripts_or_names_the_line():
    """At least 10 corpus models script and match eager (also on inputs taking the other branch); every
    other model raises ScriptError naming a line of its own source file. Never a wrong result."""
    from benchmarks.corpus import MODELS
    from benchmarks.frontends import same as close
    scripted = []
    for m in MODELS:
        fn = m.function("small")
        try:
            s = md.script(fn)
            assert close(s(*m.build("small", 0)), fn(*m.build("small", 0))), m.name
            if m.other is not None:
                assert close(s(*m.other("small", 0)), fn(*m.other("small", 0))), m.name
            scripted.append(m.name)
        except ScriptError as e:
            assert e.lineno is not None and e.filename.endswith(".py") and e.construct, m.name
    assert len(scripted) >= 10, scripted
    assert {"power_iteration", "newton_inverse_sqrt", "sign_dependent"} <= set(scripted)
