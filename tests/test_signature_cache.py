"""capture.signatures.code_signature is computed once per code object and defaults (issue 28: the miss path asked
inspect.signature for it several times per capture, a sixth of a recompile-heavy fuzz program's capture
time), and never served stale: a new defaults tuple, or a kwdefaults dict changed in place, gives the new
signature. Differential: compiled calls bind the defaults eager binds."""

from __future__ import annotations

import inspect

import numpy as np

from minidynamo.capture.signatures import code_signature
from tests.conftest import check


def scaled(x, k=2.0, *, bias=0.5):
    print("k", k, "bias", bias)
    return x * k + bias


def test_defaults_changed_between_calls_bind_as_eagerly():
    x = np.arange(3.0)
    res = check(scaled, x, calls=[(x + 1,), (np.arange(5.0),)])
    scaled.__kwdefaults__["bias"] = -1.0              # in place: the same dict
    check(scaled, x, compiled=res.compiled, calls=[(x * 2,)])
    old = scaled.__defaults__
    try:
        scaled.__defaults__ = (3.0,)
        check(scaled, x, compiled=res.compiled, calls=[(np.arange(4.0),)])
    finally:
        scaled.__defaults__, scaled.__kwdefaults__["bias"] = old, 0.5


def test_the_signature_is_computed_once_per_code_and_defaults(monkeypatch):
    def fresh(a, b=1, *, c=2):
        return a
    calls = []
    real = inspect.signature
    monkeypatch.setattr(inspect, "signature", lambda *a, **k: calls.append(1) or real(*a, **k))
    first = code_signature(fresh)
    for _ in range(5):
        assert code_signature(fresh) is first
    assert len(calls) == 1
    fresh.__kwdefaults__["c"] = 3
    assert str(code_signature(fresh)) == "(a, b=1, *, c=3)"
    fresh.__defaults__ = (4,)
    assert str(code_signature(fresh)) == "(a, b=4, *, c=3)" and len(calls) == 3
