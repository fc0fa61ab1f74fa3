"""t-strings (3.14+, PEP 750): BUILD_INTERPOLATION and BUILD_TEMPLATE, captured as f-strings are: folded on
constants (a fresh, equal template per call, no break), a break where a value would have to be the very
object inside the template (an array, a number the graph computes). The programs are exec'd source: a
t-string is a SyntaxError before 3.14."""

from __future__ import annotations

import numpy as np
import pytest

import minidynamo as md
from minidynamo import pyversion
from tests.conftest import CompileCounter, assert_uses, check

pytestmark = pytest.mark.skipif(not pyversion.HAS_TEMPLATE_STRINGS, reason="t-strings are 3.14+")

SOURCE = '''
import numpy as np

def constants(x):
    t = t"a{1}b{'s'!r:>4}c{2.5:.2f}{None!a}"
    return x * 2, t

def array_value(x):
    y = x * 2
    t = t"y={y!r:>10} sum={y.sum()}"
    return y + 1, t

def number_spec(x, width):
    t = t"{'v':>{width}}"
    return x + 1, t

def strings_only(x):
    return x - 1, t"no interpolation"

def read_parts(x):
    t = t"a{1}b{'z'!r:>3}"
    return x + len(t.strings), t.values, t.interpolations[1].conversion, t.interpolations[1].format_spec
'''


def _programs() -> dict:
    namespace: dict = {}
    exec(compile(SOURCE, "<t-strings>", "exec"), namespace)
    return namespace


def _parts(t) -> tuple:
    """A Template as comparable parts (Templates compare by identity)."""
    return t.strings, [(i.value.tolist() if isinstance(i.value, np.ndarray) else i.value, i.expression,
                        i.conversion, i.format_spec) for i in t.interpolations]


def _run(fn, calls):
    counter = CompileCounter()
    compiled = md.compile(fn, backend=counter, options={"suppress_errors": False})
    results = []
    for args in calls:
        eager, got = fn(*args), compiled(*args)
        assert np.array_equal(eager[0], got[0])
        assert type(got[1]) is type(eager[1]) and _parts(got[1]) == _parts(eager[1])
        results.append(got[1])
    return counter, results


def test_a_template_of_constants_is_folded_and_fresh_per_call():
    fn = _programs()["constants"]
    assert_uses(fn, "BUILD_INTERPOLATION", "BUILD_TEMPLATE")
    counter, (t1, t2) = _run(fn, [(np.ones(3),), (np.ones(3),)])
    assert counter.frame_count == 1 and not md.explain(md.compile(fn))(np.ones(3)).break_reasons
    assert t1 is not t2                        # CPython makes a new Template per evaluation


def test_a_template_holding_an_array_breaks_and_holds_the_value_eager_does():
    fn = _programs()["array_value"]
    counter, _ = _run(fn, [(np.arange(3.0),), (np.arange(4.0),)])
    reasons = md.explain(md.compile(fn))(np.arange(3.0)).break_reasons
    assert reasons and all("t-string" in r.message for r in reasons), [r.message for r in reasons]


def test_a_spec_from_a_parameter_and_a_template_without_interpolations():
    programs = _programs()
    _run(programs["number_spec"], [(np.ones(2), 5), (np.ones(2), 7)])
    counter, _ = _run(programs["strings_only"], [(np.ones(2),)])
    assert counter.frame_count == 1


def test_the_parts_of_a_folded_template_are_read_at_capture_time():
    check(_programs()["read_parts"], np.ones(2)).assert_no_breaks()
