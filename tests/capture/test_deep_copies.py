"""copy.deepcopy of dicts, lists and tuples of arrays and Python numbers is copied in the graph
(capture/variables/deep_copies.py): the copies' values, dtypes and layouts (order "K"), their independence from
the originals, the memo (one array reached twice is copied once) and the identity of immutable parts are
eager's; other contents keep one plain call. Differential (tests.conftest.check: results, aliasing of results
with arguments, arguments after the call)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import minidynamo as md
from tests.conftest import check


def _layouts():
    base = np.arange(24.0).reshape(4, 6)
    return {"c": base.copy(), "f": np.asfortranarray(base), "t": base.T, "strided": base[::2, 1::2],
            "zero_d": np.array(3.5), "empty": np.zeros((0, 3), np.float32), "ints": np.arange(5, dtype=np.int8)}


def layout(a):
    return a.dtype, a.shape, a.strides, a.flags["C_CONTIGUOUS"], a.flags["F_CONTIGUOUS"]


def state_step(state, grad):
    new = copy.deepcopy(state)
    new["w"] -= 0.1 * grad
    new["m"] = 0.9 * new["m"] + grad
    new["step"] += 1
    return new, state["w"].sum()


def every_layout(arrays):
    copied = copy.deepcopy(arrays)
    copied["c"][0, 0] = -1.0
    return copied


def nested(params):
    copied = copy.deepcopy(params)
    copied["layers"][0]["w"] += 1.0
    copied["layers"].append({"w": copied["layers"][0]["w"] * 2})
    return copied, copied["shape"] is params["shape"], copied["name"] is params["name"]


def shared(d):
    e = copy.deepcopy(d)
    e["a"] += 1.0
    return e["b"], e["a"] is e["b"], e["a"] is d["a"]


def one_array(x):
    y = copy.deepcopy(x)
    y[0] = -1
    return y, x


def atoms_tuple(t):
    return copy.deepcopy(t) is t, copy.deepcopy(t)


def refused(d):
    e = copy.deepcopy(d)
    e["w"] += 1
    return e


def test_an_optimizer_state_copied_and_updated_is_one_graph():
    rng = np.random.default_rng(0)
    state = {"w": rng.random((3, 4)), "m": np.zeros((3, 4)), "step": 0}
    grad = rng.random((3, 4))
    check(state_step, state, grad, calls=[(state, grad * 2)]).assert_no_breaks()


def test_every_layout_is_kept_as_deepcopy_keeps_it():
    result = check(every_layout, _layouts()).assert_no_breaks()
    want, got = every_layout(_layouts()), result.compiled(_layouts())
    assert {k: layout(a) for k, a in got.items()} == {k: layout(a) for k, a in want.items()}


def test_nested_containers_copy_and_immutable_parts_are_the_same_objects():
    params = {"layers": [{"w": np.ones((2, 2))}, {"w": np.arange(3.0)}], "shape": (2, 2), "name": "mlp"}
    check(nested, params).assert_no_breaks()


@pytest.mark.parametrize("same", [True, False])
def test_one_array_reached_twice_is_copied_once(same):
    x = np.arange(4.0)
    d = {"a": x, "b": x if same else x.copy()}
    check(shared, d, calls=[({"a": x, "b": x.copy()},), ({"a": x, "b": x},)])


@pytest.mark.parametrize("dtype", [np.bool_, np.int64, np.float32, np.complex128])
def test_a_single_array(dtype):
    check(one_array, np.arange(5).astype(dtype)).assert_no_breaks()


def test_a_tuple_of_atoms_is_returned_itself():
    check(atoms_tuple, (1, 2.5, "a", None), expect_graph=False).assert_no_breaks()


def test_other_contents_keep_one_plain_call():
    d = {"w": np.ones(3), "s": np.float64(2.0), "o": object()}
    result = check(refused, {"w": np.ones(3), "s": np.float64(2.0)})
    assert len(result.reasons) == 1 and "copy.deepcopy() of" in str(result.reasons[0]), result.reasons
    report = md.explain(refused)(d)
    assert report.graph_break_count == 1, report.break_reasons
