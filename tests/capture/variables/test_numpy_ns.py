"""capture/variables/numpy_ns.py: attributes of NumPy functions and ufuncs."""

from __future__ import annotations

import numpy as np

from tests.conftest import check


def test_a_missing_attribute_of_a_numpy_function_raises_attribute_error():
    def ufunc_attr(x):
        return x + np.add.nin, np.add.no_such_attribute

    def function_attr(x):
        return np.sum.no_such_attribute

    check(ufunc_attr, np.ones(3))
    check(function_attr, np.ones(3))
