"""A list or range of dynamic length used whole as an array index (variables/dynamic_index.py): one capture
serves every length, with NumPy's results and errors, and the list path is taken only where it is exact."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minidynamo as md

from ...conftest import check

W = np.arange(40.0).reshape(20, 2)


def gather(w, idx):
    return w[idx] * 2


def positions(w, tokens):
    return w[range(len(tokens))] + w[tokens]


def strided(w, tokens):
    return w[range(1, len(tokens), 2)].sum(axis=0)


def embed_and_mask(wte, wpe, inputs):
    """picoGPT's first lines and its causal mask."""
    x = wte[inputs] + wpe[range(len(inputs))]
    mask = (1 - np.tri(x.shape[0], dtype=x.dtype)) * -1e10
    scores = x @ x.T / np.sqrt(x.shape[-1]) + mask
    e = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return (e / e.sum(axis=-1, keepdims=True)) @ x


def _growing(n_max: int) -> list[tuple]:
    return [(W, [int(v) for v in np.arange(n) * 7 % 20]) for n in range(2, n_max)]


def test_a_growing_list_index_is_captured_twice():
    r = check(gather, W, [3], calls=_growing(12))
    assert r.stats.captures == 2 and r.stats.hits == 9
    assert "idx as an index array.shape[0]" in r.stats.dynamic_dims


def test_growing_token_lists_with_positions_and_a_causal_mask():
    rng = np.random.default_rng(0)
    wte, wpe = rng.standard_normal((50, 8)), rng.standard_normal((64, 8))
    calls = [(wte, wpe, [int(t) for t in rng.integers(0, 50, n)]) for n in range(4, 16)]
    r = check(embed_and_mask, wte, wpe, [1, 5, 7], calls=calls)
    assert r.stats.captures == 2 and r.stats.hits == len(calls) - 1


@pytest.mark.parametrize("fn, captures", [(positions, 2), (strided, 1)])
def test_range_indices_of_a_dynamic_length(fn, captures):
    """len() of an unread list is symbolic from the first capture; the list itself is specialized there."""
    r = check(fn, W, [1, 2, 3], calls=_growing(10))
    assert r.stats.captures == captures


@pytest.mark.parametrize("idx", [[], [0], [-1, -20], [19, 0], [20, 1], [-21, 0], [True, 2], [1.0, 2.0],
                                 [[0, 1], [2, 3]], [0, [1]], [2**63, 1], [np.int32(3), 4]])
def test_every_kind_of_list_after_the_switch_behaves_as_eagerly(idx):
    """After a length change made the list dynamic: empty, one item, negative, out of bounds (IndexError in
    the graph, re-run eagerly), booleans mixed in, floats, nested lists, huge ints, NumPy ints."""
    check(gather, W, [3, 4], calls=[(W, [5, 6, 7]), (W, idx), (W, [1, 2, 3, 4])])


def test_dynamic_true_takes_the_list_path_from_the_first_call():
    c = md.compile(gather, dynamic=True)
    check(gather, W, [1, 2, 3], calls=_growing(8), compiled=c)
    assert md.stats(c).captures == 1


def test_the_list_is_converted_once_per_call():
    """The check binds the conversion to a local; its guards and the graph read that local."""
    c = md.compile(gather, dynamic=True)
    c(W, [1, 2, 3])
    assert c.__minidynamo_source__.count("as_index1(idx)") == 1


def test_dynamic_false_keeps_specializing_lengths():
    c = md.compile(gather, dynamic=False)
    check(gather, W, [1, 2, 3], calls=_growing(6), compiled=c)
    assert md.stats(c).captures == 5


def appended_then_indexed(w, idx):
    idx.append(0)
    return w[idx]


def test_a_list_changed_before_the_index_keeps_the_constant_path():
    check(appended_then_indexed, W, [1, 2], calls=[(W, [3, 4, 5]), (W, [1]), (W, [6, 7, 8, 9])])


def test_the_index_array_is_not_a_view_of_anything_the_caller_holds():
    def f(w, idx):
        y = w[idx]
        y[0] = -1.0              # a copy, as eagerly: w stays as it was
        return y, w.sum()
    check(f, W.copy(), [1, 2], calls=[(W.copy(), [3, 4, 5]), (W.copy(), [0, 0, 0, 0])])


@pytest.mark.parametrize("n", [-1, 0, 1, 3, 5])
def test_tri_of_a_symbolic_int_of_any_sign(n):
    def f(x, n):
        return np.tri(n) * x
    c = md.compile(f, dynamic=True)
    for k in (n, 4, n):
        check(f, 2.0, k, compiled=c)


@given(st.lists(st.lists(st.integers(-25, 24), max_size=12), min_size=2, max_size=6), st.sampled_from([None, True]))
@settings(max_examples=40)
def test_random_lists_of_any_length_and_bounds(lists, dynamic):
    """Index lists drawn at random (empty, out of bounds, negative), called in a row on one compiled function."""
    c = md.compile(positions, dynamic=dynamic)
    for idx in lists:
        check(positions, W, idx, compiled=c)
