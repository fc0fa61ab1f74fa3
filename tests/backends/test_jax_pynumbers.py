"""jax_lowering/pynumbers.py: arithmetic on Python-number graph values (unspecialized ints and floats) lowered
to int64/float64 with Python's results: overflow beyond 64 bits, zero divisors, exact int/float comparisons
and NEP 50 casts into array dtypes all run on NumPy's code generator, which gives Python's answer or error."""

from __future__ import annotations

import numpy as np
import pytest

from tests.backends.jax_support import Recorder, md
from tests.conftest import check


def run(fn, first, later):
    rec = Recorder()
    check(fn, *first, calls=later, backend=rec)
    return rec


def scaled(x, n):
    return x * (n + 1), n * 3 - 7, -n


def test_int_arithmetic_is_lowered_and_overflow_runs_python():
    rec = run(scaled, (np.arange(3.0), 4), [(np.arange(3.0), 5), (np.arange(3.0), 2 ** 62),
                                            (np.arange(3.0), -2 ** 63 + 1), (np.arange(3.0), 3)])
    assert rec.fully_lowered
    assert rec.fallbacks == 2          # 3 * 2**62 and -2**63 + 1 - 7 leave 64 bits: Python's big ints


def test_results_are_python_numbers():
    rec = Recorder()
    compiled = md.compile(lambda x, n, t: (x + n, n * 2, t / 4.0, n < t), backend=rec)
    compiled(np.ones(2), 3, 1.5)
    got = compiled(np.ones(2), 5, 2.5)      # the numbers changed: captured again as graph values
    assert got[1:] == (10, 0.625, False)
    assert type(got[1]) is int and type(got[2]) is float and type(got[3]) is bool
    assert rec.plans[-1].fully_lowered and "multiply" in str(rec.plans[-1].graph)


@pytest.mark.parametrize("d", [2, 0])
def test_division_by_zero_raises_zerodivisionerror(d):
    def divide(x, a, b):
        return x + a // b, a / b, a % b
    run(divide, (np.ones(2), 7, 3), [(np.ones(2), 9, d), (np.ones(2), -9, 4)])


def test_int_float_comparison_beyond_2_53_is_exact():
    def compare(x, n, t):
        return x * 2.0, n < t, n == t
    big = 2 ** 53 + 1
    rec = run(compare, (np.ones(2), 3, 2.5), [(np.ones(2), big, float(big)), (np.ones(2), 4, 4.0)])
    assert rec.fallbacks == 1          # 2**53 + 1 == 2**53 as floats, but Python compares exactly


def test_a_computed_int_out_of_an_arrays_range_raises_overflowerror():
    def add_square(x, n):
        return x + n * n
    rec = run(add_square, (np.ones(3, np.int8), 4), [(np.ones(3, np.int8), 11), (np.ones(3, np.int8), 12)])
    assert rec.fallbacks == 1          # 144 does not fit int8: NumPy raises OverflowError


def test_a_computed_float_beyond_float32_warns_like_numpy():
    def add_scaled(x, t):
        return x + t * 1e30
    run(add_scaled, (np.ones(3, np.float32), 2.0), [(np.ones(3, np.float32), 1e10)])


def test_powers_stay_in_python_with_the_reason():
    rec = run(lambda x, n: x * n ** 2, (np.ones(2), 3), [(np.ones(2), 4)])
    assert "power" in rec.not_lowered()
