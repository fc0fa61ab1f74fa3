"""Zero-argument and two-argument super() in compiled methods (issue 15 §3): resolved at capture time
through the `__class__` cell and the first argument, also in resume functions after a break (which keep
the first argument as their first local), in a subclass of a subclass, and with `__class__` used itself."""

from __future__ import annotations

import numpy as np

import minidynamo as md
from tests.conftest import captured, check


class Base:
    scale = 2.0

    def pre(self, q):
        return q * self.scale

    def tail(self, q):
        return q - 1.0


class Layer(Base):
    def forward(self, x):
        return super().pre(x) + 1.0

    def step(self, x):
        print("step")                       # a break: the rest runs in a resume function
        return super().pre(x) + 1.0

    def explicit(self, x):
        return super(Layer, self).pre(x) + super(__class__, self).tail(x) * isinstance(self, __class__)

    def attr_then_call(self, x):
        f = super().pre                     # the method loaded without calling it at once
        return f(x) * 3.0

    def looped(self, x, n):
        for i in range(n):
            print("i", i)                   # a break inside the loop: the body is driven
            x = super().tail(x)
        return x


class Deeper(Layer):
    def pre(self, q):
        return super().pre(q) * 10.0        # Layer has no pre: Base.pre, with self a Deeper

    def forward(self, x):
        return super().forward(x) - 0.5     # Layer.forward, whose super() is Layer's

    def step(self, x):
        y = np.tanh(x)
        print("deeper step")
        return super().step(y)


def _call(name):
    def run(obj, *args):
        return getattr(type(obj), name)(obj, *args)
    run.__name__ = name
    return run


def test_zero_argument_super_captures_without_a_break():
    result = check(Layer.forward, Layer(), np.ones(3), calls=[(Layer(), np.arange(3.0))])
    result.assert_no_breaks()
    assert result.counter.op_count == 2


def _resumed(result):
    """The capture broke and went on in a resume function: no frame ran eagerly."""
    assert result.reasons and not any(r.fallback for r in result.reasons), result.reasons
    return result


def test_super_after_a_break_in_a_resume_function():
    _resumed(check(Layer.step, Layer(), np.ones(3), calls=[(Layer(), np.arange(3.0))]))


def test_super_with_class_argument_and_explicit_class_cell():
    check(Layer.explicit, Layer(), np.ones(3)).assert_no_breaks()
    check(Layer.attr_then_call, Layer(), np.ones(2)).assert_no_breaks()


def test_super_in_a_driven_loop():
    _resumed(check(Layer.looped, Layer(), np.ones(2), 3, calls=[(Layer(), np.zeros(2), 1)]))


def test_subclass_of_a_subclass():
    for name in ("forward", "step", "pre"):
        result = check(getattr(Deeper, name), Deeper(), np.linspace(0, 1, 4), calls=[(Deeper(), np.ones(4))])
        _resumed(result) if name == "step" else result.assert_no_breaks()
    check(Layer.forward, Deeper(), np.ones(3))         # Layer.forward on a Deeper: super() from Layer


def test_compiled_methods_as_decorators():
    class Net(Base):
        @md.compile
        def forward(self, x):
            return super().pre(x) + 1.0

        @md.compile
        def step(self, x):
            print("net step")
            return super().pre(x) + 1.0

    for method in ("forward", "step"):
        eager = getattr(Net, method).__wrapped__(Net(), np.ones(3))
        for _ in range(2):
            np.testing.assert_array_equal(getattr(Net(), method)(np.ones(3)), eager)
        captured(getattr(Net, method)).assert_graph_ran()     # super() in a graph (step's after its print)
    assert md.stats(Net.forward).hits == 1 and captured(Net.forward).reasons == []


def test_super_outside_a_method_raises_as_eagerly():
    def no_class(x):
        return super().pre(x)

    check(no_class, np.ones(2), expect_graph=False).assert_broke("super(): no __class__ cell or no arguments")


def test_resume_function_run_eagerly_keeps_super_working():
    # Past the cache limit or after an internal error a resume function's own code runs in CPython, whose
    # zero-argument super() reads the first local slot: the resume function keeps `self` there.
    compiled = md.compile(Layer.step)
    compiled(Layer(), np.ones(3))
    (resume,) = [v for k, v in compiled._minidynamo.children.items() if k[0] == "resume"]
    raw = resume._minidynamo.fn
    params = raw.__code__.co_varnames[:raw.__code__.co_argcount]
    assert params[:2] == ("self", "x")
    values = {"self": Layer(), "x": np.arange(3.0)}
    got = raw(*[values.get(p) for p in params])     # stack slots: print's result, None
    np.testing.assert_array_equal(got, Layer().pre(np.arange(3.0)) + 1.0)
