"""stitch/breaking.py: the entry body of a breaking frame spells a user function as the user's own object
wherever it is a value (stored, compared, passed on, written to); only the callee of the breaking call runs
through its compiled wrapper."""

from __future__ import annotations

import copy
import pickle
import random

import numpy as np

import minidynamo as md
from tests.conftest import captured, check


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
    check(function_live_across_a_break, [], expect_graph=False).assert_broke("print()")


def test_a_bound_class_method_live_at_a_break_stays_bound():
    check(bound_class_method_live_across_a_break, expect_graph=False).assert_broke("print()")


def test_a_bound_method_live_at_a_break_stays_bound():
    check(bound_method_live_across_a_break, Maker(), expect_graph=False).assert_broke("print()")


def test_an_attribute_written_on_a_function_lands_on_the_function():
    for name in ("tag", "ufunc"):
        target.__dict__.pop(name, None)
    for fn, expected, name in ((writes_function_attribute, 3, "tag"),
                               (pickles_through_function_attribute, True, "ufunc")):
        compiled = md.compile(fn)
        assert compiled() == expected
        captured(compiled).assert_broke(f"setting attribute {name!r} on function target")     # at the write
    assert target.tag == 3 and target.ufunc is np.add


def shuffled_epochs(data, epochs, bs):
    # Nielsen's network.py SGD: random.shuffle of a list of (x, y) pairs per epoch, then minibatches
    data = list(data)
    sums = []
    for _ in range(epochs):
        random.shuffle(data)
        for k in range(0, len(data), bs):
            sums.append(sum(x for x, _ in data[k:k + bs]) * 2)
    return sums, copy.deepcopy(data[0])


def test_random_and_copy_run_as_plain_python_at_the_call():
    data = [(np.full(2, float(i)), i) for i in range(9)]
    outcomes = []
    compiled = md.compile(shuffled_epochs, options={"suppress_errors": False})
    for fn in (shuffled_epochs, compiled):
        random.seed(5)
        outcomes.append((fn(data, 3, 4), random.getstate()))
    (e_out, e_state), (c_out, c_state) = outcomes
    assert e_state == c_state
    assert all(np.array_equal(a, b) for a, b in zip(e_out[0], c_out[0])) and len(e_out[0]) == len(c_out[0])
    assert np.array_equal(e_out[1][0], c_out[1][0]) and e_out[1][1] == c_out[1][1]
    records = captured(compiled).assert_graph_ran().all_records        # graphs between the calls
    reasons = [r.reason for r in records if r.reason is not None]
    assert {r.filename for r in reasons} == {__file__}        # random.py and copy.py are not walked
    assert any("random.Random.shuffle() runs as plain Python" in r.message for r in reasons)
