"""Symbolic sizes (graph/symbolic.py): arithmetic, printing, guarded and static decisions, and NumPy's
slicing rules over symbols checked against Python on every size the recorded guards admit."""

import itertools
import operator

import numpy as np
import pytest

from minidynamo.graph.ir import ArraySpec
from minidynamo.graph.meta import MetaError, broadcast
from minidynamo.graph.meta_index import slice_length
from minidynamo.graph.symbolic import ShapeEnv, Sym, SymbolicDecisionError, bind_symbols, evaluate


def _env(*hints, lo=2):
    env = ShapeEnv()
    return env, [env.create_symbol(h, f"n{i}", lo=lo) for i, h in enumerate(hints)]


def _holds(env, values):
    """Whether every relation the env guarded holds when symbol i has value values[i]."""
    scope = {f"n{i}": v for i, v in enumerate(values)}
    rels = [r for r in env.relations]
    python = [_python_of(env, r) for r in rels]
    return all(eval(p, {}, scope) for p in python)


def _python_of(env, text):
    for info in sorted(env.symbols, key=lambda s: -len(s.name)):
        text = text.replace(info.name, info.source)
    return text.replace("//", " // ")


def _value(expr, values):
    if not isinstance(expr, Sym):
        return expr
    return eval(expr.python(), {}, {f"n{i}": v for i, v in enumerate(values)})


def test_arithmetic_and_printing():
    env, (a, b) = _env(5, 7)
    assert str(a * 8) == "8*s0" and (a * 8).hint == 40
    assert str(a + b) == "s0 + s1" and (a + b).python() == "n0 + n1"
    assert a - a == 0 and isinstance(a - a, int)
    assert str((a * 6) // 3) == "2*s0"
    assert str(a // 2) == "(s0//2)" and (a // 2).hint == 2
    assert (a + 1) % 1 == 0
    assert str(ArraySpec((a, 8), np.float64)) == "f64[s0,8]"
    assert env.relations == ["s0 >= 2", "s1 >= 2"]


def test_static_decisions_need_no_guard():
    env, (a,) = _env(5)
    before = list(env.relations)
    assert (a == 1) is False and (a != 0) is True and (a >= 2) is True and (a + 1 > a) is True
    assert (a * 2 == a + a) is True and (a // 2 >= 1) is True
    assert env.relations == before


def test_decisions_are_guarded():
    env, (a, b) = _env(5, 7)
    assert (a < b) is True and (a == b) is False and (a == 5) is True
    assert env.relations[2:] == ["s0 < s1", "s0 != s1", "s0 == 5"]
    assert operator.index(b) == 7 and env.relations[-1] == "s1 == 7"


def test_guard_callback_gets_python_over_sources():
    seen = []
    env = ShapeEnv(lambda python, text: seen.append((python, text)))
    a = env.create_symbol(4, "x.shape[0]")
    b = env.create_symbol(4, "y.shape[1]")
    assert a == b
    assert seen == [("x.shape[0] >= 2", "s0 >= 2"), ("y.shape[1] >= 2", "s1 >= 2"),
                    ("x.shape[0] == y.shape[1]", "s0 == s1")]


def test_frozen_env_refuses_decisions():
    env, (a,) = _env(5)
    env.freeze()
    assert str(a * 2) == "2*s0"           # building expressions is still fine
    with pytest.raises(SymbolicDecisionError):
        bool(a == 5)


def test_broadcast_symbolic():
    env, (a, b) = _env(5, 5)
    assert broadcast((a, 8), (8,)) == (a, 8)
    assert broadcast((a, 1), (1, 8)) == (a, 8)
    assert broadcast((a, 8), (b, 8))[1] == 8 and "s1 == s0" in env.relations
    env, (a,) = _env(5)
    with pytest.raises(MetaError):            # a - 1 might be 1: guarded != 1, then unequal to 2
        broadcast((a - 1, 3), (2, 3))
    assert env.relations[1:] == ["(s0 - 1) != 1", "(s0 - 1) != 2"]


@pytest.mark.parametrize("lo", [2, -10**9])
def test_slice_length_matches_python_on_every_admitted_size(lo):
    """For each capture-time size and slice, the symbolic length equals Python's for every size in a range
    that the recorded guards admit (and the guards admit the capture-time size)."""
    bounds = [None, -7, -3, -1, 0, 1, 2, 5, 9]
    steps = [None, 1, 2, -1, -3]
    for n in (2, 3, 6, 9):
        for start, stop, step in itertools.product(bounds, bounds, steps):
            env, (s,) = _env(n)
            s_slice = slice(start, stop, step)
            length = slice_length(s, s_slice)
            assert _value(length, [n]) == len(range(n)[s_slice])
            for other in range(2, 14):
                if _holds(env, [other]):
                    assert _value(length, [other]) == len(range(other)[s_slice]), (n, other, s_slice)


def test_slice_with_symbolic_bounds_matches_python():
    for size, i in itertools.product((3, 7), range(-9, 10)):
        env = ShapeEnv()
        s = env.create_symbol(size, "n0")
        k = env.create_symbol(i, "n1", lo=-10**9)
        for sl in (slice(None, k), slice(k, None), slice(None, k + 1), slice(k, k + 2), slice(None, None, 2)):
            length = slice_length(s, sl)
            for other_size, other_i in itertools.product(range(2, 9), range(-10, 11)):
                if _holds(env, [other_size, other_i]):
                    concrete = slice(*(_value(p, [other_size, other_i]) for p in (sl.start, sl.stop, sl.step)))
                    assert _value(length, [other_size, other_i]) == len(range(other_size)[concrete])


def test_sizes_evaluate_for_another_calls_symbols():
    env = ShapeEnv()
    s0, s1 = env.create_symbol(5, "x.shape[0]"), env.create_symbol(3, "y.shape[0]")
    exprs = [s0 * 8, s0 + s1 - 1, (s0 * s1) // 4, s0 % 3, 7]
    for a, b in ((5, 3), (2, 9), (17, 4)):
        values: dict = {}
        bind_symbols((s0, 16), (a, 16), values)
        bind_symbols((2 * s1 + 1,), (2 * b + 1,), values)     # a linear size names its symbol too
        assert values == {"s0": a, "s1": b}
        assert [evaluate(e, values) for e in exprs] == [a * 8, a + b - 1, (a * b) // 4, a % 3, 7]
    assert evaluate(s0 + s1, {"s0": 4}) is None         # a symbol no input determines: unknown, not a guess
    assert env.relations == ["s0 >= 2", "s1 >= 2"]      # evaluating decides (and guards) nothing


def test_products_past_the_size_limit_raise_too_complex():
    from minidynamo.graph.symbolic import MAX_DEGREE, TooComplex, ShapeEnv
    env = ShapeEnv()
    p = env.create_symbol(5, "n")
    with pytest.raises(TooComplex):
        for _ in range(MAX_DEGREE):
            p = p * p


# ---- loop indices (fori_loop bodies) ----------------------------------------------------------------------

_ENDS = [(lambda s: 0, lambda s: s - 1), (lambda s: 1, lambda s: s - 1), (lambda s: 2, lambda s: s),
         (lambda s: 0, lambda s: s - 3), (lambda s: s - 2, lambda s: s + 1)]
_OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq,
        "!=": operator.ne}


def test_a_loop_index_decision_holds_for_every_index_of_every_admitted_size():
    """Whatever a decision on `k*i + c <op> a*s + b` answers (i a loop index over [lo(s), hi(s)]), it is the
    truth for every i in that range and every size s the recorded guards admit; what differs between
    indices raises instead."""
    answered = refused = 0
    for n, (lo, hi), k, c, a, b, op in itertools.product((2, 5, 9), _ENDS, (1, -1, 2), (0, 1, -2), (0, 1),
                                                          (-1, 0, 3), _OPS):
        env, (s,) = _env(n)
        i = env.create_index(lo(s), hi(s), _value(lo(s), [n]))
        try:
            answer = _OPS[op](k * i + c, a * s + b)
        except SymbolicDecisionError:
            refused += 1
            continue
        answered += 1
        for other in range(2, 14):
            if _holds(env, [other]):
                for idx in range(lo(other), hi(other) + 1):
                    assert _OPS[op](k * idx + c, a * other + b) == answer, (n, op, k, c, a, b, other, idx)
    assert answered > refused > 0


def test_a_remainder_of_a_loop_index_is_decided_over_its_range():
    """`i % d` (d a positive size or constant) lies in [0, d - 1]: decisions on it hold for every index and
    every admitted size, as for the index itself."""
    answered = 0
    for n, d, k, c, a, b, op in itertools.product((2, 5), ("s", 3), (1, -1), (0, 2), (0, 1), (-1, 0, 2), _OPS):
        env, (s,) = _env(n)
        i = env.create_index(0, s - 1, 0)
        try:
            answer = _OPS[op](k * (i % (s if d == "s" else d)) + c, a * s + b)
        except SymbolicDecisionError:
            continue
        answered += 1
        for other in range(2, 14):
            if _holds(env, [other]):
                for idx in range(other):
                    lhs = k * (idx % (other if d == "s" else d)) + c
                    assert _OPS[op](lhs, a * other + b) == answer, (n, d, op, k, c, a, b, other, idx)
    assert answered


def test_a_loop_index_has_no_python_expression_and_guards_nothing_itself():
    env, (s,) = _env(6)
    i = env.create_index(0, s - 1, 0)
    assert (i < s) is True and (i >= 0) is True and env.relations == ["s0 >= 2"]
    seen = []
    env.on_varying = seen.append          # capture raises a graph break here; the env raises in any case
    with pytest.raises(SymbolicDecisionError):
        bool(i > 0)
    assert seen == ["i0 > 0"]
    with pytest.raises(SymbolicDecisionError):
        (i + 1).python()
    with pytest.raises(SymbolicDecisionError):
        int(i)                             # one value for every index: never
    half = i // 2                          # an opaque term over the index: decided by its range only
    assert (half >= 0) is True
    with pytest.raises(SymbolicDecisionError):
        bool(half < 2)


def test_an_inner_loop_index_over_an_outer_one_narrows_it_while_its_body_runs():
    env, (s,) = _env(8)
    i = env.create_index(0, s - 1, 0)
    j = env.create_index(0, i - 1, 0)      # `for j in range(i)`: runs only where i >= 1
    with pytest.raises(SymbolicDecisionError):
        bool(j < i - 1)
    saved = env.narrow(i, 1, s - 1)
    assert (j < i) is True and (j < s - 1) is True
    env.restore_ends(saved)
    with pytest.raises(SymbolicDecisionError):
        bool(i >= 1)
