"""Python ints the graph computes whose values change no shape (`k = int(np.argmax(v))`): an int index
(`x[:, k]`, `x[k] = 0`) and a roll's shift are graph values checked when the graph runs, not breaks."""

import numpy as np
import pytest

from tests.conftest import check


def column(x, v):
    k = int(np.argmax(v))
    return x[:, k], x[k - 1], x[-k]


def rolled(x, v):
    k = int(np.argmin(v))
    return np.roll(x, k), np.roll(x, (k, -k), axis=(0, 1)), np.roll(x, shift=k, axis=-1)


def zero_row(x, v):
    k = int(v.argmax())
    x[k] = 0
    x[:, k] += 1
    return x


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8, np.bool_])
@pytest.mark.parametrize("fn", [column, rolled, zero_row])
def test_an_int_from_an_array_indexes_and_rolls_in_one_graph(fn, dtype):
    x = np.arange(12).reshape(3, 4).astype(dtype)
    v = np.array([1.0, 5.0, 2.0])
    r = check(fn, x, v, calls=[(x, v[::-1].copy()), (x, np.array([0.0, 1.0, 2.0, 9.0, 3.0]))])
    # (argmax 3 of a 5-item v: row 3 of 3 rows is NumPy's IndexError, raised eagerly with the same message)
    # (the 5-item v is a new shape; bool += 1 is NumPy's casting error, the program's own exception)
    assert {b.category.value for b in r.reasons} == ({"exception"} if fn is zero_row and dtype == np.bool_ else set())


@pytest.mark.parametrize("shape", [(0, 3), (2, 0), (1, 1)])
def test_empty_and_single_rows(shape):
    for fn in (column, rolled, zero_row):
        check(fn, np.ones(shape), np.array([0.0, 2.0]), calls=[(np.ones(shape), np.array([3.0]))])


def test_a_size_from_a_runtime_int_still_breaks():
    def window(x, v):
        k = int(np.argmax(v))
        return x[k:k + 2], np.zeros(k)              # a slice bound and a size: the shape depends on k
    r = check(window, np.arange(5.0), np.array([0.0, 3.0, 1.0]))
    assert r.reasons and r.reasons[0].category.value == "data_dependent"
