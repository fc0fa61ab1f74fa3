"""Sets of constants (capture/variables/sets.py): captured without a break, iterated in CPython's own order,
and rebuilt by replaying their operations when they leave the capture (returned, stored, across a break)."""

import types

import numpy as np

import minidynamo as md
from minidynamo.capture.variables.sets import rebuild_set
from tests.conftest import check


def _orders(fn, *args):
    """(eager, compiled) iteration order of every set the function returns (check compares sets by ==)."""
    sets = lambda out: [list(v) for v in out if isinstance(v, set)]  # noqa: E731
    return sets(fn(*args)), sets(md.compile(fn)(*args))


def distinct_labels(x, labels):
    classes = set(labels)                       # set(list), len, iteration, `in`
    out = x * len(classes)
    for c in classes:
        out = out + c
    return out, 3 in classes, sorted(classes), classes


def names_seen(x, names):
    seen = set()
    order = []
    for n in names:                             # strings: order from this process's hashes
        if n not in seen:
            seen.add(n)
            order.append(n)
    return x * len(order), order, [n for n in seen], seen, {n.upper() for n in names}


def churn(x):
    s = set(range(40))                          # resizes, dummies left by discards, then more adds
    for i in range(0, 40, 3):
        s.discard(i)
    for i in range(100, 160, 7):
        s.add(i)
    first = s.pop()
    s.remove(101 if 101 in s else 100)
    both = (s | {1000, 2}) - {4, 5}
    return x + first, list(s), s, both, list(both), s & {7, 8, 1, 2}, s ^ {1, 2}


def in_place_and_compare(x, extra):
    s = {3, 1, 4, 1, 5, 9, 2, 6}
    t = s.copy()
    s |= set(extra)
    s -= {4}
    s &= set(range(8)) | {100}
    s ^= {0, 1}
    return x * len(s), s, list(s), t, list(t), s <= t, t > {1}, s == {2, 3, 5, 6}, s.issubset(t)


def test_sets_of_ints_and_strings_are_captured():
    check(in_place_and_compare, np.ones(2), [7, 100, 3], calls=[(np.ones(2), [])]).assert_no_breaks()
    eager, compiled = _orders(in_place_and_compare, np.ones(2), [7, 100, 3, 50, 60])
    assert eager == compiled
    check(distinct_labels, np.ones(3), [3, 1, 2, 3, 100, 17], calls=[(np.ones(3), [5, 5, 9])]).assert_no_breaks()
    res = check(names_seen, np.ones(2), ["b", "a", "b", "zz", "c"], calls=[(np.ones(2), ["q"])])
    res.assert_no_breaks()
    assert [g.count() for g in res.graphs] == [1, 1]


def test_iteration_and_rebuilt_sets_keep_cpythons_order():
    eager, compiled = _orders(churn, np.ones(2))
    assert eager == compiled and len(eager) == 4
    eager, compiled = _orders(names_seen, np.ones(2), [f"k{i}" for i in range(30)])
    assert eager == compiled
    check(churn, np.ones(2)).assert_no_breaks()


def test_rebuild_replays_the_operations():
    s = set(range(20))
    for i in range(0, 20, 2):
        s.discard(i)
    s.add(64)
    recipe = (("empty",), (("update", ("const", tuple(range(20)))),) +
              tuple(("discard", i) for i in range(0, 20, 2)) + (("add", 64),))
    assert list(rebuild_set(recipe)) == list(s)


def mutate_while_iterating(x):
    s = {1, 2, 3}
    for v in s:
        s.add(v + 10)                           # RuntimeError eagerly: left to plain Python
    return x


def non_constant_item(x, n):
    s = {x[0, 0], n}                            # a graph value as an item: a break at BUILD_SET
    return x * 2.0, s


def test_what_is_not_modelled_breaks():
    res = check(mutate_while_iterating, np.ones(2),
                expect_fallback='cannot continue after FOR_ITER in plain Python yet')
    assert any("set changed during iteration" in r.message for r in res.reasons)
    check(non_constant_item, np.ones((2, 2)), 3).assert_resumed_after("BUILD_SET")


def add_to_argument(x, s):
    s.add(5)                                    # a set from before the call: plain Python, in order
    return x * len(s), 3 in s


REGISTRY = set()


def store_then_mutate(x, obj):
    global REGISTRY
    local = {1, 2}
    REGISTRY = local                            # escapes into a global and an attribute...
    obj.tags = local
    local.add(30)                               # ...and is mutated after: the final set is what they see
    local.discard(1)
    return x + len(local), REGISTRY is obj.tags


def test_escaping_sets_replay_or_break():
    check(add_to_argument, np.ones(2), {1, 3}, calls=[(np.ones(2), {3})])
    res = check(store_then_mutate, np.ones(2), types.SimpleNamespace(), globals_to_check=["REGISTRY"])
    res.assert_no_breaks()
    obj = types.SimpleNamespace()
    md.compile(store_then_mutate)(np.ones(2), obj)
    assert obj.tags is REGISTRY
    compiled_order = list(REGISTRY)
    store_then_mutate(np.ones(2), types.SimpleNamespace())
    assert list(REGISTRY) == compiled_order


def across_a_break(x, names):
    s = {n for n in names}
    print("mid", float(x.sum()))                # a break: the set is rebuilt and handed on
    s.add("new")
    return x * len(s), sorted(s), list(s), s


def test_a_set_live_across_a_break():
    check(across_a_break, np.ones(3), ["q", "w", "q"], calls=[(np.ones(3), ["e"])])
    eager, compiled = _orders(across_a_break, np.ones(3), [f"n{i}" for i in range(12)])
    assert eager == compiled


VALID_MODES = {"mean", "sum", "max"}
FROZEN = frozenset({3, 1, 2})


def uses_sets_from_outside(x, mode, allowed):
    if mode not in VALID_MODES:                 # a global set: `in` guarded on its answer
        raise ValueError(f"bad mode {mode}")
    out = x * len(allowed)                      # an argument set: its length guarded
    for k in FROZEN:                            # a global frozenset iterated: items guarded in order
        out = out + k
    return out, sorted(allowed), 7 in allowed


def test_sets_from_before_the_call_are_read_through_guards():
    res = check(uses_sets_from_outside, np.ones(2), "sum", {1, 7, 9},
                calls=[(np.ones(2), "max", {1, 7, 9}), (np.ones(2), "sum", {2, 3}),
                       (np.ones(2), "median", {1}), (np.ones(2), "sum", {1, 8, 9})],
                       expect_fallback='cannot continue after RAISE_VARARGS in plain Python yet')
    assert all("raise ValueError" in r.source_line for r in res.reasons)     # only the bad mode's raise breaks
    assert any(r.graph is not None and r.graph.count() for r in res.records)
    compiled = md.compile(uses_sets_from_outside)
    compiled(np.ones(2), "sum", {1, 7, 9})
    VALID_MODES.add("median")                   # the guard on `mode in VALID_MODES` fails: a new capture
    try:
        check(uses_sets_from_outside, np.ones(2), "median", {1, 7, 9}, compiled=compiled)
    finally:
        VALID_MODES.discard("median")
    check(uses_sets_from_outside, np.ones(2), "median", {1, 7, 9}, compiled=compiled,
          expect_fallback='cannot continue after RAISE_VARARGS in plain Python yet')   # ValueError again
    assert md.stats(compiled).captures >= 2
