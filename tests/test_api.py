"""The public entry points: compile() in its three spellings and on every kind of Python callable, the
wrapper's metadata, reset(), explain(), stats() counters, the cache size limit, fullgraph, suppress_errors,
argument checking and custom backends.

The functions here use only the ops registered from the start (add, subtract, multiply, divide, tanh,
exp, matmul), so these tests exercise the API and not op coverage.
"""

from __future__ import annotations

import inspect
import logging
import os
import warnings

import numpy as np
import pytest

import minidynamo as md
from minidynamo.errors import GraphBreakError, InternalError
from minidynamo.capture.breaks import BreakCategory
from tests.conftest import check


def _x(rows=4, cols=3, seed=0):
    return np.random.default_rng(seed).standard_normal((rows, cols))


def _same(got, expected):
    assert type(got) is type(expected)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert np.array_equal(got, expected)


def _captured_once(compiled, *args, **kwargs):
    """The compiled call agrees with eager and the function really was captured into one graph."""
    s = md.stats(compiled)
    before = s.captures
    result = compiled(*args, **kwargs)
    assert md.stats(compiled).captures == before + 1
    return result


def line_of(fn, marker):
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, text in enumerate(lines) if marker in text)


# ---- the three spellings -----------------------------------------------------------------------------------

def plain(x, w):
    """Docstring of plain."""
    return np.tanh(x @ w) * 2.0


def test_compile_as_bare_decorator():
    @md.compile
    def f(x):
        return np.exp(x) + 1.0
    x = _x()
    _same(_captured_once(f, x), np.exp(x) + 1.0)
    _same(f(x), np.exp(x) + 1.0)
    assert md.stats(f).hits == 1


def test_compile_as_decorator_with_arguments():
    @md.compile(backend="eager")
    def f(x):
        return x * x - 1.0
    x = _x()
    _same(_captured_once(f, x), x * x - 1.0)


def test_compile_as_call():
    f = md.compile(plain)
    x, w = _x(), _x(3, 5, seed=1)
    _same(_captured_once(f, x, w), plain(x, w))
    assert f is not plain and plain(x, w) is not None   # the original function is left alone


# ---- kinds of callables ----------------------------------------------------------------------------------------

def test_closure():
    w = _x(3, 3, seed=2)

    def f(x):
        return np.tanh(x @ w)
    compiled = md.compile(f)
    x = _x()
    _same(_captured_once(compiled, x), f(x))


def test_lambda():
    f = md.compile(lambda x, y: x * y + y)
    x, y = _x(), _x(seed=1)
    _same(_captured_once(f, x, y), x * y + y)
    assert f.__name__ == "<lambda>"


def test_nested_function_defined_and_called_inside():
    def f(x):
        def inner(t):
            return t * 3.0
        return inner(x) + x
    x = _x()
    _same(_captured_once(md.compile(f), x), f(x))


class Layer:
    def __init__(self, w):
        self.w = w

    def forward(self, x):
        return np.tanh(x @ self.w)

    @md.compile
    def decorated(self, x):
        """Compiled in the class body."""
        return np.exp(x @ self.w) - 1.0


def test_bound_method():
    layer = Layer(_x(3, 2, seed=3))
    compiled = md.compile(layer.forward)
    x = _x()
    _same(_captured_once(compiled, x), layer.forward(x))
    _same(compiled(x), layer.forward(x))
    assert md.stats(compiled).hits == 1


def test_method_decorated_in_class_body():
    a, b = Layer(_x(3, 2, seed=3)), Layer(_x(3, 2, seed=4))
    x = _x()
    _same(_captured_once(a.decorated, x), np.exp(x @ a.w) - 1.0)
    _same(b.decorated(x), np.exp(x @ b.w) - 1.0)     # another instance, same shapes: the weights are re-read
    assert Layer.decorated.__doc__ == "Compiled in the class body."


def test_defaults_and_keyword_only():
    def f(x, scale=2.0, *, shift=1.0):
        return x * scale + shift
    compiled = md.compile(f)
    x = _x()
    _same(_captured_once(compiled, x), f(x))
    _same(compiled(x, 3.0), f(x, 3.0))
    _same(compiled(x, shift=-1.0), f(x, shift=-1.0))
    _same(compiled(x, scale=0.5, shift=0.25), f(x, scale=0.5, shift=0.25))
    with pytest.raises(TypeError):
        compiled(x, 1.0, 2.0)          # shift is keyword-only: Python's own error, as in eager
    assert inspect.signature(compiled) == inspect.signature(f)


def test_varargs_and_varkw():
    def f(x, *rest, **named):
        out = x
        for r in rest:
            out = out + r
        for key in named:
            out = out * named[key]
        return out
    compiled = md.compile(f)
    x, y, z = _x(), _x(seed=1), _x(seed=2)
    _same(_captured_once(compiled, x, y, z, a=2.0, b=0.5), f(x, y, z, a=2.0, b=0.5))
    _same(compiled(x), f(x))
    _same(compiled(x, y, z, a=2.0, b=0.5), f(x, y, z, a=2.0, b=0.5))


def test_wrapper_metadata():
    compiled = md.compile(plain)
    assert compiled.__name__ == "plain"
    assert compiled.__qualname__ == plain.__qualname__
    assert compiled.__doc__ == "Docstring of plain."
    assert compiled.__wrapped__ is plain
    assert compiled.__module__ == plain.__module__


def test_compiling_a_compiled_function_wraps_the_original():
    twice = md.compile(md.compile(plain))
    assert twice.__wrapped__ is plain
    x, w = _x(), _x(3, 2)
    _same(_captured_once(twice, x, w), plain(x, w))


# ---- reset -------------------------------------------------------------------------------------------------------

def test_reset_clears_caches():
    f = md.compile(plain)
    x, w = _x(), _x(3, 2)
    f(x, w)
    f(x, w)
    assert (md.stats(f).captures, md.stats(f).hits) == (1, 1)
    md.reset()
    _same(f(x, w), plain(x, w))
    assert md.stats(f).captures == 2
    f(x, w)
    assert md.stats(f).hits == 1


# ---- explain -----------------------------------------------------------------------------------------------------

def two_layer(x, w1, w2):
    h = np.tanh(x @ w1)
    return np.exp(h @ w2) + 1.0


def helper_that_prints(t):
    print("inside helper")  # BREAK-IN-HELPER
    return t * 2.0


def calls_helper(x):
    y = x + 1.0
    return helper_that_prints(y)  # CALLS-HELPER


def test_explain_fields_for_a_full_graph():
    x, w1, w2 = _x(), _x(3, 5), _x(5, 2)
    out = md.explain(two_layer)(x, w1, w2)
    assert out.graph_count == 1 and len(out.graphs) == 1
    assert out.graph_break_count == 0 and out.break_reasons == []
    assert out.ops_per_graph == [{"matmul": 2, "tanh": 1, "exp": 1, "add": 1}]
    assert out.op_count == 5
    assert "x.shape == (4, 3)" in out.guards and "w2.dtype == float64" in out.guards
    assert out.capture_time > 0
    text = str(out)
    assert "1 graph, 0 graph breaks" in text and "matmul" in text


def test_explain_break_reason_fields():
    out = md.explain(calls_helper)(_x())
    assert out.graph_break_count == 1
    r = out.break_reasons[0]
    assert r.category == BreakCategory.CALL
    assert "print" in r.message
    assert os.path.basename(r.filename) == "test_api.py"
    assert r.lineno == line_of(helper_that_prints, "BREAK-IN-HELPER")
    assert r.function == "helper_that_prints"
    assert r.source_line.startswith('print("inside helper")')
    assert len(r.stack) == 1 and "calls_helper" in r.stack[0]
    assert f"test_api.py:{line_of(calls_helper, 'CALLS-HELPER')}" in r.stack[0]
    assert f"test_api.py:{r.lineno}" in str(out)


def test_explain_accepts_a_compiled_function_and_a_bound_method():
    x, w1, w2 = _x(), _x(3, 5), _x(5, 2)
    compiled = md.compile(two_layer)
    out = md.explain(compiled)(x, w1, w2)
    assert (out.graph_count, out.graph_break_count) == (1, 0)
    assert md.stats(compiled).captures == 0          # explain() does not fill the cache
    layer = Layer(_x(3, 2))
    assert md.explain(layer.forward)(x).ops_per_graph == [{"matmul": 1, "tanh": 1}]
    assert md.explain(md.compile(layer.forward))(x).graph_count == 1
    assert md.explain(layer.decorated)(x).graph_count == 1


def test_explain_runs_the_function_once(capsys):
    # explain() runs the function under capture, as torch._dynamo.explain does: its output appears once
    md.explain(calls_helper)(_x())
    assert capsys.readouterr().out == "inside helper\n"


def test_explain_reports_an_internal_error(monkeypatch):
    monkeypatch.setattr("minidynamo.capture.interpreter.run_frame", _broken_run_frame)
    with pytest.raises(InternalError, match="two_layer.*injected internal failure"):
        md.explain(two_layer)(_x(), _x(3, 5), _x(5, 2))


def test_explain_rejects_non_functions():
    with pytest.raises(TypeError, match="len"):
        md.explain(len)


# ---- counters ------------------------------------------------------------------------------------------------------

def test_counters_hits_guard_failures_recompiles():
    f = md.compile(plain)
    w = _x(3, 2)
    f(_x(4, 3), w)
    f(_x(4, 3, seed=5), w)
    f(_x(4, 3, seed=6), w)
    s = md.stats(f)
    assert (s.captures, s.hits, s.recompiles) == (1, 2, 0)
    x5 = _x(5, 3)
    _same(f(x5, w), plain(x5, w))
    s = md.stats(f)
    assert (s.captures, s.recompiles) == (2, 1)
    assert s.guard_failures == [["x.shape[0]: expected 4, got 5"]]
    f(_x(4, 3), w)
    f(x5, w)
    assert md.stats(f).hits == 4 and md.stats(f).captures == 2


def test_dtype_change_reports_the_dtype_guard():
    f = md.compile(plain)
    w = _x(3, 2)
    f(_x(), w)
    f(_x().astype(np.float32), w)
    assert md.stats(f).guard_failures[-1] == ["x.dtype: expected float64, got float32"]


def test_recompile_reasons_are_logged(caplog):
    f = md.compile(plain)
    w = _x(3, 2)
    f(_x(4, 3), w)
    with caplog.at_level(logging.INFO, logger="minidynamo.recompiles"):
        f(_x(6, 3), w)
    assert "x.shape[0]: expected 4, got 6" in caplog.text


def test_stats_rejects_plain_functions():
    with pytest.raises(TypeError, match="minidynamo.compile"):
        md.stats(plain)


# ---- cache size limit -------------------------------------------------------------------------------------------

def scale_rows(x):
    return x * 2.0


def test_default_cache_size_limit_is_8():
    assert md.config.current().cache_size_limit == 8


def test_cache_size_limit_falls_back_to_eager_with_one_log_record(caplog):
    f = md.compile(scale_rows, dynamic=False)   # one capture per size
    with warnings.catch_warnings(record=True) as caught, caplog.at_level(logging.WARNING, "minidynamo"):
        warnings.simplefilter("always")
        for rows in range(1, 9):
            f(_x(rows, 2))
        assert caplog.records == []
        for rows in range(9, 13):
            x = _x(rows, 2)
            _same(f(x), x * 2.0)
    assert caught == []                     # the user's warning filters never see the tool
    s = md.stats(f)
    assert (s.captures, s.recompiles, s.misses) == (8, 7, 12)    # eager calls past the limit are no recompiles
    limit = [r.getMessage() for r in caplog.records if r.name == "minidynamo.recompiles"]
    assert len(limit) == 1, limit
    assert "scale_rows" in limit[0] and "(8)" in limit[0] and "x.shape[0]: expected 1, got 9" in limit[0]
    _same(f(_x(3, 2)), _x(3, 2) * 2.0)                               # old variants are still served
    assert md.stats(f).hits == 1


def test_cache_size_limit_from_config(caplog):
    f = md.compile(scale_rows, dynamic=False)
    with md.config.patch(cache_size_limit=2), caplog.at_level(logging.WARNING, "minidynamo"):
        for rows in range(1, 5):
            f(_x(rows, 2))
    assert md.stats(f).captures == 2 and "scale_rows hit the cache size limit (2)" in caplog.text


def test_cache_size_limit_as_compile_option(caplog):
    f = md.compile(scale_rows, dynamic=False, options={"cache_size_limit": 1})
    with caplog.at_level(logging.WARNING, "minidynamo"):
        f(_x(1, 2))
        f(_x(2, 2))
    assert md.stats(f).captures == 1 and "scale_rows hit the cache size limit (1)" in caplog.text


def test_unknown_option_is_rejected():
    with pytest.raises(TypeError, match="cache_size_limt"):
        md.compile(scale_rows, options={"cache_size_limt": 3})


# ---- fullgraph ---------------------------------------------------------------------------------------------------

def breaks_on_data(x):
    y = x * 2.0
    if y @ y:  # DATA-BRANCH: truth value of a 0-d array
        return y
    return -y


def prints_then_breaks(x):
    print("side effect before the break")  # PRINT-LINE
    y = x * 2.0
    if y @ y:
        return y
    return -y


def test_fullgraph_raises_naming_the_break():
    f = md.compile(breaks_on_data, fullgraph=True, options={"auto_cond": False})   # else the if is a cond
    with pytest.raises(GraphBreakError) as info:
        f(_x(1, 4)[0])
    reason = info.value.reason
    assert reason.lineno == line_of(breaks_on_data, "DATA-BRANCH")
    assert f"test_api.py:{reason.lineno}" in str(info.value)
    assert "breaks_on_data" in str(info.value)


def test_fullgraph_raises_before_anything_runs(capsys):
    f = md.compile(prints_then_breaks, fullgraph=True)
    with pytest.raises(GraphBreakError) as info:
        f(_x(1, 4)[0])
    assert capsys.readouterr().out == ""
    reason = info.value.reason
    assert reason.filename.endswith("test_api.py") and reason.function == "prints_then_breaks"
    lines = inspect.getsourcelines(prints_then_breaks)
    assert lines[1] < reason.lineno < lines[1] + len(lines[0])
    assert reason.lineno == line_of(prints_then_breaks, "PRINT-LINE")   # the print is the first break


def test_fullgraph_allows_a_full_graph():
    f = md.compile(plain, fullgraph=True)
    x, w = _x(), _x(3, 2)
    _same(_captured_once(f, x, w), plain(x, w))


def test_without_fullgraph_a_break_runs_correctly(capsys):
    f = md.compile(prints_then_breaks)
    x = _x(1, 4)[0]
    _same(f(x), prints_then_breaks(x))
    out = capsys.readouterr().out
    assert out == "side effect before the break\n" * 2


# ---- suppress_errors -------------------------------------------------------------------------------------------

def _broken_run_frame(frame):
    raise RuntimeError("injected internal failure")


def test_internal_error_is_suppressed_by_default(monkeypatch, caplog):
    monkeypatch.setattr("minidynamo.capture.interpreter.run_frame", _broken_run_frame)
    f = md.compile(plain)
    x, w = _x(), _x(3, 2)
    with caplog.at_level(logging.WARNING, logger="minidynamo"):
        _same(f(x, w), plain(x, w))
    assert "injected internal failure" in caplog.text and "plain" in caplog.text
    _same(f(x, w), plain(x, w))
    assert md.stats(f).fallbacks == 1 and md.stats(f).captures == 0


def test_internal_error_raises_when_not_suppressed(monkeypatch):
    monkeypatch.setattr("minidynamo.capture.interpreter.run_frame", _broken_run_frame)
    f = md.compile(plain)
    with md.config.patch(suppress_errors=False):
        with pytest.raises(InternalError, match="injected internal failure") as info:
            f(_x(), _x(3, 2))
    assert isinstance(info.value.__cause__, RuntimeError)


# ---- argument checking --------------------------------------------------------------------------------------------

def test_compile_rejects_non_callables():
    with pytest.raises(TypeError, match="42"):
        md.compile(42)


def test_compile_rejects_builtin_functions():
    with pytest.raises(TypeError, match="len"):
        md.compile(len)
    with pytest.raises(TypeError, match="len"):
        md.compile(backend="eager")(len)


def test_compile_rejects_unknown_backend():
    with pytest.raises(ValueError, match="no_such_backend"):
        md.compile(plain, backend="no_such_backend")


# ---- custom backend ------------------------------------------------------------------------------------------------

def test_custom_backend_is_called_with_graph_and_example_inputs():
    seen = []

    def my_backend(graph, example_inputs):
        seen.append((graph, list(example_inputs)))
        from minidynamo.backends import get_backend
        inner = get_backend("eager")(graph, example_inputs)

        def run(*inputs):
            seen.append("ran")
            return inner(*inputs)
        return run

    f = md.compile(plain, backend=my_backend)
    x, w = _x(), _x(3, 2)
    _same(f(x, w), plain(x, w))
    _same(f(x, w), plain(x, w))
    graph, examples = seen[0]
    assert graph.ops() == {"matmul": 1, "tanh": 1, "multiply": 1}
    assert len(examples) == 2 and examples[0] is x and examples[1] is w
    assert seen[1:] == ["ran", "ran"]


def _named():
    pass


def test_a_length_guard_failing_for_a_function_is_a_recompile_not_an_internal_error():
    # automatic dynamic compared a failed length guard's value as a function (`now.__code__` of an int)
    def f(items):
        out = []
        for v in items:
            print(type(v).__name__)                  # a break: the loop body is a resume function
            out.append(len(v) if isinstance(v, list) else v.__name__)
        return out
    check(f, [[1, 2], _named, [3]], expect_graph=False)     # (no array: a graph of no op)
