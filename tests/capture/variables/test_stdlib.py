"""Builtins and standard-library helpers over Python values (variables/stdlib.py, builtins.py): folded at
capture time or run as Python runs them over Vars, recording graph ops where NumPy would."""

from __future__ import annotations

import functools
import itertools
import math
import operator
import types

import numpy as np
import pytest

import minidynamo as md
from tests.conftest import check


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape or (3,))


def test_map_filter_zip_enumerate_reversed_over_arrays():
    def f(xs, w):
        ys = list(map(lambda a: a @ w, xs))
        big = list(filter(lambda a: a.shape[0] > 2, xs))
        pairs = [a * i + b for i, (a, b) in enumerate(zip(ys, reversed(ys)))]
        return sum(pairs) + sum(big), len(big)
    check(f, [_x(3), _x(3, seed=1), _x(3, seed=2)], _x(3, 3)).assert_no_breaks()


def test_map_with_two_iterables_and_filter_none():
    def f(xs, ks):
        return list(map(operator.mul, xs, ks)), list(filter(None, [0, 1, "", "a", None]))
    check(f, [_x(), _x(seed=1)], [2.0, 3.0]).assert_no_breaks()


def test_map_whose_function_mutates_breaks_instead_of_reordering():
    def f(xs, log):
        it = map(lambda a: log.append(1) or a * 2, xs)
        log.append("made")
        return list(it)
    check(f, [_x(), _x()], [], expect_graph=False).assert_broke("map() calls a function with side effects")


def test_sorted_min_max_with_keys():
    def f(layers, x):
        order = sorted(layers, key=lambda p: p[0], reverse=True)
        first = min(layers, key=lambda p: p[0])
        for _, w in order:
            x = x * w
        return x + first[1], max(3, 1, 2), min([4, 2, 8]), max([], default=-1), sorted("cab")
    check(f, [(2, _x()), (1, _x(seed=1)), (3, _x(seed=2))], _x()).assert_no_breaks()


def test_max_of_arrays_breaks_only_for_the_truth_value():
    def f(a, b):
        return max(a, b)
    check(f, np.array([1.0]), np.array([2.0]), calls=[(np.array([3.0]), np.array([2.0]))],
          expect_graph=False).assert_broke("branch on the value of a bool array of shape (1,)")
    check(f, _x(), _x(seed=1), expect_graph=False).assert_broke("bool array of shape (3,)")   # ValueError, as eagerly


def test_sum_any_all_short_circuit():
    def f(xs, flags):
        return sum(xs, 1.0), sum(xs), any(flags), all(flags), any(v > 1 for v in [0, 2, 3]), all([])
    check(f, [_x(), _x(seed=1), _x(seed=2)], [0, 1, 1]).assert_no_breaks()


def test_any_of_arrays_stops_at_the_first_true_like_python():
    def f(x, y):
        return any([True, x.sum() > 0]), all([False, y])
    r = check(f, _x(), _x())
    r.assert_no_breaks()


def test_abs_round_divmod_pow_len():
    def f(x, xs):
        return abs(-x) + pow(x, 2) + len(xs) + divmod(17, 5)[1] + round(2.567, 2) + pow(2, 10, 7) + abs(-3)
    check(f, _x(), [1, 2]).assert_no_breaks()


class Cfg:
    name = "cfg"

    def __init__(self):
        self.depth = 2


def test_isinstance_issubclass_callable_hasattr_getattr():
    def f(x, cfg, xs):
        flags = (isinstance(x, np.ndarray), isinstance(cfg, (Cfg, int)), issubclass(bool, int), callable(cfg),
                 callable(len), callable(x), hasattr(cfg, "depth"), hasattr(cfg, "width"), hasattr(cfg, "name"),
                 hasattr(xs, "append"), hasattr(x, "shape"), getattr(cfg, "width", 4), getattr(cfg, "depth"))
        return x * getattr(cfg, "width", 2), flags
    r = check(f, _x(), Cfg(), [1]).assert_no_breaks()
    compiled = md.compile(f)
    cfg = Cfg()
    compiled(_x(), cfg, [1])
    cfg.width = 5                                 # hasattr was guarded: a new answer recaptures
    out, flags = compiled(_x(), cfg, [1])
    assert flags[7] is True and flags[-2] == 5 and np.array_equal(out, _x() * 5)
    assert r.stats.captures == 1


def test_text_of_constants_is_folded():
    def f(x, cfg, n):
        tag = f"{cfg.name}-{n:03d} {n!r} {3.14159:.2f}" + "%s/%d" % ("a", n) + "{}-{}".format(n, "b")
        label = str(n) + repr("q") + format(n, "x") + ascii("é")
        return x * n, tag, label
    check(f, _x(), Cfg(), 7, calls=[(_x(), Cfg(), 8)]).assert_no_breaks()


def test_math_and_operator_functions():
    from math import sqrt
    def f(x, d):
        scale = 1.0 / sqrt(d) + math.log2(d) + math.pi + math.floor(2.5) + math.prod([2, 3])
        return operator.add(operator.mul(x, scale), operator.neg(x)), operator.getitem([1, 2, 3], 1), \
            operator.truediv(x, 2.0), operator.pow(x, 2), operator.matmul(x, x), operator.lt(1, d)
    check(f, _x(), 16).assert_no_breaks()


def test_itertools_and_functools_reduce():
    def f(ws, x):
        y = functools.reduce(lambda a, w: a * w, ws, x)
        z = functools.reduce(operator.add, ws)
        grid = [i * 10 + j for i, j in itertools.product(range(2), range(3))]
        flat = list(itertools.chain([1, 2], (3,), range(2))) + list(itertools.chain.from_iterable([[5], [6]]))
        acc = list(itertools.accumulate([1, 2, 3])) + list(itertools.accumulate([2, 3], operator.mul))
        parts = list(itertools.accumulate(ws))
        few = list(itertools.islice(range(100), 2, 9, 3)) + list(itertools.islice([7, 8, 9], 2))
        return y + z + parts[-1], grid, flat, acc, few, list(itertools.product("ab", repeat=2))
    check(f, [_x(), _x(seed=1), _x(seed=2)], _x()).assert_no_breaks()


def test_sum_of_arrays_records_the_additions():
    r = check(lambda xs: sum(xs), [_x(), _x(seed=1), _x(seed=2)]).assert_no_breaks()
    assert r.counter.op_count == 3              # 0 + a, + b, + c: exactly the additions Python makes


def test_exceptions_from_folded_helpers_stay_eager():
    check(lambda x: x * math.sqrt(-1.0), _x(), expect_graph=False).assert_broke("math domain error")
    check(lambda x: x * min([]), _x(), expect_graph=False).assert_broke("min() iterable argument is empty")
    check(lambda x: x * functools.reduce(operator.add, []), _x(), expect_graph=False).assert_broke(
        "reduce() of empty iterable with no initial value")
    check(lambda x: sorted([1, "a"]), _x(), expect_graph=False).assert_broke("'<' not supported")


def test_slice_builtin_builds_what_build_slice_builds():
    def f(x, idx, n):
        grid = np.zeros((2, 5))
        np.add.at(grid, (slice(None), idx), x)          # im2col's scatter-add back into an image
        return grid, x[slice(1, None)], x[:, slice(n)], x[:, slice(0, n, 2)], slice(None), slice(1, n)
    x, idx = np.arange(6.0).reshape(2, 3), np.array([0, 1, 1])
    r = check(f, x, idx, 2, calls=[(x, idx, 3)]).assert_no_breaks()
    assert all(g.ops().get("add.at") == 1 for g in r.graphs)
    check(lambda x: x[slice(1, 2, 3, 4)], np.ones(3), expect_graph=False)     # TypeError, as eagerly
    check(lambda x: x[slice()], np.ones(3), expect_graph=False)


def test_combinations_and_permutations_of_items():
    def features(x, degree):
        n = x.shape[1]
        combos = [c for d in range(degree + 1) for c in itertools.combinations_with_replacement(range(n), d)]
        cols = [np.prod(x[:, list(c)], axis=1) for c in combos]
        pairs = [a - b for a, b in itertools.permutations([x[0], x[1]])]
        return np.stack(cols, axis=1), pairs, list(itertools.combinations("abc", r=2)), \
            list(itertools.permutations(range(3), 2))
    r = check(features, np.arange(6.0).reshape(2, 3), 2, calls=[(np.ones((2, 3)), 3)]).assert_no_breaks()
    assert r.graphs[0].ops().get("prod") == 10          # 1 + 3 + 6 monomials of degree <= 2 in 3 variables
    check(lambda xs: list(itertools.combinations(xs, -1)), [np.ones(2)],
          expect_graph=False)     # ValueError, as eagerly
