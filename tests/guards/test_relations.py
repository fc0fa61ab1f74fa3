"""guards/relations.py: a size bound the other relation guards imply is skipped by the dispatcher, and only
such a bound. The differential tests call compiled functions with inputs that must fail the bound that
stays, so dropping it too (or an equality) would serve a wrong entry."""

import numpy as np

import minidynamo as md
from minidynamo.guards.relations import implied_bounds
from minidynamo.guards import HOLDS, Guard, GuardSet, failures

from tests.conftest import check


def test_the_largest_bound_of_a_class_of_equal_sizes_implies_the_others():
    rel = ["x.shape[1] >= 2", "w.shape[0] >= 2", "x.shape[1] == w.shape[0]", "w.shape[1] >= 2"]
    assert implied_bounds(rel) == {"w.shape[0] >= 2"}          # the first of equal bounds stays
    rel = ["a.shape[0] >= 2", "b.shape[0] >= 5", "c.shape[0] >= 3", "a.shape[0] == b.shape[0]",
           "c.shape[0] == b.shape[0]"]                          # a chain: one class, the largest bound stays
    assert implied_bounds(rel) == {"a.shape[0] >= 2", "c.shape[0] >= 3"}


def test_nothing_else_is_implied():
    assert implied_bounds(["x.shape[0] >= 2", "y.shape[0] >= 2"]) == set()          # no equality joins them
    assert implied_bounds(["x.shape[0] >= 2", "x.shape[0] == y.shape[0]"]) == set()  # the partner has no bound
    # an equality through arithmetic, a bound on an expression, other comparisons: never used
    rel = ["x.shape[0] >= 2", "y.shape[0] >= 2", "x.shape[0] == y.shape[0] + 0", "x.shape[0] * 2 >= 4",
           "x.shape[0] > 2", "x.shape[i] == y.shape[0]", "'k' in d"]
    assert implied_bounds(rel) == set()
    assert implied_bounds(["n >= 2", "m >= 2", "n == m"]) == {"m >= 2"}             # plain names are reads too


def test_a_skipped_bound_is_still_explained():
    gs = GuardSet([Guard(r, HOLDS, True) for r in ("x >= 2", "y >= 2", "x == y")])
    assert gs.expression().count(">= 2") == 1
    assert failures(gs, {"x": 1, "y": 1}) == ["x >= 2: does not hold", "y >= 2: does not hold"]


def _matmul(x, w):
    return x @ w


def test_the_bound_that_stays_rejects_a_size_that_became_1():
    # x.shape[1] == w.shape[0] and both >= 2: one of the two bounds is skipped. Both sizes 1 keep the equality,
    # so only the bound that stays sends (3, 1) @ (1, 2) to a capture of its own (sizes 1 are always static).
    compiled = md.compile(_matmul, dynamic=True)
    r = check(_matmul, np.ones((3, 4)), np.ones((4, 2)), compiled=compiled,
              calls=[(np.ones((5, 6)), np.ones((6, 3))), (np.ones((3, 1)), np.ones((1, 2))),
                     (np.ones((4, 1)), np.ones((1, 5))), (np.ones((2, 7)), np.ones((7, 2)))])
    assert (r.stats.captures, r.stats.hits) == (2, 3)
    guards = r.records[0].entry.guards
    assert str(guards).count(">= 2") == 4          # x: s0, s1; w: s1 (its own), s2
    assert guards.expression().count(">= 2") == 3  # one of s1's two bounds is skipped, the other checked


def test_sizes_that_stop_being_equal_still_fail():
    def f(x, y, z):
        return (x + y) * z                        # x, y, z: (s0,) each, all guarded equal and >= 2

    compiled = md.compile(f, dynamic=True)
    r = check(f, np.ones(4), np.ones(4), np.ones(4), compiled=compiled,
              calls=[(np.ones(6), np.ones(6), np.ones(6)), (np.ones(6), np.ones(6), np.ones(5)),
                     (np.ones(1), np.ones(1), np.ones(1)), (np.ones(3), np.ones(3), np.ones(3))])
    assert (r.stats.pieces[0].captures, r.stats.pieces[0].hits) == (3, 2)       # (6, 6, 5) and (1, 1, 1) are captured anew
