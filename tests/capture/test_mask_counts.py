"""x[mask] with a mask the graph computes: the selection's length is a count symbol (capture/mask_counts.py),
so the selection and what follows it stay in the graph, computed on the selected elements as eagerly;
a decision on the count breaks. Differential throughout, plus the graphs."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minidynamo as md
from minidynamo.capture.breaks import BreakCategory
from tests.conftest import check
from tests.extras import require

DTYPES = [np.float32, np.float64, np.int64, np.complex128]
SHAPES = [(0,), (1,), (5,), (3, 4), (2, 0, 3)]


def selected_scaled(x, t):
    return x[x.real > t] * 2 + 1


def masked_update(z, c, horizon):
    inside = np.abs(z) < horizon
    z[inside] = z[inside] ** 2 + c[inside]          # mandelbrot's escape step: squares only what is inside
    return z


def inverse_cube_root(r):
    r = r.copy()
    r[r > 0] = r[r > 0] ** (-1.5)                   # nbody's softened distances
    return r.sum(axis=-1)


def branch_on_count(x):
    sel = x[x > 0]
    if len(sel) > 2:
        return sel.sum()
    return -sel


def two_masks(x, y):
    return x[x > 0] + y[y > 0]                      # two counts: equal only when the data says so


def max_of_selection(x):
    return x[x > 0.5].max()                         # an empty selection raises, as eagerly


def escape_counts(z, c, n):
    counts = np.zeros(z.shape, np.int64)
    for k in range(n):                              # a fori_loop whose body selects by a mask
        inside = np.abs(z) < 2.0
        counts[inside] = k
        z[inside] = z[inside] ** 2 + c[inside]
    return counts, z


def _counted(graph):
    return [n for n in graph.nodes if n.op == "getitem" and n.spec.is_symbolic
            and any(a.startswith("u") for d in n.spec.shape if not isinstance(d, int) for m in d.poly for a in m)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SHAPES)
def test_a_selection_and_what_follows_it_are_one_graph(dtype, shape):
    x = (np.arange(int(np.prod(shape))).reshape(shape) % 7 - 3).astype(dtype)
    res = check(selected_scaled, x, 0.0, calls=[(x, 10.0), (x, -10.0), (x * 2, 1.0)])
    if 0 in shape:
        return                                      # (an empty mask selects nothing: a static length)
    assert res.reasons == []                        # (one graph per threshold: a float constant is guarded)
    assert all(len(_counted(g)) == 1 for g in res.graphs), [str(g) for g in res.graphs]


def _warned(fn, *args):
    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        out = fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    return out, [(w.category, str(w.message)) for w in shown]


@pytest.mark.parametrize("horizon", [0.5, 2.0, 1e308])
def test_a_masked_update_computes_only_the_selected_elements(horizon):
    z = np.array([0.1 + 0.2j, 1e200 + 0j, -1.5 + 0.5j, 3.0 - 1j, 0.0])
    c = np.full(5, 0.25 - 0.1j)
    res = check(masked_update, z, c, horizon, calls=[(z * 3, c, horizon)])
    assert res.reasons == [] and len(_counted(res.graphs[0])) == 2
    compiled = md.compile(masked_update)
    for _ in range(2):     # 1e200 squared overflows only where it is selected: warnings as eager's
        (e, ew), (r, rw) = _warned(masked_update, z, c, horizon), _warned(compiled, z, c, horizon)
        assert np.array_equal(e, r, equal_nan=True) and ew == rw


def test_an_in_place_update_through_two_equal_masks():
    r = np.array([[-1.0, 0.0, 4.0], [9.0, 0.25, -2.0]])
    res = check(inverse_cube_root, r, calls=[(-r,), (r * 0,)])
    assert res.reasons == []


def test_a_decision_on_the_count_breaks():
    res = check(branch_on_count, np.array([1.0, -2.0, 3.0, 4.0]),
                calls=[(np.array([1.0, -2.0, 3.0]),), (np.zeros(4),), (np.ones(6),)])
    assert res.reasons and all(r.category is BreakCategory.DATA_DEPENDENT for r in res.reasons)


def test_two_masks_are_two_counts():
    a, b = np.array([1.0, -1.0, 2.0]), np.array([3.0, 4.0, -5.0])
    check(two_masks, a, b, calls=[(a, -b), (a, np.ones(3))])    # equal counts add; unequal ones raise


def test_an_empty_selection_raises_as_eagerly():
    check(max_of_selection, np.array([0.9, 0.1]), calls=[(np.array([0.1, 0.2]),), (np.ones(3),)])


def test_a_folded_loop_selecting_by_a_mask_is_one_node():
    z0 = np.linspace(-1.5, 1.5, 12) + 0.3j
    c = np.full(12, -0.4 + 0.6j)
    res = check(escape_counts, z0, c, 80, calls=[(z0 * 0.5, c, 90)])
    assert res.reasons == [] and sum(n.op == "fori_loop" for n in res.graphs[0].nodes) == 1


def test_engines_that_need_static_shapes_keep_the_break():
    require("jax")
    out = md.explain(md.compile(selected_scaled, backend="jax"))(np.arange(5.0), 1.0)
    assert [r.category for r in out.break_reasons] == [BreakCategory.DATA_DEPENDENT]
