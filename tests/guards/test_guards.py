"""Tests of minidynamo.guards: each guard kind passes on the value it was built from and fails,
with a readable reason, on a changed one; ordering, inlining, de-duplication, printing."""

from __future__ import annotations

import inspect
import linecache
import math
import pickle
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from minidynamo.errors import InternalError
from minidynamo.guards.check import compile_check
from minidynamo.guards import (
    DICT_KEYS, DTYPE, EQUALS, HASATTR, ID, IS_NONE, LEN, NOT_HASATTR, NOT_NONE, SHAPE, TYPE,
    Guard, GuardConflictError, GuardSet, array_guards, failures, guard_constant,
)


def check_and_why(guards, argnames, ok_values, bad_values, extra=None):
    """Compile `guards`; assert the check passes on ok_values and fails on bad_values; return the
    failure reasons for bad_values."""
    gs = guards if isinstance(guards, GuardSet) else GuardSet(guards)
    extra = extra or {}
    check = compile_check(gs, argnames, extra)
    assert check(*[ok_values[a] for a in argnames]) is True
    assert failures(gs, {**ok_values, **extra}) == []
    if callable(bad_values):  # mutate globals/cells/attributes in place
        bad_values()
        bad_values = ok_values
    assert check(*[bad_values[a] for a in argnames]) is False
    reasons = failures(gs, {**bad_values, **extra})
    assert reasons, "a failing check must have a reason"
    return reasons


# --- one test per kind of change ------------------------------------------------------------


def test_shape_change():
    x = np.zeros((4, 8), np.float32)
    why = check_and_why(array_guards("x", x), ["x"], {"x": x}, {"x": np.zeros((5, 8), np.float32)})
    assert why == ["x.shape[0]: expected 4, got 5"]


def test_rank_change():
    x = np.zeros((4, 8))
    why = check_and_why(array_guards("x", x), ["x"], {"x": x}, {"x": np.zeros((4, 8, 1))})
    assert why == ["x.ndim: expected 2, got 3"]


def test_dtype_change():
    x = np.zeros(3, np.float32)
    why = check_and_why(array_guards("x", x), ["x"], {"x": x}, {"x": np.zeros(3)})
    assert why == ["x.dtype: expected float32, got float64"]


def test_dtype_equal_but_not_identical_still_passes():
    # The `is` fast path must fall back to `==`: these dtypes are equal, but distinct objects.
    x = np.zeros(3, np.int64)
    check = compile_check(GuardSet(array_guards("x", x)), ["x"], {})
    unpickled = pickle.loads(pickle.dumps(x))
    assert check(unpickled) and check(np.zeros(3, dtype="q")) and check(x.astype(x.dtype.newbyteorder("=")))
    assert not check(x.astype(">i8" if np.little_endian else "<i8"))


def test_type_change_reports_type_only():
    x = np.zeros((4, 8))
    why = check_and_why(array_guards("x", x), ["x"], {"x": x}, {"x": [[0.0] * 8] * 4})
    assert why == ["type(x): expected ndarray, got list"]


def test_subclass_is_a_different_type():
    x = np.zeros(3)
    why = check_and_why(array_guards("x", x), ["x"], {"x": x}, {"x": np.ma.masked_array(x)})
    assert why == ["type(x): expected ndarray, got MaskedArray"]


def test_global_value_change():
    G = {"scale": 2.0}
    why = check_and_why(guard_constant("___G['scale']", 2.0), [], {}, lambda: G.update(scale=3.0), {"___G": G})
    assert why == ["global scale: expected 2.0, got 3.0"]


def test_global_deleted_could_not_evaluate():
    G = {"scale": 2.0}
    why = check_and_why(guard_constant("___G['scale']", 2.0), [], {}, lambda: G.clear(), {"___G": G})
    assert why == ["global scale: could not evaluate (KeyError: 'scale')"]


def test_closure_cell_change_uses_description():
    cells = (types.CellType(0.5),)
    guards = guard_constant("___closure[0].cell_contents", 0.5, "closure variable 'lr'")

    def rebind():
        cells[0].cell_contents = 0.25

    why = check_and_why(guards, [], {}, rebind, {"___closure": cells})
    assert why == ["closure variable 'lr': expected 0.5, got 0.25"]


def test_closure_cell_without_description():
    cells = (types.CellType(3),)
    why = check_and_why(guard_constant("___closure[0].cell_contents", 3), [], {},
                        lambda: setattr(cells[0], "cell_contents", 4), {"___closure": cells})
    assert why == ["closure cell 0: expected 3, got 4"]


def test_object_attribute_change():
    cfg = types.SimpleNamespace(lr=0.1, eps=1e-5)
    guards = [Guard("cfg", HASATTR, "lr"), Guard("cfg", HASATTR, "eps"), Guard("cfg", NOT_HASATTR, "debug"),
              *guard_constant("cfg.lr", 0.1)]
    why = check_and_why(guards, ["cfg"], {"cfg": cfg}, lambda: setattr(cfg, "lr", 0.2))
    assert why == ["cfg.lr: expected 0.1, got 0.2"]
    cfg.lr = 0.1
    cfg.debug = True
    assert failures(GuardSet(guards), {"cfg": cfg}) == ["hasattr(cfg, 'debug'): expected False, got True"]
    del cfg.debug, cfg.lr  # a missing attribute hides the guards that read it
    assert failures(GuardSet(guards), {"cfg": cfg}) == ["hasattr(cfg, 'lr'): expected True, got False"]


def test_dict_key_order_and_set():
    p = {"W1": 1, "b1": 2}
    guards = [Guard("p", TYPE, dict), Guard("p", DICT_KEYS, ("W1", "b1"))]
    why = check_and_why(guards, ["p"], {"p": p}, {"p": {"b1": 2, "W1": 1}})
    assert why == ["keys of p: expected ('W1', 'b1'), got ('b1', 'W1') (same keys, different order)"]
    why = check_and_why(guards, ["p"], {"p": p}, {"p": {"W1": 1, "b2": 2}})
    assert why == ["keys of p: expected ('W1', 'b1'), got ('W1', 'b2')"]


def test_list_length():
    guards = [Guard("xs", TYPE, list), Guard("xs", LEN, 2), *guard_constant("xs[1]", 7)]
    why = check_and_why(guards, ["xs"], {"xs": [1, 7]}, {"xs": [1, 7, 9]})
    assert why == ["len(xs): expected 2, got 3"]
    assert failures(GuardSet(guards), {"xs": [1]}) == ["len(xs): expected 2, got 1"]  # no IndexError line


def test_rebound_function_identity():
    def helper(x):
        return x

    def other(x):
        return x

    G = {"helper": helper}
    why = check_and_why([Guard("___G['helper']", ID, helper)], [], {}, lambda: G.update(helper=other), {"___G": G})
    assert why == [f"global helper: expected <function {helper.__qualname__}>, got <function {other.__qualname__}>"]


def test_same_named_function_is_still_a_different_object():
    def make():
        def helper():
            pass
        return helper

    f1, f2 = make(), make()
    why = check_and_why([Guard("f", ID, f1)], ["f"], {"f": f1}, {"f": f2})
    assert why == [f"f: expected <function {f1.__qualname__}>, got <function {f2.__qualname__}> (a different object)"]


def test_code_guard_names_both_code_objects():
    def make(sign):
        if sign:
            def helper(y):
                return y
        else:
            def helper(y):
                return -y
        return helper

    f1, f2, f3 = make(True), make(True), make(False)
    why = check_and_why([Guard("f.__code__", ID, f1.__code__)], ["f"], {"f": f2}, {"f": f3})
    line1, line2 = f1.__code__.co_firstlineno, f3.__code__.co_firstlineno
    assert why == [f"f.__code__: expected <code {f1.__code__.co_qualname} line {line1}>, "
                   f"got <code {f3.__code__.co_qualname} line {line2}>"]


def test_module_attribute():
    mod = types.ModuleType("fakenp")
    mod.tanh = np.tanh
    mod.eps = 1e-6
    G = {"fakenp": mod}
    guards = [Guard("___G['fakenp']", ID, mod), Guard("___G['fakenp'].tanh", ID, np.tanh),
              *guard_constant("___G['fakenp'].eps", 1e-6)]
    why = check_and_why(guards, [], {}, lambda: setattr(mod, "tanh", np.sin), {"___G": G})
    assert why == ["global fakenp.tanh: expected <ufunc tanh>, got <ufunc sin>"]
    mod.tanh, mod.eps = np.tanh, 1e-7
    assert failures(GuardSet(guards), {"___G": G}) == ["global fakenp.eps: expected 1e-06, got 1e-07"]


def test_none_guards():
    why = check_and_why([Guard("b", IS_NONE)], ["b"], {"b": None}, {"b": np.zeros(2)})
    assert why == ["b: expected None, got ndarray of shape (2,) and dtype float64"]
    why = check_and_why([Guard("b", NOT_NONE)], ["b"], {"b": 0}, {"b": None})
    assert why == ["b: expected not None, got None"]


def test_numpy_scalar_guards():
    guards = array_guards("s", np.float32(1.5))
    assert [g.kind for g in guards] == [TYPE]
    why = check_and_why(guards, ["s"], {"s": np.float32(2)}, {"s": np.float64(2)})
    assert why == ["type(s): expected float32, got float64"]
    assert [g.kind for g in array_guards("d", np.datetime64("2020-01-01"))] == [TYPE, DTYPE]
    with pytest.raises(TypeError):
        array_guards("x", [1, 2])


# --- ordering ---------------------------------------------------------------------------------


def test_type_guard_comes_first_so_a_list_fails_without_raising():
    # Added in the "wrong" order on purpose; evaluated without the check's try/except.
    x = np.zeros((4, 8))
    gs = GuardSet([Guard("x", SHAPE, (4, 8)), Guard("x", DTYPE, np.float64), Guard("x", TYPE, np.ndarray)])
    assert [g.kind for g in gs] == [TYPE, SHAPE, DTYPE]
    ns = gs.namespace()
    assert eval(gs.expression(), {**ns, "x": [1.0, 2.0]}) is False
    assert eval(gs.expression(), {**ns, "x": x}) is True


def test_container_guards_come_before_item_guards():
    gs = GuardSet([*array_guards("args[0]", np.zeros(2)), *array_guards("p['W1']", np.zeros(3)),
                   Guard("args", LEN, 1), Guard("args", TYPE, tuple), Guard("p", DICT_KEYS, ("W1",)),
                   Guard("p", TYPE, dict)])
    order = [(g.expr, g.kind) for g in gs]
    assert order.index(("args", TYPE)) < order.index(("args", LEN)) < order.index(("args[0]", TYPE))
    assert order.index(("p", TYPE)) < order.index(("p", DICT_KEYS)) < order.index(("p['W1']", TYPE))
    ns = gs.namespace()
    for args, p in [((), {"W1": np.zeros(3)}), ((np.zeros(2),), {}), ([np.zeros(2)], {"W1": np.zeros(3)})]:
        assert eval(gs.expression(), {**ns, "args": args, "p": p}) is False
    assert eval(gs.expression(), {**ns, "args": (np.zeros(2),), "p": {"W1": np.zeros(3)}}) is True


def test_failures_skip_everything_read_through_a_failed_type():
    gs = GuardSet([Guard("args", TYPE, tuple), *array_guards("args[0]", np.zeros(2))])
    assert failures(gs, {"args": [np.zeros(2)]}) == ["type(args): expected tuple, got list"]


def test_failures_with_a_limit_stop_evaluating_after_that_many_lines():
    reads = []

    class Counting:
        @property
        def n(self):
            reads.append(1)
            return 4

    gs = GuardSet([Guard("k", EQUALS, 2), Guard("c.n", EQUALS, 5)])
    values = {"k": 3, "c": Counting()}
    assert failures(gs, values, limit=1) == ["k: expected 2, got 3"] and reads == []   # c.n never read
    assert failures(gs, values) == ["k: expected 2, got 3", "c.n: expected 5, got 4"] and reads == [1]


def test_failures_report_evaluation_errors():
    gs = GuardSet([Guard("x", SHAPE, (2,))])  # no type guard: reading .shape raises
    (why,) = failures(gs, {"x": [1, 2]})
    assert why.startswith("x.shape: could not evaluate (AttributeError: ")
    assert compile_check(gs, ["x"], {})([1, 2]) is False


# --- constants ----------------------------------------------------------------------------------


def test_nan_constant():
    guards = guard_constant("eps", float("nan"))
    check = compile_check(GuardSet(guards), ["eps"], {})
    assert check(float("nan")) and check(math.nan)
    assert not check(1.0) and not check(np.float64("nan"))  # exact type
    assert failures(GuardSet(guards), {"eps": 1.0}) == ["eps: expected nan, got 1.0"]
    assert str(GuardSet(guards)) == "type(eps) is float\nisnan(eps)"


def test_signed_zero_is_distinguished():
    check = compile_check(GuardSet(guard_constant("z", -0.0)), ["z"], {})
    assert check(-0.0) and not check(0.0)
    check = compile_check(GuardSet(guard_constant("z", 0.0)), ["z"], {})
    assert check(0.0) and not check(-0.0)


def test_complex_with_nan_part():
    check = compile_check(GuardSet(guard_constant("c", complex(math.nan, 1.0))), ["c"], {})
    assert check(complex(math.nan, 1.0)) and not check(complex(1.0, math.nan)) and not check(1j)


def test_bool_vs_int():
    check_true = compile_check(GuardSet(guard_constant("flag", True)), ["flag"], {})
    check_one = compile_check(GuardSet(guard_constant("flag", 1)), ["flag"], {})
    assert check_true(True) and not check_true(1) and not check_true(np.True_)
    assert check_one(1) and not check_one(True) and not check_one(1.0)
    assert failures(GuardSet(guard_constant("flag", 1)), {"flag": True}) == ["type(flag): expected int, got bool"]


def test_tuple_constant_is_exact_per_element():
    gs = GuardSet(guard_constant("t", (4, (8, "a"))))
    assert [g.kind for g in gs][:4] == [TYPE, LEN, TYPE, EQUALS]
    check = compile_check(gs, ["t"], {})
    assert check(tuple([4, tuple([8, "a"])]))  # equal, not the same object
    for bad in [(4.0, (8, "a")), (True, (8, "a")), (4, [8, "a"]), (4, (8, "a"), 1), [4, (8, "a")]]:
        assert not check(bad), bad


def test_mutable_constant_is_refused():
    with pytest.raises(InternalError):
        guard_constant("xs", [1, 2])


def test_guard_constant_uses_identity_for_functions_and_modules():
    assert [g.kind for g in guard_constant("f", np.sum)] == [ID]
    assert [g.kind for g in guard_constant("m", np)] == [ID]
    assert [g.kind for g in guard_constant("d", np.dtype("f4"))] == [TYPE, EQUALS]
    assert str(GuardSet(guard_constant("f", np.sum))) == "f is <function sum>"


def test_literals_are_inlined_other_constants_bound():
    gs = GuardSet([Guard("a", EQUALS, 3), Guard("b", EQUALS, "relu"), Guard("c", EQUALS, 0.5),
                   Guard("d", SHAPE, (4, 8)), Guard("e", EQUALS, (1, "x", None))])
    expr = gs.expression()
    assert "a == 3" in expr and "b == 'relu'" in expr and "c == 0.5" in expr
    assert "d.shape == (4, 8)" in expr and "e == (1, 'x', None)" in expr
    assert gs.namespace() == {}
    gs = GuardSet([Guard("f", EQUALS, math.inf), Guard("g", EQUALS, 1 + 2j), Guard("h", EQUALS, "x" * 100),
                   Guard("i", EQUALS, np.float32(0.5))])
    ns = gs.namespace()
    assert sorted(ns) == ["___c0", "___c1", "___c2", "___c3"]
    assert "f == ___c0" in gs.expression() and ns["___c0"] == math.inf


# --- GuardSet mechanics ---------------------------------------------------------------------------


def test_dedupe_and_conflict():
    gs = GuardSet()
    gs.extend(array_guards("x", np.zeros((2, 3))))
    gs.extend(array_guards("x", np.ones((2, 3))))
    gs.add(Guard(" x ", TYPE, np.ndarray))  # same expr once normalized
    assert len(gs) == 3
    with pytest.raises(GuardConflictError):
        gs.add(Guard("x", SHAPE, (3, 2)))
    with pytest.raises(ValueError):  # GuardConflictError is also a ValueError and an InternalError
        gs.add(Guard("x", DTYPE, np.float32))
    gs.add(Guard("x", DTYPE, np.dtype("<f8" if np.little_endian else ">f8")))  # equal dtype: no conflict
    gs.extend(guard_constant("e", math.nan) * 2)  # NaN equals NaN for de-duplication
    with pytest.raises(GuardConflictError):
        gs.add(Guard("e", EQUALS, 1.0))
    gs.add(Guard("k", EQUALS, 1))
    with pytest.raises(GuardConflictError):
        gs.add(Guard("k", EQUALS, True))  # 1 == True, but they are different expectations
    gs.add(Guard("o", IS_NONE))
    with pytest.raises(GuardConflictError):
        gs.add(Guard("o", NOT_NONE))
    gs.add(Guard("o2", HASATTR, "a"))
    gs.add(Guard("o2", HASATTR, "b"))
    with pytest.raises(GuardConflictError):
        gs.add(Guard("o2", NOT_HASATTR, "a"))
    assert isinstance(GuardConflictError("x"), InternalError)


def test_bad_expression_is_refused():
    with pytest.raises(InternalError):
        GuardSet([Guard("x.", TYPE, int)])


def test_str_is_readable():
    gs = GuardSet([*array_guards("x", np.zeros((4, 8), np.float32)),
                   *guard_constant("___G['scale']", 2.0), Guard("___G['act']", ID, np.tanh),
                   Guard("p", DICT_KEYS, ("W1", "b1")), Guard("xs", LEN, 3), Guard("b", IS_NONE)])
    assert str(gs) == "\n".join([
        "type(x) is ndarray",
        "x.shape == (4, 8)",
        "x.dtype == float32",
        "type(global scale) is float",     # namespace names are shown as what they stand for
        "global scale == 2.0",
        "global act is <ufunc tanh>",
        "tuple(p.keys()) == ('W1', 'b1')",
        "len(xs) == 3",
        "b is None",
    ])


def test_expression_is_valid_python_and_empty_is_true():
    gs = GuardSet([*array_guards("x", np.zeros(3)), Guard("p", DICT_KEYS, (1, "a")), Guard("o", HASATTR, "w"),
                   Guard("o", NOT_HASATTR, "v"), Guard("b", NOT_NONE), *guard_constant("z", -0.0)])
    compile(gs.expression(), "<test>", "eval")
    assert GuardSet().expression() == "True"
    assert compile_check(GuardSet(), ["x"], {})(object()) is True


def test_arguments_shadowing_builtins_do_not_break_the_check():
    gs = GuardSet([*array_guards("type", np.zeros(2)), Guard("len", LEN, 2), Guard("len", TYPE, list)])
    check = compile_check(gs, ["type", "len"], {})
    assert check(np.zeros(2), [1, 2]) and not check(np.zeros(3), [1, 2])


def test_class_named_like_a_reserved_name_gets_another_name():
    G = type("G", (), {})
    gs = GuardSet([Guard("g", TYPE, G)])
    assert "___G" not in gs.namespace()
    assert compile_check(gs, ["g"], {"___G": {}})(G())


def test_tag_keeps_namespaces_of_two_entries_apart():
    a, b = GuardSet([Guard("x", EQUALS, 1j)]), GuardSet([Guard("x", EQUALS, 2j)])
    assert set(a.namespace("e0_")).isdisjoint(b.namespace("e1_"))
    merged = {**a.namespace("e0_"), **b.namespace("e1_"), "x": 2j}
    assert eval(a.expression("e0_"), merged) is False and eval(b.expression("e1_"), merged) is True


def test_compile_check_source_and_linecache():
    check = compile_check(GuardSet(array_guards("x", np.zeros(2))), ["x", "w"], {})
    assert check.__source__.startswith("def ___check(x, w):\n")
    assert check.source == check.__source__
    filename = check.__code__.co_filename
    assert "".join(linecache.getlines(filename)) == check.__source__
    assert inspect.getsource(check) == check.__source__


def test_compile_check_refuses_capture_bugs():
    gs = GuardSet([Guard("y", TYPE, int)])
    with pytest.raises(InternalError):
        compile_check(gs, ["x"], {})  # y is not an argument
    with pytest.raises(InternalError):
        compile_check(gs, ["___y"], {})
    with pytest.raises(InternalError):
        compile_check(GuardSet([Guard("x", TYPE, int)]), ["x"], {"___int": float})


# --- property -------------------------------------------------------------------------------------

_dtypes = st.sampled_from([np.float32, np.float64, np.int32, np.int64, np.bool_, np.complex64])
_arrays = _dtypes.flatmap(lambda dt: hnp.arrays(dt, hnp.array_shapes(min_dims=0, max_dims=3, max_side=3)))
_values = st.one_of(_arrays, _arrays.map(lambda a: a.view(np.ma.MaskedArray)),
                    _arrays.map(lambda a: a.tolist()), _arrays.map(lambda a: pickle.loads(pickle.dumps(a))))


@settings(max_examples=300, deadline=None)
@given(_arrays, _values)
def test_array_guards_hold_iff_type_shape_dtype_equal(a, b):
    check = compile_check(GuardSet(array_guards("x", a)), ["x"], {})
    same = type(a) is type(b) and a.shape == b.shape and a.dtype == b.dtype
    assert check(b) is same
    assert (failures(GuardSet(array_guards("x", a)), {"x": b}) == []) is same


def test_expressions_with_operators_are_parenthesized():
    # `a is not b is True` is a chained comparison (always False here); the guard must mean (a is not b) is True
    a, b = object(), object()
    gs = GuardSet([Guard("a is not b", EQUALS, True)])
    assert compile_check(gs, ["a", "b"], {})(a, b) is True
    assert compile_check(gs, ["a", "b"], {})(a, a) is False


class _Holder:
    pass


def test_a_path_read_by_several_guards_is_read_once_and_the_local_dropped():
    w, b = np.zeros((2, 3)), np.ones(3, np.float32)
    gs = GuardSet([Guard("p", TYPE, _Holder), *array_guards("p.w", w), *array_guards("p.d['b']", b),
                   Guard("p.d", TYPE, dict), Guard("p.w.shape[0] == p.d['b'].shape[0] - 1", "HOLDS", True)])
    expr = gs.expression("e0_")
    assert expr.count("p.w") == 1 and "___e0_r0 := p.w" in expr and expr.count("p.d") == 1
    assert "___e0_r2 := ___e0_r1['b']" in expr                               # p.d['b'], through p.d's local
    assert "(___e0_r0.shape[0] == ___e0_r2.shape[0] - 1)" in expr            # later reads use the locals
    assert gs.bound_locals("e0_") == ["___e0_r0", "___e0_r1", "___e0_r2"]
    check = compile_check(gs, ["p"], {})
    p = _Holder()
    p.w, p.d = w, {"b": b}
    assert check(p) is True
    p.w = np.zeros((3, 3))                      # the relation fails on the bound local
    assert check(p) is False
    p.w = [[0.0] * 3] * 2                       # not an array: the gate fails, nothing reads .shape of it
    assert check(p) is False
    p.w, p.d = w, {}
    assert check(p) is False and "p.d['b']" in " ".join(failures(gs, {"p": p}))


def test_a_path_read_once_or_a_plain_name_is_not_bound():
    gs = GuardSet([*array_guards("x", np.zeros(2)), Guard("p", TYPE, _Holder), Guard("p.k", EQUALS, 3)])
    assert ":=" not in gs.expression() and gs.bound_locals() == []


@pytest.mark.passes_live_state
def test_a_list_warnings_are_recorded_into_is_never_read_ahead_of_the_graph():
    # A graph op that warns appends to the catch_warnings(record=True) list while the graph runs, so
    # `len(w)` read as a graph input (before the graph) would miss it: the log stays opaque, and every
    # other list is guarded not to be it (NumPy's TestUfunc.test_sum counts warnings this way).
    import warnings

    import minidynamo as md

    def counts(w, x):
        n0 = len(w)
        s = np.sum(x)               # float16 overflow: a RuntimeWarning from the graph
        return n0, len(w), s

    compiled = md.compile(counts)
    x = np.arange(1, 1236, dtype=np.float16)
    for fn in (counts, compiled, compiled):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always", RuntimeWarning)
            n0, n1, _ = fn(w, x)
        assert (n0, n1) == (0, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert compiled([], x)[:2] == (0, 0)     # an ordinary list: captured, guarded not to be the log
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always", RuntimeWarning)
        assert compiled(w, x)[:2] == (0, 1)      # the guard fails for the log: not the ordinary-list entry


def test_the_warnings_log_guard_tests_the_hook_before_calling_and_agrees_with_warnings_log():
    import warnings

    from minidynamo.guards import NOT_WARNINGS_LOG, warnings_log

    gs = GuardSet([Guard("lst", NOT_WARNINGS_LOG)])
    assert "._showwarnmsg_impl) is ___function or" in gs.expression()     # the call only when it may matter
    check = compile_check(gs, ["lst"], {})
    mine = []
    with warnings.catch_warnings(record=True) as log:      # (pytest itself records warnings too)
        assert warnings_log() is log
        assert check(log) is False and check(mine) is True
        assert failures(gs, {"lst": log}) == ["lst: is the list warnings are being recorded into"]
    saved = warnings._showwarnmsg_impl

    def hook(msg):                  # a program's own hook (a Python function): no list records warnings
        saved(msg)

    warnings._showwarnmsg_impl = hook
    try:
        assert warnings_log() is None and check(mine) is True and check(log) is True
    finally:
        warnings._showwarnmsg_impl = saved
