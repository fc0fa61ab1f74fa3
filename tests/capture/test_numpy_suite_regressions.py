"""Bugs NumPy's own test suite found when run compiled (tools/numpy_suite), kept as differential tests."""

from __future__ import annotations

import functools
import inspect

import numpy as np

from tests.conftest import check


def _inner(k, extra=None):
    return k


@functools.wraps(_inner)
def wrapped(*a):
    return np.zeros(a)


@functools.wraps(_inner)
def wrapped_with_break(*a):
    if np.ones(1)[0] > 5:
        print("big")
    return np.zeros(a)


def with_foreign_signature(*args, **kwargs):
    return np.ones(*args, **kwargs)


with_foreign_signature.__signature__ = inspect.signature(lambda shape, dtype=None, order="C": None)


def test_arguments_bind_to_the_code_not_to_wrapped_or_signature():
    # functools.wraps sets __wrapped__, and __signature__ describes another callable: binding must use the
    # function's own parameters
    check(wrapped, 3, calls=[(2, 2)])
    check(wrapped_with_break, 3, calls=[(4,)])
    check(with_foreign_signature, 3, calls=[((2, 2),)])


def round_a_numpy_scalar():
    s = np.float64(1.5)
    return round(s)          # round() breaks; the NumPy scalar lives across the break


def test_a_numpy_scalar_constant_crosses_a_break_with_its_type():
    check(round_a_numpy_scalar)


def keys_set_operations(d, e):
    return d.keys() & e.keys(), len(d.keys()), "a" in d.keys(), np.ones(2)


def test_dict_views_are_real_views():
    check(keys_set_operations, {"a": 1, "b": 2}, {"b": 3}, calls=[({"x": 1}, {"x": 2, "a": 3})])
