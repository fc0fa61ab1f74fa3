"""f-strings, format(), str() and repr() of array-derived values (capture/variables/strings.py): the text
is made in the compiled entry when plain Python needs it, so `print(f"... {loss:.4f}")` costs the print's
break only, with the array code before and after it captured; anything that needs the text is a break."""

from __future__ import annotations

import numpy as np
import pytest

import minidynamo as md
from minidynamo.capture.breaks import BreakCategory
from tests.conftest import CompileCounter, check

RNG = np.random.default_rng(0)
X = RNG.standard_normal((20, 3))
Y = X @ np.array([1.0, -2.0, 0.5])


def train(w, X, y, steps):
    for i in range(steps):
        g = X.T @ (X @ w - y) / len(y)
        w = w - 0.1 * g
        loss = ((X @ w - y) ** 2).mean()
        print(f"step {i} loss {loss:.4f}")
    return w


def test_a_training_loop_that_prints_costs_one_break_per_iteration():
    counter = CompileCounter()
    cfn = md.compile(train, backend=counter, options={"suppress_errors": False, "unroll_limit": 3})
    res = check(train, np.zeros(3), X, Y, 40, compiled=cfn, calls=[(np.ones(3), X, Y, 40)])
    reasons = [r for r in res.reasons]
    assert reasons and all(r.category == BreakCategory.CALL and "print" in r.message for r in reasons)
    assert not any(r.fallback for r in reasons)
    # the driven body is captured once: its steps and its loss text are not specialized per iteration
    for child in cfn._minidynamo.children.values():
        assert md.stats(child).captures == 1


def test_the_whole_function_is_one_graph_when_the_text_is_returned():
    def describe(x):
        y = x * 2.0
        return y + 1, f"sum={y.sum():.3f} max={y.max()!r} first={y[0]!s:>12} all={y}", "v=" + format(y.min(), "e")
    res = check(describe, RNG.standard_normal(5), calls=[(np.arange(4.0),)])
    assert res.reasons == []


@pytest.mark.parametrize("value", [np.float32(1.5), np.int64(7), np.array(2.5), np.arange(6.0).reshape(2, 3),
                                   np.array([True, False]), np.complex128(1 + 2j)])
def test_conversions_and_specs_of_arrays_and_numpy_scalars(value):
    def fmt(v):
        w = v * 1
        return f"{w}|{w!r}|{w!s}|{w!a}|{str(w)}|{repr(w)}|{format(w)}"
    check(fmt, value)


@pytest.mark.parametrize("spec", [".4f", ">10", "+.2e", "_", ",", "x", "d", ".3%", "c"])
def test_specs_that_raise_raise_the_same_error(spec):
    def fmt(v, s):
        w = v + 1
        return f"{w:{s}}"
    for value in (np.float64(2.25), np.int64(65), np.arange(3)):
        check(fmt, value, spec)


def test_python_numbers_from_a_loop_counter_stay_unspecialized():
    def count(x, n):
        out = []
        for i in range(n):
            x = x + i
            out.append(f"{i}:{x.sum():.1f}")
        return x, out
    check(count, np.zeros(2), 70, calls=[(np.ones(2), 75)])


def test_the_text_is_of_the_values_when_formatted_not_when_printed():
    def later(x):
        s = f"before {x}"
        x[0] = 99.0
        t = "after " + str(x)
        print(s, t)
        return x
    check(later, np.arange(3.0))


def test_using_the_text_is_a_break_with_the_eager_result():
    def branch(x):
        s = f"{x.sum():.0f}"
        if s == "3":
            return x * 2, len(s)
        return x, s.upper()
    check(branch, np.ones(3), calls=[(np.zeros(3),)])


def test_formatting_a_container_of_arrays_breaks_and_resumes():
    def listy(x):
        y = x + 1
        s = f"{[y, y * 2]}"
        return y * 3, s
    res = check(listy, np.arange(2.0))
    assert res.reasons and not res.reasons[0].fallback


def test_strings_reaching_a_resume_function_are_not_guarded_by_value():
    def logger(x, n):
        msg = f"n={n} "
        for k in range(n):
            x = x * 0.5
            if x.sum() > 1.0:                 # a break: msg reaches the resume functions as an argument
                msg = msg + f"{x[0]:.2f};"
        print(msg)
        return x
    counter = CompileCounter()
    cfn = md.compile(logger, backend=counter, options={"suppress_errors": False})
    check(logger, np.full(3, 40.0), 12, compiled=cfn, calls=[(np.full(3, 80.0), 12)])
    assert not any("msg" in str(g) for g in cfn._minidynamo.records[0].entry.guards)


def test_str_format_is_the_f_string_it_spells():
    def logged(x, n):
        y = (x * 2.0).sum()
        print("epoch {}: loss {:.4f} of {} ({!r})".format(n, y, len(x), y))
        print("{0}/{1} {0:>6} {name:+.2e} {{braces}}".format(y, x.max(), name=x.min()))
        return y + 1
    res = check(logged, RNG.standard_normal(5), 3, calls=[(np.arange(4.0), 7)])
    assert res.reasons and all("print" in r.message for r in res.reasons)     # the prints, nothing else


def test_str_format_of_a_graph_value_returned_is_one_graph():
    def describe(x):
        y = x - 1
        return y, "min {:.3f} max {!s} mean {m:g}".format(y.min(), y.max(), m=y.mean())
    res = check(describe, RNG.standard_normal(4), calls=[(np.arange(3.0),)])
    assert res.reasons == []


@pytest.mark.parametrize("template", ["{} {1}", "{2}", "{missing}", "{0.shape}", "{0[0]}", "{:{w}}", "{!x}", "{",
                                      "{:d}", "{:c}"])
def test_str_format_templates_that_fail_or_need_values_break_and_raise_as_eager(template):
    def fmt(x, t):
        y = x * 3.0
        try:
            return t.format(y.sum(), y, w=5)
        except (ValueError, IndexError, KeyError, AttributeError, TypeError) as e:
            return y, type(e).__name__, str(e)
    check(fmt, RNG.standard_normal(3), template, calls=[(np.arange(2.0), template)])


def test_str_format_text_is_of_the_values_when_formatted():
    def later(x):
        s = "before {}".format(x)
        x[0] = 99.0
        return s, "after {}".format(x)
    check(later, np.arange(3.0))


def test_percent_formatting_is_made_in_the_entry():
    def logged(x, n):
        y = (x * 2.0).sum()
        print("step %d: loss %.4f (%s) %-8.3e|%+g %%" % (n, y, y, x.max(), x.min()))
        print("mean %r" % x.mean())
        return y, "%5.1f%%" % (100 * y / (1 + abs(y)))
    res = check(logged, RNG.standard_normal(5), 3, calls=[(np.arange(4.0), 7)])
    assert res.reasons and all("print" in r.message for r in res.reasons)     # the prints, nothing else


@pytest.mark.parametrize("template", ["%d", "%x", "%c", "%s %s", "%(k)s", "%*d", "%", "%y", "%.2f"])
def test_percent_formatting_that_may_fail_by_value_breaks_and_raises_as_eager(template):
    def fmt(x, t, scale):
        y = x * scale
        try:
            return t % y.max(), t % (y.min(),)
        except (ValueError, TypeError, OverflowError, KeyError) as e:
            return y, type(e).__name__, str(e)
    for scale in (1.0, np.nan, np.inf):
        check(fmt, RNG.standard_normal(3), template, scale)


def test_percent_formatting_of_arrays_shows_the_values_when_formatted():
    def later(x):
        s = "before %s" % x
        x[0] = 99.0
        return s, "after %s and %r" % (x, x.sum())
    check(later, np.arange(3.0))
