"""Descriptors and user objects (variables/objects.py, descriptors.py): properties and cached_property run
their getter inline, static/class methods, dataclasses, __slots__, NamedTuples, SimpleNamespace writes;
guards on the type and on the identity of the class attribute capture followed."""

from __future__ import annotations

import dataclasses
import functools
import types
from typing import NamedTuple

import numpy as np
import pytest

import minidynamo as md
from tests.conftest import check


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape or (2, 3))


class Layer:
    factor = 2.0

    def __init__(self, w):
        self.w = w
        self.calls = 0

    @property
    def wt(self):
        return self.w.T

    @property
    def width(self):
        return self.w.shape[1]

    @functools.cached_property
    def gram(self):
        return self.w @ self.w.T

    @staticmethod
    def act(x):
        return np.maximum(x, 0.0)

    @classmethod
    def scale(cls, x):
        return x * cls.factor

    def __call__(self, x):
        self.calls += 1
        return self.act(self.scale(x @ self.w)) + self.gram.sum() * self.width


def test_property_getter_is_inlined():
    def f(m, x):
        return x @ m.w @ m.wt
    r = check(f, Layer(_x(3, 3)), _x(), calls=[(Layer(_x(3, 4)), _x())]).assert_no_breaks()
    assert r.stats.captures == 2


def test_cached_property_is_computed_once_and_stored_like_eager():
    layer = Layer(_x(3, 3))
    compiled = md.compile(layer)
    eager_layer = Layer(layer.w.copy())
    for _ in range(3):
        np.testing.assert_array_equal(compiled(_x()), eager_layer(_x()))
    assert "gram" in vars(layer) and layer.calls == 3
    np.testing.assert_array_equal(layer.gram, eager_layer.gram)
    assert md.stats(compiled).captures == 2          # not cached yet, then cached: two variants
    check(lambda m, x: m(x) + m(x), Layer(_x(3, 3)), _x()).assert_no_breaks()


def test_static_and_class_methods_through_instance_and_class():
    def f(m, x):
        return m.act(x) + Layer.act(-x) + m.scale(x) + Layer.scale(x) + type(m).scale(x)
    check(f, Layer(_x(3, 3)), _x()).assert_no_breaks()


class Child(Layer):
    factor = 3.0


def test_classmethod_sees_the_subclass():
    check(lambda m, x: m.scale(x) + Child.scale(x), Child(_x(3, 3)), _x(),
          calls=[(Layer(_x(3, 3)), _x())]).assert_no_breaks()


def test_replacing_a_method_or_class_attribute_recaptures():
    class Model:
        k = 1.0

        def forward(self, x):
            return x * 2.0

    m = Model()
    compiled = md.compile(lambda m, x: m.forward(x) + Model.k)
    x = _x()
    np.testing.assert_array_equal(compiled(m, x), x * 2.0 + 1.0)
    Model.forward = lambda self, x: x * 5.0           # same type, new class attribute
    np.testing.assert_array_equal(compiled(m, x), x * 5.0 + 1.0)
    assert "Model.forward" in md.stats(compiled).guard_failures[-1][0]
    Model.k = 4.0
    np.testing.assert_array_equal(compiled(m, x), x * 5.0 + 4.0)


@dataclasses.dataclass
class Config:
    lr: float = 0.1
    steps: int = 3
    decay: float = 0.5

    @property
    def final_lr(self):
        return self.lr * self.decay ** self.steps


@dataclasses.dataclass(frozen=True)
class Frozen:
    bias: float = 1.0


def test_dataclass_config_fields_and_property():
    def f(cfg, fz, x):
        for _ in range(cfg.steps):
            x = x - cfg.lr * x
        return x * cfg.final_lr + fz.bias
    check(f, Config(), Frozen(), _x(), calls=[(Config(lr=0.2), Frozen(2.0), _x())]).assert_no_breaks()


class Params(NamedTuple):
    w: np.ndarray
    b: np.ndarray
    scale: float = 1.0


def test_named_tuple_fields_unpacking_and_indexing():
    def f(p, x):
        w, b, s = p
        return (x @ p.w + p[1]) * p.scale + w.sum() + b * s + len(p)
    check(f, Params(_x(3, 3), _x(3)), _x(), calls=[(Params(_x(3, 3), _x(3), 2.0), _x())]).assert_no_breaks()


class Slotted:
    __slots__ = ("w", "k", "unset")

    def __init__(self, w, k):
        self.w, self.k = w, k


def test_slots_read_and_write():
    def f(s, x):
        s.k = s.k + 1
        return x * s.w * s.k
    check(f, Slotted(_x(3), 2), _x()).assert_no_breaks()
    check(lambda s: s.unset, Slotted(_x(3), 2), expect_graph=False)        # AttributeError, as eagerly


def test_simple_namespace_attribute_writes():
    def f(ns, x):
        ns.count = ns.count + 1
        ns.last = x * 2.0
        return ns.last + ns.count
    check(f, types.SimpleNamespace(count=0), _x()).assert_no_breaks()


class WithSetter:
    def __init__(self):
        self._v = 1.0

    @property
    def v(self):
        return self._v

    @v.setter
    def v(self, value):
        self._v = value * 2


def test_write_through_a_property_setter_is_not_replayed_as_plain_storage():
    def f(o, x):
        o.v = 3.0
        return x * o.v
    check(f, WithSetter(), _x())


def test_layer_object_with_every_descriptor_kind():
    layer = Layer(_x(3, 3))
    check(layer, _x()).assert_no_breaks()


@pytest.mark.parametrize("make", [lambda: Layer(_x(3, 3)), lambda: Child(_x(3, 3))])
def test_explain_shows_the_class_attribute_guards(make):
    out = md.explain(lambda m, x: m.scale(m.act(x)))(make(), _x())
    text = "\n".join(str(g) for g in out.guards)
    assert "_dict.get('act') is" in text and "_dict.get('scale') is <classmethod" in text


def test_named_tuple_built_during_capture():
    from collections import namedtuple
    State = namedtuple("State", "h c")

    def f(x, p):
        s = State(np.tanh(x), c=x * 2.0)
        q = Params(x @ p.w, p.b)                       # typing.NamedTuple with a default
        h, c = s
        return State(h + s.c, c), q, q.scale, s[1:], s + (1,), len(q), isinstance(s, tuple)
    r = check(f, _x(3, 3), Params(_x(3, 3), _x(3))).assert_no_breaks()
    assert type(r.compiled(_x(3, 3), Params(_x(3, 3), _x(3)))[0]).__name__ == "State"


class Named:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return f"Named({self.name})"


class Shown(Named):
    def __repr__(self):
        return "Shown<" + self.name + ">"


def test_str_and_repr_of_objects_run_their_python_methods():
    def f(a, b, x):
        return x * 2.0, str(a), f"{a}-{b!r}", repr(b), str(b), "%s" % (a.name,)
    r = check(f, Named("n"), Shown("s"), _x()).assert_no_breaks()
    compiled = md.compile(f)
    compiled(Named("n"), Shown("s"), _x())
    original = Named.__str__
    Named.__str__ = lambda self: "changed"               # the class attribute is guarded
    try:
        assert compiled(Named("n"), Shown("s"), _x())[1] == "changed"
    finally:
        Named.__str__ = original
    assert r.stats.captures == 1


def test_str_of_an_object_without_its_own_text_breaks():
    check(lambda o, x: (x + 1.0, len(str(o)) > 0), types.SimpleNamespace(), _x())


class Output:
    def __init__(self, h, c, tag="out"):
        self.h = h
        self.c = c * 2.0
        self.tag = tag

    @property
    def both(self):
        return self.h + self.c


def test_objects_made_during_capture():
    def f(x, log):
        cfg = Config(lr=0.5)                              # a dataclass: its generated __init__, inlined
        out = Output(np.tanh(x), x * cfg.lr)
        out.extra = out.both.sum()
        log.append(out)
        return out, out.both, cfg, out.tag, isinstance(out, Output), out is log[-1]
    r = check(f, _x(), []).assert_no_breaks()
    res = r.compiled(_x(), [])
    assert type(res[0]) is Output and list(vars(res[0])) == ["h", "c", "tag", "extra"]
    assert type(res[2]) is Config and res[2] == Config(lr=0.5)


def test_classes_with_their_own_construction_break_and_stay_correct():
    class WithNew:
        def __new__(cls):
            return super().__new__(cls)

    class WithDel:
        def __del__(self):
            pass

    check(lambda x: (x + 1.0, WithNew()), _x())
    check(lambda x: (x + 1.0, WithDel()), _x())
    check(lambda x: (x + 1.0, Frozen(2.0)), _x())             # frozen: object.__setattr__ inside __init__
    check(lambda x: (x + 1.0, Slotted(x, 1)), _x())
    check(lambda x: (x * 2.0, vars(Output(x, x))), _x())
    r = check(lambda x: Output(x, x).missing, _x())         # AttributeError, as eagerly
    assert r.reasons


def test_object_made_during_capture_lives_across_a_break():
    def f(x, log):
        out = Output(x, x)
        log.append(out)
        if x.sum() > 0:                                   # a break: `out` is rebuilt, then resumed with
            out.h = out.h + 1.0
        return out, log[0] is out
    r = check(f, np.abs(_x()), [], calls=[(-np.abs(_x()), []), (np.abs(_x()), [])])
    assert r.reasons and not any(reason.fallback for reason in r.reasons)



class Celsius(WithSetter):
    def __init__(self, degrees):
        self.v = degrees                                  # through the inherited property's setter


def test_object_made_during_capture_whose_init_writes_through_a_setter():
    r = check(lambda x: (Celsius(x).v, vars(Celsius(1.0))), _x(), expect_graph=False)
    r.assert_broke("attribute write through the descriptor Celsius.v (property)")     # never plain storage
