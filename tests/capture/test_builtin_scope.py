"""Builtins resolve as CPython resolves them for the frame (capture/builtin_scope.py): the function's own
`__builtins__`, not its globals' current entry; guards fail when the builtin or a shadowing global changes."""

import types

import numpy as np
import pytest

import minidynamo as md
from minidynamo.capture.builtin_scope import function_with_builtins
from tests.conftest import captured, check


def _defined(src: str, builtins_: dict, **globals_) -> types.FunctionType:
    """`f` from src, exec'd over globals whose `__builtins__` is builtins_."""
    ns = {"__builtins__": builtins_, "np": np, **globals_}
    exec(compile(src, f"<builtin_scope {id(src)}>", "exec"), ns)
    return ns["f"]


def _custom_builtins(**extra) -> dict:
    import builtins
    ns = dict(vars(builtins))
    ns.update(extra)
    return ns


SHADOWED = """
log = []
def f(x):
    print("n", len(x))
    return x * len(x)
"""


def test_custom_builtins_dict_shadowing_len_and_print():
    log = []
    f = _defined(SHADOWED, _custom_builtins(len=lambda x: 99, print=lambda *a: log.append(a)))
    res = check(f, np.ones(3), calls=[(np.ones(4),)])
    assert log == [("n", 99)] * 4     # eager and compiled, two calls each
    assert res.reasons == [] and [g.count() for g in res.graphs] == [1, 1]


@pytest.mark.parametrize("body", ["x + len(x)", "x.sum() + len(x)"])
def test_globals_without_builtins_run_as_plain_python(body):
    # exec put `__builtins__` into the globals; it is gone now, but the function keeps the dict it was made
    # with. Eager `x.sum()` raises KeyError there (NumPy imports through the running frame's globals).
    f = _defined(f"def f(x):\n    return {body}\n", _custom_builtins(len=lambda x: 7))
    del f.__globals__["__builtins__"]
    res = check(f, np.ones(3), calls=[(np.zeros(3),)],
                expect_fallback='the break happened before the function body started')
    assert res.reasons and all("no `__builtins__`" in r.message and r.fallback for r in res.reasons)


def test_globals_builtins_replaced_after_the_function_was_made():
    f = _defined("def f(x):\n    return x + len(x)\n", _custom_builtins(len=lambda x: 7))
    f.__globals__["__builtins__"] = _custom_builtins(len=lambda x: 100)
    check(f, np.ones(3), calls=[(np.zeros(2),)])


def test_builtin_replaced_after_the_first_call_fails_the_guard():
    f = _defined("def f(x):\n    return x + len(x)\n", _custom_builtins())
    cfn = md.compile(f)
    assert np.array_equal(cfn(np.ones(3)), np.full(3, 4.0))
    f.__builtins__["len"] = lambda x: -1
    check(f, np.ones(3), compiled=cfn)
    del f.__builtins__["len"]
    check(f, np.ones(3), compiled=cfn,
          expect_fallback='cannot continue after LOAD_GLOBAL in plain Python yet')       # NameError, as eager
    assert md.stats(cfn).captures == 3


def test_global_set_to_none_shadows_the_builtin():
    f = _defined("def f(x):\n    return x + len(x)\n", _custom_builtins())
    cfn = md.compile(f)
    check(f, np.ones(3), compiled=cfn)
    f.__globals__["len"] = None      # eager: TypeError, 'NoneType' object is not callable
    check(f, np.ones(3), compiled=cfn)
    f.__globals__["len"] = f.__builtins__["len"]   # the same object: resolves the same, no new capture
    check(f, np.ones(3), compiled=cfn)


NESTED = """
def f(x):
    g = lambda y: len(y) * 2
    return x + g(x), g
"""


def test_nested_function_takes_the_makers_builtins():
    f = _defined(NESTED, _custom_builtins(len=lambda x: 5))
    cfn = md.compile(f)
    for x in (np.ones(3), np.zeros(3)):
        (a, ga), (b, gb) = f(x), cfn(x)
        assert np.array_equal(a, b) and ga.__builtins__ is gb.__builtins__ is f.__builtins__
        assert ga(np.ones(6)) == gb(np.ones(6)) == 10
    assert md.stats(cfn).captures == 1 and not md.stats(cfn).fallbacks
    captured(cfn).assert_no_breaks().assert_graph_ran()


def test_nested_function_made_without_builtins_in_its_globals():
    # made by a frame with custom builtins over globals without the key: the maker's builtins (make_function)
    code = compile(NESTED, "<nested>", "exec").co_consts[0]
    mine = _custom_builtins(len=lambda x: 5)
    from minidynamo.capture.variables.functions import make_function
    lam = next(c for c in code.co_consts if isinstance(c, types.CodeType))    # (its index differs by version)
    g = make_function(lam, {}, "f.<locals>.<lambda>", (), {}, (), mine)
    assert g.__builtins__ is mine and g([1, 2]) == 10


BREAKING = """
def f(x):
    y = x * 2
    class C:
        pass
    return y + len(x), C.__name__
"""


def test_resume_function_resolves_the_functions_own_builtins():
    f = _defined(BREAKING, _custom_builtins(len=lambda x: 11))
    check(f, np.ones(3), calls=[(np.ones(2),)]).assert_resumed_after("CALL")


def test_resume_not_made_when_the_globals_name_other_builtins():
    f = _defined(BREAKING, _custom_builtins(len=lambda x: 11))
    f.__globals__["__builtins__"] = _custom_builtins(len=lambda x: 12)
    res = check(f, np.ones(3), calls=[(np.ones(2),)],
                expect_fallback="the function's globals name other builtins than its")
    assert any("other builtins" in r.fallback for r in res.reasons)


def test_function_with_builtins_gives_the_asked_namespace():
    code = compile("def f():\n    return len\n", "<s>", "exec").co_consts[0]
    mine = {"len": "mine"}
    made = function_with_builtins(code, {}, "f", None, None, mine)
    assert made.__builtins__ is mine and made() == "mine"
    with pytest.raises(ValueError):
        function_with_builtins(code, {"__builtins__": {}}, "f", None, None, mine)


def uses_divmod(x):
    q, r = divmod(7, 2)
    return x * q + r


def test_patched_real_builtin_fails_the_guard():
    import builtins
    cfn = md.compile(uses_divmod)
    check(uses_divmod, np.ones(3), compiled=cfn)
    real = builtins.divmod
    builtins.divmod = lambda a, b: (10, 1)
    try:
        check(uses_divmod, np.ones(3), compiled=cfn)
    finally:
        builtins.divmod = real
    check(uses_divmod, np.ones(3), compiled=cfn)     # the first entry again
    assert md.stats(cfn).captures == 2 and md.stats(cfn).hits == 1
