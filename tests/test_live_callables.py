"""compile() of a callable whose parts change after compile() sees the change (dispatch/callables.py, api.code_guard):
a partial's keywords (in place) and its func/args/keywords (`__setstate__`), a function's `__code__` (also a
bound method's function and a layer's `__call__`), a layer's class attribute `__call__` and its class, the
callable in a staticmethod/classmethod. Differential: after each change, the compiled callable and the
original object give the same results, cold and warm; each test failed before the parts were re-read."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import minidynamo as md

X = np.arange(4.0)


def agree(compiled, original, *args, **kwargs):
    """Two calls of each (a capture, then a cached entry): same result, same type."""
    for _ in range(2):
        got, expected = compiled(*args, **kwargs), original(*args, **kwargs)
        assert type(got) is type(expected)
        np.testing.assert_array_equal(got, expected)


def scaled(x, gain=1.0, shift=0.0):
    return x * gain + shift


def shifted(x, gain=1.0, shift=0.0):
    return x - gain - shift


def test_partial_keywords_changed_in_place():
    p = functools.partial(scaled, gain=1.5)
    compiled = md.compile(p)
    agree(compiled, p, X)
    p.keywords["gain"] = 3.0                    # the fuzzer's case: eager uses 3.0, compiled used 1.5
    agree(compiled, p, X)
    p.keywords["shift"] = 0.25                  # a keyword added
    agree(compiled, p, X)
    del p.keywords["gain"]                      # and one removed: the function's default again
    agree(compiled, p, X)
    agree(compiled, p, X, gain=-2.0)            # a call's keyword still wins over the partial's
    assert isinstance(compiled, functools.partial) and compiled.keywords is p.keywords


def test_partial_func_args_and_keywords_replaced_by_setstate():
    p = functools.partial(scaled, X, gain=1.5)
    compiled = md.compile(p)
    agree(compiled, p)
    p.__setstate__((scaled, (X + 1,), {"gain": 2.0}, None))     # new args and keywords, same function
    agree(compiled, p)
    p.__setstate__((shifted, (X,), {"gain": 2.0}, None))        # another function
    agree(compiled, p)


def test_a_functions_code_replaced():
    def f(x):
        return x + 1.0

    def g(x):
        return x * 10.0
    compiled = md.compile(f)
    agree(compiled, f, X)
    f.__code__ = g.__code__                      # as IPython's autoreload does
    agree(compiled, f, X)
    stats = md.stats(compiled)
    assert stats.captures == 2 and "f.__code__" in stats.guard_failures[-1][0]


def test_a_functions_code_replaced_after_a_graph_break():
    printed = []

    def f(x):
        y = x + 1.0
        printed.append("f")                    # a break: the rest is a resume function cut from f's code
        return y * 2.0

    def g(x):
        y = x + 1.0
        printed.append("g")
        return y * 3.0
    compiled = md.compile(f)
    agree(compiled, f, X)
    f.__code__ = g.__code__
    printed.clear()
    agree(compiled, f, X)
    assert printed == ["g"] * 4


def test_code_replaced_while_the_call_runs_keeps_the_running_code():
    """Eagerly a running frame keeps its code; the resume functions of that call must too (they were cut
    from the old code; cutting the next one from the new code gave a wrong result)."""
    def f(x, hook):
        y = x + 1.0
        hook()                                  # (calling a partial object: a break)
        hook()
        return y * 2.0

    def g(x, hook):
        y = x + 1.0
        hook()
        hook()
        return y * 7.0 - 100.0

    def swap():
        f.__code__ = g.__code__
    original = f.__code__
    expected = f(X, functools.partial(swap))
    f.__code__ = original
    got = md.compile(f)(X, functools.partial(swap))
    np.testing.assert_array_equal(got, expected)


def test_code_of_another_signature_runs_as_plain_python():
    def f(x):
        return x + 1.0

    def g(x, y=None):
        return x * 3.0
    compiled = md.compile(f)
    agree(compiled, f, X)
    f.__code__, f.__defaults__ = g.__code__, (None,)
    agree(compiled, f, X)
    assert "another signature" in compiled._minidynamo.skip_reason


def test_code_replaced_in_a_function_with_parameters_named_like_generated_names():
    def f(x, ___k=1.0, *, ___j=0.0):
        return x + ___k + ___j

    def g(x, ___k=1.0, *, ___j=0.0):
        return x * ___k - ___j
    compiled = md.compile(f)
    agree(compiled, f, X, 2.0, ___j=0.5)
    f.__code__ = g.__code__
    agree(compiled, f, X, 2.0, ___j=0.5)
    agree(compiled, f, X)


class Layer:
    def __init__(self, k):
        self.k = k

    def __call__(self, x):
        return x * self.k

    def method(self, x):
        return x + self.k


class Other(Layer):
    def __call__(self, x):
        return x - self.k


def test_bound_method_parts_are_read_only_and_its_functions_code_is_guarded():
    class Model(Layer):
        pass
    obj = Model(2.0)
    m = obj.method
    compiled = md.compile(m)
    agree(compiled, m, X)
    with pytest.raises(AttributeError):
        m.__func__ = Layer.__call__
    with pytest.raises(AttributeError):
        m.__self__ = Model(3.0)
    Model.method = lambda self, x: x  # a new class attribute: m still has its own function, as eagerly
    agree(compiled, m, X)
    m.__func__.__code__ = (lambda self, x: x * 5.0 + self.k).__code__
    agree(compiled, m, X)
    Layer.method.__code__ = (lambda self, x: x + self.k).__code__     # (put back for the other tests)


def test_layer_class_call_replaced_and_class_reassigned():
    class Model(Layer):
        pass
    layer = Model(2.0)
    compiled = md.compile(layer)
    agree(compiled, layer, X)
    Model.__call__ = lambda self, x: x / self.k          # monkeypatched on the class
    agree(compiled, layer, X)
    layer.__class__ = Other                             # the object's class changed
    agree(compiled, layer, X)
    layer.__class__ = Layer                             # back to a class whose __call__ is the compiled one
    agree(compiled, layer, X)
    layer.__call__ = lambda x: x * 0                    # an instance attribute: `layer(x)` never reads it
    agree(compiled, layer, X)


def test_staticmethod_and_classmethod_callables_replaced_by_init():
    sm = staticmethod(lambda x: x * 2.0)
    cm = classmethod(lambda cls, x: x * cls.k)

    class Host:
        k = 3.0
        double = md.compile(sm)
        times = md.compile(cm)

    agree(Host.double, sm.__func__, X)
    agree(Host.times, cm.__get__(None, Host), X)
    sm.__init__(lambda x: x - 2.0)
    cm.__init__(lambda cls, x: x - cls.k)
    agree(Host.double, sm.__func__, X)
    agree(Host.times, cm.__get__(None, Host), X)


def test_compiled_callers_see_the_changes_too():
    """A compiled function calling the compiled callables: inlined through the same checks, guarded."""
    sm = staticmethod(lambda x: x * 2.0)

    class Host:
        double = md.compile(sm)

    class Model(Layer):
        pass
    layer = md.compile(Model(2.0))
    outer = md.compile(lambda x: Host.double(x) + layer(x))
    agree(outer, lambda x: sm.__func__(x) + Model.__call__(layer.__self__, x), X)
    sm.__init__(lambda x: x - 1.0)
    Model.__call__ = lambda self, x: x / self.k
    agree(outer, lambda x: sm.__func__(x) + Model.__call__(layer.__self__, x), X)


def test_stats_and_explain_reach_the_compiled_function_through_live_presentations():
    p = functools.partial(scaled, gain=2.0)
    layer = Layer(2.0)
    for original in (p, layer):
        compiled = md.compile(original)
        compiled(X)
        assert md.stats(compiled).captures == 1
        assert md.explain(compiled)(X).graph_count == 1
        again = md.compile(compiled)           # compiling it again compiles the original again
        agree(again, original, X)
