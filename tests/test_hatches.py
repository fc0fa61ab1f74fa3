"""Escape hatches (minidynamo/hatches.py): a disabled function is never captured; from compiled code it runs
as plain Python at one break, with eager's results, exceptions, printed output and mutated state in order;
the README's example is run here so it stays true."""

from __future__ import annotations

import contextlib
import copy
import inspect
import io
import re
from pathlib import Path

import numpy as np
import pytest

import minidynamo as md

ROOT = Path(__file__).resolve().parents[1]
DTYPES = [np.float64, np.float32, np.int32, np.bool_]
SHAPES = [(), (0,), (3,), (2, 3)]

LOG: list = []


@md.disable
def _noisy(x, k=2):
    """Scales x (plain Python: logs and prints)."""
    LOG.append((x.shape, str(x.dtype)))
    print("noisy", x.shape, x.dtype)
    return x * k


@md.disable
def _raises(x):
    LOG.append("before")
    raise ValueError(f"bad {x.shape}")


def _helper(x):
    return _noisy(x + 1) - 1


def caller(x):
    y = x * 2
    LOG.append("caller")
    z = _noisy(y, k=3)
    return z + y


def nested(x):
    return _helper(x * 2) * 2


def raising(x):
    y = x + 1
    try:
        _raises(y)
    except ValueError as e:
        LOG.append(str(e))
    return y * 2


def _eager_and_compiled(fn, x):
    """(result or exception, printed text, LOG) of eager, then of the compiled function (twice: cold, warm)."""
    runs = []
    compiled = md.compile(fn)
    for f in (fn, compiled, compiled):
        LOG.clear()
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                result = f(copy.deepcopy(x))
            except Exception as e:    # noqa: BLE001
                result = (type(e), str(e))
        runs.append((result, out.getvalue(), list(LOG)))
    return runs, compiled


def _same(a, b):
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape and \
            np.array_equal(a, b, equal_nan=True)
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("fn", [caller, nested, raising])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_a_disabled_call_runs_as_eager_at_one_break(fn, dtype, shape):
    md.reset()
    x = np.ones(shape, dtype)
    runs, compiled = _eager_and_compiled(fn, x)
    (want, printed, log) = runs[0]
    for got, got_printed, got_log in runs[1:]:
        assert _same(got, want) and got_printed == printed and got_log == log
    out = md.explain(fn)(x.copy())
    assert out.graph_break_count == 1
    assert [str(r.code) for r in out.break_reasons] == ["MD0019"]


def test_the_code_around_a_disabled_call_is_captured():
    md.reset()
    out = md.explain(caller)(np.ones(3))
    assert out.graph_count == 2 and out.op_count >= 2      # x * 2 before, z + y after


def test_fullgraph_raises_at_a_disabled_call():
    md.reset()
    with pytest.raises(md.GraphBreakError, match="disable"):
        md.compile(caller, fullgraph=True)(np.ones(3))


def test_compiling_a_disabled_function_captures_nothing_and_behaves_like_it():
    md.reset()
    compiled = md.compile(_noisy)
    LOG.clear()
    with contextlib.redirect_stdout(io.StringIO()) as out:
        got = compiled(np.arange(3.0), k=4)
    assert np.array_equal(got, np.arange(3.0) * 4) and LOG == [((3,), "float64")]
    assert out.getvalue() == "noisy (3,) float64\n"
    assert md.stats(compiled).captures == 0


def test_a_disabled_function_called_directly_is_the_function():
    assert _noisy.__name__ == "_noisy" and _noisy.__doc__.startswith("Scales")
    assert str(inspect.signature(_noisy)) == "(x, k=2)"
    assert md.disable(_noisy) is _noisy and md.disable() is md.disable
    plain = md.disable(np.add)
    assert plain(1, 2) == 3
    with pytest.raises(TypeError, match="fn must be callable"):
        md.disable(3)


def test_a_disabled_method_and_a_disabled_compiled_function():
    md.reset()

    class Layer:
        def __init__(self):
            self.calls = 0

        @md.disable
        def count(self, x):
            self.calls += 1
            return x + self.calls

        def __call__(self, x):
            return self.count(x * 2) * 3

    eager, comp = Layer(), Layer()
    compiled = md.compile(comp)
    for _ in range(3):
        assert np.array_equal(compiled(np.ones(2)), eager(np.ones(2)))
    assert comp.calls == eager.calls == 3
    inner = md.disable(md.compile(lambda x: x + 1))      # a compiled function, disabled: still its result
    assert "_minidynamo" not in vars(inner)
    assert np.array_equal(md.compile(lambda x: inner(x) * 2)(np.ones(2)), np.full(2, 4.0))


def _readme_example(name: str) -> str:
    readme = (ROOT / "README.md").read_text()
    m = re.search(rf"<!-- escape-hatch example: {name} -->\n```python\n(.*?)^```", readme, re.S | re.M)
    assert m, name
    return m.group(1)


def test_the_readme_example_of_disable_runs():
    md.reset()
    ns: dict = {"__name__": "readme_disable"}
    with contextlib.redirect_stdout(io.StringIO()) as out:
        exec(compile(_readme_example("disable"), "README.md", "exec"), ns)
    assert out.getvalue() == f"norm {np.linalg.norm(np.tanh(np.ones(3)) * 2.0)}\n"


def test_a_compiled_disabled_function_stays_plain_after_reset():
    calls = []

    @md.disable
    def helper(x):
        calls.append(1)
        return np.sin(x) + 1

    compiled = md.compile(helper)
    x = np.arange(3.0)
    np.testing.assert_array_equal(compiled(x), np.sin(x) + 1)
    md.reset()
    np.testing.assert_array_equal(compiled(x), np.sin(x) + 1)
    assert len(calls) == 2
    assert md.stats(compiled).captures == 0
