"""dispatch/live_defaults.py: a compiled function takes the original's defaults as they are at each call (eager
Python reads `fn.__defaults__` / `__kwdefaults__` per call; the dispatcher once copied them at compile())."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import minidynamo as md


def scaled(x, k=1.0, *args, m=2.0, **kw):
    return x * k + m + len(args) + len(kw)


def _both(fn, compiled, *args, **kwargs):
    out = []
    for f in (fn, compiled):
        try:
            out.append(("value", f(*args, **kwargs).tolist()))
        except TypeError as e:
            out.append(("raised", str(e)))
    assert out[0] == out[1]
    return out[0]


@pytest.fixture
def fn():
    def f(x, k=1.0, *args, m=2.0, **kw):      # a fresh function per test: its defaults get reassigned
        return x * k + m + len(args) + len(kw)
    return f


def test_signature_shows_the_defaults():
    assert str(inspect.signature(md.compile(scaled))) == str(inspect.signature(scaled))


def test_reassigned_defaults_are_seen(fn):
    compiled = md.compile(fn)
    x = np.ones(2)
    assert _both(fn, compiled, x) == ("value", [3.0, 3.0])
    _both(fn, compiled, x, 3.0, 4, 5, m=1.0, z=2)            # given explicitly: markers never reach fill
    fn.__defaults__ = (10.0,)
    assert _both(fn, compiled, x) == ("value", [12.0, 12.0])
    fn.__kwdefaults__ = {"m": -1.0}
    assert _both(fn, compiled, x) == ("value", [9.0, 9.0])


def test_removed_defaults_raise_pythons_own_type_error(fn):
    compiled = md.compile(fn)
    compiled(np.ones(2))
    fn.__defaults__ = None
    assert _both(fn, compiled, np.ones(2))[0] == "raised"
    assert _both(fn, compiled, np.ones(2), 2.0) == ("value", [4.0, 4.0])
    fn.__kwdefaults__ = None
    assert "keyword-only argument: 'm'" in _both(fn, compiled, np.ones(2), 2.0)[1]


def test_a_mutable_default_is_the_originals_object():
    def append_to(x, log=[]):                  # noqa: B006 - the shared default is the point
        log.append(x.sum())
        return len(log)
    compiled = md.compile(append_to)
    assert [compiled(np.ones(2)) for _ in range(3)] == [1, 2, 3]
    assert append_to.__defaults__[0] == [2.0, 2.0, 2.0]


def test_kwdefaults_changed_in_place_are_seen(fn):
    """The fast path trusts the kwdefaults dict's identity, so it reads the value from the dict each call."""
    compiled = md.compile(fn)
    compiled(np.ones(2))
    fn.__kwdefaults__["m"] = 5.0
    assert _both(fn, compiled, np.ones(2)) == ("value", [6.0, 6.0])
    del fn.__kwdefaults__["m"]
    assert "keyword-only argument: 'm'" in _both(fn, compiled, np.ones(2))[1]
