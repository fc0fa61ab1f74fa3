"""Guards installed by capture, checked through compile: for each kind of guarded thing, change it between
calls; the compiled function must follow eager Python, and a recompile must happen with a reason a person
can read (`md.stats(cfn).guard_failures`)."""

from __future__ import annotations

import sys
import types

import numpy as np
import pytest

import minidynamo as md
from tests.conftest import check

SCALE = 2.0
MODE = "tanh"


def act(v):
    return np.tanh(v)


def act_exp(v):
    return np.exp(v) - 1.0


CFG = types.SimpleNamespace(alpha=0.5)
USER_MODULE = types.ModuleType("user_settings")
USER_MODULE.gain = 3.0


def x23():
    return np.linspace(-1.0, 1.0, 6).reshape(2, 3)


def last_reasons(cfn) -> str:
    failures = md.stats(cfn).guard_failures
    assert failures, "no recompile was recorded"
    return " | ".join(failures[-1])


def recompiled(cfn, n: int) -> None:
    assert md.stats(cfn).recompiles == n, md.stats(cfn)


def test_shape_change_recompiles():
    def f(x):
        return np.tanh(x) * 2.0
    r = check(f, x23(), calls=[(x23(),), (np.ones((4, 3)),)])
    assert r.counter.frame_count == 2
    recompiled(r.compiled, 1)
    assert "shape" in last_reasons(r.compiled)


def test_dtype_change_recompiles():
    def f(x):
        return x * 2 + 1
    r = check(f, x23(), calls=[(x23().astype(np.float32),), (np.arange(3),)])
    assert r.counter.frame_count == 3
    first = md.stats(r.compiled).guard_failures[0]
    assert any("dtype" in reason for reason in first), first


def test_global_value_change():
    global SCALE

    def f(x):
        return x * SCALE
    r = check(f, x23())
    SCALE = 5.0
    try:
        check(f, x23(), compiled=r.compiled)
        recompiled(r.compiled, 1)
        assert "SCALE" in last_reasons(r.compiled)
    finally:
        SCALE = 2.0


def test_global_string_drives_a_branch():
    global MODE

    def f(x):
        if MODE == "tanh":
            return np.tanh(x)
        return np.exp(x)
    r = check(f, x23())
    MODE = "exp"
    try:
        check(f, x23(), compiled=r.compiled)
        assert "MODE" in last_reasons(r.compiled)
    finally:
        MODE = "tanh"


def test_closure_cell_value_change():
    scale = 2.0

    def f(x):
        return x * scale
    r = check(f, x23())
    scale = 7.0
    check(f, x23(), compiled=r.compiled)
    recompiled(r.compiled, 1)
    assert "closure" in last_reasons(r.compiled) or "scale" in last_reasons(r.compiled)


def test_closure_cell_array_is_read_fresh():
    w = np.ones(3)

    def f(x):
        return x * w
    r = check(f, x23())
    w = np.full(3, 4.0)                  # same shape/dtype: no recompile, but the new values are used
    check(f, x23(), compiled=r.compiled)
    recompiled(r.compiled, 0)


def test_attribute_of_object():
    class Model:
        def __init__(self):
            self.scale = 0.5

        def __call__(self, x):
            return x * self.scale
    m = Model()

    def f(x):
        return m(x)
    r = check(f, x23())
    m.scale = 1.5
    check(f, x23(), compiled=r.compiled)
    assert "scale" in last_reasons(r.compiled)


def test_dict_key_set():
    def f(params, x):
        out = x
        for k in params:
            out = out * params[k]
        return out
    r = check(f, {"a": 2.0}, x23(), calls=[({"a": 3.0}, x23()), ({"a": 2.0, "b": 1.5}, x23())])
    assert "keys" in last_reasons(r.compiled)


def test_dict_value_of_array_is_not_baked_in():
    def f(params, x):
        return x @ params["w"]
    r = check(f, {"w": np.eye(3)}, x23(), calls=[({"w": np.ones((3, 3))}, x23())])
    recompiled(r.compiled, 0)


def test_list_length():
    def f(xs, x):
        for v in xs:
            x = x + v
        return x
    r = check(f, [1.0, 2.0], x23(), calls=[([1.0, 2.0, 3.0], x23())])
    assert "len" in last_reasons(r.compiled)


def test_rebound_global_function():
    global act

    def f(x):
        return act(x) * 2.0
    r = check(f, x23())
    saved = act
    act = act_exp
    try:
        check(f, x23(), compiled=r.compiled)
        recompiled(r.compiled, 1)
        assert "act" in last_reasons(r.compiled)
    finally:
        act = saved


def test_namespace_object_attribute():
    def f(x):
        return x * CFG.alpha
    r = check(f, x23())
    CFG.alpha = 4.0
    try:
        check(f, x23(), compiled=r.compiled)
        assert "alpha" in last_reasons(r.compiled)
    finally:
        CFG.alpha = 0.5


def test_user_module_attribute():
    def f(x):
        return x * USER_MODULE.gain
    r = check(f, x23())
    USER_MODULE.gain = -1.0
    try:
        check(f, x23(), compiled=r.compiled)
        assert "gain" in last_reasons(r.compiled)
    finally:
        USER_MODULE.gain = 3.0


@pytest.mark.parametrize("first, second", [
    (2, 3), (2.0, 2.5), ("a", "b"), (True, False), (None, 0), ((1, 2), (1, 3)), ((1, 2), (1, 2, 3)),
    (1, True), (True, 1), (1, 1.0), (0.0, -0.0), (2, 2.0),
])
def test_python_constants(first, second):
    def f(x, c):
        if c is None:
            return x, c
        return x * 2.0, c, type(c).__name__, repr(c)
    r = check(f, x23(), first, calls=[(x23(), first), (x23(), second)])
    recompiled(r.compiled, 1)
    assert last_reasons(r.compiled)


def test_int_vs_bool_changes_numpy_result():
    def f(x, c):
        return np.add(x, c), x * c
    check(f, np.arange(3), 1, calls=[(np.arange(3), True), (np.arange(3, dtype=np.int8), 1)])


def test_array_vs_scalar_argument():
    def f(x, y):
        return x * y
    r = check(f, x23(), 2.0, calls=[(x23(), np.ones(3)), (x23(), np.float32(2.0))])
    assert r.counter.frame_count == 3


def test_warm_path_hits():
    def f(x):
        return x + 1.0
    r = check(f, x23(), calls=[(x23(),)] * 3)
    assert md.stats(r.compiled).hits >= 3
    assert r.counter.frame_count == 1


_ = sys
