"""compile()/explain() accept every callable a torch.compile user passes (dispatch/callables.py), and generated
names never meet the user's (dispatch/reserved_names.py). Differential: each runs eagerly and compiled (check)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import minidynamo as md
from tests.conftest import CompileCounter, check


class Dense:
    """An nn.Module-style layer: parameters as attributes, called as layer(x)."""

    def __init__(self, w, scale=1.0):
        self.w, self.scale = w, scale

    def __call__(self, x):
        return np.tanh(x @ self.w) * self.scale

    def forward(self, x, bias=0.0):
        return x @ self.w + bias


def _x(*shape):
    return np.random.default_rng(len(shape)).standard_normal(shape or (4, 3))


def test_layer_object_is_captured_through_its_class_call_with_the_instance_guarded():
    layer = Dense(_x(3, 5))
    r = check(layer, _x(), calls=[(_x(),), (_x(2, 3),)]).assert_no_breaks()
    assert r.stats.captures == 2                     # a new input shape, not a new object
    compiled = md.compile(layer)
    x = _x()
    np.testing.assert_array_equal(compiled(x), layer(x))
    layer.w = _x(3, 2)                               # attributes are guarded sources: re-captured, not stale
    np.testing.assert_array_equal(compiled(x), layer(x))
    layer.scale = 2.5
    np.testing.assert_array_equal(compiled(x), layer(x))
    assert md.stats(compiled).captures == 3


def test_bound_method_and_its_instance():
    layer = Dense(_x(3, 5))
    check(layer.forward, _x(), calls=[(_x(), 1.0), {"x": _x(), "bias": 2}]).assert_no_breaks()


def test_partial_frozen_arguments_are_guarded_sources():
    def affine(w, x, *, shift):
        return x @ w + shift
    w = _x(3, 2)
    part = functools.partial(affine, w, shift=0.5)
    r = check(part, _x(), calls=[(_x(),)]).assert_no_breaks()
    assert "w" in r.graphs[0].input_names             # the frozen array is a graph input, not a constant
    compiled = md.compile(part)
    x = _x()
    w[...] = 7.0                                     # read afresh on every call
    np.testing.assert_array_equal(compiled(x), part(x))
    np.testing.assert_array_equal(compiled(x, shift=1), part(x, shift=1))


def test_staticmethod_and_classmethod_objects_stay_descriptors():
    class Ops:
        factor = 3.0

        @md.compile
        @staticmethod
        def double(x):
            return x * 2.0

        @md.compile
        @classmethod
        def times(cls, x):
            return x * cls.factor

    x = _x()
    np.testing.assert_array_equal(Ops.double(x), x * 2.0)
    np.testing.assert_array_equal(Ops().double(x), x * 2.0)
    np.testing.assert_array_equal(Ops.times(x), x * 3.0)
    np.testing.assert_array_equal(Ops().times(x), x * 3.0)


def test_functools_wraps_wrapper_is_captured_with_what_it_wraps():
    calls = []

    def logged(fn):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            calls.append(fn.__name__)
            return fn(*args, **kwargs)
        return inner

    @logged
    def block(x, w):
        return np.maximum(x @ w, 0.0)

    check(block, _x(), _x(3, 3)).assert_no_breaks()
    assert calls == ["block", "block"]


def test_numpy_functions_and_ufuncs_are_one_op_graphs():
    for fn, args in [(np.tanh, (_x(),)), (np.add, (_x(), _x())), (np.matmul, (_x(), _x(3, 2))),
                     (np.sum, (_x(),))]:
        r = check(fn, *args)
        r.assert_no_breaks()
        assert r.counter.op_count == 1, fn
    check(np.sum, _x(), axis=1).assert_no_breaks()
    check(np.histogram, _x(), bins=3)                 # no registered op (today): runs, stays correct
    out = md.explain(np.tanh)(_x())
    assert out.graph_count == 1 and out.op_count == 1


@pytest.mark.parametrize("make", [
    lambda: Dense(_x(3, 3)), lambda: Dense(_x(3, 3)).forward, lambda: functools.partial(np.add, 1.0),
    lambda: np.tanh,
])
def test_explain_accepts_the_same_callables(make):
    out = md.explain(make())(_x(4, 3))
    assert out.graph_count == 1 and out.graph_break_count == 0


def test_compiling_twice_and_explaining_a_compiled_callable():
    layer = Dense(_x(3, 3))
    compiled = md.compile(layer)
    again = md.compile(compiled)
    x = _x()
    np.testing.assert_array_equal(again(x), layer(x))
    assert md.explain(compiled)(x).op_count == 3


@pytest.mark.parametrize("obj, words", [
    (len, "builtins"), (Dense, "class"), (np.ones(2).sum, "builtins"), (object(), "not callable"),
    (functools.partial(len, [1]), "len"), (classmethod(len), "len"),
])
def test_anything_else_is_a_type_error_saying_what_can_be_compiled(obj, words):
    with pytest.raises(TypeError, match=words) as info:
        md.compile(obj)
    assert "functools.partial" in str(info.value)     # the list of what compile() accepts
    with pytest.raises(TypeError, match="explain"):
        md.explain(obj)


# ---- generated names never share a namespace with the user's (issue 9, item 10) ---------------------------

def hit_param(x, ___hit):
    return x * ___hit


def miss_param(x, ___miss, *, ___eager=2.0):
    return x + ___miss + ___eager


def breaking_params(___o, ___r, ___stack0, t0):
    y = ___o * ___r
    if y.sum() > 0:                  # a graph break (auto_cond off): entry body, breaking instruction, resume
        return y + ___stack0 + t0
    return y - t0


def test_parameter_named_like_the_dispatchers_hit_flag():
    check(hit_param, _x(), 2.0, calls=[(_x(), 2.0), (_x(), 3.0), (_x(), 3.0), (_x(), 0.0), (_x(2, 2), -1.0)])


def test_parameters_named_like_dispatcher_globals():
    check(miss_param, _x(), 1.0, calls=[(_x(), 1.0), {"x": _x(), "___miss": 4.0, "___eager": 1}])
    compiled = md.compile(miss_param)
    with pytest.raises(TypeError, match="___miss"):
        compiled(_x())                                # Python's own binding error, with the user's name


def test_parameters_named_like_entry_locals_across_a_break():
    args = [_x(), _x(), _x(), 1.5]
    neg = [-abs(_x()), abs(_x()), _x(), 2.5]
    with md.config.patch(auto_cond=False):     # keep the break (auto_cond would fold the if into a cond)
        r = check(breaking_params, *args, calls=[neg, args, neg])
    assert r.reasons, "the branch on an array should break"


def closure_over_param(x, ___hit):
    scale = lambda v: v * ___hit     # noqa: E731  (the parameter is a cell of the function)
    return scale(x) + 1.0


def test_renamed_parameter_that_is_a_closure_cell():
    check(closure_over_param, _x(), 2.0, calls=[(_x(), 3.0), (_x(), 3.0)])


def test_resume_after_a_break_with_clashing_names_does_not_fall_back_to_eager():
    with md.config.patch(auto_cond=False):
        r = check(breaking_params, _x(), _x(), _x(), 1.0)
    assert r.reasons and not any(reason.fallback for reason in r.reasons)
