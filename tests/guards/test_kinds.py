"""guards/kinds/: each guard kind is one class that knows its inline check, its words and why it fails
(GuardFailure); Guard(expr, kind, ...) builds the class of its kind. These fail on a tree where guards were
one class with a switch per job (no kinds, no GuardFailure, no value_words)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from minidynamo.guards import (
    DICT_KEYS, DTYPE, EQUALS, HASATTR, HOLDS, ID, IS_NONE, LEN, NOT_HASATTR, NOT_NONE, SHAPE, TYPE, Guard,
    GuardFailure, GuardKind, GuardSet, failures, value_words,
)
from minidynamo.guards.check import compile_check


def _f():
    pass


def _g():
    pass


# kind, expr, expected, a value of x it holds for, one it fails for, the failure reason then
CASES = [
    (TYPE, "x", np.ndarray, np.zeros(2), [0.0, 0.0], "type(x): expected ndarray, got list"),
    (ID, "x", _f, _f, _g, "x: expected <function _f>, got <function _g>"),
    (EQUALS, "x", 3, 3, 4, "x: expected 3, got 4"),
    (EQUALS, "x", -0.0, -0.0, 0.0, "x: expected -0.0, got 0.0"),
    (SHAPE, "x", (2, None), np.zeros((2, 5)), np.zeros((3, 5)), "x.shape[0]: expected 2, got 3"),
    (DTYPE, "x", np.float64, np.zeros(2), np.zeros(2, np.float32), "x.dtype: expected float64, got float32"),
    (LEN, "x", 2, [1, 2], [1], "len(x): expected 2, got 1"),
    (DICT_KEYS, "x", ("a", "b"), {"a": 1, "b": 2}, {"b": 2, "a": 1},
     "keys of x: expected ('a', 'b'), got ('b', 'a') (same keys, different order)"),
    (HASATTR, "x", "real", 1.0, "s", "hasattr(x, 'real'): expected True, got False"),
    (NOT_HASATTR, "x", "real", "s", 1.0, "hasattr(x, 'real'): expected False, got True"),
    (IS_NONE, "x", None, None, 1, "x: expected None, got 1"),
    (NOT_NONE, "x", None, 1, None, "x: expected not None, got None"),
    (HOLDS, "x > 0", True, 1, 0, "x > 0: does not hold"),
]


@pytest.mark.parametrize("kind, expr, expected, ok, bad, reason", CASES,
                         ids=[f"{case[0]}-{i}" for i, case in enumerate(CASES)])     # (no addresses: xdist)
def test_each_kind_checks_inline_and_explains_its_own_failure(kind, expr, expected, ok, bad, reason):
    g = Guard(expr, kind, expected)
    assert type(g).KIND is kind and isinstance(g, Guard)
    gs = GuardSet([g])
    check = compile_check(gs, ["x"])
    assert check(ok) is True and check(bad) is False
    assert failures(gs, {"x": ok}) == [] and failures(gs, {"x": bad}) == [reason]
    name = g.source.reason_name      # (`x`, or the relation itself for HOLDS)
    with pytest.raises(GuardFailure, match="^" + re.escape(reason) + "$"):
        g.explain(eval(expr, {"x": bad}), name)
    assert g.explain(eval(expr, {"x": ok}), name) is None


def test_every_kind_has_a_class_of_its_own_and_guards_compare_as_before():
    classes = {type(Guard("x", k, v)) for k, v in [(TYPE, int), (ID, _f), (EQUALS, 1), (SHAPE, ()), (DTYPE, "f8"),
               (LEN, 0), (DICT_KEYS, ()), (HASATTR, "a"), (NOT_HASATTR, "a"), (IS_NONE, None), (NOT_NONE, None),
               (HOLDS, True), (GuardKind.NOT_WARNINGS_LOG, None)]}
    assert len(classes) == len(GuardKind) and {c.KIND for c in classes} == set(GuardKind)
    assert Guard("x", "SHAPE", [2, None]) == Guard("x", SHAPE, (2, None))      # normalized by the kind's class
    assert hash(Guard("x", "DTYPE", "float32")) == hash(Guard("x", DTYPE, np.dtype(np.float32)))
    with pytest.raises(TypeError):
        type(Guard("x", LEN, 1))("x", SHAPE, (1,))     # a kind's class builds only its kind


def test_a_values_words_are_led_by_the_kind_that_says_most():
    group = {g.kind: g for g in [Guard("x", TYPE, np.ndarray), Guard("x", DTYPE, "f4"), Guard("x", SHAPE, (4, None))]}
    assert value_words("`x`", group) == "`x` is an ndarray of shape (4, *) and dtype float32"
    assert value_words("`n`", {TYPE: Guard("n", TYPE, int), EQUALS: Guard("n", EQUALS, 3)}) == "`n` is the int 3"
    assert value_words("`n`", {TYPE: Guard("n", TYPE, int)}) == "`n` is an int (any value: not specialized)"
    assert value_words("`t`", {TYPE: Guard("t", TYPE, tuple), LEN: Guard("t", LEN, 2)}) == "`t` is a tuple of length 2"
    assert value_words("`o`", {TYPE: Guard("o", TYPE, object), HASATTR: Guard("o", HASATTR, "w")}) is None
