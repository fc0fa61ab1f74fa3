"""Guard soundness beyond tests/capture/test_guards_capture.py: change the guarded thing between calls and
check that the compiled function follows eager Python. Covers what that file does not: guarded things read
only *after* a graph break (so only the resume function's guards can notice the change), unspecialized
Python scalars passed across a break (automatic dynamic), and a few more guard kinds before a break
(hasattr, None-ness, tuple length, NumPy scalar types, globals that appear or vanish).

Every test goes through `check`, which compares results, printed output, mutated arguments and globals.
"""

from __future__ import annotations

import types

import numpy as np
import pytest

import minidynamo as md
from minidynamo.api import GLOBAL_STATS
from tests.conftest import check

GAIN = 2.0
TABLE = {"a": 1.0}
ITEMS = [1.0, 2.0]
W = np.ones(3)
SETTINGS = types.ModuleType("settings_for_soundness")
SETTINGS.bias = 0.5
OBJ = types.SimpleNamespace(k=3.0, sub=types.SimpleNamespace(w=np.ones(3)))


def relu(v):
    return np.maximum(v, 0.0)


def sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


ACT = relu


def x3():
    return np.linspace(-1.0, 1.0, 3)


def captures_since(before: dict) -> int:
    return GLOBAL_STATS["captures"] - before["captures"]


@pytest.fixture
def restore_globals():
    saved = dict(GAIN=GAIN, TABLE=dict(TABLE), ITEMS=list(ITEMS), W=W, ACT=ACT, bias=SETTINGS.bias,
                 k=OBJ.k, w=OBJ.sub.w)
    yield
    g = globals()
    for name in ("GAIN", "W", "ACT"):
        g[name] = saved[name]
    TABLE.clear(), TABLE.update(saved["TABLE"])
    ITEMS[:] = saved["ITEMS"]
    SETTINGS.bias, OBJ.k, OBJ.sub.w = saved["bias"], saved["k"], saved["w"]


# ---- guarded things read only after a graph break: the resume function's guards must notice -----------

def after_break_global(x):
    y = np.tanh(x)
    print("break")
    return y * GAIN


def after_break_function(x):
    y = x + 1.0
    print("break")
    return ACT(y)


def after_break_dict(x):
    y = x * 2.0
    print("break")
    for k in TABLE:
        y = y + TABLE[k]
    return y


def after_break_list(x):
    y = x * 2.0
    print("break")
    for v in ITEMS:
        y = y * v
    return y


def after_break_module_attr(x):
    y = x * 2.0
    print("break")
    return y + SETTINGS.bias


def after_break_attr(x):
    y = x * 2.0
    print("break")
    return y * OBJ.k + OBJ.sub.w


def after_break_global_array(x):
    y = x * 2.0
    print("break")
    return y + W


CHANGES = {
    "global value": (after_break_global, lambda: globals().update(GAIN=-3.5)),
    "rebound function": (after_break_function, lambda: globals().update(ACT=sigmoid)),
    "dict key added": (after_break_dict, lambda: TABLE.update(b=5.0)),
    "dict value": (after_break_dict, lambda: TABLE.update(a=9.0)),
    "list length": (after_break_list, lambda: ITEMS.append(3.0)),
    "list item": (after_break_list, lambda: ITEMS.__setitem__(0, -1.0)),
    "module attribute": (after_break_module_attr, lambda: setattr(SETTINGS, "bias", 7.0)),
    "object attribute": (after_break_attr, lambda: setattr(OBJ, "k", -1.0)),
    "nested array attribute shape": (after_break_attr, lambda: setattr(OBJ.sub, "w", np.ones((2, 3)))),
    "global array dtype": (after_break_global_array, lambda: globals().update(W=np.ones(3, np.float32))),
    "global array values": (after_break_global_array, lambda: globals().update(W=np.full(3, 4.0))),
}


@pytest.mark.parametrize("what", sorted(CHANGES))
def test_change_read_only_after_break(what, restore_globals):
    fn, change = CHANGES[what]
    r = check(fn, x3(), calls=[(x3(),)])
    assert r.reasons, "the test function should break"
    change()
    check(fn, x3(), calls=[(x3(),)], compiled=r.compiled)


def test_closure_cell_after_break():
    scale = 2.0

    def f(x):
        y = x * 3.0
        print("break")
        return y * scale
    r = check(f, x3())
    scale = -0.25
    check(f, x3(), compiled=r.compiled)
    scale = np.float32(4.0)                 # a NumPy scalar now: promotion changes the dtype
    check(f, x3(), compiled=r.compiled)
    _ = scale


@pytest.mark.parametrize("second", [np.ones((2, 3)), np.ones(3, np.float32), np.arange(3), 2.5, [1.0, 2.0, 3.0]])
def test_argument_used_only_after_break_changes_kind(second):
    def f(x, w):
        y = x * 2.0
        print("break")
        return y + w
    check(f, x3(), np.ones(3), calls=[(x3(), second), (x3(), np.ones(3))])


# ---- unspecialized Python scalars across a break ------------------------------------------------------

def test_int_across_break_takes_every_value():
    def f(x, n):
        y = x * n
        print("break")
        return y + n, n * 2
    before = dict(GLOBAL_STATS)
    r = check(f, x3(), 2, calls=[(x3(), n) for n in (3, 4, 5, -1, 0, 10**20)])
    # 2 and 3 specialize; then n is dynamic: a bounded number of captures, not one per value.
    assert captures_since(before) <= 6, captures_since(before)
    assert md.stats(r.compiled).captures <= 3


def test_float_across_break_and_type_change():
    def f(x, s):
        y = x * s
        print("break")
        return y - s
    check(f, x3(), 0.5, calls=[(x3(), 1.5), (x3(), -0.0), (x3(), float("nan")), (x3(), 3), (x3(), True),
                               (x3(), np.float32(2.0)), (x3(), 2.5)])


def test_int_computed_before_break_used_as_shape_after():
    def f(x, n):
        m = n + 1
        print("break")
        return np.zeros(m) + x.sum(), m
    check(f, x3(), 2, calls=[(x3(), 3), (x3(), 4), (x3(), 7)])


def test_int_after_break_drives_loop_and_branch():
    def f(x, n):
        k = n * 2
        print("break")
        for _ in range(k):
            x = x + 1.0
        if k > 5:
            x = -x
        return x
    check(f, x3(), 1, calls=[(x3(), 2), (x3(), 3), (x3(), 0), (x3(), 4)])


def test_int_indexes_tuple_after_break():
    def f(xs, i):
        j = i % len(xs)
        print("break")
        return xs[j] * 2.0
    xs = (np.ones(2), np.zeros(2), np.full(2, 3.0))
    check(f, xs, 0, calls=[(xs, 1), (xs, 2), (xs, 4)])


# ---- more guard kinds before any break ---------------------------------------------------------------

def test_attribute_appears_and_disappears():
    def f(obj, x):
        if hasattr(obj, "bias"):
            return x + obj.bias
        return x
    a, b = types.SimpleNamespace(bias=1.0), types.SimpleNamespace()
    check(f, a, x3(), calls=[(b, x3()), (a, x3()), (types.SimpleNamespace(bias=np.ones(3)), x3())])


def test_none_versus_array():
    def f(x, mask=None):
        return x if mask is None else x * mask
    check(f, x3(), calls=[(x3(), np.zeros(3)), (x3(), None), (x3(),)])


def test_tuple_length_and_item_type():
    def f(x, dims):
        return x.reshape(dims)
    x = np.arange(12.0)
    check(f, x, (3, 4), calls=[(x, (2, 6)), (x, (2, 2, 3)), (x, (np.int64(12),)), (x, (12,))])


def test_numpy_scalar_type_change():
    def f(x, s):
        return x * s
    check(f, x3().astype(np.float32), np.float32(2.0),
          calls=[(x3().astype(np.float32), np.float64(2.0)), (x3().astype(np.float32), 2.0)])


def test_global_appears_and_vanishes(restore_globals):
    def f(x):
        return x * GAIN
    r = check(f, x3())
    saved = globals().pop("GAIN")
    try:
        with pytest.raises(NameError):
            r.compiled(x3())
    finally:
        globals()["GAIN"] = saved
    check(f, x3(), compiled=r.compiled, expect_fallback="after LOAD_GLOBAL")      # (the capture without GAIN)


def test_list_mutated_in_place_between_calls(restore_globals):
    def f(x):
        for v in ITEMS:
            x = x + v
        return x, len(ITEMS)
    r = check(f, x3())
    ITEMS.pop()
    check(f, x3(), compiled=r.compiled)
    ITEMS.extend([4.0, 5.0])
    check(f, x3(), compiled=r.compiled)


def test_same_object_passed_twice_then_two_objects():
    def f(a, b):
        a += 1.0
        return a + b
    x = x3()
    check(f, x, x, calls=[(x3(), x3())])
