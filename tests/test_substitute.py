"""substitute_in_graph (minidynamo/hatches.py, capture/variables/substitutes.py): capture inlines a Python polyfill
where compiled code calls the original (a C function), so its NumPy work joins the graph; plain Python (eager,
a break inside the polyfill, the returned function called directly) runs the original. Differential: results,
exceptions, warnings, printed output as eager's over dtypes and shapes."""

from __future__ import annotations

import contextlib
import copy
import io

import numpy as np
import pytest

import minidynamo as md
from tests.test_hatches import _readme_example
from tests.test_register_op import DTYPES, SHAPES, _data, _run, _same

# The README's example substitutes np.count_nonzero: run here once, its polyfill used by the programs below.
README: dict = {"__name__": "readme_substitute"}
exec(compile(_readme_example("substitute_in_graph"), "README.md", "exec"), README)
count_nonzero = README["count_nonzero"]


@md.substitute_in_graph(np.lexsort)
def lexsort(keys, axis=-1):
    print("the polyfill ran")       # a break inside the polyfill: the original runs there, as plain Python
    return np.argsort(keys[-1], kind="stable", axis=axis)


def count_prog(x):
    n = np.count_nonzero(x)
    k = np.count_nonzero(x > 0, keepdims=True)
    return x * n, k


def axis_prog(x):
    return np.count_nonzero(x, axis=0) + 1         # 0-d: AxisError, as eagerly


def values_prog(x, table):
    count = table["count"]                         # the original read from a dict an argument holds
    return count(x) + count_nonzero(x)             # and the function substitute_in_graph returned


def breaking_prog(x):
    y = x * 2
    order = np.lexsort((y.ravel(), -y.ravel()))
    return y.ravel()[order]


@pytest.mark.parametrize("fn", [count_prog, axis_prog, values_prog, breaking_prog])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_a_program_calling_a_substituted_function_behaves_as_eager(fn, dtype, shape):
    md.reset()
    x = _data(shape, dtype)
    call = (lambda f: lambda v: f(v, {"count": np.count_nonzero})) if fn is values_prog else (lambda f: f)
    want = _run(call(fn), copy.deepcopy(x))
    compiled = md.compile(fn)
    for _ in range(3):
        got = _run(call(compiled), copy.deepcopy(x))
        assert all(_same(g, w) for g, w in zip(got, want)), (got, want)


def test_the_polyfill_is_captured_into_the_graph():
    assert README["out"].graph_break_count == 0         # the README's example (run above)
    md.reset()
    out = md.explain(count_prog)(np.arange(6.0).reshape(2, 3))
    assert (out.graph_count, out.graph_break_count) == (1, 0)
    assert out.ops_per_graph[0]["sum"] == 2
    out = md.explain(values_prog)(np.ones(3), {"count": np.count_nonzero})
    assert (out.graph_count, out.graph_break_count) == (1, 0)


def test_a_break_inside_the_polyfill_runs_the_original():
    md.reset()
    out = md.explain(breaking_prog)(np.arange(4.0))
    assert out.graph_break_count == 1 and "print" in out.break_reasons[0].message
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        got = md.compile(breaking_prog)(np.arange(4.0))
    assert printed.getvalue() == "" and np.array_equal(got, breaking_prog(np.arange(4.0)))


def test_called_directly_the_returned_function_is_the_original():
    with contextlib.redirect_stdout(io.StringIO()) as printed:
        keys = (np.array([1, 0, 1]), np.array([0, 0, 1]))
        assert np.array_equal(lexsort(keys), np.lexsort(keys))
    assert printed.getvalue() == "" and lexsort.__name__ == "lexsort"
    assert count_nonzero(np.ones((2, 2))) == 4 and type(count_nonzero(np.ones(2))) is np.intp


def test_bad_substitutions_raise_naming_the_argument():
    def poly(x):
        return x

    with pytest.raises(TypeError, match=r"substitute_in_graph\(original\): original must be a function"):
        md.substitute_in_graph(3)
    with pytest.raises(ValueError, match=r"bound method"):
        md.substitute_in_graph([].append)
    with pytest.raises(TypeError, match=r"\(polyfill\): polyfill must be a Python function"):
        md.substitute_in_graph(np.packbits)(np.unpackbits)
    with pytest.raises(TypeError, match=r"\(polyfill\): polyfill must be a Python function"):
        md.substitute_in_graph(np.packbits)(md.disable(poly))
    with pytest.raises(TypeError, match=r"the polyfill's signature .*poly\(x\) differs from the original's \(a, /, axis"):
        md.substitute_in_graph(np.packbits)(poly)
    with pytest.raises(ValueError, match=r"has a polyfill already \(count_nonzero\)"):
        md.substitute_in_graph(np.count_nonzero)
