"""Bad input to compile(): what is rejected at compile time, and what runs eagerly instead.

Decision on non-Python callables: compile() accepts what a torch.compile user passes (functions, bound
methods, objects whose class defines `__call__` in Python, `functools.partial`, staticmethod/classmethod
objects, NumPy functions and ufuncs: see tests/test_callables.py). Anything else (builtins, C methods,
classes, objects with a C `__call__`) raises TypeError at compile() time, naming the object and listing what
can be compiled: there is no bytecode to capture in them, so wrapping would only hide a mistake.

Generators, coroutines and async generators are accepted and run eagerly: results are identical, and
`explain()` gives the reason. Recursion deeper than `inline_depth_limit` breaks at the call (the callee
is compiled on its own) instead of overflowing the stack. Unknown or mistyped `options` raise TypeError
naming them; an unknown backend raises ValueError listing the known ones, both at compile() time.
"""

from __future__ import annotations

import asyncio
import functools

import numpy as np
import pytest

import minidynamo as md
from minidynamo.backends import list_backends
from tests.conftest import check


class Scaler:
    def __call__(self, x):
        return x * 2.0


@pytest.mark.parametrize("obj, name", [
    (3, "3"), ("text", "'text'"), (np.ones(2), "array"),     # (None is the decorator form: compile(None) == compile)
])
def test_non_callable_raises_type_error_naming_it(obj, name):
    with pytest.raises(TypeError, match="compile\\(\\) expects a function") as info:
        md.compile(obj)
    assert name in str(info.value)


@pytest.mark.parametrize("obj, name", [
    (len, "len"), (print, "print"), (np.ndarray.sum, "sum"), (functools.partial(len), "len"),
    (Scaler, "Scaler"), (np.ones(2).sum, "sum"), (staticmethod(len), "len"),
])
def test_builtins_and_other_callables_raise_type_error_naming_them(obj, name):
    with pytest.raises(TypeError, match="expects a Python function") as info:
        md.compile(obj)
    assert name in str(info.value)


def test_callable_instance_compiles_through_its_bound_method():
    s = Scaler()
    cfn = md.compile(s.__call__)
    x = np.arange(3.0)
    assert np.array_equal(cfn(x), x * 2.0)


def test_decorator_form_rejects_the_same():
    with pytest.raises(TypeError, match="len"):
        md.compile(backend="eager")(len)


# ---- generators and coroutines run eagerly ------------------------------------------------------------

def powers(x, n):
    for i in range(n):
        yield x ** i


async def doubled(x):
    await asyncio.sleep(0)
    return x * 2.0


async def agen(x):
    for i in range(3):
        yield x + i


def test_generator_runs_eagerly_with_identical_results():
    cfn = md.compile(powers)
    x = np.linspace(0.0, 1.0, 4)
    got, want = list(cfn(x, 4)), list(powers(x, 4))
    assert len(got) == len(want) and all(np.array_equal(a, b) for a, b in zip(got, want))
    out = md.explain(powers)(x, 4)
    assert out.graph_count == 0 and out.graph_break_count == 1
    assert "generator" in str(out) and "eagerly" in str(out)


def test_coroutine_runs_eagerly_with_identical_results():
    cfn = md.compile(doubled)
    x = np.arange(3.0)
    assert np.array_equal(asyncio.run(cfn(x)), asyncio.run(doubled(x)))
    assert md.stats(cfn).fallbacks == 0


def test_async_generator_runs_eagerly():
    cfn = md.compile(agen)

    async def collect(g):
        return [v async for v in g]
    x = np.zeros(2)
    got, want = asyncio.run(collect(cfn(x))), asyncio.run(collect(agen(x)))
    assert all(np.array_equal(a, b) for a, b in zip(got, want)) and len(got) == 3


def test_function_consuming_a_generator_still_captures():
    def f(x):
        return sum(powers(x, 3))
    check(f, np.linspace(0.0, 1.0, 3))


# ---- recursion past the inlining limit ----------------------------------------------------------------

def fact(n):
    return 1 if n <= 1 else n * fact(n - 1)


def total(n):
    return 0.0 if n == 0 else n + total(n - 1)


def scaled_fact(x, n):
    return x * float(fact(n) % 1_000_003)


def test_recursion_past_inline_limit_breaks_instead_of_overflowing():
    with md.config.patch(inline_depth_limit=8):
        cfn = md.compile(fact)
        assert cfn(50) == fact(50)
        cfn2 = md.compile(scaled_fact)
        x = np.arange(3.0)
        assert np.array_equal(cfn2(x, 50), scaled_fact(x, 50))
        assert np.array_equal(cfn2(x, 20), scaled_fact(x, 20))
        out = md.explain(scaled_fact)(x, 50)
    assert out.graph_break_count >= 1
    assert any("inlin" in str(r) or "depth" in str(r) for r in out.break_reasons), out.break_reasons


def test_deep_recursion_matches_eager():
    with md.config.patch(inline_depth_limit=8):
        cfn = md.compile(total)
        assert cfn(400) == total(400)


def test_unbounded_recursion_raises_recursion_error_like_eager():
    def forever(n):
        return forever(n + 1)
    with pytest.raises(RecursionError):
        forever(0)
    with pytest.raises(RecursionError):
        md.compile(forever)(0)


# ---- options and backends --------------------------------------------------------------------------

def scale(x):
    return x * 2.0


@pytest.mark.parametrize("options, names", [
    ({"cache_limit": 3}, ["cache_limit"]),
    ({"bogus": 1, "cache_size_limit": 2, "also_bogus": 0}, ["also_bogus", "bogus"]),
])
def test_unknown_options_raise_type_error_naming_them(options, names):
    with pytest.raises(TypeError) as info:
        md.compile(scale, options=options)
    for name in names:
        assert name in str(info.value)
    assert "cache_size_limit" in str(info.value).split("known:")[1]


@pytest.mark.parametrize("options", [{"cache_size_limit": "8"}, {"inline_depth_limit": -1},
                                     {"suppress_errors": "yes"}, {"unroll_limit": 2.5}])
def test_bad_option_values_raise_type_error_naming_them(options):
    (name,) = options
    with pytest.raises(TypeError, match=name):
        md.compile(scale, options=options)


def test_unknown_backend_raises_value_error_listing_known_ones():
    with pytest.raises(ValueError) as info:
        md.compile(scale, backend="nope")
    assert "'nope'" in str(info.value)
    for name in list_backends():
        assert repr(name) in str(info.value)
    with pytest.raises(ValueError, match="nope"):
        md.compile(backend="nope")          # the decorator form checks at once, before any function is given


def test_non_callable_backend_is_rejected():
    with pytest.raises((TypeError, ValueError)):
        md.compile(scale, backend=42)


def test_a_bad_dynamic_value_is_refused_clearly():
    with pytest.raises(TypeError, match="dynamic"):
        md.compile(scale, dynamic="auto")
