"""Lists and tuples of graph arrays where NumPy converts them with np.asarray (numpy-ml's logsumexp over a
list of NumPy scalars), and meta rules' limitations reported as unsupported, not as the program's exception."""

import numpy as np
import pytest

from minidynamo.capture.breaks import BreakCategory
from tests.conftest import check


def logsumexp(log_probs, axis=None):
    # numpy-ml's utils.misc.logsumexp, called by its GMM and HMM with a list of NumPy scalars
    _max = np.max(log_probs)
    ds = log_probs - _max
    exp_sum = np.exp(ds).sum(axis=axis)
    return _max + np.log(exp_sum)


def scalars_logsumexp(x, w):
    denom_vals = [np.log(w[c]) + x[c] * 2 for c in range(len(w))]
    log_denom = logsumexp(denom_vals)
    return log_denom, np.exp([num - log_denom for num in denom_vals])


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int16])
@pytest.mark.parametrize("n", [1, 3])
def test_logsumexp_of_a_list_of_numpy_scalars_is_one_graph(dtype, n):
    x, w = np.linspace(-1, 1, n).astype(dtype), np.linspace(1, 3, n).astype(dtype)
    r = check(scalars_logsumexp, x, w, calls=[(x[::-1].copy(), w)])
    assert not r.reasons and len(r.graphs) == 1


@pytest.mark.parametrize("items", [
    [np.float64(1.5), np.float64(-2.0)], [np.float32(1), np.float32(3)], [np.float32(1), 2.0],
    [np.int8(1), np.int8(-3)], [np.bool_(True), np.bool_(False)], [np.ones(2), np.zeros(2)],
    [np.ones((0, 3)), np.ones((0, 3))], [np.float16(1), np.float32(2)]])
def test_a_list_argument_reads_as_the_array_numpy_makes(items):
    def f(lst, x):
        return np.max(lst), lst - np.max(x), np.exp(lst), np.add(lst, x), lst == x, x <= tuple(lst), \
            np.sum(lst, axis=0)
    x = np.asarray(items)[:1].astype(np.float32)
    r = check(f, list(items), x, expect_graph=False)
    # the max of an empty array raises ValueError: the program's exception, raised eagerly
    assert [b.category for b in r.reasons] == ([BreakCategory.EXCEPTION] if x.size == 0 else [])


def test_operators_follow_python_where_the_sequence_wins():
    def repeat(a, b, k):
        return [a.sum(), b.sum()] * k                   # a NumPy int: Python's list repetition
    check(repeat, np.ones(2), np.ones(3), np.int64(2))

    def extend(a, b):
        lst = [a.sum()]
        lst += b                                        # list.__iadd__ takes b's items
        tup = (a.sum(),)
        tup += b                                        # tuple has no +=: rebinds to tup + b (an array)
        return lst, tup
    r = check(extend, np.ones(2), np.arange(3.0))
    assert r.reasons                                    # the list += stays Python's, at a break

    def elementwise(a, b):
        return [a.sum(), b.sum()] * np.ones(2), [a[0], b[0]] ** a[:2], (a[0], a[1]) / b[:2]
    assert not check(elementwise, np.arange(1.0, 3.0), np.arange(3.0, 6.0)).reasons


def test_ragged_and_nested_sequences_raise_as_eagerly():
    def ragged(a, b):
        return np.exp([a, b])                           # shapes (2,) and (3,): NumPy raises ValueError
    r = check(ragged, np.ones(2), np.ones(3), expect_graph=False)
    assert r.reasons[0].category == BreakCategory.UNSUPPORTED

    def nested(a):
        return np.exp([[a[0], a[1]], [a[1], a[0]]])
    check(nested, np.arange(2.0))


def test_a_list_built_by_a_long_loop_converts_like_stack():
    def rows(x):
        out = []
        for i in range(x.shape[0]):                     # past unroll_limit: a driven loop
            out.append(x[i] * i)
        return np.array(out), np.mean(out, axis=0)
    x = np.arange(200.0).reshape(100, 2)
    r = check(rows, x)
    assert [b.category for b in r.reasons] == [BreakCategory.LOOP]     # np.array and np.mean are ops


def test_a_rule_that_does_not_model_an_argument_is_unsupported_not_the_programs_exception():
    def where_sum(x):
        return np.sum(x, where=x > 0)                   # where= is NumPy's, not modelled by the rule
    r = check(where_sum, np.arange(-2.0, 3.0))
    reason = r.reasons[0]
    assert reason.category == BreakCategory.UNSUPPORTED and reason.message == "sum: unsupported keyword 'where'"

    def mismatch(a, b):
        return a @ b                                    # NumPy raises: the program's exception
    r = check(mismatch, np.ones((2, 3)), np.ones((2, 3)), expect_graph=False)
    assert r.reasons[0].category == BreakCategory.EXCEPTION
    assert not r.reasons[0].message.startswith("matmul: matmul:")


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int8, np.bool_])
def test_nested_lists_of_numpy_scalars_and_rows_stack_level_by_level(dtype):
    """A from-scratch CNN's `np.array([[q.mean() for q in col] for col in quads])`: one graph, the array
    NumPy makes (shape, dtype); parts of other dtypes or shapes keep NumPy's own conversion (a break)."""
    def grid_of_means(img):
        quads = [np.vsplit(half, 2) for half in np.hsplit(img, 2)]
        return np.array([[q.max() for q in col] for col in quads]), np.array([[img[0], img[1]], [img[1], img[0]]])

    def mixed(a, b):
        return np.array([[a[0], a[1]], [b[0], b[1]]])          # float64 and float32 scalars: NumPy promotes
    img = (np.arange(16).reshape(4, 4) % 3).astype(dtype)
    r = check(grid_of_means, img, calls=[(img[::-1].copy(),)])
    assert not r.reasons and len(r.graphs) == 1
    check(mixed, np.arange(2.0), np.arange(2.0, dtype=np.float32))
