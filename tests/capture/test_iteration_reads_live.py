"""A loop over an array or a list reads each item when it reaches it, as CPython does, so an iteration sees
what earlier iterations wrote into the loop's own source (capture/variables/lazy_iterators.py). Before,
capture read every item when the loop started: an in-place prefix sum over `enumerate(x)` returned
[0, 1, 3, 5, 7] where eager returns [0, 1, 3, 6, 10], in one graph with no break and no guard failing.
Each case is differential (`check`: results, printed output, arguments after the call); each failed before
(results differed), except where a test says it guards the rebuilt iterator after a break."""

from __future__ import annotations

import numpy as np
import pytest

from tests.conftest import check


def prefix_sum_enumerate(x):
    for i, v in enumerate(x):
        if i + 1 < len(x):
            x[i + 1] += v
    return x


def write_ahead_for(x):
    total = np.float64(0)
    for v in x:
        x[-1] = 100.0
        total = total + v
    return total


def write_ahead_zip(a, b):
    out = np.float64(0)
    for u, v in zip(a, b):
        a[-1] = 50.0
        out = out + u * v
    return out


def write_ahead_reversed(x):
    seen = []
    for v in reversed(x):
        x[0] = -7.0
        seen.append(v)
    return seen


def list_enumerate(lst):
    for i, v in enumerate(lst):
        if i + 1 < len(lst):
            lst[i + 1] = lst[i + 1] + v
    return lst


@pytest.mark.parametrize("dtype", ["float64", "int32", "float16", "complex128", "bool"])
def test_an_in_place_prefix_sum_over_enumerate_sees_each_earlier_write(dtype):
    x = np.eye(1, 6)[0].astype(dtype)      # [1, 0, 0, 0, 0, 0]: eager's prefix sum is all ones
    check(prefix_sum_enumerate, x)


@pytest.mark.parametrize("fn, args", [
    (write_ahead_for, (np.arange(5.0),)),
    (write_ahead_zip, (np.arange(4.0), np.ones(4))),
    (write_ahead_reversed, (np.arange(4.0),)),
])
def test_a_write_into_the_iterated_source_shows_in_later_items(fn, args):
    check(fn, *args)


def test_a_list_of_python_floats_over_enumerate_sees_each_earlier_write():
    check(list_enumerate, [1.0, 2.0, 3.0, 4.0], expect_graph=False).assert_no_breaks()  # no array op: no graph


def test_rows_of_a_2d_array_stay_views_that_see_later_writes():
    def rows(m):
        acc = []
        for row in m:
            m[-1, 0] = -1.0
            acc.append(row * 1.0)
        return np.stack(acc)
    check(rows, np.arange(6.0).reshape(3, 2))


def break_inside_array_loop(data):
    tot = 0
    for b in data:
        if b > 2:               # a branch on an item's value: a graph break inside the loop
            tot += 1
        data[-1] = 100
        tot += int(b)
    return tot


def break_inside_zip_enumerate(a, b):
    out = []
    for i, (u, v) in enumerate(zip(a, b)):
        print(i, u)             # a break: the rest runs with the iterators rebuilt at this position
        a[-1] = -3.0
        out.append(u + v)
    return out


@pytest.mark.parametrize("n", [1, 3, 5])      # (n=1: nothing is read after the write; kept as the edge)
def test_after_a_break_the_loop_goes_on_over_the_live_array(n):
    # failed before: the rebuilt iterator held the items read at the loop's start (12 where eager gives 108)
    check(break_inside_array_loop, np.arange(n, dtype=np.int64), calls=[(np.arange(n, dtype=np.int64),)],
          expect_graph=False).assert_graph_ran().assert_broke("branch on the value of a NumPy bool")


def test_zip_and_enumerate_rebuilt_after_a_break_read_live_items():
    check(break_inside_zip_enumerate, np.arange(4.0), np.ones(4), calls=[(np.arange(4.0), np.ones(4))],
          expect_graph=False).assert_graph_ran().assert_broke("print()")


def test_unpacking_and_list_still_read_every_item_at_once():
    # eager reads all items at the unpacking and at list(): a later write does not show in them
    def unpack(x):
        a, b, c = x
        items = list(x)
        x[:] = 9.0
        return a + b + c, items
    check(unpack, np.arange(3.0))


def generator_expression_then_write(x):
    tot = np.float64(0)
    for v in (t * 1.0 for t in x):
        x[-1] = 100.0
        tot = tot + v
    return tot


def map_then_write(x):
    tot = np.float64(0)
    for v in map(abs, x):
        x[-1] = 100.0
        tot = tot + v
    return tot


def _items_of(x):
    for t in x:
        yield t


def generator_function_then_write(x):
    tot = np.float64(0)
    for v in _items_of(x):
        x[-1] = 100.0
        tot = tot + v
    return tot


def chain_then_write(x, y):
    import itertools
    tot = np.float64(0)
    for v in itertools.chain(x, y):
        y[-1] = 100.0
        tot = tot + v
    return tot


@pytest.mark.parametrize("fn", [generator_expression_then_write, map_then_write, generator_function_then_write])
def test_items_computed_ahead_of_a_loop_that_writes_their_source_are_not_used(fn):
    # a generator, map() or chain() runs to its end when called; the loop then writes what its items came
    # from, so capture refuses to step on (the frame runs as plain Python); failed before (10.0, eager 106.0)
    check(fn, np.arange(5.0), expect_fallback="computed ahead of the loop")


def test_chain_over_arrays_then_a_write_is_not_used():
    check(chain_then_write, np.arange(3.0), np.arange(3.0), expect_fallback="computed ahead of the loop")


def test_constant_items_ahead_of_a_loop_that_writes_still_capture():
    # itertools.product over ranges, a generator of ints: no write can change them, so the loop stays a graph
    import itertools

    def grid(out):
        for i, j in itertools.product(range(3), range(2)):
            out[i, j] = i * 10 + j
        for k in (2 * m for m in range(2)):
            out[k, 0] += 1.0
        return out
    check(grid, np.zeros((3, 2)))


def test_a_write_into_an_array_made_after_the_items_still_captures():
    def fresh(x):
        acc = []
        for v in (t * 2.0 for t in x):
            row = np.zeros(2)
            row[0] = v
            acc.append(row)
        return np.stack(acc)
    check(fresh, np.arange(3.0))


def test_a_generator_reading_a_list_the_loop_appends_to_is_not_used():
    def grows(x):
        acc = [1.0]

        def gen():
            for t in x:
                yield t + len(acc)      # eager reads len(acc) as the loop reaches each item
        tot = np.float64(0)
        for v in gen():
            acc.append(1.0)
            tot = tot + v
        return tot
    check(grows, np.arange(4.0), expect_fallback="computed ahead of the loop")


def test_a_generator_that_mutates_an_already_mutated_list_is_not_run_ahead():
    # the side-effect check counted first mutations only: a list appended to before the generator ran
    # could be appended to again inside it, and the generator ran ahead of its consumer's prints
    def again(x):
        log = []
        log.append(0)

        def gen():
            for t in x:
                log.append(1)
                yield t * 2.0
        out = []
        for v in gen():
            out.append(len(log))
        return out, log
    check(again, np.arange(3.0), expect_graph=False).assert_broke("iterating over a generator object")


def test_a_write_through_out_into_an_older_array_refuses_items_computed_ahead():
    # failed before (6.0, eager 300.0): the write's first argument was made after the items, but its
    # out= is the array the generator read
    def through_out(x):
        tot = np.float64(0)
        for v in (t * 1.0 for t in x):
            fresh = np.ones(x.shape)
            np.multiply(fresh, 100.0, out=x)
            tot = tot + v
        return tot
    check(through_out, np.arange(4.0), expect_fallback="computed ahead of the loop")


def test_a_write_before_the_first_step_of_items_computed_ahead():
    def before_first(x):
        it = (t * 2.0 for t in x)
        x[0] = 50.0
        tot = np.float64(0)
        for v in it:
            tot = tot + v
        return tot
    check(before_first, np.arange(4.0), expect_fallback="cannot continue after FOR_ITER")


# ---- reversed(list): CPython's reverse iterator reads lst[index] at each step ---------------------------

def reversed_list_adds_into_the_next_item(x):
    lst = [x, x + 1, x + 2]
    i = len(lst) - 1
    for v in reversed(lst):
        if i > 0:
            lst[i - 1] = lst[i - 1] + v
        i -= 1
    return lst[0]


def reversed_enumerate_writes_the_last_item(x):
    lst = [x, x * 2]
    for k, v in enumerate(reversed(lst)):
        lst[0] = v + 10
    return lst


def reversed_list_shrinks_below_its_index(x):
    lst = [x, x + 1, x + 2, x + 3]
    out = []
    for v in reversed(lst):
        out.append(v * 1)
        del lst[:2]                         # the index (2 next) falls outside: the iterator ends
    return out, len(lst)


def reversed_list_grows(x):
    lst = [x, x + 1]
    out = []
    for v in reversed(lst):
        lst.append(v * 3)                   # appended items are not visited; the old ones still are
        out.append(v)
    return out, lst


def reversed_caller_list(lst, x):
    for v in reversed(lst):
        lst[0] = lst[0] + v * x
    return lst


def reversed_list_across_a_break(x):
    lst = [x, x + 1, x + 2]
    i = 2
    for v in reversed(lst):
        print("step", i)                    # a break inside the loop: the rest runs on a rebuilt iterator
        if i > 0:
            lst[i - 1] = lst[i - 1] * v
        i -= 1
    return lst


def reversed_list_lengthened_before_a_break(x):
    lst = [x, x + 1]
    it = reversed(lst)
    first = next(it)
    lst.append(first * 2)
    print("made", len(lst))
    return first, list(it), lst


@pytest.mark.parametrize("fn", [reversed_list_adds_into_the_next_item, reversed_enumerate_writes_the_last_item,
                                reversed_list_shrinks_below_its_index, reversed_list_grows,
                                reversed_list_across_a_break, reversed_list_lengthened_before_a_break])
def test_a_reversed_list_reads_each_item_when_it_reaches_it(fn):
    # the first two gave 3.0 vs eager's 6.0 and 11.0 vs 22.0 before: reversed() copied the list when called
    check(fn, np.arange(3.0), calls=[(np.ones(3) * 2,)], expect_graph=False)


def test_a_reversed_caller_list_sees_the_loops_writes():
    check(reversed_caller_list, [np.ones(2), np.ones(2) * 2, np.ones(2) * 3], np.float64(2.0), expect_graph=False)


# ---- enumerate/zip over a dict or its views: the values are read when the loop reaches them ---------------

def enumerate_items_writes_a_later_value(x):
    d = {"a": x, "b": x}
    for i, (k, v) in enumerate(d.items()):
        d["b"] = v + i + 1
    return d["b"]


def zip_items_with_a_range(x):
    d = {"a": x, "b": x}
    for (k, v), i in zip(d.items(), range(2)):
        d["b"] = v + i + 1
    return d["b"]


def enumerate_values_across_a_break(x):
    d = {"a": x, "b": x}
    for i, v in enumerate(d.values()):
        print("step", i)
        d["b"] = v + 1
    return d


def enumerate_dict_keys(x):
    d = {"a": x, "b": x}
    for i, k in enumerate(d):
        d["b"] = d[k] + 1
    return d["b"]


@pytest.mark.parametrize("fn", [enumerate_items_writes_a_later_value, zip_items_with_a_range,
                                enumerate_values_across_a_break, enumerate_dict_keys])
def test_enumerate_and_zip_over_a_dict_read_its_values_when_stepped(fn):
    # the first three gave 3.0 vs eager's 4.0 (and 2.0 vs 3.0) before: the view was copied when enumerate ran
    check(fn, np.arange(3.0), calls=[(np.ones(3) * 2,)], expect_graph=False)
