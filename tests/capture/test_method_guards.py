"""A method capture inlined stays valid only while Python would still find it: guards cover the class that
defines it, every class before it in the MRO (one of them gaining the name would win) and the instance's
own __dict__ (an instance attribute shadows a method), also for super() lookups."""

from __future__ import annotations

import numpy as np

import minidynamo as md
from tests.conftest import captured


def _classes():
    class A:
        def f(self, x):
            return x + 1.0

    class B(A):
        pass

    class C(B):
        def f(self, x):
            return super().f(x) * 2.0

    return A, B, C


def call_f(o, x):
    return o.f(x)


def test_a_class_between_gaining_the_method_recaptures():
    A, B, C = _classes()
    compiled, x = md.compile(call_f), np.ones(2)
    o = B()
    np.testing.assert_array_equal(compiled(o, x), call_f(o, x))
    B.f = lambda self, x: x * 100.0                       # B now comes first in B's MRO
    np.testing.assert_array_equal(compiled(o, x), call_f(o, x))
    captured(compiled).assert_no_breaks().assert_graph_ran()
    assert md.stats(compiled).guard_failures == [["_classes.<locals>.B defines no f: expected False, got True"]]


def test_an_instance_attribute_shadowing_the_method_recaptures():
    A, B, C = _classes()
    compiled, x = md.compile(call_f), np.ones(2)
    np.testing.assert_array_equal(compiled(B(), x), x + 1.0)
    shadowed = B()
    shadowed.f = lambda x: x - 5.0
    np.testing.assert_array_equal(compiled(shadowed, x), call_f(shadowed, x))
    assert md.stats(compiled).recompiles == 1


def test_super_lookup_follows_a_replaced_or_added_method():
    A, B, C = _classes()
    compiled, x = md.compile(call_f), np.ones(2)
    o = C()
    np.testing.assert_array_equal(compiled(o, x), call_f(o, x))
    A.f = lambda self, x: x - 1.0                         # the method super() found is replaced
    np.testing.assert_array_equal(compiled(o, x), call_f(o, x))
    B.f = lambda self, x: x * 10.0                        # a class between C and A gains it
    np.testing.assert_array_equal(compiled(o, x), call_f(o, x))
    captured(compiled).assert_no_breaks().assert_graph_ran()
    failures = md.stats(compiled).guard_failures
    assert len(failures) == 2 and "_classes.<locals>.A.f: expected <function _classes.<locals>.A.f>" in failures[0][0]
    assert "_classes.<locals>.B defines no f" in failures[1][0]
