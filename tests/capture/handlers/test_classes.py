"""Class statements inside compiled functions (handlers/classes.py): LOAD_BUILD_CLASS loads the builtin,
the CALL of `__build_class__` is the one graph break (the class body runs in plain Python, in eager's
order), and capture resumes after it. Closures over the function's cells, super(), decorators, prints
and exceptions in the body behave as eagerly."""

from __future__ import annotations

import dataclasses

import numpy as np

from tests.conftest import assert_uses, check


def x23():
    return np.linspace(-1.0, 1.0, 6).reshape(2, 3)


class Base:
    k = 2.0

    def scale(self, v):
        return v * self.k


def local_subclass(x, k):
    y = x * 2.0

    class Sub(Base):
        kk = k                          # the class body reads a cell of the function

        def scale(self, v):
            return super().scale(v) + self.kk
    k = k + 1.0                         # after the class: the body already read it
    return Sub().scale(y) + k, Sub.__qualname__, Sub.kk


def body_prints(x):
    print("before")
    y = x + 1.0

    class A:
        print("in the body")
    print("after", A.__name__)
    return y * 2.0


def body_raises(x, fail):
    y = x + 1.0
    try:
        class A:
            if fail:
                raise ValueError("no class")
        z = y * 2.0
    except ValueError as e:
        z = y - 1.0, str(e)
    return z


def decorated_dataclass(x):
    @dataclasses.dataclass
    class P:
        a: float
        b: float = 2.0
    p = P(1.5)
    return x * p.b + p.a, repr(p)


def test_a_class_statement_breaks_once_and_resumes_after_it():
    assert_uses(local_subclass, "LOAD_BUILD_CLASS")
    res = check(local_subclass, x23(), 0.5, calls=[(np.ones(3), 2.0), (x23(), 0.5)])
    assert all("__build_class__" in r.message for r in res.reasons if r.opname in ("CALL", "CALL_KW")), res.reasons
    res.assert_resumed_after("CALL")


def test_class_bodies_print_raise_and_decorate_as_eagerly():
    check(body_prints, x23(), calls=[(np.ones(2),)]).assert_resumed_after("CALL")
    check(body_raises, x23(), False, calls=[(x23(), True)])
    check(decorated_dataclass, x23(), calls=[(np.ones(2),)])
