"""stitch/breaking.py: the entry body of a breaking frame spells a user function as the user's own object
wherever it is a value (stored, compared, passed on, written to); only the callee of the breaking call runs
through its compiled wrapper."""

from __future__ import annotations

import pickle

import numpy as np

import minidynamo as md
from tests.conftest import check


def target():
    pass


class Maker:
    @classmethod
    def make(cls):
        return cls

    def method(self):
        return 1


def function_live_across_a_break(log):
    f = target
    print("break")
    log.append(f)
    return f is target, log[0] is target, f.__name__


def bound_class_method_live_across_a_break():
    m = Maker.make
    print("break")
    return m() is Maker, m.__self__ is Maker


def bound_method_live_across_a_break(obj):
    m = obj.method
    print("break")
    return m == obj.method, m()


def writes_function_attribute():
    target.tag = 3          # STORE_ATTR on a function is the break: it must land on `target` itself
    return target.tag


def pickles_through_function_attribute():
    target.ufunc = np.add   # NumPy's test_pickle_name_is_qualname
    return pickle.loads(pickle.dumps(target.ufunc)) is np.add


def test_a_function_live_at_a_break_keeps_its_identity():
    check(function_live_across_a_break, [])


def test_a_bound_class_method_live_at_a_break_stays_bound():
    check(bound_class_method_live_across_a_break)


def test_a_bound_method_live_at_a_break_stays_bound():
    check(bound_method_live_across_a_break, Maker())


def test_an_attribute_written_on_a_function_lands_on_the_function():
    for name in ("tag", "ufunc"):
        target.__dict__.pop(name, None)
    for fn, expected in ((writes_function_attribute, 3), (pickles_through_function_attribute, True)):
        assert md.compile(fn)() == expected
    assert target.tag == 3 and target.ufunc is np.add
