"""register_op / allow_in_graph (minidynamo/hatches.py, graph/user_ops.py): a registered function is one graph
node whose spec its meta rule gives; compiled programs calling it behave as eager ones (results, exceptions,
warnings, printed output, arrays written, the global random stream), and a meta rule that does not describe
what the function returns is reported once and never gives a wrong result."""

from __future__ import annotations

import contextlib
import copy
import io
import logging
import re
import warnings

import numpy as np
import pytest

import minidynamo as md
from minidynamo import ArraySpec
from tests.test_hatches import _readme_example

DTYPES = [np.float64, np.float32, np.int32, np.bool_]
SHAPES = [(), (0,), (3,), (2, 3)]
LOG: list = []


def _float_of(dtype: np.dtype) -> np.dtype:
    return dtype if dtype.kind in "fc" else np.dtype(np.float64)


def scaled(x, k):
    return x * k + 1.0


def moments(x):
    return x.mean(), x.std()


def root(x):
    if (x < 0).any():
        raise ValueError(f"root of a negative value in {x.shape}")
    return np.sqrt(x.astype(np.float64))


def jitter(x):
    return x * np.random.random(np.shape(x))


def as_f32(x):
    return x.astype(np.float32)


md.register_op(scaled, meta=lambda x, k: ArraySpec(x.shape, np.result_type(np.result_type(x.dtype, k), 1.0),
                                                   scalar=x.ndim == 0))
md.register_op(moments, meta=lambda x: (ArraySpec((), _float_of(x.dtype), scalar=True),) * 2)
md.register_op(root, meta=lambda x: ArraySpec(x.shape, np.float64))
md.allow_in_graph(jitter, meta=lambda x: ArraySpec(x.shape, np.result_type(x.dtype, np.float64), scalar=x.ndim == 0))
md.register_op(as_f32, meta=lambda x: x)       # wrong but for float32: astype changes the dtype


def pure_prog(x):
    y = scaled(x, 3)
    mean, std = moments(y)
    return y - mean, std


def try_prog(x):
    y = x - 1
    try:
        r = root(y)
    except ValueError as e:
        LOG.append(str(e))
        r = y * 0.0
    return r + 1


def print_prog(x):
    y = scaled(x, 2)
    print("y", y.shape, y.dtype, y.sum())
    return root(y * y)


def branch_prog(x):
    y = x * 2
    if y.sum() > 1:
        z = scaled(y, 2)
    else:
        z = scaled(y, -1)
    return z


def loop_prog(x):
    acc = x * 0.5
    for _ in range(4):
        acc = scaled(acc, 2)
    return acc


def random_prog(x):
    a = jitter(x)
    b = jitter(x)
    return a - b, root(a)          # root raises on negative a: the graph re-runs eagerly, draws restored


def writes_prog(x):
    x += x
    y = as_f32(x)                  # a wrong meta for all but float32: the call runs eagerly, x written once
    return y * 2 if y.dtype == np.float32 else y - 1    # (decided on the spec: eager's result only by the check)


def _data(shape, dtype):
    n = int(np.prod(shape))
    return (np.arange(n) - 1.0).reshape(shape).astype(dtype)


def _run(f, x):
    """(result or exception, printed text, warnings, LOG, x after, the global random state) of one call."""
    LOG.clear()
    np.random.seed(5)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = f(x)
        except Exception as e:    # noqa: BLE001
            result = (type(e), str(e))
    shown = [(w.category, str(w.message), w.filename, w.lineno) for w in caught]
    state = np.random.get_state()
    return result, out.getvalue(), shown, list(LOG), x, (state[1].tobytes(), *state[2:])


def _same(a, b):
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, (np.ndarray, np.generic)):
        return type(a) is type(b) and a.dtype == b.dtype and a.shape == b.shape and \
            (a.tolist() == b.tolist() if a.dtype.hasobject else np.array_equal(a, b, equal_nan=True))
    return type(a) is type(b) and a == b


PROGRAMS = [pure_prog, try_prog, print_prog, branch_prog, loop_prog, random_prog, writes_prog]


@pytest.mark.parametrize("fn", PROGRAMS)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_a_program_calling_registered_ops_behaves_as_eager(fn, dtype, shape):
    md.reset()
    x = _data(shape, dtype)
    want = _run(fn, copy.deepcopy(x))
    compiled = md.compile(fn)
    for _ in range(3):       # cold, warm, warm
        got = _run(compiled, copy.deepcopy(x))
        assert all(_same(g, w) for g, w in zip(got, want)), (got, want)


def _graph_ops(fn, *args):
    out = md.explain(fn)(*args)
    return out, [op for ops in out.ops_per_graph for op in ops for _ in range(ops[op])]


def test_a_registered_function_is_one_node_and_the_program_one_graph():
    md.reset()
    out, found = _graph_ops(pure_prog, np.ones(3))
    assert (out.graph_count, out.graph_break_count) == (1, 0)
    assert found.count("scaled") == 1 and found.count("moments") == 1
    assert "%0 = scaled(x, 3)" in str(out) and "%1 = moments(%0)" in str(out)
    compiled = md.compile(pure_prog, fullgraph=True)
    assert _same(compiled(np.ones(3)), pure_prog(np.ones(3)))


def test_calls_to_an_impure_function_stay_apart():
    md.reset()
    out, found = _graph_ops(random_prog, np.ones(3))
    assert found.count("jitter") == 2 and out.graph_break_count == 0


@pytest.mark.counts_calls
def test_the_registered_function_runs_only_in_the_graph():
    calls = []

    def counted(x):
        calls.append(np.shape(x))
        return x + 1.0

    md.register_op(counted, meta=lambda x: x if isinstance(x, ArraySpec) else float)
    # over constants (never folded at capture) and over a small array capture knows the value of
    compiled = md.compile(lambda: (counted(2.0) * 2, counted(np.arange(2.0)) * 2))
    for _ in range(3):
        assert _same(compiled(), (6.0, np.array([2.0, 4.0])))
    assert len(calls) == 6


def test_a_wrong_meta_rule_is_reported_once_and_every_call_gets_eagers_result(caplog):
    def head(x):
        return x[:1]

    def first(x):
        return x[0]

    md.register_op(head, meta=lambda x: x)                              # says x's shape: one row it is
    md.register_op(first, meta=lambda x: ArraySpec((), x.dtype))        # a 0-d array: a NumPy scalar it is

    def f(x):
        y = np.log(x * 0.0)      # warns before the wrong call, in the same graph: once, from here, as eagerly
        return head(y) + 1

    def g(x):
        y = np.log(x * 0.0)
        return first(y) * 2

    md.reset()
    for fn in (f, g):
        compiled = md.compile(fn)
        want = _run(fn, np.arange(3.0))
        with caplog.at_level(logging.WARNING, logger="minidynamo.registrations"):
            for _ in range(3):
                got = _run(compiled, np.arange(3.0))
                assert all(map(_same, got, want)), (got, want)
        assert len(want[2]) == 1        # the divide-by-zero warning
    messages = [r.getMessage() for r in caplog.records if r.name == "minidynamo.registrations"]
    assert len(messages) == 2, messages
    assert re.search(r"head .*said an ndarray of shape \(3,\) and dtype float64, but it returned an ndarray of "
                     r"shape \(1,\)", messages[0])
    assert re.search(r"first .*said an ndarray of shape \(\) and dtype float64, but it returned a float64 "
                     r"NumPy scalar", messages[1])


def test_a_meta_rule_that_raises_or_answers_no_spec_is_a_break_with_its_code():
    def twice(x):
        return np.concatenate([x, x])

    md.register_op(twice, meta=lambda x: ArraySpec((2 * x.shape[0], x.shape[1]), x.dtype))

    def f(x):
        return twice(x + 1) * 2

    md.reset()
    out = md.explain(f)(np.arange(3.0))
    assert [str(r.code) for r in out.break_reasons] == ["MD0020"]
    assert "IndexError" in out.break_reasons[0].message and "twice" in out.break_reasons[0].message
    assert _same(md.compile(f)(np.arange(3.0)), f(np.arange(3.0)))

    def g(x):
        return x

    md.register_op(g, meta=lambda x: "f64[3]")
    md.reset()
    out = md.explain(lambda x: g(x) + 1)(np.ones(3))
    assert [str(r.code) for r in out.break_reasons] == ["MD0020"] and "returned 'f64[3]'" in str(out)


def test_bad_registrations_raise_naming_the_argument():
    def fn(x):
        return x

    with pytest.raises(TypeError, match=r"register_op\(fn\): fn must be a function"):
        md.register_op(3, meta=lambda x: x)
    with pytest.raises(TypeError, match=r"fn must be a function"):
        md.register_op(np.ndarray, meta=lambda x: x)
    with pytest.raises(TypeError, match=r"meta must be a callable"):
        md.register_op(fn)
    with pytest.raises(TypeError, match=r"allow_in_graph\(fn, meta=...\): meta must"):
        md.allow_in_graph(fn, meta=3)
    with pytest.raises(TypeError, match=r"pure must be True or False"):
        md.register_op(fn, meta=lambda x: x, pure=1)
    with pytest.raises(ValueError, match=r"already the graph op 'tanh'"):
        md.register_op(np.tanh, meta=lambda x: x)
    with pytest.raises(ValueError, match=r"bound method"):
        md.register_op([].append, meta=lambda x: None)
    with pytest.raises(ValueError, match=r"disabled"):
        md.register_op(md.disable(fn), meta=lambda x: x)
    assert md.register_op(fn, meta=lambda x: x) is fn
    with pytest.raises(ValueError, match=r"already the graph op 'fn' \(registered before\)"):
        md.register_op(fn, meta=lambda x: x)


def test_a_users_function_named_like_a_numpy_op_gets_its_own_name():
    def tanh(x):
        return x * 3.0

    md.register_op(tanh, meta=lambda x: x)
    md.reset()
    out, found = _graph_ops(lambda x: tanh(x), np.ones(2))
    assert "tanh" not in found and any(op.startswith("tanh_") for op in found)
    np.testing.assert_array_equal(md.compile(lambda x: tanh(x))(np.ones(2)), np.full(2, 3.0))


def test_the_decorator_forms():
    @md.register_op(meta=lambda x: x)
    def inc(x):
        return x + 1

    @md.allow_in_graph(meta=lambda x: x)
    def dec(x):
        return x - 1

    md.reset()
    out, found = _graph_ops(lambda x: dec(inc(x)), np.ones(2))
    assert found.count("inc") == found.count("dec") == 1


def test_the_readme_example_of_register_op_runs():
    md.reset()
    ns: dict = {"__name__": "readme_register_op"}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(_readme_example("register_op"), "README.md", "exec"), ns)


def doubled_rows(x):
    return np.concatenate([x, x])


md.register_op(doubled_rows, meta=lambda x: x)      # wrong: the result has twice the rows


def rows_plus_sum(x):
    y = doubled_rows(x)
    return y.shape[0] * 1.0 + y.sum()


def test_the_script_front_end_checks_a_registered_rule_too():
    # md.script took the rule's shape as the truth: rows_plus_sum gave 14.0 where eager gives 16.0
    scripted = md.script(rows_plus_sum)
    with pytest.raises(Exception, match="the meta rule of .*doubled_rows.* said an ndarray of shape \\(2, 3\\)"):
        scripted(np.ones((2, 3)))
    assert md.compile(rows_plus_sum)(np.ones((2, 3))) == rows_plus_sum(np.ones((2, 3))) == 16.0
