"""capture/fold/fori.py: a `for i in range(...)` loop the capture would hand to a driver (past `unroll_limit`, a
break, an inner loop) whose body is graph code is one fori_loop node: no driver, no per-iteration call.
Differential throughout (results, exceptions, printed output, arguments after the call), plus the graphs."""

from __future__ import annotations

import numpy as np
import pytest

import minidynamo as md
from minidynamo.graph import codegen
from tests.conftest import check
from tests.stitch.test_nested_loops import cholesky, gram_schmidt, lu

NOTHING_EAGER = {"suppress_errors": False}


def fori_nodes(graph):
    """The fori_loop nodes of a graph and of its subgraphs, outermost first."""
    found = []
    for node in graph.nodes:
        if node.op == "fori_loop":
            found.append(node)
        for _, sub in getattr(node.target, "subgraphs", ()) if node.is_call else ():
            found += fori_nodes(sub)
    return found


def one_loop_graph(res, loops=1):
    """No break, one graph per capture, each with `loops` fori_loop nodes (nested ones counted); the first
    capture's outermost node."""
    assert res.reasons == [], res.reasons
    assert res.counter.frame_count == len(res.graphs) >= 1
    for graph in res.graphs:
        assert len(fori_nodes(graph)) == loops, str(graph)
    return fori_nodes(res.graphs[0])[0]


# ---- in-place writes, the index in indices and slices ------------------------------------------------------

def jacobi_1d(steps, A, B):
    for t in range(1, steps):
        B[1:-1] = 0.33333 * (A[:-2] + A[1:-1] + A[2:])
        A[1:-1] = 0.33333 * (B[:-2] + B[1:-1] + B[2:])


def test_a_long_loop_writing_into_its_inputs_is_one_node():
    A, B = np.linspace(0.0, 1.0, 20), np.zeros(20)
    res = check(jacobi_1d, 100, A, B, calls=[(100, A * 3, B), (70, A, B + 1), (90, A, B)])
    node = one_loop_graph(res)
    assert node.args[:3] == (1, 100, 1) and node.target.body_graph.count("setitem") == 2
    assert res.graphs[0].count() == 1          # the whole function is the loop node
    assert len(res.graphs) == 2                # a changed count makes it symbolic: one more capture
    source = codegen.generate(res.graphs[0]).source
    assert "for " in source and "in range(1, 100, 1):" in source


def trisolv(L, x, b):
    for i in range(x.shape[0]):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


def test_the_index_in_slices_makes_shapes_that_follow_it():
    rng = np.random.default_rng(0)
    L = np.tril(rng.standard_normal((80, 80))) + 80 * np.eye(80)
    res = check(trisolv, L, np.zeros(80), rng.standard_normal(80), calls=[(L * 2, np.ones(80), np.ones(80))])
    node = one_loop_graph(res)
    body = str(node.target.body_graph)
    assert "f64[i0]" in body           # L[i, :i] has the loop index as its size


def column_recurrence(img, a, b):
    y = np.empty_like(img)
    y[:, 0] = a * img[:, 0]
    y[:, 1] = a * img[:, 1] + b * y[:, 0]
    for j in range(2, img.shape[1]):
        y[:, j] = a * img[:, j] + b * y[:, j - 1] - 0.5 * y[:, j - 2]
    return y


def test_a_recurrence_over_columns_reads_what_earlier_iterations_wrote():
    img = np.random.default_rng(1).standard_normal((5, 90))
    res = check(column_recurrence, img, 0.5, 0.25, calls=[(img * 2, 0.5, 0.25), (img, 0.5, 0.75)])
    assert one_loop_graph(res).args[:3] == (2, 90, 1)


# ---- loop-carried values ---------------------------------------------------------------------------------

def carried(x, w):
    count, total = 0, 0.0
    for i in range(100):
        x = np.tanh(x @ w) + 0.1 * i
        count += 1
        total = total + float(x.sum())
    return x, count, total


def test_carried_arrays_ints_and_floats():
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal(4), rng.standard_normal((4, 4)) * 0.5
    res = check(carried, x, w, calls=[(x * 2, w), (x, -w)])
    node = one_loop_graph(res)
    assert [str(s) for s in node.spec] == ["f64[4]", "py_int", "py_float"]


def go_fast(a):
    trace = 0.0
    for i in range(a.shape[0]):
        trace += np.tanh(a[i, i])       # a Python float turns into a float64 in the first iteration
    return a + trace


def test_a_value_whose_type_settles_after_one_iteration_gets_the_loop_peeled():
    a = np.random.default_rng(3).standard_normal((70, 70))
    res = check(go_fast, a, calls=[(a * 2,)])
    node = one_loop_graph(res)
    assert node.args[:3] == (1, 70, 1)      # iteration 0 ran unrolled before the node
    assert str(node.spec[0]) == "f64"


def loop_variable_after(x, n):
    i = -1
    for i in range(n):
        x = x * 0.5
    return x, i


@pytest.mark.parametrize("n", [0, 1, 70, 200])
def test_the_loop_variable_after_the_loop(n):
    check(loop_variable_after, np.ones(3), n, calls=[(np.ones(3), m) for m in (0, 1, 70, 90)])


# ---- trip counts: long, symbolic, zero ---------------------------------------------------------------------

def weighted_rows(x, skip):
    acc = np.zeros(x.shape[1])
    last = -1
    for i in range(skip, x.shape[0]):
        acc = acc + x[i] * i
        last = i
    return acc, last


def test_a_symbolic_trip_count_is_one_capture_for_every_size():
    rows = lambda n: np.arange(3.0 * n).reshape(n, 3)     # noqa: E731
    compiled = md.compile(weighted_rows, dynamic=True, options=NOTHING_EAGER)
    res = check(weighted_rows, rows(70), 0, compiled=compiled,
                calls=[(rows(n), k) for n, k in ((2, 0), (3, 2), (9, 7), (100, 3), (5, 1))])
    assert md.stats(compiled).captures == 1
    node = fori_nodes(res.graphs[0])[0]
    assert all(not isinstance(a, int) for a in node.args[:2])     # both bounds are values of the call


def test_zero_trips_over_a_symbolic_range():
    # `x[i]` is in bounds at the first index when `skip < x.shape[0]`: the capture guards that, and an empty
    # range (the body never runs) is one more capture
    rows = lambda n: np.arange(3.0 * n).reshape(n, 3)     # noqa: E731
    compiled = md.compile(weighted_rows, dynamic=True, options=NOTHING_EAGER)
    check(weighted_rows, rows(70), 0, compiled=compiled,
          calls=[(rows(n), k) for n, k in ((5, 5), (4, 9), (3, 2), (6, 6), (2, 0))])
    assert md.stats(compiled).captures == 2


def empty_count(x, n):
    total = 0.0
    for i in range(n):
        total = total + float(x[i % 3])
    return total


def test_zero_trips_over_a_symbolic_count():
    compiled = md.compile(empty_count, options=NOTHING_EAGER)
    check(empty_count, np.ones(3), 100, compiled=compiled, calls=[(np.ones(3), n) for n in (90, 0, 1, 0, 300)])
    assert md.stats(compiled).captures == 2       # n = 100, then n symbolic: 0 trips included


def long_range_with_step(x):
    for i in range(300, 1, -3):
        x[i % 7] += i
    return x


def test_a_negative_step():
    check(long_range_with_step, np.zeros(7), calls=[(np.ones(7),)])


# ---- break, continue ----------------------------------------------------------------------------------------

def until_large(x, n):
    k = 0
    for k in range(n):
        x = x * 1.5
        if x.sum() > 100:
            break
        x = x + 1
    return x, k


@pytest.mark.parametrize("scale", [100.0, 1.0, 1e-3])
def test_a_data_dependent_break(scale):
    x = np.ones(3) * scale          # breaks in the first iteration, after a few, or never
    res = check(until_large, x, 10, calls=[(x, 10), (x * 0.5, 10), (np.ones(3) * 1e-9, 10)])
    node = one_loop_graph(res)
    assert node.target.breaks
    assert node.target.body_graph.count("cond") == 1


def skip_small(x, a):
    s = 0.0
    for i in range(a.shape[0]):
        if a[i] < 0.5:
            continue
        s = s + float(a[i])
        x[i] = s
    return x, s


def test_a_data_dependent_continue():
    a = np.random.default_rng(4).random(90)
    res = check(skip_small, np.zeros(90), a, calls=[(np.zeros(90), a * 2), (np.zeros(90), a * 0)])
    node = one_loop_graph(res)
    assert not node.target.breaks       # neither arm leaves the loop: no flag


def search_with_else(x, n):
    for i in range(n):
        if x[i % 3] > 5:
            break
        x = x + 1
    else:
        x = -x
    return x


def test_a_for_else_with_a_break_stays_correct():
    check(search_with_else, np.zeros(3), 10, calls=[(np.ones(3) * 10, 10), (np.zeros(3), 3)])


# ---- exceptions in iteration k ------------------------------------------------------------------------------

def gather_rows(out, data, idx):
    for i in range(idx.shape[0]):
        out[i] = data[idx[i]] * 2         # IndexError in the iteration whose index is out of range
    return out


def test_an_exception_in_iteration_k_leaves_eagers_writes():
    data, idx = np.arange(10.0), np.arange(80) % 10
    bad = idx.copy()
    bad[37] = 99
    res = check(gather_rows, np.zeros(80), data, idx, calls=[(np.zeros(80), data, bad), (np.ones(80), data, idx)])
    one_loop_graph(res)


LOG = []


def gather_and_log(out, data, idx):
    for i in range(idx.shape[0]):
        out[i] = data[idx[i]]
    LOG.append(len(out))       # a side effect after the loop: the entry re-runs eagerly on an exception
    return out


def test_an_exception_with_python_side_effects_re_runs_on_restored_arrays():
    data, idx = np.arange(10.0), np.arange(80) % 10
    bad = idx.copy()
    bad[50] = -11
    LOG.clear()
    check(gather_and_log, np.zeros(80), data, idx, calls=[(np.zeros(80), data, bad)], globals_to_check=["LOG"])


def fill(out, data, idx):
    for i in range(idx.shape[0]):
        out[i] = data[idx[i]]
    return out


def caller_catches(out, data, idx):
    try:
        fill(out, data, idx)
    except IndexError:
        out[0] = -1.0        # the handler sees exactly the writes eager made before the error
        return out, "caught"
    return out, "ok"


def test_an_exception_caught_by_the_caller_sees_eagers_state():
    data, idx = np.arange(10.0), np.arange(80) % 10
    bad = idx.copy()
    bad[40] = 10
    check(caller_catches, np.zeros(80), data, idx, calls=[(np.zeros(80), data, bad), (np.zeros(80), data, idx)])


# ---- nested loops (the kernels whose drivers tests/stitch/test_nested_loops.py checks) -----------------------

@pytest.mark.parametrize("kernel, loops", [(lu, 3), (cholesky, 2), (gram_schmidt, 2)])
def test_triangular_inner_loops_nest_inside_the_outer_node(kernel, loops):
    rng = np.random.default_rng(5)
    M = rng.standard_normal((12, 12))
    A = M @ M.T + 12 * np.eye(12)
    res = check(kernel, A, calls=[(A + np.eye(12),)])
    outer = one_loop_graph(res, loops)
    assert fori_nodes(outer.target.body_graph)       # the inner loops are nodes of the outer body


def seidel(A, steps):
    for t in range(steps):
        for i in range(1, A.shape[0] - 1):
            for j in range(1, A.shape[1] - 1):
                A[i, j] = (A[i - 1, j] + A[i, j - 1] + A[i, j] + A[i, j + 1] + A[i + 1, j]) / 5.0
    return A


def test_three_levels_with_the_unroll_limit_at_four():
    A = np.random.default_rng(6).standard_normal((9, 9))
    compiled = md.compile(seidel, options={**NOTHING_EAGER, "unroll_limit": 4})
    res = check(seidel, A, 3, compiled=compiled, calls=[(A * 2, 3)])
    assert res.reasons == [] and len(fori_nodes(res.graphs[0])) == 3


# ---- what keeps today's path --------------------------------------------------------------------------------

def prints_each_step(x):
    for i in range(80):
        x = x + 1
        if i % 20 == 0:
            print("step", i)
    return x


def appends_each_step(x, out):
    for i in range(80):
        out.append(float(x[i % 3]))
    return out


def branches_on_the_index(x):
    for i in range(80):
        if i > 40:
            x = x * 0.5
        else:
            x = x + 1
    return x


@pytest.mark.parametrize("fn, args", [(prints_each_step, (np.zeros(2),)), (appends_each_step, (np.ones(3), [])),
                                      (branches_on_the_index, (np.ones(2),))])
def test_bodies_that_are_not_graph_code_keep_the_driver(fn, args):
    res = check(fn, *args, calls=[args])
    assert res.reasons                                  # a break: the loop is driven, as before
    assert not any(fori_nodes(g) for g in res.graphs)


def test_folding_can_be_turned_off():
    A, B = np.linspace(0.0, 1.0, 20), np.zeros(20)
    compiled = md.compile(jacobi_1d, options={**NOTHING_EAGER, "fori_loops": False})
    res = check(jacobi_1d, 100, A, B, compiled=compiled)
    assert not any(fori_nodes(g) for g in res.graphs)


def test_explain_shows_the_node_with_its_body():
    out = md.explain(trisolv)(np.eye(70) + 1, np.zeros(70), np.ones(70))
    text = str(out)
    assert "fori_loop(0, 70, 1" in text and "    body(a0: py_int" in text
    assert "[for] `for i in range(x.shape[0]):`" in text


def loop_then_try(x, n):
    total = 0.0
    for i in range(100):
        total = total + float(x[i % 3])
        x[i % 3] += 1
    try:
        ratio = total / n          # a carried value read inside a try: live after the loop through it
    except ZeroDivisionError:
        ratio = -total
    return x, ratio


def loop_with_a_closure(x):
    scale = 2.0
    f = lambda v: v * scale        # noqa: E731  (scale is a cell)
    acc = 0.0
    for i in range(80):
        acc = acc + float(f(x[i % 3]))
    return acc


@pytest.mark.parametrize("fn, args, calls", [
    (loop_then_try, (np.zeros(3), 2), [(np.ones(3), 0), (np.ones(3), 4)]),
    (loop_with_a_closure, (np.arange(3.0),), [(np.ones(3),)]),
])
def test_functions_with_try_regions_or_cells_elsewhere_fold_their_loops(fn, args, calls):
    res = check(fn, *args, calls=calls)
    assert any(fori_nodes(g) for g in res.graphs)


def writes_through_a_carried_view(A, idx, log):
    log.append(len(idx))         # a write-back the caller sees before the loop: an exception re-runs eagerly
    v = A[0]
    for i in range(idx.shape[0]):
        v[0] = v[0] + 1.0          # writes into A through the row carried from the iteration before
        v = A[idx[i]]              # IndexError where idx is out of range
    return A


def test_an_exception_re_run_restores_what_a_carried_view_wrote():
    A, idx = np.zeros((4, 3)), np.arange(70) % 4
    bad = idx.copy()
    bad[33] = 7
    res = check(writes_through_a_carried_view, A, idx, [], calls=[(A, bad, []), (A + 1, idx, [0])])
    node = one_loop_graph(res)
    assert node.meta["writes"]           # A: through the carried row (and the initial row, a view of it)
    entry = "\n".join(res.records[0].entry.code)
    assert "___snap = (A.copy(), )" in entry      # the whole of A, saved before the graph runs


def fills_a_fresh_array(x):
    out = np.empty(70)
    for i in range(70):
        out[i] = x[i % x.shape[0]] * 2
    return out


def test_a_loop_writing_only_its_own_array_writes_no_input():
    res = check(fills_a_fresh_array, np.arange(3.0), calls=[(np.ones(5),)])
    node = one_loop_graph(res)
    assert all(node.args[k].op != "input" for k in node.meta["writes"])      # x is only read


def rewritten_in_an_inner_while(x, lst):
    s = 1.5
    for i in range(x.shape[0]):
        k = 0
        while k < len(lst):       # 3.14 lays this body out after the outer loop's back edge
            s = float(x[i].sum()) * k
            k += 1
    return s


def test_a_local_written_in_an_inner_while_is_carried_or_the_loop_is_not_folded():
    # fuzz seed 1769 (--require fori) on 3.14/3.15: the folded body carried nothing, so `s` kept 1.5
    x = np.arange(12.0).reshape(4, 3)
    res = check(rewritten_in_an_inner_while, x, [1, 2], calls=[(x + 1, [3, 4, 5]), (x[:2], [])])
    for graph in res.graphs:
        for node in fori_nodes(graph):
            assert node.spec, str(graph)      # a folded loop carries `s` and `k`
    assert fori_nodes(res.graphs[0])          # folded on every Python (3.14: with its out-of-line blocks)


def inner_while_last(x, ws, idx, out):
    """A `while` that ends the for loop's body: 3.14 and 3.15 lay its body out after the for loop's back
    edge. Its arms join there, it writes into `out` and carries `total` and `acc`, and idx may be out of
    range."""
    total = 0.0
    acc = np.zeros(x.shape[1])
    for i in range(x.shape[0]):
        k = 0
        while k < len(ws):
            if ws[k] > 1.5:
                out[idx[i]] += x[i] * ws[k]
            else:
                out[i] -= ws[k]
            total = total + ws[k] * k
            acc = acc * 0.5 + x[i]
            k += 1
    return total, acc, out


@pytest.mark.parametrize("dtype", ["float64", "float32", "float16"])
def test_a_for_loop_ending_in_a_while_is_folded_with_its_out_of_line_blocks(dtype):
    rng = np.random.default_rng(3)
    x = rng.random((70, 3)).astype(dtype)
    idx = np.arange(70)[::-1].copy()
    bad = idx.copy()
    bad[40] = 99                              # IndexError in iteration 40: eager's writes before it stay
    out = np.zeros((70, 3), dtype)
    calls = [(x, [2.0, 1.0], idx, out), (x[:0], [3.0], idx[:0], out[:0]), (x, [2.0, 3.0], bad, out),
             (x, [], idx, out)]
    res = check(inner_while_last, x, [1.0, 2.0, 3.0], idx, out, calls=calls)
    assert fori_nodes(res.graphs[0]), str(res.graphs[0])


def escape_counts(z, c, counts):
    # mandelbrot's bookkeeping: the iteration at which each point was still bounded, written by mask
    n = np.zeros(z.shape, dtype=counts.dtype)
    for k in range(counts.shape[0]):
        inside = np.abs(z) < 2.0
        n[inside] = k
        z = np.minimum(z * z + c, 10.0)
    n[0] = counts.shape[0]
    return n


@pytest.mark.parametrize("dtype", [np.int8, np.int64, np.float32, np.bool_])
@pytest.mark.parametrize("steps", [70, 200])
def test_the_loop_index_written_into_an_array_is_a_graph_value(dtype, steps):
    # `n[inside] = k` with k the folded loop's index broke with "setitem: unsupported value of type Sym";
    # an index that does not fit int8 raises OverflowError in the iteration that writes it, as eagerly
    z0, c = np.linspace(-1.5, 1.5, 16), np.full(16, 0.3)
    res = check(escape_counts, z0, c, np.zeros(steps, dtype), calls=[(z0 * 0.5, c, np.zeros(steps + 3, dtype))])
    if dtype is np.int8 and steps > 127:
        return                                # (the graph raised and the function re-ran eagerly)
    node = one_loop_graph(res)
    assert node.target.body_graph.count("setitem") == 1
