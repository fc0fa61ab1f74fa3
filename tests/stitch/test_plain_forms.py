"""Plain-Python forms of instructions (capture/handlers, PLAIN): a break at each runs it in the entry and
resumes after it, with the eager result (slices with array-valued bounds, as in CSR SpMV; attribute writes
on arrays; `del` with a data-dependent key)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minidynamo as md

from minidynamo.capture.handlers import PLAIN
from tests.conftest import assert_uses, captured, check


def csr_row(vals, ptr, i):
    return vals[ptr[i]:ptr[i + 1]] * 2.0          # bounds are array elements: BINARY_SLICE breaks


def csr_fill(vals, ptr, i):
    vals[ptr[i]:ptr[i + 1]] = -1.0
    return vals.sum()


def reshape_in_place(z):
    z = z * 2
    z.shape = (z.size,)                           # STORE_ATTR on an array: a break, run in plain Python
    return z + 1


def delete_by_array_index(lst, idx):
    del lst[idx[0]]
    return len(lst)


def test_slices_with_array_bounds():
    vals, ptr = np.arange(10.0), np.array([0, 3, 7, 10])
    res = check(csr_row, vals, ptr, 1, calls=[(vals, ptr, 2)])
    assert res.reasons and not res.reasons[0].fallback
    check(csr_fill, vals, ptr, 0, calls=[(vals, ptr, 2)])
    if "BINARY_SLICE" in PLAIN:
        assert_uses(csr_row, "BINARY_SLICE")


def test_attribute_write_and_delete_resume_after_the_break():
    res = check(reshape_in_place, np.ones((2, 3)))
    assert res.reasons and not res.reasons[0].fallback
    check(delete_by_array_index, [1, 2, 3], np.array([1]), calls=[([4, 5], np.array([5]))])


# ---- a literal number or None as the subject of the breaking instruction -------------------------------

def _number_or_array(n):
    if n > 0.5:
        return float(1)
    return np.ones((2, 2))


def subscripts_a_float(x, n):
    y = x * 2
    return _number_or_array(n)[:, ::-1] + y     # eagerly: TypeError when the helper returned a float


def slices_none(x, n):
    y = x * 2
    v = None if n > 0.5 else x
    return v[0:1] + y


def stores_into_a_float(x, n):
    y = x * 2
    v = float(n) if n > 0.5 else y
    v[0] = 3.0
    return y


def calls_none(x, n):
    y = x * 2
    f = None if n > 0.5 else np.sin
    return f(y)


@pytest.mark.parametrize("fn", [subscripts_a_float, slices_none, stores_into_a_float, calls_none])
def test_a_literal_subject_raises_as_eager_with_no_syntax_warning(fn):
    # the entry's plain form spelled the constant as a literal (`1.0[:, ::-1]`): compile() warned with a
    # SyntaxWarning eager never shows (fuzz seed 42090 with --warnings), or raised it as an error under -W error
    def outcome(f, *args):
        with warnings.catch_warnings(record=True) as shown:
            warnings.simplefilter("always")
            try:
                value = ("value", f(*args))
            except Exception as e:
                value = ("raised", type(e), str(e))
        return value, [(w.category, str(w.message)) for w in shown]
    compiled = md.compile(fn, options={"suppress_errors": False})
    for n in (1.0, 0.0, 2.0):
        (ev, ew), (cv, cw) = outcome(fn, np.ones(2), n), outcome(compiled, np.ones(2), n)
        assert cw == ew and ev[0] == cv[0], (cv, ev, cw, ew)
        assert ev[1:] == cv[1:] if ev[0] == "raised" else np.array_equal(ev[1], cv[1])
    captured(compiled).assert_graph_ran()
