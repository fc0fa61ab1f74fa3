"""Mutations through compile: in-place array ops, item writes, views of inputs written into, aliasing,
list/dict/global/attribute writes. Each must happen exactly once per call, in eager order; printing must
neither repeat nor vanish (a print is a break: the graph before it writes its side effects back, the print
runs as plain Python, and a resume function continues)."""

from __future__ import annotations

import types

import numpy as np

from tests.conftest import check

HISTORY: list = []
TOTAL = 0.0


def x23():
    return np.linspace(-1.0, 1.0, 6).reshape(2, 3)


def test_inplace_add_on_input():
    def f(x):
        x += 1.0
        x *= 2.0
        return x
    check(f, x23(), calls=[(x23(),), (np.ones(4),)])


def test_inplace_add_on_input_twice_per_call_not_more():
    def f(x, y):
        x += y
        return x * 1.0
    check(f, x23(), np.ones(3), calls=[(x23(), np.ones(3))] * 2)


def test_item_write_into_input():
    def f(x, y):
        x[0] = y
        x[1, 2] = 7.0
        return x * 2.0
    check(f, x23(), np.full(3, 5.0), calls=[(x23(), np.zeros(3))])


def test_item_write_then_read():
    def f(x):
        y = x * 1.0
        y[0] = 10.0
        return y + x
    check(f, x23())


def test_out_argument():

    def f(a, b, c):
        np.add(a, b, out=c)
        return c * 2.0
    check(f, x23(), x23(), np.zeros((2, 3)))


def test_write_into_view_of_input():
    def f(x):
        row = x[0]
        row += 100.0
        x[1, :] = 3.0
        return x
    check(f, x23(), calls=[(np.arange(12.0).reshape(4, 3),)])


def test_same_array_passed_twice():
    def f(a, b):
        a += 1.0
        return b * 2.0
    x = x23()
    check(f, x, x)                       # deepcopy keeps the aliasing; eager sees the write through b
    check(f, x23(), x23())


def test_list_append_on_input_list():
    def f(xs, x):
        xs.append(x * 2.0)
        xs.append(len(xs))
        return x + 1.0
    check(f, [1], x23(), calls=[([], x23()), ([1, 2, 3], x23())])


def test_dict_write_on_input_dict():
    def f(d, x):
        d["out"] = x * 2.0
        d["n"] = d.get("n", 0) + 1
        return x
    check(f, {"n": 1}, x23(), calls=[({}, x23())])


def test_same_list_passed_twice():
    def f(a, b):
        a.append(1)
        return len(b)
    xs = [0]
    check(f, xs, xs)
    check(f, [0], [0], expect_graph=False)


def test_two_mutated_lists_are_guarded_distinct_once():
    """Both lists are written, so each is guarded distinct from the other: one `is` test, not one per
    direction (every guard is read on every warm call)."""
    def f(a, b):
        a.append(1)
        b.append(2)
        return len(a) + len(b)
    xs = [0]
    result = check(f, [0], [0], calls=[(xs, xs), ([5], [6, 7])])
    is_tests = [g.expr for r in result.records for g in r.entry.guards if " is " in g.expr and "warn" not in g.expr]
    assert len(is_tests) == len(result.records) and all(g in ("(a is b)", "(b is a)") for g in is_tests), is_tests


def test_global_writes_in_order():
    def f(x):
        global TOTAL
        TOTAL = TOTAL + 1.0
        HISTORY.append(TOTAL)
        TOTAL = TOTAL * 2.0
        return x * TOTAL
    check(f, x23(), calls=[(x23(),), (x23(),)], globals_to_check=["TOTAL", "HISTORY"])


def test_attribute_writes():
    def f(obj, x):
        obj.a = x * 2.0
        obj.b = obj.a + 1.0
        obj.a = obj.b
        obj.n += 1
        return obj.a
    check(f, types.SimpleNamespace(n=0), x23(), calls=[(types.SimpleNamespace(n=5, a=1), x23())])


def test_mutated_list_returned_keeps_identity():
    def f(xs, x):
        xs.append(x)
        return xs
    check(f, [], x23(), expect_graph=False).assert_no_breaks()      # the append replayed, with no graph


def test_print_runs_once():
    def f(x):
        print("start")
        y = np.tanh(x)
        print("end", y.shape)
        return y
    check(f, x23(), calls=[(x23(),), (np.ones(2),)])


def test_print_inside_loop_once_per_iteration():
    def f(x, n):
        for i in range(n):
            print("iteration", i)
            x = x + i
        return x
    check(f, x23(), 3, calls=[(x23(), 3)])


def test_mutation_before_break_happens_once():
    def f(xs, x):
        xs.append(1)
        if x.sum() > 0:                   # data-dependent: a graph break
            xs.append(2)
        return x * 2.0
    check(f, [], x23() + 1.0, calls=[([], x23() - 1.0)])


def test_exception_after_mutation_matches_eager():
    def f(xs, x):
        xs.append(x)
        return x @ np.ones((4, 4))          # shapes do not match: ValueError after the append
    check(f, [], x23())


def test_mutating_entry_is_reused_on_the_warm_path():
    import minidynamo as md

    def f(xs, d, x):
        xs.append(1)
        d["k"] = x * 2.0
        return x + 1.0
    r = check(f, [np.zeros(2)], {"a": 1}, x23(), calls=[([np.ones(2)], {"a": 1}, x23())] * 2)
    assert r.reasons == []
    assert r.counter.frame_count == 1, md.stats(r.compiled).guard_failures
